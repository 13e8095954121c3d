/// A set of disjoint half-open time spans that grows a span at a time: a treap, i.e. a binary
/// search tree by start kept balanced by random node priorities, so that adding a span, testing
/// a moment and stepping to the next span each cost O(log n) expected, whatever the set holds.
///
/// De-duplication (`CumulativeSeries`) adds the spans of each source in turn to those of every
/// better source; a sorted array (`IntervalSet`) would be rebuilt whole for each source, which
/// for a cluster of many sources is the square of its samples. Spans that overlap or touch are
/// merged as `IntervalSet` merges them (a span `[t, t)` stays only where no other span reaches
/// `t`), so both give the same gaps.
///
/// Nodes live in arrays, indexed by `Int` (`none` for no node). A span swallowed by a merge
/// keeps its node until `removeAll`, so the arrays hold at most one node per span inserted.
package struct SpanTree {
    private static let none = -1

    private var starts: [Int64] = []
    private var ends: [Int64] = []
    private var left: [Int] = []
    private var right: [Int] = []
    private var priorities: [UInt64] = []
    private var root = SpanTree.none
    /// SplitMix64 state for node priorities: fixed, so a run is reproducible (the set's content
    /// never depends on them, only its shape).
    private var randomState: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Removes every span, keeping the arrays' memory.
    package mutating func removeAll() {
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        left.removeAll(keepingCapacity: true)
        right.removeAll(keepingCapacity: true)
        priorities.removeAll(keepingCapacity: true)
        root = SpanTree.none
    }

    /// Adds spans (in any order), merging overlaps.
    package mutating func insert(contentsOf spans: [(Int64, Int64)]) {
        for (start, end) in spans { insert(start, end) }
    }

    /// Adds `[start, end)` (`end >= start`), merged with every span it overlaps or touches.
    package mutating func insert(_ start: Int64, _ end: Int64) {
        var start = start, end = end
        var (before, after) = split(root, startingBefore: start, orAt: false)
        // The last span before may reach `start`: the new span extends it.
        let last = rightmost(before)
        if last != SpanTree.none, ends[last] >= start {
            start = starts[last]
            end = max(end, ends[last])
            before = split(before, startingBefore: start, orAt: false).0
        }
        // Spans starting up to `end` are swallowed; the last of them ends furthest.
        let (swallowed, rest) = split(after, startingBefore: end, orAt: true)
        if swallowed != SpanTree.none { end = max(end, ends[rightmost(swallowed)]) }
        root = merge(merge(before, node(start, end)), rest)
    }

    /// Whether a span covers `t`.
    package func contains(_ t: Int64) -> Bool {
        let (atOrBefore, _) = neighbours(of: t)
        return atOrBefore != SpanTree.none && t < ends[atOrBefore]
    }

    /// Calls `body` with each part of [a, b) no span covers, in order (no allocation).
    package func forEachGap(in a: Int64, _ b: Int64, _ body: (Int64, Int64) -> Void) {
        var t = a
        var span = firstEnding(after: a)
        while t < b {
            if span == SpanTree.none || starts[span] >= b {
                body(t, b)
                break
            }
            if starts[span] > t { body(t, starts[span]) }
            t = max(t, ends[span])
            span = neighbours(of: starts[span]).after
        }
    }

    /// The spans, in order (for tests).
    package var spans: [(Int64, Int64)] {
        var result: [(Int64, Int64)] = []
        var stack: [Int] = []
        var n = root
        while n != SpanTree.none || !stack.isEmpty {
            while n != SpanTree.none { stack.append(n); n = left[n] }
            n = stack.removeLast()
            result.append((starts[n], ends[n]))
            n = right[n]
        }
        return result
    }

    /// Nodes on the longest path from the root (for tests: about 3 log₂ n for n spans).
    package var height: Int {
        var deepest = 0
        var stack = root == SpanTree.none ? [] : [(root, 1)]
        while let (n, depth) = stack.popLast() {
            deepest = max(deepest, depth)
            if left[n] != SpanTree.none { stack.append((left[n], depth + 1)) }
            if right[n] != SpanTree.none { stack.append((right[n], depth + 1)) }
        }
        return deepest
    }

    // MARK: The tree

    private mutating func node(_ start: Int64, _ end: Int64) -> Int {
        // SplitMix64.
        randomState &+= 0x9E37_79B9_7F4A_7C15
        var z = randomState
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        starts.append(start)
        ends.append(end)
        left.append(SpanTree.none)
        right.append(SpanTree.none)
        priorities.append(z ^ (z >> 31))
        return starts.count - 1
    }

    /// The span starting last at or before `t`, and the span starting first after `t`.
    private func neighbours(of t: Int64) -> (atOrBefore: Int, after: Int) {
        var atOrBefore = SpanTree.none, after = SpanTree.none
        var n = root
        while n != SpanTree.none {
            if starts[n] <= t { atOrBefore = n; n = right[n] } else { after = n; n = left[n] }
        }
        return (atOrBefore, after)
    }

    /// The first span ending after `t` (spans are disjoint: their ends are in order too).
    private func firstEnding(after t: Int64) -> Int {
        let (atOrBefore, after) = neighbours(of: t)
        return atOrBefore != SpanTree.none && ends[atOrBefore] > t ? atOrBefore : after
    }

    private func rightmost(_ tree: Int) -> Int {
        var n = tree
        while n != SpanTree.none, right[n] != SpanTree.none { n = right[n] }
        return n
    }

    /// Splits `tree` into the spans starting before `key` (or at it, when `orAt`) and the rest.
    private mutating func split(_ tree: Int, startingBefore key: Int64, orAt: Bool) -> (Int, Int) {
        guard tree != SpanTree.none else { return (SpanTree.none, SpanTree.none) }
        if starts[tree] < key || (orAt && starts[tree] == key) {
            let (low, high) = split(right[tree], startingBefore: key, orAt: orAt)
            right[tree] = low
            return (tree, high)
        } else {
            let (low, high) = split(left[tree], startingBefore: key, orAt: orAt)
            left[tree] = high
            return (low, tree)
        }
    }

    /// Joins two trees, every span of `low` starting before every span of `high`.
    private mutating func merge(_ low: Int, _ high: Int) -> Int {
        if low == SpanTree.none { return high }
        if high == SpanTree.none { return low }
        if priorities[low] > priorities[high] {
            right[low] = merge(right[low], high)
            return low
        } else {
            left[high] = merge(low, left[high])
            return high
        }
    }
}
