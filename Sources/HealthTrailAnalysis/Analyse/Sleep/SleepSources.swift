import HealthTrailArchive
import HealthTrailBase

/// The sources of the open session's samples, tallied by their numbers in the builder's
/// `NameBytes`: four bytes a source for its figures and four for its place in `seen`, where a
/// `String`-keyed tally took tens, for a night whose every sample has a source of its own.
package struct SleepSourceTally {
    /// By source number: 0 for a source without a sample in the session; else its best rank
    /// (`SleepSample.sourceRank` limited to 0…`maxRank`) times 4, plus 2 if it wrote an InBed
    /// sample, plus 1. Kept between sessions (cleared entry by entry), so that a session costs its
    /// own sources, not a fresh array of every source number.
    private var state: [UInt32] = []
    /// The session's source numbers, in the order of their first samples.
    private var seen: [UInt32] = []
    /// The highest rank told apart; ranks above count as it, ranks below 0 as 0.
    package static let maxRank = Int(UInt32.max >> 2)

    /// An empty tally.
    package init() {}

    /// Adds a sample, whose `sourceIndex` is set.
    package mutating func add(_ s: SleepSample) {
        let index = Int(s.sourceIndex!)
        if index >= state.count { state.append(contentsOf: repeatElement(0, count: index + 1 - state.count)) }
        let rank = UInt32(Swift.min(Swift.max(s.sourceRank, 0), Self.maxRank))
        let inBed: UInt32 = s.stage == .inBed ? 2 : 0
        let old = state[index]
        if old == 0 {
            seen.append(UInt32(index))
            state[index] = rank << 2 | inBed | 1
        } else {
            state[index] = Swift.min(old >> 2, rank) << 2 | (old & 2) | inBed | 1
        }
    }

    /// The session's named sources in the night's order, leaving the tally empty for the next
    /// session: every InBed source and the night's stage source (`nightSource`, if its stages won
    /// any time), sorted by their best rank, then by name as `String`s compare.
    ///
    /// Names of different bytes can be equal `String`s (composed and decomposed accents, the
    /// Kelvin sign and K), and one of them is then never ASCII: such names count as one source
    /// under the name whose sample came first, as when sources were tallied by `String`. Only
    /// those names are made `String`s here, and all names only when there are any.
    package mutating func takeNamed(nightSource: (name: String, index: UInt32)?, names: NameBytes) -> [UInt32] {
        var list: [UInt32] = []
        swap(&list, &seen)
        func isASCII(_ i: UInt32) -> Bool { names.withName(Int(i)) { n in (0..<n.count).allSatisfy { n[$0] < 0x80 } } }
        var spelledApart = Set<String>()
        for i in list where !isASCII(i) { spelledApart.insert(names.string(Int(i))) }
        // Each group of equal names: its first name's number and the group's figures.
        var groups: [String: (index: UInt32, state: UInt32)] = [:]
        var kept = 0
        for i in list {
            let figures = state[Int(i)]
            if !spelledApart.isEmpty {
                let name = names.string(Int(i))
                if spelledApart.contains(name) {
                    state[Int(i)] = 0
                    if let group = groups[name] {
                        let rank = Swift.min(group.state >> 2, figures >> 2)
                        groups[name] = (group.index, rank << 2 | (group.state & 2) | (figures & 2) | 1)
                    } else {
                        groups[name] = (i, figures)
                    }
                    continue
                }
            }
            // A name outside the groups equals the night source's only when it is the same bytes.
            if figures & 2 != 0 || i == nightSource?.index {
                list[kept] = i
                kept += 1
            } else {
                state[Int(i)] = 0
            }
        }
        list.removeLast(list.count - kept)
        for (name, group) in groups where group.state & 2 != 0 || name == nightSource?.name {
            state[Int(group.index)] = group.state
            list.append(group.index)
        }
        list.sort { a, b in
            let (rankA, rankB) = (state[Int(a)] >> 2, state[Int(b)] >> 2)
            return rankA != rankB ? rankA < rankB : names.compareAsStrings(Int(a), Int(b)) < 0
        }
        for i in list { state[Int(i)] = 0 }
        return list
    }
}

/// A night's source names: `String`s, or numbers of names in a `NameBytes`, so that a night
/// naming millions of sources holds four bytes a name and its row is written from the names'
/// bytes. Equal when the names are equal `String`s in the same order.
package struct SleepNightSources: Sendable, Equatable {
    private var strings: [String] = []
    private var names: NameBytes?
    private var numbers: [UInt32] = []

    /// The names `strings`.
    package init(_ strings: [String]) { self.strings = strings }

    /// The names numbered `numbers` in `names`.
    package init(_ numbers: [UInt32], in names: NameBytes) {
        self.names = names
        self.numbers = numbers
    }

    /// The names as `String`s.
    package var asStrings: [String] { names.map { names in numbers.map { names.string(Int($0)) } } ?? strings }

    /// Calls `body` with each name's UTF-8 bytes as its `String` has them (invalid UTF-8
    /// repaired), in order; a view valid inside `body` only.
    package func forEachName(_ body: (ByteSpan) -> Void) {
        if let names {
            for i in numbers {
                // ASCII is valid as it is; other bytes go through `String`, which repairs them.
                let ascii = names.withName(Int(i)) { n in (0..<n.count).allSatisfy { n[$0] < 0x80 } }
                if ascii { names.withName(Int(i), body) } else { ByteSpan.withUTF8(names.string(Int(i)), body) }
            }
        } else {
            for s in strings { ByteSpan.withUTF8(s, body) }
        }
    }

    package static func == (a: Self, b: Self) -> Bool { a.asStrings == b.asStrings }
}
