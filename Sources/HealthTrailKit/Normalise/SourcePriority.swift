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

    /// Ranks for a list of source names, ties broken by name: a total order (`SourceRanking`'s).
    public func order(_ sources: [String]) -> [Int] {
        var ranking = SourceRanking(priority: self)
        ranking.update(sources)
        let sorted = sources.indices.sorted { ranking.precedes($0, $1) }
        var order = [Int](repeating: 0, count: sources.count)
        for (position, index) in sorted.enumerated() { order[index] = position }
        return order
    }
}

/// The priority order of sources, compared two at a time: `SourcePriority.order`'s total order
/// without numbering every source.
///
/// Sources are numbered as they first appear, so a list of positions would have to be redone
/// for every new source; this keeps each source's pattern rank instead, computed once when the
/// source is added, and compares two sources by rank, then name, then index (equal names can
/// come from different bytes, e.g. composed and decomposed accents). Adding a source is O(1)
/// (the patterns are few), and so is a comparison but for the name, compared only between
/// sources of equal rank.
struct SourceRanking {
    let priority: SourcePriority
    /// Source names by index, as the decoder numbered them.
    private(set) var names: [String] = []
    /// `priority.rank(of:)` of each source, by index.
    private(set) var patternRanks: [Int] = []

    init(priority: SourcePriority) { self.priority = priority }

    /// Takes the sources added to `sources` since the last update (`sources` only grows).
    mutating func update(_ sources: [String]) {
        guard sources.count > names.count else { return }
        for name in sources[names.count...] {
            names.append(name)
            patternRanks.append(priority.rank(of: name))
        }
    }

    /// Whether source `a` comes before source `b` (both below `names.count`).
    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool {
        if patternRanks[a] != patternRanks[b] { return patternRanks[a] < patternRanks[b] }
        if a == b { return false }
        if names[a] < names[b] { return true }
        if names[b] < names[a] { return false }
        return a < b
    }
}
