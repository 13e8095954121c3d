import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names numbered in the order they are added, all their bytes in one growing buffer: a name
/// costs its bytes and a 32-bit offset, with no object or allocation of its own.
///
/// An export can name a different source on every record; a name kept in memory of its own, as
/// a `String` and as a span, cost about ten times its bytes. `String`s are made only for the
/// outputs that write a name.
///
/// Invariant: `base` points at `capacity` allocated bytes (at least one), of which the first
/// `ends.last ?? 0` are initialised; `ends` ascends, and name `i` is the bytes from
/// `ends[i - 1]` (0 for the first) to `ends[i]`. Names are never changed or removed; `base` may
/// move when a name is added, so no pointer into the buffer outlives the call that made it.
///
/// `@unchecked Sendable`: added to by one thread (the decoder's) and read by others only once
/// it is done, after the hand-over that ends the decoding orders its writes before their reads.
@safe
package final class NameBytes: @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Where each name ends in the buffer, by number. (Boxed: read once or twice per record
    /// when the decoder recognises a source, where a stored array, appended to through a call,
    /// would cost a run-time exclusivity check per read; see `UncheckedBox`. One writer, and
    /// no access to it is started while another is in progress.)
    private let ends = unsafe UncheckedBox<[UInt32]>([])

    /// Most bytes all names together may hold: 32-bit offsets.
    package static let maxTotalBytes = Int(UInt32.max)

    package init() {
        capacity = 64
        // SAFETY: a fresh malloc'd buffer of `capacity` bytes (malloc, so that `realloc` may grow
        // it), owned by this object and freed in deinit; bytes need no initialising to be stored.
        guard let buffer = unsafe malloc(capacity) else { fatalError("out of memory for source names") }
        unsafe base = buffer.assumingMemoryBound(to: UInt8.self)
    }

    /// Names with each of `names`' UTF-8 bytes, numbered in order.
    package convenience init(_ names: some Sequence<String>) {
        self.init()
        for name in names { _ = append(name) }
    }

    deinit {
        // SAFETY: `base` is this object's allocation (malloc'd, possibly realloc'd), freed once here.
        unsafe free(base)
    }

    /// Names stored.
    package var count: Int { unsafe ends.value.count }
    /// Bytes of all names together.
    package var totalBytes: Int { unsafe Int(ends.value.last ?? 0) }

    @inline(__always) private func start(_ i: Int) -> Int { i == 0 ? 0 : unsafe Int(ends.value[i - 1]) }

    /// Adds a copy of `span`'s bytes as the next name and returns its number; nil, adding
    /// nothing, when the names would pass `maxTotalBytes`.
    package func append(_ span: ByteSpan) -> Int? {
        let used = totalBytes
        guard span.count <= Self.maxTotalBytes - used else { return nil }
        if used + span.count > capacity {
            var grown = capacity * 2
            while grown < used + span.count { grown *= 2 }
            // SAFETY: `base` came from `malloc` or `realloc`; realloc keeps the first
            // `used` initialised bytes. On failure the program stops, as any allocation's would.
            guard let moved = unsafe realloc(base, grown) else { fatalError("out of memory for source names") }
            unsafe base = moved.assumingMemoryBound(to: UInt8.self)
            capacity = grown
        }
        // SAFETY: `used + span.count <= capacity` (grown above); the span's bytes are readable by
        // its own invariant and cannot overlap this object's buffer, which no span outlives.
        if span.count > 0 { unsafe memcpy(base + used, span.baseAddress, span.count) }
        unsafe ends.value.append(UInt32(used + span.count))
        return unsafe ends.value.count - 1
    }

    /// Adds `name`'s UTF-8 bytes; nil as `append(_: ByteSpan)`.
    package func append(_ name: String) -> Int? { ByteSpan.withUTF8(name) { append($0) } }

    /// True when name `i` (0 ≤ i < count) has exactly `span`'s bytes.
    @inline(__always) package func equals(_ i: Int, _ span: ByteSpan) -> Bool {
        let from = start(i)
        // SAFETY: name `i` is the initialised bytes from..<ends[i] of the buffer (the invariant);
        // `memcmp` runs only when both sides hold `span.count` bytes.
        return unsafe Int(ends.value[i]) - from == span.count && memcmp(base + from, span.baseAddress, span.count) == 0
    }

    /// Calls `body` with a view of name `i`'s bytes, valid inside `body` only (adding a name
    /// may move them).
    package func withName<Result>(_ i: Int, _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        let from = start(i)
        // SAFETY: the name's initialised bytes (the invariant); nothing is added during `body`
        // in this single-writer type unless `body` adds, which the contract rules out.
        return try unsafe body(ByteSpan(start: base + from, count: Int(ends.value[i]) - from))
    }

    /// Name `i` as a `String` (invalid UTF-8 repaired, as `ByteSpan.string` does).
    package func string(_ i: Int) -> String { withName(i) { $0.string } }

    /// Names `a` and `b` compared as Swift compares their `String`s: −1, 0 or 1. Two names of
    /// different bytes can be equal `String`s (composed and decomposed accents).
    package func compareAsStrings(_ a: Int, _ b: Int) -> Int {
        let (fromA, fromB) = (start(a), start(b))
        let (countA, countB) = unsafe (Int(ends.value[a]) - fromA, Int(ends.value[b]) - fromB)
        // SAFETY: both names' initialised bytes (the invariant), read during this call only.
        let (bytesA, bytesB) = unsafe (
            UnsafeBufferPointer(start: base + fromA, count: countA), UnsafeBufferPointer(start: base + fromB, count: countB)
        )
        // ASCII is already in normal form and compares as Swift compares its scalars, byte by
        // byte, a prefix first: no `String` is needed, as it is in a sort of every source.
        if unsafe bytesA.allSatisfy({ $0 < 0x80 }) && bytesB.allSatisfy({ $0 < 0x80 }) {
            let common = unsafe memcmp(base + fromA, base + fromB, Swift.min(countA, countB))
            if common != 0 { return common < 0 ? -1 : 1 }
            return countA == countB ? 0 : (countA < countB ? -1 : 1)
        }
        let (stringA, stringB) = unsafe (String(decoding: bytesA, as: UTF8.self), String(decoding: bytesB, as: UTF8.self))
        return stringA < stringB ? -1 : (stringB < stringA ? 1 : 0)
    }
}
