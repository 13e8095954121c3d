/// Which source wins where several wrote the same quantity for the same time.
///
/// The Health app keeps one source per time span: by default the Apple Watch, then the iPhone,
/// then other apps. Users may reorder: each pattern is matched as a case-insensitive substring
/// of the source name (`Watch` matches "Alex’s Apple Watch"); the first pattern that matches
/// gives the rank, and sources no pattern matches come last, ordered by name so results never
/// depend on the order records appear in.
public struct SourcePriority: Sendable, Equatable {
    public let patterns: [String]

    /// Apple Watch, then iPhone, then everything else.
    public static let `default` = SourcePriority(patterns: ["Watch", "iPhone"])

    public init(patterns: [String]) {
        self.patterns = patterns.map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    /// 0 for the most preferred; sources matching no pattern share the last rank.
    public func rank(of source: String) -> Int {
        let name = source.lowercased()
        return patterns.firstIndex { name.contains($0) } ?? patterns.count
    }

    /// Ranks for a list of source names, ties broken by name: a total order.
    public func order(_ sources: [String]) -> [Int] {
        let sorted = sources.indices.sorted { (rank(of: sources[$0]), sources[$0]) < (rank(of: sources[$1]), sources[$1]) }
        var order = [Int](repeating: 0, count: sources.count)
        for (position, index) in sorted.enumerated() { order[index] = position }
        return order
    }
}
