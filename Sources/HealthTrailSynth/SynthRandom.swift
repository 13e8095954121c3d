/// SplitMix64: a tiny, fast, fully specified generator, so a seed gives the same archive on
/// every platform and Swift version (SystemRandomNumberGenerator and Swift's hashing are not
/// reproducible, and the standard library's random APIs may change their algorithms).
package struct SynthRandom: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// A generator for one independent stream (a type's records on one day, one route…), so each
    /// part of the file can be regenerated on its own without holding anything in memory.
    package init(seed: UInt64, stream: UInt64, index: UInt64) {
        state = seed
        state = next() ^ (stream &* 0x9E37_79B9_7F4A_7C15)
        state = next() ^ (index &* 0xD1B5_4A32_D192_ED03)
        _ = next()
    }

    @inline(__always)
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `lo...hi` (the tiny modulo bias does not matter for synthetic data).
    @inline(__always)
    package mutating func int(_ lo: Int, _ hi: Int) -> Int {
        lo + Int(next() % UInt64(hi - lo + 1))
    }

    /// Uniform in [0, 1).
    @inline(__always)
    package mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [lo, hi).
    @inline(__always)
    package mutating func double(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }

    /// True with probability `p`.
    @inline(__always)
    package mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Roughly normal (sum of uniforms), mean 0, standard deviation 1: cheap and deterministic.
    @inline(__always)
    package mutating func gauss() -> Double {
        (unit() + unit() + unit() + unit() - 2.0) * 1.7320508075688772
    }
}
