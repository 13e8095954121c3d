import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Values collected in any order and read back sorted, holding at most one run in memory: an
/// external merge sort.
///
/// A run of `runLength` values is sorted and written to the spill file as soon as it fills; reading
/// back merges the runs (a binary heap of run cursors, each reading `readAhead` values at a time).
/// Without a spill file every run stays in memory, which is what small exports and tests need.
/// Values are written as their raw bytes, so `Element` must be a plain value (no references).
package final class SortedRunFile<Element: BitwiseCopyable> {
    package let runLength: Int
    package let path: String?
    private let areInIncreasingOrder: (Element, Element) -> Bool
    /// Sorts a run: `areInIncreasingOrder`'s order, with a comparison the compiler can inline
    /// where the owner gives one (a sort calls it some twenty times per value).
    private let sortRun: (inout [Element]) -> Void
    /// The run being filled. Boxed: `append` runs once per value, and a class's array property
    /// would cost a run-time exclusivity check per append (one thread per file; `areInIncreasingOrder`,
    /// the only code called while it is sorted, never reaches it).
    private let run = UncheckedBox<[Element]>([])
    private var memoryRuns: [[Element]] = []
    /// Runs in the spill file, as element offsets and counts.
    private var fileRuns: [(offset: Int, count: Int)] = []
    /// The spill file while runs are written (a byte sink with a buffer, like `HeartRateSpill`'s),
    /// then while they are read back.
    private var writer: SpillRecordWriter?
    private var reader: ReadOnlyFile?
    private var written = 0
    /// The first failure to create the spill file: runs go on being kept in memory, and it is
    /// thrown by the reader so the run fails with a message instead of losing samples. (Write
    /// failures, a full disk, are remembered by the writer and thrown when it closes.)
    private(set) var failure: InputError?
    private(set) var count = 0

    /// - Parameters:
    ///   - path: the spill file (created on the first full run, removed when read back), or nil.
    ///   - runLength: values sorted in memory at once.
    ///   - sortRun: sorts a run in the order `areInIncreasingOrder` gives (by default, with it).
    package init(
        path: String?, runLength: Int = 1 << 16, by areInIncreasingOrder: @escaping (Element, Element) -> Bool,
        sortRun: ((inout [Element]) -> Void)? = nil
    ) {
        self.sortRun = sortRun ?? { $0.sort(by: areInIncreasingOrder) }
        self.path = path
        self.runLength = max(1, runLength)
        self.areInIncreasingOrder = areInIncreasingOrder
    }

    deinit { removeFile() }

    package var isEmpty: Bool { count == 0 }

    /// How many runs went to the spill file so far.
    package var spilledRuns: Int { fileRuns.count }

    @inline(__always)
    package func append(_ value: Element) {
        if run.value.capacity == 0 { run.value.reserveCapacity(min(runLength, 1024)) }
        run.value.append(value)
        count += 1
        if run.value.count >= runLength { endRun() }
    }

    /// For a file that will get no values for a while: a run at least an eighth full goes to the
    /// spill file now and its memory is given back. (A smaller one stays: runs of a few values
    /// each would make the merge hold a cursor, and its read-ahead, per handful of values.)
    package func setAside() {
        guard path != nil, failure == nil, run.value.count >= runLength / 8, run.value.count > 0 else { return }
        endRun()
        run.value = []
    }

    /// Sorts the run and moves it out of the way: to the file when there is one.
    private func endRun() {
        guard !run.value.isEmpty else { return }
        sortRun(&run.value)
        if let path, failure == nil, writeRun(path: path) {
            run.value.removeAll(keepingCapacity: true)
        } else {
            memoryRuns.append(run.value)
            run.value = []
        }
    }

    private func writeRun(path: String) -> Bool {
        if writer == nil {
            do { writer = try SpillRecordWriter(path: path, bufferSize: 1 << 20, writeBehind: true) } catch {
                failure = error as? InputError ?? InputError(file: path, "cannot create spill file")
                return false
            }
        }
        writer!.append(contentsOf: run.value)
        fileRuns.append((written, run.value.count))
        written += run.value.count
        return true
    }

    /// Every value in sorted order (stable only within a run), then forgets them all.
    package func drain(_ body: (Element) throws -> Void) throws {
        defer { reset() }
        if let failure { throw failure }
        if fileRuns.isEmpty && memoryRuns.isEmpty {
            sortRun(&run.value)
            for v in run.value { try body(v) }
            return
        }
        endRun()
        if let failure { throw failure }
        if let writer, let path {
            try writer.close()
            reader = try ReadOnlyFile(path: path)
        }
        var cursors: [RunCursor] = memoryRuns.map { RunCursor(values: $0) }
        memoryRuns = []
        for spilled in fileRuns { cursors.append(RunCursor(file: (offset: spilled.offset, count: spilled.count))) }
        let readAhead = max(256, min(8192, runLength / max(1, cursors.count)))
        for i in cursors.indices { try fill(&cursors[i], readAhead: readAhead) }

        // A binary min-heap of cursor indices, ordered by each cursor's current value.
        var heap = cursors.indices.filter { !cursors[$0].isDone }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(&heap, from: i, cursors) }
        while let top = heap.first {
            try body(cursors[top].current)
            cursors[top].position += 1
            if cursors[top].position == cursors[top].values.count { try fill(&cursors[top], readAhead: readAhead) }
            if cursors[top].isDone {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(&heap, from: 0, cursors) }
        }
    }

    /// Restores the order of `heap` (cursor indices, by each cursor's current value) below
    /// `start`. The heap and cursors are parameters, not captured by a nested function: a
    /// captured variable is checked for exclusive access at run time on every use.
    private func siftDown(_ heap: inout [Int], from start: Int, _ cursors: [RunCursor]) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && areInIncreasingOrder(cursors[heap[l]].current, cursors[heap[m]].current) { m = l }
            if r < heap.count && areInIncreasingOrder(cursors[heap[r]].current, cursors[heap[m]].current) { m = r }
            if m == i { return }
            heap.swapAt(i, m)
            i = m
        }
    }

    /// A run being merged: its values in memory, or the next `readAhead` of them from the file.
    private struct RunCursor {
        package var values: [Element]
        package var position = 0
        package var file: (offset: Int, count: Int)?
        package var isDone: Bool { position >= values.count && (file?.count ?? 0) == 0 }
        package var current: Element { values[position] }

        package init(values: [Element]) { self.values = values }
        package init(file: (offset: Int, count: Int)) { values = []; self.file = file }
    }

    private func fill(_ cursor: inout RunCursor, readAhead: Int) throws {
        guard var run = cursor.file, run.count > 0 else { return }
        let n = min(readAhead, run.count)
        guard let reader else { throw InputError(file: path ?? "", "cannot read spill file back: it was never written") }
        let values = try reader.readRecords(Element.self, count: n, atByte: UInt64(run.offset * MemoryLayout<Element>.stride))
        run.offset += n
        run.count -= n
        cursor.file = run
        cursor.values = values
        cursor.position = 0
    }

    private func reset() {
        run.value = []
        memoryRuns = []
        fileRuns = []
        written = 0
        count = 0
        removeFile()
    }

    private func removeFile() {
        guard let writer else { return }
        reader = nil
        writer.discard()
        self.writer = nil
    }
}
