// Where the randomness of the noise mechanisms comes from.
//
// Design (why a release cannot run on a seeded generator):
// - `NoiseSource` is a protocol so the exact samplers (`DiscreteLaplace`, `DiscreteGaussian`) can
//   be driven by any source, like the standard library's `random(using:)`.
// - The ONLY conforming type other targets can name is `SecureNoiseSource` (the operating system's CSPRNG
//   through `SystemRandomNumberGenerator`: getrandom(2) on Linux, arc4random on Darwin).
// - The release path, `NoiseMechanism.sample()`, `samples(count:)` and `noisy(_:)`, takes no
//   source at all: it constructs a `SecureNoiseSource` itself. Nothing a user or a configuration
//   file can set selects anything else.
// - The seedable generator, `SeededNoiseSource`, is `internal`: it is visible to this module and
//   to `@testable import HealthTrailPrivacy` (its test target) only. Every other target of the
//   package, the `healthtrail` executable included, imports the module normally and cannot name
//   it, so no code path of the CLI can select it.

/// A source of uniformly random integers and bits for the exact noise samplers.
///
/// Conforming types must return *exactly* uniform values (by rejection, never by `%` alone or
/// by scaling a floating-point number). Releases always use ``SecureNoiseSource``.
package protocol NoiseSource {
    /// A uniformly random integer in `0..<n`. - Precondition: `n > 0`.
    mutating func uniform(below n: UInt64) -> UInt64
    /// A uniformly random bit (a fair coin).
    mutating func bit() -> Bool
}

/// Exactly uniform in `0..<n` from 64-bit words: Lemire's multiply-and-reject method.
///
/// `word × n` spreads the 2^64 words over `n` buckets of ⌊2^64/n⌋ or ⌈2^64/n⌉ words; the low
/// half tells which words fall in the 2^64 mod n surplus, which are rejected and redrawn, so
/// every bucket keeps exactly ⌊2^64/n⌋ words.
@inline(__always)
package func uniformWord<G: RandomNumberGenerator>(below n: UInt64, from generator: inout G) -> UInt64 {
    precondition(n > 0, "uniform(below: 0)")
    if n & (n &- 1) == 0 { return generator.next() & (n &- 1) }   // a power of two: mask
    var product = generator.next().multipliedFullWidth(by: n)
    if product.low < n {
        let threshold = (0 &- n) % n   // 2^64 mod n
        while product.low < threshold { product = generator.next().multipliedFullWidth(by: n) }
    }
    return product.high
}

/// Hands out the 64 bits of one word one at a time, so a fair coin costs 1/64 of a draw.
package struct BitBuffer {
    private var word: UInt64 = 0
    private var remaining = 0

    @inline(__always)
    package mutating func bit<G: RandomNumberGenerator>(from generator: inout G) -> Bool {
        if remaining == 0 { word = generator.next(); remaining = 64 }
        remaining -= 1
        let b = word & 1 == 1
        word >>= 1
        return b
    }
}

/// Noise from the operating system's cryptographically secure generator
/// (`SystemRandomNumberGenerator`: getrandom(2) on Linux). The only public ``NoiseSource``, and
/// the one every release uses.
package struct SecureNoiseSource: NoiseSource {
    private var generator = SystemRandomNumberGenerator()
    private var bits = BitBuffer()

    package init() {}

    package mutating func uniform(below n: UInt64) -> UInt64 { uniformWord(below: n, from: &generator) }
    package mutating func bit() -> Bool { bits.bit(from: &generator) }
}

/// A seedable, NOT secure generator (xoshiro256**, seeded through SplitMix64) so that the
/// statistical tests are reproducible. Internal on purpose: only `@testable import` reaches it,
/// so it cannot be selected by a release (see the design note at the top of this file).
struct SeededNoiseSource: NoiseSource {
    private struct Xoshiro256StarStar: RandomNumberGenerator {
        var s: (UInt64, UInt64, UInt64, UInt64)

        init(seed: UInt64) {
            var x = seed
            func splitMix() -> UInt64 {
                x &+= 0x9E37_79B9_7F4A_7C15
                var z = x
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
            s = (splitMix(), splitMix(), splitMix(), splitMix())
        }

        @inline(__always)
        mutating func next() -> UInt64 {
            let result = ((s.1 &* 5) << 7 | (s.1 &* 5) >> 57) &* 9
            let t = s.1 << 17
            s.2 ^= s.0; s.3 ^= s.1; s.1 ^= s.2; s.0 ^= s.3
            s.2 ^= t
            s.3 = s.3 << 45 | s.3 >> 19
            return result
        }
    }

    private var generator: Xoshiro256StarStar
    private var bits = BitBuffer()

    init(seed: UInt64) { generator = Xoshiro256StarStar(seed: seed) }

    mutating func uniform(below n: UInt64) -> UInt64 { uniformWord(below: n, from: &generator) }
    mutating func bit() -> Bool { bits.bit(from: &generator) }
}
