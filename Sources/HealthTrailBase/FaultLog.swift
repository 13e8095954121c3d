/// A skippable fault: one malformed record, counted and reported instead of failing the run.
public struct Fault: Codable, Sendable, Equatable {
    /// The entry the fault is in (e.g. `apple_health_export/export.xml`).
    public var entry: String
    /// 1-based line of the element.
    public var line: Int
    /// A stable kind for counting: `bad_date`, `non_numeric_value`, `missing_value`, ...
    public var kind: String
    /// What was wrong, without the value itself (health data stays out of logs).
    public var message: String
}

/// Collects faults; under `--strict` the first one becomes fatal.
public final class FaultLog {
    public let strict: Bool
    public let file: String
    /// Faults kept with detail; beyond this only the counts grow.
    public let keep: Int
    public private(set) var total = 0
    public private(set) var countsByKind: [String: Int] = [:]
    public private(set) var first: [Fault] = []

    public init(file: String, strict: Bool, keep: Int = 100) {
        self.file = file
        self.strict = strict
        self.keep = keep
    }

    /// Adds the faults another log (a worker thread's) recorded.
    public func absorb(_ other: FaultLog) {
        total += other.total
        for (kind, n) in other.countsByKind { countsByKind[kind, default: 0] += n }
        first.append(contentsOf: other.first.prefix(max(0, keep - first.count)))
    }

    /// Records a fault; returns the fatal error to raise under `--strict`, else nil.
    @discardableResult
    public func record(entry: String, line: Int, kind: String, _ message: String) -> InputError? {
        total += 1
        countsByKind[kind, default: 0] += 1
        if first.count < keep { first.append(Fault(entry: entry, line: line, kind: kind, message: message)) }
        return strict ? InputError(file: file, entry: entry, line: line, message + " (--strict)") : nil
    }
}
