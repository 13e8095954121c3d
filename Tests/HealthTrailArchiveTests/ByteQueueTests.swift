import HealthTrailBase
import Testing

@testable import HealthTrailArchive

/// `ByteQueue` keeps every appended text readable at its position until it is released, whether
/// the storage grew or was compacted in between, against plain arrays kept beside it.
@Suite struct ByteQueueTests {
    /// `count` bytes starting at `first`, wrapping round the printable ASCII range.
    static func text(_ first: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(33 + (first + $0) % 90) } }

    static func read(_ queue: ByteQueue, _ position: Int, _ count: Int) -> [UInt8] {
        unsafe queue.span(at: position, count: count).bytes
    }

    @Test func textsReadBackAcrossGrowthAndCompaction() {
        let queue = ByteQueue(capacity: 64)
        var held: [(position: Int, bytes: [UInt8])] = []
        for i in 0..<2_000 {
            let bytes = Self.text(i, 1 + i % 37)
            let position = bytes.withUnsafeBytes { queue.append(ByteSpan($0)) }
            held.append((position, bytes))
            if i % 5 == 4 {   // release all but the last three: compaction has something to move
                let keep = held.suffix(3)
                queue.release(upTo: keep.first!.position)
                held = Array(keep)
            }
            for entry in held { #expect(Self.read(queue, entry.position, entry.bytes.count) == entry.bytes) }
        }
    }

    /// A span of the queue's own bytes appended again, at the moment the append must make room
    /// (grow, then compact): the copy has the original's bytes, not those of freed or moved storage.
    @Test func appendingItsOwnBytesWhileMakingRoomCopiesThemFirst() {
        for releaseFirst in [false, true] {
            let queue = ByteQueue(capacity: 64)
            // 40 + 20 bytes, then 40 more: grows. 50 + 10, the first 50 released, then 10: compacts.
            let first = Self.text(0, releaseFirst ? 50 : 40)
            let position = first.withUnsafeBytes { queue.append(ByteSpan($0)) }
            let filler = Self.text(60, releaseFirst ? 10 : 20)
            var fillerPosition = filler.withUnsafeBytes { queue.append(ByteSpan($0)) }
            if releaseFirst {   // leave room at the front, so making room compacts instead of growing
                queue.release(upTo: fillerPosition)
                fillerPosition = queue.append(unsafe queue.span(at: fillerPosition, count: filler.count))
                #expect(Self.read(queue, fillerPosition, filler.count) == filler)
                continue
            }
            let again = queue.append(unsafe queue.span(at: position, count: first.count))
            #expect(Self.read(queue, again, first.count) == first)
            #expect(Self.read(queue, position, first.count) == first)
            #expect(Self.read(queue, fillerPosition, filler.count) == filler)
        }
    }
}
