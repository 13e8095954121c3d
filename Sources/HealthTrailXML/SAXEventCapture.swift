import Foundation
import HealthTrailArchive
import HealthTrailBase

/// A document's start and end tags as the parsing thread saw them, for a decoder to replay on
/// a thread of its own.
///
/// libxml2's parse is the one part of a run that cannot be split, so the thread running it does
/// nothing else: each start tag is copied into a block (the element's code, its line, and only
/// the attributes the decoder reads, as code, length and bytes), each end tag is a byte, and
/// full blocks go through a bounded queue to the decoding thread. The decoder names the codes:
/// `Vocabulary` says which elements and attributes it reads.
///
/// Layout of a start event: tag 1, element code, line (UInt32), attribute count (UInt8), then
/// per attribute its code, the value's length (UInt32) and its bytes. An end event: tag 2.
///
/// `@unchecked Sendable`: its two sides share only `queue`, whose state is guarded by its
/// condition. The parsing thread alone uses `block` and `cursor` (`start`, `end`, `finish`);
/// the decoding thread takes full blocks from the queue and gives them back.
@safe
package final class SAXEventCapture: @unchecked Sendable {
    /// The names a decoder reads, as small codes.
    @safe
    package struct Vocabulary: Sendable {
        /// The code of an element name.
        package var element: @Sendable (SAXName) -> UInt8
        /// The code of an attribute name; nil for one the decoder never reads.
        package var attribute: @Sendable (SAXName) -> UInt8?
        /// Whether the decoder reads the attributes of an element (by its code).
        package var readsAttributes: @Sendable (UInt8) -> Bool

        package init(
            element: @escaping @Sendable (SAXName) -> UInt8, attribute: @escaping @Sendable (SAXName) -> UInt8?,
            readsAttributes: @escaping @Sendable (UInt8) -> Bool
        ) {
            unsafe self.element = element
            unsafe self.attribute = attribute
            self.readsAttributes = readsAttributes
        }
    }

    @usableFromInline static let startTag: UInt8 = 1, endTag: UInt8 = 2
    @usableFromInline static let startHeader = 7, attributeHeader = 5
    /// Attributes kept per element at most (further ones are dropped).
    static let maxAttributes = 64

    private let queue: Queue
    private var block: Block?
    // SAFETY: `cursor..<blockEnd` is the free part of `block`'s memory (nil cursor: no block);
    // `room` hands out a range only after checking it fits. The per-event path touches these
    // only, no object: retaining and releasing the block cost about as much as copying the event.
    private var cursor: UnsafeMutableRawPointer?
    private var blockEnd = unsafe UnsafeMutableRawPointer(bitPattern: 1)!
    /// Names are recognised on this side with tables of their own (the decoder's belong to the
    /// other thread).
    private let elements: InternedNames<UInt8>
    private let attributeNames: InternedNames<UInt8?>
    /// Which element codes have their attributes read.
    private let readsAttributes = FixedSlots<Bool>(repeating: false, count: 256)
    /// The kept attributes of the element being captured.
    private let keys = FixedSlots<UInt8>(repeating: 0, count: SAXEventCapture.maxAttributes)
    private let values = unsafe ByteSpanSlots(count: SAXEventCapture.maxAttributes)

    /// - Parameter blockSize: bytes per block (a block holding one larger event grows for it,
    ///   and shrinks back after); `blockCount` blocks at most exist at once.
    package init(vocabulary: Vocabulary, blockSize: Int = 256 * 1024, blockCount: Int = 4) {
        queue = Queue(blocks: (0..<max(2, blockCount)).map { _ in Block(capacity: blockSize) })
        elements = unsafe InternedNames(vocabulary.element)
        attributeNames = unsafe InternedNames(vocabulary.attribute)
        for code in 0..<256 { readsAttributes[code] = vocabulary.readsAttributes(UInt8(code)) }
    }

    // MARK: Parsing thread

    /// Captures a start tag; false when the decoder has asked the parse to stop.
    package func start(_ name: SAXName, _ attributes: SAXAttributes, line: Int) -> Bool {
        let element = unsafe elements.lookup(name)
        var kept = 0, size = Self.startHeader
        if readsAttributes[Int(element)] {
            unsafe attributes.forEach { name, value in
                guard let key = unsafe attributeNames.lookup(name), kept < Self.maxAttributes else { return }
                keys[kept] = key
                unsafe values.set(kept, value)
                size += Self.attributeHeader + value.count
                kept += 1
            }
        }
        guard let out = unsafe room(for: size) else { return false }
        // SAFETY: `room` gave `size` bytes at `out`: the header and each kept attribute.
        unsafe out.storeBytes(of: Self.startTag, as: UInt8.self)
        unsafe out.storeBytes(of: element, toByteOffset: 1, as: UInt8.self)
        unsafe out.storeBytes(of: UInt32(clamping: line), toByteOffset: 2, as: UInt32.self)
        unsafe out.storeBytes(of: UInt8(kept), toByteOffset: 6, as: UInt8.self)
        var p = unsafe out + Self.startHeader
        for k in 0..<kept {
            let value = unsafe values.span(k, heldBy: self)
            unsafe p.storeBytes(of: keys[k], as: UInt8.self)
            unsafe p.storeBytes(of: UInt32(value.count), toByteOffset: 1, as: UInt32.self)
            unsafe (p + Self.attributeHeader).copyMemory(from: value.baseAddress, byteCount: value.count)
            unsafe p += Self.attributeHeader + value.count
        }
        return true
    }

    /// Captures an end tag; false when the decoder has asked the parse to stop.
    package func end() -> Bool {
        guard let out = unsafe room(for: 1) else { return false }
        // SAFETY: `room` gave one byte at `out`.
        unsafe out.storeBytes(of: Self.endTag, as: UInt8.self)
        return true
    }

    /// Where the next `size` bytes go (the block's count already includes them); nil once the
    /// decoder has asked to stop.
    @inline(__always)
    private func room(for size: Int) -> UnsafeMutableRawPointer? {
        if let at = unsafe cursor, unsafe size <= blockEnd - at {
            unsafe cursor = at + size
            return unsafe at
        }
        return unsafe roomInNextBlock(for: size)
    }

    /// Hands over the current block and starts the next, which has room for `size` bytes.
    private func roomInNextBlock(for size: Int) -> UnsafeMutableRawPointer? {
        if let full = block, let cursor = unsafe cursor {
            full.count = unsafe cursor - full.bytes
            queue.push(full)
        }
        guard let next = queue.takeFree() else {
            block = nil
            unsafe cursor = nil
            return nil
        }
        next.prepare(for: size)
        block = next
        unsafe cursor = next.bytes + size
        unsafe blockEnd = next.bytes + next.capacity
        return unsafe next.bytes
    }

    /// Hands over the last block and tells the decoder nothing more comes.
    package func finish() {
        if let block, let cursor = unsafe cursor, unsafe cursor > block.bytes {
            block.count = unsafe cursor - block.bytes
            queue.push(block)
        }
        block = nil
        unsafe cursor = nil
        queue.finish()
    }

    /// True once the decoder has asked the parse to stop.
    package var stopRequested: Bool { queue.stopRequested }

    // MARK: Decoding thread

    /// Calls `body` with each full block in order until `finish()`; the block is recycled after.
    package func forEachBlock(_ body: (Block) -> Void) {
        while let block = queue.popFull() {
            body(block)
            queue.giveBack(block)
        }
    }

    /// Asks the parsing thread to stop at its next block (a fatal error while decoding).
    package func requestStop() { queue.requestStop() }

    /// Replays one block's events in order: `start` with each start tag's element code, line and
    /// kept attributes (valid only during the call), `end` with each end tag. Either returns
    /// false to stop the replay. Inlinable, so that the decoder's closures are called directly.
    @inlinable @inline(__always)
    package static func replay(
        _ block: Block, start: (_ element: UInt8, _ line: Int, _ attributes: CapturedAttributes) -> Bool, end: () -> Bool
    ) {
        // SAFETY: the block's first `count` bytes are whole events as `start` and `end` above
        // wrote them, so every load below stays inside them.
        var p = unsafe UnsafeRawPointer(block.bytes)
        let stop = unsafe p + block.count
        while unsafe p < stop {
            if unsafe p.load(as: UInt8.self) == endTag {
                unsafe p += 1
                if !end() { return }
                continue
            }
            let element = unsafe p.load(fromByteOffset: 1, as: UInt8.self)
            let line = unsafe Int(p.loadUnaligned(fromByteOffset: 2, as: UInt32.self))
            let count = unsafe Int(p.load(fromByteOffset: 6, as: UInt8.self))
            let first = unsafe p + startHeader   // a local, which the attributes borrow
            let attributes = unsafe CapturedAttributes(first: first, count: count)
            unsafe p = attributes.end
            if unsafe !start(element, line, attributes) { return }
        }
    }

    /// The kept attributes of one replayed start tag: nonescapable, so the compiler refuses to
    /// keep them past the replay's call.
    @unsafe
    package struct CapturedAttributes: ~Escapable {
        // SAFETY: `count` attributes as `start` wrote them, from `first` on, inside a block.
        @usableFromInline let first: UnsafeRawPointer
        @usableFromInline let count: Int

        @inlinable @inline(__always) @_lifetime(borrow first)
        init(first: UnsafeRawPointer, count: Int) {
            unsafe self.first = first
            unsafe self.count = count
        }

        /// Past the last attribute: where the next event starts.
        @inlinable var end: UnsafeRawPointer {
            // SAFETY: see `first`: each length read lies inside the block's events.
            var p = unsafe first
            for _ in unsafe 0..<count { unsafe p += SAXEventCapture.attributeHeader + Int(p.loadUnaligned(fromByteOffset: 1, as: UInt32.self)) }
            return unsafe p
        }

        /// Calls `body` with each attribute's code and value.
        @inlinable @inline(__always)
        package func forEach(_ body: (UInt8, ByteSpan) -> Void) {
            // SAFETY: see `first`: each header and value read lies inside the block's events;
            // a value's span is valid while the block is, during the replay.
            var p = unsafe first
            for _ in unsafe 0..<count {
                let length = unsafe Int(p.loadUnaligned(fromByteOffset: 1, as: UInt32.self))
                unsafe body(
                    p.load(as: UInt8.self), ByteSpan(start: (p + SAXEventCapture.attributeHeader).assumingMemoryBound(to: UInt8.self), count: length))
                unsafe p += SAXEventCapture.attributeHeader + length
            }
        }
    }

    /// A block of captured events.
    ///
    /// Invariant: `bytes` is an allocation of `capacity` bytes that the block owns (replaced in
    /// `prepare`, freed in deinit), and its first `count` bytes are whole events. The parsing
    /// thread writes it between `takeFree` and `push`, the decoder reads it between `popFull`
    /// and `giveBack`; the queue's lock hands it over, so never both at once.
    @safe
    package final class Block {
        @usableFromInline private(set) var bytes: UnsafeMutableRawPointer
        private(set) var capacity: Int
        /// The capacity blocks are made with (`blockSize`).
        let standardCapacity: Int
        @usableFromInline var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            standardCapacity = capacity
            unsafe bytes = .allocate(byteCount: capacity, alignment: 16)
        }

        deinit { unsafe bytes.deallocate() }

        /// Empties the block, growing it for an event larger than a block (a megabyte attribute),
        /// and shrinking it back once an ordinary event comes: a few huge elements must not keep
        /// megabytes for the rest of the run.
        func prepare(for size: Int) {
            count = 0
            let wanted = max(size, standardCapacity)
            guard wanted > capacity || (wanted < capacity && size <= standardCapacity) else { return }
            unsafe bytes.deallocate()
            capacity = wanted
            unsafe bytes = .allocate(byteCount: wanted, alignment: 16)
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
