import HealthTrailArchive
import HealthTrailBase

/// Which source wins where several wrote the same quantity for the same time.
///
/// The Health app keeps one source per time span: by default the Apple Watch, then the iPhone,
/// then other apps. Users may reorder: each pattern is matched as a case-insensitive substring
/// of the source name (`Watch` matches "Alex’s Apple Watch"); the first pattern that matches
/// gives the rank, and sources no pattern matches come last, ordered by name so results never
/// depend on the order records appear in.
package struct SourcePriority: Sendable, Equatable {
    package let patterns: [String]

    /// Apple Watch, then iPhone, then everything else.
    package static let `default` = SourcePriority(patterns: ["Watch", "iPhone"])

    /// The patterns' bytes when every pattern is printable ASCII (they nearly always are), for
    /// `rank(of:)`'s byte search; nil otherwise.
    private let printableASCIIPatterns: [[UInt8]]?

    package init(patterns: [String]) {
        self.patterns = patterns.map { $0.lowercased() }.filter { !$0.isEmpty }
        let bytes = self.patterns.map { Array($0.utf8) }
        printableASCIIPatterns = bytes.allSatisfy { $0.allSatisfy(SourcePriority.isPrintableASCII) } ? bytes : nil
    }

    /// 0 for the most preferred; sources matching no pattern share the last rank.
    package func rank(of source: String) -> Int {
        if let rank = printableASCIIRank(of: source) { return rank }
        let name = source.lowercased()
        return patterns.firstIndex { name.contains($0) } ?? patterns.count
    }

    /// `rank(of:)` by bytes, when the name and the patterns are all printable ASCII: then
    /// lowercasing is ASCII's and a match is a run of equal bytes, as the Unicode-aware search
    /// finds it, at a fraction of its cost (a run meets every source once). Nil otherwise.
    private func printableASCIIRank(of source: String) -> Int? {
        guard let patterns = printableASCIIPatterns else { return nil }
        let name = Array(source.utf8)
        guard name.allSatisfy(SourcePriority.isPrintableASCII) else { return nil }
        return Self.asciiRank(of: name, patterns: patterns)
    }

    private static func asciiRank<Name: RandomAccessCollection<UInt8>>(of name: Name, patterns: [[UInt8]]) -> Int
    where Name.Index == Int {
        patterns.firstIndex { pattern in
            guard pattern.count <= name.count else { return false }
            return (0...(name.count - pattern.count)).contains { offset in
                pattern.indices.allSatisfy { SourcePriority.asciiLowercase(name[name.startIndex + offset + $0]) == pattern[$0] }
            }
        } ?? patterns.count
    }

    private static func isPrintableASCII(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }
    private static func asciiLowercase(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

    /// Ranks for a list of source names, ties broken by name: a total order (`SourceRanking`'s).
    package func order(_ sources: [String]) -> [Int] {
        var ranking = SourceRanking(priority: self)
        ranking.update(sources)
        return ranking.order.map { Int($0) }
    }

    /// `rank(of:)` for a name's bytes (invalid UTF-8 read as `String` repairs it).
    func rank(of name: ByteSpan) -> Int {
        if let patterns = printableASCIIPatterns, name.buffer.allSatisfy(SourcePriority.isPrintableASCII) {
            return Self.asciiRank(of: name.buffer, patterns: patterns)
        }
        return rank(of: name.string)
    }
}

/// The priority order of sources, compared two at a time: `SourcePriority.order`'s total order
/// without numbering every source.
///
/// Sources are numbered as they first appear, so a list of positions would have to be redone
/// for every new source; this keeps each source's pattern rank instead, computed once when the
/// source is added, and compares two sources by rank, then name (as `String`s), then index
/// (equal names can come from different bytes, e.g. composed and decomposed accents). Adding a
/// source is O(1) (the patterns are few), and so is a comparison but for the name, compared only
/// between sources of equal rank. The names are the decoder's own (`NameBytes`), not a copy.
package struct SourceRanking: Sendable {
    package let priority: SourcePriority
    /// Source names by index, as the decoder numbered them; ranked up to `patternRanks.count`.
    package private(set) var names: NameBytes
    /// `priority.rank(of:)` of each source, by index; ranks past 65,534 patterns share the last.
    package private(set) var patternRanks: [UInt16] = []

    package init(priority: SourcePriority, names: NameBytes = NameBytes()) {
        self.priority = priority
        self.names = names
    }

    /// Ranks the sources added to `names` since the last update; `names` replaces the ones
    /// ranked so far (all are ranked again) when it is another store.
    package mutating func update(names: NameBytes) {
        if names !== self.names {
            self.names = names
            patternRanks = []
        }
        for index in patternRanks.count..<names.count {
            let rank = names.withName(index) { priority.rank(of: $0) }
            patternRanks.append(UInt16(Swift.min(rank, Int(UInt16.max))))
        }
    }

    /// Adds the names of `sources` past those ranked (`sources` only grows) to this ranking's
    /// own store and ranks them: for a list of names that is not a decoder's.
    package mutating func update(_ sources: [String]) {
        guard sources.count > names.count else { return }
        for name in sources[names.count...] { _ = names.append(name) }
        update(names: names)
    }

    /// The position of each source in the order (0 best), by index: `SourcePriority.order`.
    package var order: [UInt32] {
        let count = patternRanks.count
        var sorted = (0..<count).map { UInt32($0) }
        sorted.sort { precedes(Int($0), Int($1)) }
        var order = [UInt32](repeating: 0, count: count)
        for (position, index) in sorted.enumerated() { order[Int(index)] = UInt32(position) }
        return order
    }

    /// Whether source `a` comes before source `b` (both below `patternRanks.count`).
    @inline(__always)
    package func precedes(_ a: Int, _ b: Int) -> Bool {
        if patternRanks[a] != patternRanks[b] { return patternRanks[a] < patternRanks[b] }
        if a == b { return false }
        let byName = names.compareAsStrings(a, b)
        return byName != 0 ? byName < 0 : a < b
    }
}
