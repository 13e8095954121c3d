import ArgumentParser
import HealthTrailKit
import HealthTrailPrivacy

/// `healthtrail dp-sample`: raw noise draws, for comparing the samplers with other libraries
/// (a developer's tool, hidden from user help).
struct DPSampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dp-sample",
        abstract: "Print noise samples of a mechanism, one per line (for checking the samplers).",
        discussion: """
            Draws from the same exact samplers and secure random source releases use. Used by \
            Benchmarks/opendp/compare_laplace.py to compare HealthTrail's discrete Laplace with OpenDP's:
              healthtrail dp-sample --mechanism laplace --scale 3/1 --count 100000
            """,
        // A developer's tool: left out of `healthtrail --help`, the man page's command list and
        // the completions, but still runnable by name.
        shouldDisplay: false
    )

    @Option(help: "laplace or gaussian.")
    var mechanism: String = "laplace"

    @Option(help: ArgumentHelp("Laplace scale t, exact: 3, 3/1, 0.5.", valueName: "t"))
    var scale: String?

    @Option(help: ArgumentHelp("Gaussian variance σ², exact: 4, 1/2.", valueName: "σ²"))
    var sigmaSquared: String?

    @Option(help: "How many samples.")
    var count: Int = 10

    @OptionGroup var versionOption: VersionOption

    func run() throws {
        let noise: NoiseMechanism
        switch mechanism {
        case "laplace":
            guard let t = scale.flatMap(Rational.init) else { throw ValidationError("--scale needs an exact positive number") }
            noise = .discreteLaplace(scale: t)
        case "gaussian":
            guard let s = sigmaSquared.flatMap(Rational.init) else { throw ValidationError("--sigma-squared needs an exact positive number") }
            noise = .discreteGaussian(sigmaSquared: s)
        default:
            throw ValidationError("--mechanism must be laplace or gaussian")
        }
        do { try noise.validate() } catch { throw ValidationError("\(error)") }
        guard count > 0 && count <= 100_000_000 else { throw ValidationError("--count must be 1…100000000") }
        var text = ""
        text.reserveCapacity(count * 4)
        for v in noise.samples(count: count) { text += "\(v)\n" }
        print(text, terminator: "")
    }
}
