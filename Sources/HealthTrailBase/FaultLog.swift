/// A skippable fault: one malformed record, counted and reported instead of failing the run.
package struct Fault: Codable, Sendable, Equatable {
    /// The entry the fault is in (e.g. `apple_health_export/export.xml`).
    package var entry: String
    /// 1-based line of the element.
    package var line: Int
    /// A stable kind for counting: `bad_date`, `non_numeric_value`, `missing_value`, ...
    package var kind: String
    /// What was wrong, without the value itself (health data stays out of logs).
    package var message: String
}

/// Collects faults; under `--strict` the first one becomes fatal.
package final class FaultLog {
    package let strict: Bool
    package let file: String
    /// Faults kept with detail; beyond this only the counts grow.
    package let keep: Int
    package private(set) var total = 0
    package private(set) var countsByKind: [String: Int] = [:]
    package private(set) var first: [Fault] = []

    package init(file: String, strict: Bool, keep: Int = 100) {
        self.file = file
        self.strict = strict
        self.keep = keep
    }

    /// Adds the faults another log (a worker thread's) recorded.
    package func absorb(_ other: FaultLog) {
        total += other.total
        for (kind, n) in other.countsByKind { countsByKind[kind, default: 0] += n }
        first.append(contentsOf: other.first.prefix(max(0, keep - first.count)))
    }

    /// Records a fault; returns the fatal error to raise under `--strict`, else nil.
    @discardableResult
    package func record(entry: String, line: Int, kind: String, _ message: String) -> InputError? {
        total += 1
        countsByKind[kind, default: 0] += 1
        if first.count < keep { first.append(Fault(entry: entry, line: line, kind: kind, message: message)) }
        return strict ? InputError(file: file, entry: entry, line: line, message + " (--strict)") : nil
    }
}
