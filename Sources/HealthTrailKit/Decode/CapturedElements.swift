import CLibXML2
import Foundation
import HealthTrailXML

/// export.xml's elements as the parsing thread saw them, for `ExportDecoder` to decode on a
/// thread of its own.
///
/// libxml2's parse is the one part of a run that cannot be split, so the thread running it does
/// nothing else: each start tag is copied into a block (the element, its line, and only the
/// attributes the decoder reads, as key, length and bytes), each end tag is a byte, and full
/// blocks go through a bounded queue to the decoding thread. Layout of a start event: tag 1,
/// `ExportElement` raw value, line (UInt32), attribute count (UInt8), then per attribute its
/// `ExportAttribute` raw value, the value's length (UInt32) and its bytes. An end event: tag 2.
final class CapturedElements {
    static let startTag: UInt8 = 1, endTag: UInt8 = 2
    static let startHeader = 7, attributeHeader = 5

    private let queue: Queue
    private var block: Block?
    /// The current block's next free byte and its end. The per-event path (`room`) touches
    /// these only, no object: retaining and releasing the block cost about as much as copying
    /// the event. The block's `count` is set when it is handed over.
    private var cursor: UnsafeMutableRawPointer?
    private var blockEnd = UnsafeMutableRawPointer(bitPattern: 1)!
    /// Names are recognised on this side with their own interned tables (the decoder's belong to
    /// the other thread).
    private let elements = InternedNames<ExportElement> { ExportElement(name: $0) }
    private let attributeNames = InternedNames<ExportAttribute> { ExportAttribute(name: $0) }
    /// The kept attributes of the element being captured (a key appears once per element).
    private let keys = UnsafeMutablePointer<ExportAttribute>.allocate(capacity: 64)
    private let values = UnsafeMutablePointer<ByteSpan>.allocate(capacity: 64)

    /// - Parameter blockSize: bytes per block (a block holding one larger event grows for it,
    ///   and shrinks back after); `blockCount` blocks at most exist at once.
    init(blockSize: Int = 256 * 1024, blockCount: Int = 4) {
        queue = Queue(blocks: (0..<max(2, blockCount)).map { _ in Block(capacity: blockSize) })
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// Elements whose attributes the decoder reads.
    static func readsAttributes(_ element: ExportElement) -> Bool {
        switch element {
        case .correlation, .hrvList, .workoutRoute, .other: return false
        default: return true
        }
    }

    // MARK: Parsing thread

    /// Captures a start tag; false when the decoder has asked the parse to stop.
    func start(
        _ name: UnsafePointer<UInt8>, _ count: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
        line: Int
    ) -> Bool {
        let element = elements.lookup(name)
        var kept = 0, size = Self.startHeader
        if Self.readsAttributes(element), let attributes {
            for i in 0..<Int(count) {
                let base = attributes + i * 5
                guard let n = base[0], let start = base[3], let end = base[4] else { continue }
                let key = attributeNames.lookup(n)
                guard key != .other, kept < 64 else { continue }
                keys[kept] = key
                values[kept] = ByteSpan(start: start, count: end - start)
                size += Self.attributeHeader + (end - start)
                kept += 1
            }
        }
        guard let out = room(for: size) else { return false }
        out.storeBytes(of: Self.startTag, as: UInt8.self)
        out.storeBytes(of: element.rawValue, toByteOffset: 1, as: UInt8.self)
        out.storeBytes(of: UInt32(clamping: line), toByteOffset: 2, as: UInt32.self)
        out.storeBytes(of: UInt8(kept), toByteOffset: 6, as: UInt8.self)
        var p = out + Self.startHeader
        for k in 0..<kept {
            let value = values[k]
            p.storeBytes(of: keys[k].rawValue, as: UInt8.self)
            p.storeBytes(of: UInt32(value.count), toByteOffset: 1, as: UInt32.self)
            (p + Self.attributeHeader).copyMemory(from: value.start, byteCount: value.count)
            p += Self.attributeHeader + value.count
        }
        return true
    }

    /// Captures an end tag; false when the decoder has asked the parse to stop.
    func end() -> Bool {
        guard let out = room(for: 1) else { return false }
        out.storeBytes(of: Self.endTag, as: UInt8.self)
        return true
    }

    /// Where the next `size` bytes go (the block's count already includes them); nil once the
    /// decoder has asked to stop.
    @inline(__always)
    private func room(for size: Int) -> UnsafeMutableRawPointer? {
        if let at = cursor, size <= blockEnd - at {
            cursor = at + size
            return at
        }
        return roomInNextBlock(for: size)
    }

    /// Hands over the current block and starts the next, which has room for `size` bytes.
    private func roomInNextBlock(for size: Int) -> UnsafeMutableRawPointer? {
        if let full = block, let cursor {
            full.count = cursor - full.bytes
            queue.push(full)
        }
        guard let next = queue.takeFree() else {
            block = nil
            cursor = nil
            return nil
        }
        next.prepare(for: size)
        block = next
        cursor = next.bytes + size
        blockEnd = next.bytes + next.capacity
        return next.bytes
    }

    /// Hands over the last block and tells the decoder nothing more comes.
    func finish() {
        if let block, let cursor, cursor > block.bytes {
            block.count = cursor - block.bytes
            queue.push(block)
        }
        block = nil
        cursor = nil
        queue.finish()
    }

    /// True once the decoder has asked the parse to stop.
    var stopRequested: Bool { queue.stopRequested }

    // MARK: Decoding thread

    /// Calls `body` with each full block in order until `finish()`; the block is recycled after.
    func forEachBlock(_ body: (Block) -> Void) {
        while let block = queue.popFull() {
            body(block)
            queue.giveBack(block)
        }
    }

    /// Asks the parsing thread to stop at its next block (a fatal error while decoding).
    func requestStop() { queue.requestStop() }

    /// A block of captured events.
    final class Block {
        private(set) var bytes: UnsafeMutableRawPointer
        private(set) var capacity: Int
        /// The capacity blocks are made with (`blockSize`).
        let standardCapacity: Int
        var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            standardCapacity = capacity
            bytes = .allocate(byteCount: capacity, alignment: 16)
        }

        deinit { bytes.deallocate() }

        /// Empties the block, growing it for an event larger than a block (a megabyte attribute),
        /// and shrinking it back once an ordinary event comes: a few huge elements must not keep
        /// megabytes for the rest of the run.
        func prepare(for size: Int) {
            count = 0
            let wanted = max(size, standardCapacity)
            guard wanted > capacity || (wanted < capacity && size <= standardCapacity) else { return }
            bytes.deallocate()
            capacity = wanted
            bytes = .allocate(byteCount: wanted, alignment: 16)
        }
    }

    /// Free and full blocks between the two threads, under one condition.
    final class Queue {
        private let condition = NSCondition()
        private var free: [Block]
        private var full: [Block] = []
        private var finished = false
        private var stopped = false

        init(blocks: [Block]) { free = blocks }

        /// Parsing side: a free block, waiting for one; nil once the decoder asked to stop.
        func takeFree() -> Block? {
            condition.lock(); defer { condition.unlock() }
            while free.isEmpty && !stopped { condition.wait() }
            return stopped ? nil : free.removeLast()
        }

        func push(_ block: Block) {
            condition.lock(); defer { condition.unlock() }
            full.append(block)
            condition.broadcast()
        }

        func finish() {
            condition.lock(); defer { condition.unlock() }
            finished = true
            condition.broadcast()
        }

        var stopRequested: Bool {
            condition.lock(); defer { condition.unlock() }
            return stopped
        }

        /// Decoding side: the next block in order; nil once the parse finished and all are taken.
        func popFull() -> Block? {
            condition.lock(); defer { condition.unlock() }
            while full.isEmpty && !finished { condition.wait() }
            return full.isEmpty ? nil : full.removeFirst()
        }

        func giveBack(_ block: Block) {
            condition.lock(); defer { condition.unlock() }
            free.append(block)
            condition.broadcast()
        }

        func requestStop() {
            condition.lock(); defer { condition.unlock() }
            stopped = true
            condition.broadcast()
        }
    }
}
