import Foundation

/// What one release costs, as its mechanism guarantees it.
///
/// - `pureDP(epsilon:)`: ε-differential privacy (the discrete Laplace / geometric mechanism).
/// - `zCDP(rho:)`: ρ-zero-concentrated differential privacy (the discrete Gaussian mechanism:
///   ρ = Δ² / (2σ²) for sensitivity Δ and variance parameter σ²; Canonne, Kamath & Steinke 2020).
///
/// The caller computes the cost from its mechanism's parameters; the ledger only adds them up.
package enum PrivacyCost: Hashable, Sendable, CustomStringConvertible {
    case pureDP(epsilon: Rational)
    case zCDP(rho: Rational)

    /// The cost in ρ (zCDP): ρ itself, or ε²/2 for a pure ε release, since ε-DP implies
    /// (ε²/2)-zCDP (Bun & Steinke 2016, Proposition 1.4). Nil only on arithmetic overflow.
    package var rho: Rational? {
        switch self {
        case .pureDP(let epsilon): return epsilon.multipliedReportingOverflow(by: epsilon)?.multipliedReportingOverflow(by: Rational(1, 2))
        case .zCDP(let rho): return rho
        }
    }

    /// The pure ε of the release, or nil for a zCDP release (which has no finite pure ε).
    package var epsilon: Rational? {
        if case .pureDP(let epsilon) = self { return epsilon }
        return nil
    }

    package var description: String {
        switch self {
        case .pureDP(let epsilon): return "ε = \(epsilon)"
        case .zCDP(let rho): return "ρ = \(rho)"
        }
    }
}

/// The configured total privacy loss the ledger may ever spend. At least one must be given; each
/// one given is a promise about *everything* the ledger has released, and every release must
/// keep every given promise.
///
/// - `epsilon`: the whole ledger is ε-DP, by **basic composition** (ε's add up). Only pure ε
///   releases (discrete Laplace) can be charged against it: a zCDP release has no finite pure ε,
///   so with an `epsilon` limit discrete Gaussian releases are refused.
/// - `rho`: the whole ledger is ρ-zCDP. zCDP composes additively (ρ's add up), and a pure ε
///   release is charged ε²/2 (ε-DP ⇒ ε²/2-zCDP), so Laplace and Gaussian releases share one
///   budget. Summing ε²/2 per release is tighter than converting the summed ε once.
///
/// Why not two independent budgets (ε for Laplace, ρ for Gaussian)? Because the person's total
/// loss is the composition of both; two separate totals would each look fine while the real
/// guarantee is their combination. Converting to ρ states that combination as one number.
/// (A ρ-zCDP guarantee gives (ρ + 2√(ρ ln(1/δ)), δ)-DP for every δ > 0.)
///
/// - `renyi`: the whole ledger is (ε, δ)-DP, by **Rényi accounting** (`RenyiAccountant`): every
///   release adds its Rényi curve, a Laplace release that of randomized response with its ε,
///   and the composed curve must convert to at most ε at δ. Tighter than a ρ limit for specs
///   that mix Laplace and Gaussian releases, and stated in the standard (ε, δ) form.
package struct BudgetLimit: Hashable, Sendable, CustomStringConvertible {
    package var epsilon: Rational?
    package var rho: Rational?
    package var renyi: RenyiLimit?

    /// An (ε, δ)-DP target, held by Rényi accounting; exact fractions, as written in the ledger.
    package struct RenyiLimit: Hashable, Sendable, CustomStringConvertible {
        package var epsilon: Rational
        /// 0 < δ < 1.
        package var delta: Rational

        package init(epsilon: Rational, delta: Rational) {
            self.epsilon = epsilon
            self.delta = delta
        }

        package var description: String { "(ε, δ) = (\(epsilon), \(delta.doubleValue)) by Rényi accounting" }
    }

    package init(epsilon: Rational? = nil, rho: Rational? = nil, renyi: RenyiLimit? = nil) {
        self.epsilon = epsilon
        self.rho = rho
        self.renyi = renyi
    }

    package var description: String {
        [epsilon.map { "ε = \($0)" }, rho.map { "ρ = \($0)" }, renyi.map(\.description)].compactMap { $0 }
            .joined(separator: ", ")
    }
}

/// What the ledger has spent, exactly.
package struct Spent: Hashable, Sendable, CustomStringConvertible {
    /// Σ ε over pure ε releases (basic composition).
    package var epsilon: Rational = LedgerArithmetic.zero
    /// Σ ρ over every release, pure ε releases counted as ε²/2.
    package var rho: Rational = LedgerArithmetic.zero
    /// Releases charged with a pure ε cost.
    package var pureReleases = 0
    /// Releases charged with a zCDP cost.
    package var zcdpReleases = 0
    /// The Rényi curve of every release composed (`RDPCurve`), in `Double`.
    package var rdp = RDPCurve.zero

    package init() {}

    package var releases: Int { pureReleases + zcdpReleases }

    package var description: String {
        "ε = \(epsilon) over \(pureReleases) pure release(s), ρ = \(rho) over \(releases) release(s)"
    }
}

/// A release the ledger has recorded: what it cost and the noisy result it stored.
package struct StoredRelease: Hashable, Sendable {
    /// The sequence number (= line number) of the entry that reserved it.
    package var seq: Int
    package var releaseID: String
    package var fingerprint: String
    package var mechanism: String
    package var cost: PrivacyCost
    /// When it was reserved, `2024-01-02T15:31:22Z`.
    package var timeUTC: String
    /// The noisy result, exactly as drawn when it was reserved (checked against `resultSHA256`).
    package var result: Data
    package var resultSHA256: String
    /// Whether a `published` entry follows the reservation. A reserved release that is not
    /// published is one whose run stopped between recording and publishing: publish `result`
    /// and call `markPublished` (it costs nothing more).
    package var isPublished: Bool
}

/// The answer to `reserve`: the release to publish and whether this call charged the budget.
package struct Reservation: Hashable, Sendable {
    /// The recorded release. Always publish `release.result`: when `charged` is false it is the
    /// stored result of an earlier run, and the caller's fresh draw must be thrown away.
    package var release: StoredRelease
    /// True when this call appended the reservation and spent budget; false when the same
    /// release on the same data was already recorded (a replay: nothing spent, nothing appended).
    package var charged: Bool
}

/// Why the ledger refused. The description is one line: `ledger <path>: line N: message`.
/// Like every HealthTrail message it names files, lines, release ids and budgets, never a value
/// from the health data.
package struct LedgerError: Error, CustomStringConvertible, Equatable, Sendable {
    package enum Kind: String, Sendable {
        /// The file does not verify: hash chain broken, lines deleted, reordered, truncated, or
        /// a stored result changed. The ledger refuses every further release until a person
        /// has looked at it.
        case tampered
        /// The release would exceed the configured limit; nothing was written.
        case overBudget
        /// The call itself is wrong (bad release id, fingerprint, cost, limit, unknown seq).
        case invalid
        /// Another run held the ledger's lock for longer than the timeout.
        case locked
        /// The file system failed (permissions, disk full).
        case io
        /// The ledger is not this subject's under this key, or it was opened with another
        /// budget limit than the one configured: a ledger's subject and limit never change.
        case mismatch
    }

    package var kind: Kind
    package var path: String
    package var line: Int?
    package var message: String

    package init(_ kind: Kind, path: String, line: Int? = nil, _ message: String) {
        self.kind = kind
        self.path = path
        self.line = line
        self.message = message
    }

    package var description: String {
        "ledger \(path)" + (line.map { ": line \($0)" } ?? "") + ": \(message)"
    }
}

/// The local dates a day- or workout-level release reads, `first`…`last` (`yyyy-MM-dd`, both
/// included). Two releases whose periods do not overlap read disjoint days (or workouts), so
/// for those units they compose in parallel: the ledger charges each day only the releases
/// that read it.
package struct LedgerPeriod: Hashable, Sendable, CustomStringConvertible {
    package let first: String
    package let last: String

    /// Nil unless both are dates `yyyy-MM-dd` with `first` ≤ `last`.
    package init?(first: String, last: String) {
        guard Self.isDate(first), Self.isDate(last), first <= last else { return nil }
        (self.first, self.last) = (first, last)
    }

    /// Whether `day` (`yyyy-MM-dd`) lies in the period. Dates in this form order as strings.
    package func contains(_ day: String) -> Bool { first <= day && day <= last }

    package var description: String { "\(first)…\(last)" }

    private static func isDate(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 10, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-") else { return false }
        return u.indices.allSatisfy { $0 == 4 || $0 == 7 || (u[$0] >= 0x30 && u[$0] <= 0x39) }
    }
}
