import Foundation
import Testing

@testable import HealthTrailPrivacy

// Statistical tests of the exact discrete samplers (HealthTrailPrivacy/Mechanisms).
//
// Every statistical test draws from the internal seeded generator, so it is reproducible; one
// test exercises the secure source. Each goodness-of-fit test is also run against deliberately
// broken samplers and must reject them:
//   • scale × 1.05 (Laplace t·21/20, Gaussian σ²·441/400, i.e. σ × 1.05): variance +10 %
//     (about +10.3 % for Laplace at t = 1/2 … 10, +10.25 % for the Gaussian);
//   • mean + 0.02 (adds 1 with probability 1/50).
// Power at N = 100 000 (computed with scipy's non-central χ², see Benchmarks/opendp/README.md):
// scale × 1.05 → χ² non-centrality 250–530 against critical values 43–234 (power ≈ 1), variance
// |z| ≈ 13 (Laplace) and ≈ 21 (Gaussian) against 6. Mean + 0.02 moves the mean by 0.02/σ
// standard deviations: detectable at 100 000 draws only for σ ≲ 0.7 (Laplace t = 1/2:
// mean |z| ≈ 10, Gaussian σ² = 1/2: |z| ≈ 9), so that test raises the draws with the scale
// (see testsRejectMeanPlus0_02).

/// Reference statistics for the tests (Double is fine here: this is the oracle, not the sampler).
enum DPStatistics {
    // MARK: Exact PMFs

    /// Discrete Laplace PMF, P(x) = (1−q)/(1+q)·q^|x|, q = e^(−1/t).
    static func laplacePMF(scale t: Double) -> (Int64) -> Double {
        let q = exp(-1 / t), c = -expm1(-1 / t) / (1 + q)
        return { x in c * exp(-Double(x.magnitude) / t) }
    }

    /// Discrete Gaussian PMF, normalised by summing e^(−x²/2σ²) until the terms vanish.
    static func gaussianPMF(sigmaSquared s2: Double) -> (Int64) -> Double {
        var z = 1.0, x = 1.0
        while true {
            let w = exp(-x * x / (2 * s2))
            if w < 1e-300 { break }
            z += 2 * w
            x += 1
        }
        let norm = z
        return { x in exp(-Double(x) * Double(x) / (2 * s2)) / norm }
    }

    // MARK: Special functions

    /// Regularised upper incomplete gamma Q(a, x) (series for x < a+1, continued fraction else).
    static func gammaQ(_ a: Double, _ x: Double) -> Double {
        if x <= 0 { return 1 }
        let lnPrefix = -x + a * log(x) - lgamma(a)
        if x < a + 1 {
            var sum = 1 / a, term = 1 / a, ap = a
            for _ in 0..<10_000 {
                ap += 1; term *= x / ap; sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return 1 - sum * exp(lnPrefix)
        }
        // Lentz's continued fraction.
        var b = x + 1 - a, c = 1 / 1e-300, d = 1 / b, h = d
        for i in 1..<10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b; if abs(d) < 1e-300 { d = 1e-300 }
            c = b + an / c; if abs(c) < 1e-300 { c = 1e-300 }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return exp(lnPrefix) * h
    }

    /// P(χ²_df > x).
    static func chiSquaredSurvival(_ x: Double, df: Int) -> Double { gammaQ(Double(df) / 2, x / 2) }

    /// The χ² critical value with P(χ²_df > c) = alpha, by bisection.
    static func chiSquaredCritical(df: Int, alpha: Double) -> Double {
        var lo = 0.0, hi = Double(df) + 100 + 20 * Double(df).squareRoot()
        while chiSquaredSurvival(hi, df: df) > alpha { hi *= 2 }
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if chiSquaredSurvival(mid, df: df) > alpha { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    /// Regularised incomplete beta I_x(a, b) (continued fraction, Numerical Recipes §6.4).
    static func betaI(_ x: Double, _ a: Double, _ b: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let lnFront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)
        if x < (a + 1) / (a + b + 2) { return exp(lnFront) * betaContinuedFraction(x, a, b) / a }
        return 1 - exp(lnFront) * betaContinuedFraction(1 - x, b, a) / b
    }

    private static func betaContinuedFraction(_ x: Double, _ a: Double, _ b: Double) -> Double {
        let tiny = 1e-300
        var c = 1.0, d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var h = d
        for m in 1..<1_000_000 {
            let m = Double(m), m2 = 2 * m
            var aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
            d = 1 + aa * d; if abs(d) < tiny { d = tiny }
            c = 1 + aa / c; if abs(c) < tiny { c = tiny }
            d = 1 / d; h *= d * c
            aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
            d = 1 + aa * d; if abs(d) < tiny { d = tiny }
            c = 1 + aa / c; if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-15 { break }
        }
        return h
    }

    /// The p with I_p(a, b) = target, by bisection (I is increasing in p).
    static func betaQuantile(_ target: Double, _ a: Double, _ b: Double) -> Double {
        var lo = 0.0, hi = 1.0
        for _ in 0..<100 {
            let mid = (lo + hi) / 2
            if betaI(mid, a, b) < target { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    /// One-sided Clopper–Pearson bounds for k successes in n trials, each holding with
    /// probability ≥ 1 − alpha: lower = Beta⁻¹(alpha; k, n−k+1), upper = Beta⁻¹(1−alpha; k+1, n−k).
    static func clopperPearson(successes k: Int, trials n: Int, alpha: Double) -> (lower: Double, upper: Double) {
        let lower = k == 0 ? 0 : betaQuantile(alpha, Double(k), Double(n - k + 1))
        let upper = k == n ? 1 : betaQuantile(1 - alpha, Double(k + 1), Double(n - k))
        return (lower, upper)
    }

    // MARK: Goodness of fit

    /// False-failure rate of each statistical assertion.
    static let alpha = 1e-6
    /// |z| above this fails (two-sided normal tail 2·10^−9).
    static let zLimit = 6.0

    struct Fit: CustomStringConvertible {
        var chiSquared: Double, degreesOfFreedom: Int, critical: Double
        var varianceZ: Double, meanZ: Double
        var chiSquaredRejects: Bool { chiSquared > critical }
        var varianceRejects: Bool { abs(varianceZ) > zLimit }
        var meanRejects: Bool { abs(meanZ) > zLimit }
        var description: String {
            String(
                format: "χ²=%.1f df=%d crit(1e-6)=%.2f varZ=%.2f meanZ=%.2f",
                chiSquared, degreesOfFreedom, critical, varianceZ, meanZ)
        }
    }

    /// χ² against the exact PMF: one bin per x in −m…m where N·P(x) ≥ 5, the two tails pooled
    /// (a pooled tail whose expectation is below 5 is merged into its neighbour). Plus z-tests of
    /// the second moment about 0 against `variance` (standard error from the sample fourth
    /// moment) and of the mean against 0.
    static func fit(_ samples: [Int64], pmf: (Int64) -> Double, variance: Double) -> Fit {
        let n = Double(samples.count)
        var m: Int64 = 0
        while n * pmf(m + 1) >= 5 { m += 1 }
        // Bins: index 0 = x < −m, 1…2m+1 = x, 2m+2 = x > m.
        var observed = [Double](repeating: 0, count: Int(2 * m + 3))
        var sum = 0.0, sum2 = 0.0, sum4 = 0.0
        for x in samples {
            let i = x < -m ? 0 : x > m ? Int(2 * m + 2) : Int(x + m + 1)
            observed[i] += 1
            let d = Double(x), d2 = d * d
            sum += d; sum2 += d2; sum4 += d2 * d2
        }
        var expected = (-m...m).map { n * pmf($0) }
        let inside = expected.reduce(0, +)
        let tail = (n - inside) / 2
        expected = [tail] + expected + [tail]
        var obs = observed, exp = expected
        if exp[0] < 5 { exp[1] += exp[0]; obs[1] += obs[0]; exp.removeFirst(); obs.removeFirst() }
        if exp[exp.count - 1] < 5 {
            exp[exp.count - 2] += exp[exp.count - 1]; obs[obs.count - 2] += obs[obs.count - 1]
            exp.removeLast(); obs.removeLast()
        }
        let chi = zip(obs, exp).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) / $1.1 }
        let df = exp.count - 1
        let m2 = sum2 / n, m4 = sum4 / n
        let varianceZ = (m2 - variance) / ((m4 - m2 * m2) / n).squareRoot()
        let meanZ = (sum / n) / (variance / n).squareRoot()
        return Fit(
            chiSquared: chi, degreesOfFreedom: df, critical: chiSquaredCritical(df: df, alpha: alpha),
            varianceZ: varianceZ, meanZ: meanZ)
    }

    static func draw(_ count: Int, seed: UInt64, _ sampler: (inout SeededNoiseSource) -> Int64) -> [Int64] {
        var source = SeededNoiseSource(seed: seed)
        var out = [Int64]()
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(sampler(&source)) }
        return out
    }
}

/// The broken variants the tests must reject.
enum BrokenSampler: CaseIterable, CustomStringConvertible {
    case wider   // scale × 1.05
    case shifted   // mean + 0.02

    var description: String { self == .wider ? "scale×1.05" : "mean+0.02" }

    func laplace(_ t: Rational) -> (inout SeededNoiseSource) -> Int64 {
        switch self {
        case .wider:
            let wide = t.multipliedReportingOverflow(by: Rational(21, 20))!
            return { DiscreteLaplace.sample(scale: wide, using: &$0) }
        case .shifted:
            return { DiscreteLaplace.sample(scale: t, using: &$0) + ($0.uniform(below: 50) == 0 ? 1 : 0) }
        }
    }

    func gaussian(_ s2: Rational) -> (inout SeededNoiseSource) -> Int64 {
        switch self {
        case .wider:
            let wide = s2.multipliedReportingOverflow(by: Rational(441, 400))!
            return { DiscreteGaussian.sample(sigmaSquared: wide, using: &$0) }
        case .shifted:
            return { DiscreteGaussian.sample(sigmaSquared: s2, using: &$0) + ($0.uniform(below: 50) == 0 ? 1 : 0) }
        }
    }
}

@Suite struct DiscreteSamplerTests {
    static let draws = 100_000
    static let laplaceScales = [Rational(1, 2), Rational(1), Rational(3), Rational(10)]
    static let gaussianVariances = [Rational(1, 2), Rational(1), Rational(4), Rational(25)]

    static func laplaceFit(_ t: Rational, _ sampler: (inout SeededNoiseSource) -> Int64, seed: UInt64) -> DPStatistics.Fit {
        let samples = DPStatistics.draw(draws, seed: seed, sampler)
        return DPStatistics.fit(
            samples, pmf: DPStatistics.laplacePMF(scale: t.doubleValue),
            variance: NoiseMechanism.discreteLaplace(scale: t).variance)
    }

    static func gaussianFit(_ s2: Rational, _ sampler: (inout SeededNoiseSource) -> Int64, seed: UInt64) -> DPStatistics.Fit {
        let samples = DPStatistics.draw(draws, seed: seed, sampler)
        return DPStatistics.fit(
            samples, pmf: DPStatistics.gaussianPMF(sigmaSquared: s2.doubleValue),
            variance: NoiseMechanism.discreteGaussian(sigmaSquared: s2).variance)
    }

    // MARK: The samplers fit their exact PMFs

    @Test(arguments: laplaceScales)
    func discreteLaplaceFitsExactPMF(scale: Rational) {
        let fit = Self.laplaceFit(scale, { DiscreteLaplace.sample(scale: scale, using: &$0) }, seed: 11)
        print("DiscreteLaplace t=\(scale): \(fit)")
        #expect(!fit.chiSquaredRejects, "\(fit)")
        #expect(!fit.varianceRejects, "\(fit)")
        #expect(!fit.meanRejects, "\(fit)")
    }

    @Test(arguments: gaussianVariances)
    func discreteGaussianFitsExactPMF(sigmaSquared: Rational) {
        let fit = Self.gaussianFit(sigmaSquared, { DiscreteGaussian.sample(sigmaSquared: sigmaSquared, using: &$0) }, seed: 12)
        print("DiscreteGaussian σ²=\(sigmaSquared): \(fit)")
        #expect(!fit.chiSquaredRejects, "\(fit)")
        #expect(!fit.varianceRejects, "\(fit)")
        #expect(!fit.meanRejects, "\(fit)")
    }

    // MARK: The same tests reject broken samplers

    @Test(arguments: laplaceScales)
    func laplaceTestsRejectScaleTimes1_05(scale: Rational) {
        let fit = Self.laplaceFit(scale, BrokenSampler.wider.laplace(scale), seed: 21)
        print("DiscreteLaplace t=\(scale) broken scale×1.05: \(fit)")
        #expect(fit.chiSquaredRejects, "\(fit)")
        #expect(fit.varianceRejects, "\(fit)")
    }

    @Test(arguments: gaussianVariances)
    func gaussianTestsRejectScaleTimes1_05(sigmaSquared: Rational) {
        let fit = Self.gaussianFit(sigmaSquared, BrokenSampler.wider.gaussian(sigmaSquared), seed: 22)
        print("DiscreteGaussian σ²=\(sigmaSquared) broken σ×1.05: \(fit)")
        #expect(fit.chiSquaredRejects, "\(fit)")
        #expect(fit.varianceRejects, "\(fit)")
    }

    /// Mean + 0.02 moves the mean by 0.02/σ standard deviations, so the draws are raised per
    /// scale to N = max(10^5, 250 000·σ²), which puts the broken sampler's mean at z ≈ 10
    /// (power ≈ 1 − 3·10^−5 against |z| > 6). The correct sampler is run at the same N and
    /// must pass all three tests. Laplace t = 10 (σ² ≈ 200, N ≈ 5·10^7) is left out: ~35 s in
    /// a debug build.
    @Test(arguments: [
        NoiseMechanism.discreteLaplace(scale: Rational(1, 2)), .discreteLaplace(scale: Rational(1)),
        .discreteLaplace(scale: Rational(3)), .discreteGaussian(sigmaSquared: Rational(1, 2)),
        .discreteGaussian(sigmaSquared: Rational(1)), .discreteGaussian(sigmaSquared: Rational(4)),
        .discreteGaussian(sigmaSquared: Rational(25)),
    ])
    func testsRejectMeanPlus0_02(mechanism: NoiseMechanism) {
        let n = max(Self.draws, Int((250_000 * mechanism.variance).rounded(.up)))
        let pmf: (Int64) -> Double
        let broken: (inout SeededNoiseSource) -> Int64
        switch mechanism {
        case .discreteLaplace(let t):
            pmf = DPStatistics.laplacePMF(scale: t.doubleValue)
            broken = BrokenSampler.shifted.laplace(t)
        case .discreteGaussian(let s2):
            pmf = DPStatistics.gaussianPMF(sigmaSquared: s2.doubleValue)
            broken = BrokenSampler.shifted.gaussian(s2)
        }
        let good = DPStatistics.fit(
            DPStatistics.draw(n, seed: 31, { mechanism.sample(using: &$0) }),
            pmf: pmf, variance: mechanism.variance)
        let bad = DPStatistics.fit(DPStatistics.draw(n, seed: 32, broken), pmf: pmf, variance: mechanism.variance)
        print("\(mechanism) N=\(n): correct \(good); broken mean+0.02 \(bad)")
        #expect(!good.chiSquaredRejects && !good.varianceRejects && !good.meanRejects, "\(good)")
        #expect(bad.meanRejects, "\(bad)")
    }

    // MARK: Building blocks

    @Test func exactBernoulliExpMatchesExp() {
        var source = SeededNoiseSource(seed: 41)
        let n = 200_000
        // γ = 1/3, 1 (fraction path), 5/2 (⌊γ⌋ trials + fraction), and a 128-bit numerator.
        let cases: [(String, Double, (inout SeededNoiseSource) -> Bool)] = [
            ("1/3", 1.0 / 3, { ExactBernoulli.expMinusFraction(1, over: 3, using: &$0) }),
            ("1", 1, { ExactBernoulli.expMinusOne(using: &$0) }),
            ("5/2", 2.5, { ExactBernoulli.expMinus(numeratorHigh: 0, low: 5, over: 2, using: &$0) }),
            // (2^64 + 2^63)/(2^63 + 2^62) = 2 exactly, numerator in two words.
            ("2 (128-bit)", 2, { ExactBernoulli.expMinus(numeratorHigh: 1, low: 1 << 63, over: (1 << 63) | (1 << 62), using: &$0) }),
        ]
        for (name, gamma, bernoulli) in cases {
            var hits = 0
            for _ in 0..<n where bernoulli(&source) { hits += 1 }
            let p = exp(-gamma)
            let z = (Double(hits) / Double(n) - p) / (p * (1 - p) / Double(n)).squareRoot()
            #expect(abs(z) < DPStatistics.zLimit, "Bernoulli(exp(-\(name))): z = \(z)")
        }
        // γ ≥ 2^64 (high word ≥ denominator): succeeds with probability e^−(2^64): never.
        for _ in 0..<1000 {
            #expect(!ExactBernoulli.expMinus(numeratorHigh: 5, low: 0, over: 3, using: &source))
        }
    }

    @Test func uniformBelowIsUniform() {
        var source = SeededNoiseSource(seed: 42)
        for bound: UInt64 in [3, 7, 10, 64] {
            let n = 70_000
            var counts = [Double](repeating: 0, count: Int(bound))
            for _ in 0..<n {
                let u = source.uniform(below: bound)
                #expect(u < bound)
                counts[Int(u)] += 1
            }
            let e = Double(n) / Double(bound)
            let chi = counts.reduce(0) { $0 + ($1 - e) * ($1 - e) / e }
            let critical = DPStatistics.chiSquaredCritical(df: Int(bound) - 1, alpha: DPStatistics.alpha)
            #expect(chi < critical, "uniform(below: \(bound)): χ² = \(chi) > \(critical)")
        }
        // A bound just above 2^63 rejects about half the words; values stay in range.
        let big = (UInt64(1) << 63) + 12_345
        var above = 0
        for _ in 0..<10_000 {
            let u = source.uniform(below: big)
            #expect(u < big)
            if u >= 1 << 62 { above += 1 }
        }
        #expect(abs(Double(above) / 10_000 - 0.5) < 0.05)
    }

    @Test func integerSquareRootIsExact() {
        for (p, q, m) in [
            (1, 1, 1), (1, 2, 0), (4, 1, 2), (24, 1, 4), (25, 1, 5), (25, 4, 2), (99, 4, 4), (100, 4, 5),
            ((1 << 30) - 1, 1, 32767), (1, (1 << 30) - 1, 0),
        ] as [(UInt64, UInt64, UInt64)] {
            #expect(DiscreteGaussian.floorSqrt(p: p, q: q) == m, "⌊√(\(p)/\(q))⌋")
        }
    }

    /// Outputs are integers symmetric about 0, also at the edges of the documented bounds.
    @Test func outputsAreSymmetricIntegersAtTheBounds() {
        var source = SeededNoiseSource(seed: 43)
        let cases: [(String, (inout SeededNoiseSource) -> Int64, Double)] = [
            ("Laplace 2^32", { DiscreteLaplace.sample(scale: Rational(1 << 32), using: &$0) }, Double(1 << 32)),
            ("Laplace (2^62)/(2^62-1)", { DiscreteLaplace.sample(scale: Rational(1 << 62, (1 << 62) - 1), using: &$0) }, 1),
            ("Laplace 1/2^62", { DiscreteLaplace.sample(scale: Rational(1, 1 << 62), using: &$0) }, 0),
            ("Gaussian (2^30-1)", { DiscreteGaussian.sample(sigmaSquared: Rational((1 << 30) - 1), using: &$0) }, 32768),
            ("Gaussian 1/(2^30-1)", { DiscreteGaussian.sample(sigmaSquared: Rational(1, (1 << 30) - 1), using: &$0) }, 0),
            ("Gaussian (2^30-1)/(2^30-3)", { DiscreteGaussian.sample(sigmaSquared: Rational((1 << 30) - 1, (1 << 30) - 3), using: &$0) }, 1),
        ]
        for (name, sampler, scale) in cases {
            var positive = 0, negative = 0, maxMagnitude: UInt64 = 0
            let n = 4_000
            for _ in 0..<n {
                let x = sampler(&source)
                if x > 0 { positive += 1 } else if x < 0 { negative += 1 }
                maxMagnitude = max(maxMagnitude, x.magnitude)
            }
            if scale == 0 {
                #expect(positive + negative == 0, "\(name): nonzero output at a vanishing scale")
            } else {
                let z = Double(positive - negative) / Double(positive + negative).squareRoot()
                #expect(abs(z) < DPStatistics.zLimit, "\(name): asymmetric (+\(positive) −\(negative))")
                #expect(Double(maxMagnitude) < 60 * scale, "\(name): |x| = \(maxMagnitude)")
            }
        }
    }

    // MARK: The secure source

    @Test func secureSourceDrawsFromTheRightDistribution() {
        var a = SecureNoiseSource(), b = SecureNoiseSource()
        let wordsA = (0..<4).map { _ in a.uniform(below: 1 << 63) }
        let wordsB = (0..<4).map { _ in b.uniform(below: 1 << 63) }
        #expect(wordsA != wordsB, "two secure sources gave the same 252 bits")
        let bits = (0..<256).map { _ in a.bit() }
        #expect(bits.contains(true) && bits.contains(false))
        let mechanism = NoiseMechanism.discreteLaplace(scale: Rational(3))
        let samples = mechanism.samples(count: 20_000)
        let fit = DPStatistics.fit(samples, pmf: DPStatistics.laplacePMF(scale: 3), variance: mechanism.variance)
        print("SecureNoiseSource Laplace t=3: \(fit)")
        #expect(!fit.chiSquaredRejects && !fit.varianceRejects && !fit.meanRejects, "\(fit)")
        let value = try? mechanism.noisy(1_000)
        #expect(value.map { abs($0 - 1_000) < 200 } == true)
    }

    // MARK: Mechanism parameters and reporting

    @Test func rationalParsesDecimalsExactly() {
        #expect(Rational("0.5") == Rational(1, 2))
        #expect(Rational("3/1") == Rational(3))
        #expect(Rational(" 1.25 / 0.5 ") == Rational(5, 2))
        #expect(Rational("1e-3") == Rational(1, 1000))
        #expect(Rational("2.5E1") == Rational(25))
        #expect(Rational(".1") == Rational(1, 10))
        #expect(Rational("-4/6") == Rational(-2, 3))
        #expect(Rational(6, -4) == Rational(-3, 2))
        #expect(Rational(-3, 2).denominator == 2)
        for bad in ["", ".", "1/0", "1/2/3", "abc", "1.2.3", "0x10", "99999999999999999999", "1e40", "--1"] {
            #expect(Rational(bad) == nil, "\(bad)")
        }
        #expect(Rational("0.1")!.description == "1/10")
    }

    @Test func mechanismsFromPrivacyParameters() throws {
        #expect(try NoiseMechanism.laplace(sensitivity: 1, epsilon: Rational("0.5")!) == .discreteLaplace(scale: Rational(2)))
        #expect(try NoiseMechanism.laplace(sensitivity: 3, epsilon: Rational("1.5")!) == .discreteLaplace(scale: Rational(2)))
        #expect(try NoiseMechanism.laplace(sensitivity: 10, epsilon: Rational("0.3")!) == .discreteLaplace(scale: Rational(100, 3)))
        #expect(try NoiseMechanism.gaussian(sensitivity: 2, rho: Rational("0.5")!) == .discreteGaussian(sigmaSquared: Rational(4)))
        #expect(try NoiseMechanism.gaussian(sensitivity: 1, rho: Rational(1, 8)) == .discreteGaussian(sigmaSquared: Rational(4)))
        #expect(try NoiseMechanism.gaussian(sensitivity: 3, rho: Rational(2)) == .discreteGaussian(sigmaSquared: Rational(9, 4)))
        #expect(throws: NoiseParameterError.self) { try NoiseMechanism.laplace(sensitivity: 0, epsilon: Rational(1)) }
        #expect(throws: NoiseParameterError.self) { try NoiseMechanism.laplace(sensitivity: 1, epsilon: Rational(-1)) }
        #expect(throws: NoiseParameterError.self) { try NoiseMechanism.laplace(sensitivity: 1 << 40, epsilon: Rational(1, 1 << 20)) }
        #expect(throws: NoiseParameterError.self) { try NoiseMechanism.gaussian(sensitivity: 1 << 15, rho: Rational(1, 2)) }
        #expect(throws: NoiseParameterError.self) { try NoiseMechanism.gaussian(sensitivity: 1, rho: Rational(0)) }
        #expect(throws: NoiseParameterError.self) { try NoiseMechanism.discreteGaussian(sigmaSquared: Rational(1 << 31)).validate() }
        try NoiseMechanism.discreteLaplace(scale: Rational(1 << 32)).validate()
        #expect(throws: NoiseParameterError.self) { try NoiseMechanism.discreteLaplace(scale: Rational((1 << 32) + 1)).validate() }
    }

    @Test(arguments: [
        NoiseMechanism.discreteLaplace(scale: Rational(1, 2)), .discreteLaplace(scale: Rational(1)),
        .discreteLaplace(scale: Rational(10)), .discreteLaplace(scale: Rational(1000)),
        .discreteGaussian(sigmaSquared: Rational(1, 2)), .discreteGaussian(sigmaSquared: Rational(4)),
        .discreteGaussian(sigmaSquared: Rational(25)), .discreteGaussian(sigmaSquared: Rational(1_000_000)),
    ])
    func varianceAndErrorBarMatchThePMF(mechanism: NoiseMechanism) {
        let pmf: (Int64) -> Double
        switch mechanism {
        case .discreteLaplace(let t): pmf = DPStatistics.laplacePMF(scale: t.doubleValue)
        case .discreteGaussian(let s2): pmf = DPStatistics.gaussianPMF(sigmaSquared: s2.doubleValue)
        }
        var variance = 0.0, x: Int64 = 1
        while true {
            let p = pmf(x)
            if p < 1e-300 || x > 10_000_000 { break }
            variance += 2 * Double(x) * Double(x) * p
            x += 1
        }
        #expect(abs(mechanism.variance / variance - 1) < 1e-9, "\(mechanism): \(mechanism.variance) vs \(variance)")
        let k = mechanism.errorBar95()
        func inside(_ k: Int64) -> Double { k < 0 ? 0 : (1...max(1, k)).reduce(pmf(0)) { $0 + (k == 0 ? 0 : 2 * pmf($1)) } }
        #expect(inside(k) >= 0.95, "\(mechanism): P(|X| ≤ \(k)) = \(inside(k))")
        #expect(inside(k - 1) < 0.95, "\(mechanism): P(|X| ≤ \(k - 1)) = \(inside(k - 1))")
    }
}
