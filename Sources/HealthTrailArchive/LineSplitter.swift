import HealthTrailBase

/// Cuts a stream of byte chunks into lines, each handed on as a `ByteSpan` with its line feed
/// (and a carriage return before it) removed: how the small text entries of an export beside
/// export.xml (ECG recordings) are read while they stream, without a `String` per line.
///
/// A line inside one chunk is lent in place; only a line cut by a chunk boundary is copied,
/// into a buffer that grows to the longest such line and no further than `maxLineBytes`.
///
/// Invariant: `pending` holds the start of the line the last chunk ended in, at most
/// `maxLineBytes` bytes, and nothing else.
package struct LineSplitter {
    /// The longest line accepted, line feed excluded.
    package let maxLineBytes: Int
    /// The number of the line being read, 1-based.
    package private(set) var line = 1
    private var pending: [UInt8] = []
    /// Whether the line being read is longer than `maxLineBytes` (the rest of it is dropped).
    private var overlong = false

    /// What happened to a line.
    package enum Outcome: ~Escapable {
        /// The line's bytes, which cannot leave the call.
        case line(ByteSpan)
        /// The line is longer than `maxLineBytes`; its bytes are not kept.
        case tooLong
    }

    package init(maxLineBytes: Int = 64 * 1024) {
        self.maxLineBytes = maxLineBytes
    }

    /// Hands each line `chunk` completes to `body`, with its number; keeps the start of the
    /// last one, which the next chunk (or `finish`) completes.
    package mutating func feed(_ chunk: ByteSpan, _ body: (Outcome, Int) throws -> Void) rethrows {
        var start = 0
        for i in 0..<chunk.count where chunk[i] == 0x0A {
            try complete(chunk.dropFirst(start).prefix(i - start), body)
            start = i + 1
        }
        keep(chunk.dropFirst(start))
    }

    /// Hands the last line to `body` when the stream does not end with a line feed.
    package mutating func finish(_ body: (Outcome, Int) throws -> Void) rethrows {
        guard !pending.isEmpty || overlong else { return }
        try complete(.empty, body)
    }

    private mutating func keep(_ piece: ByteSpan) {
        guard !overlong else { return }
        if pending.count + piece.count > maxLineBytes {
            overlong = true
            pending.removeAll()
        } else {
            piece.append(to: &pending)
        }
    }

    /// Ends the line made of `pending` and `tail`, and hands it on.
    private mutating func complete(_ tail: ByteSpan, _ body: (Outcome, Int) throws -> Void) rethrows {
        let number = line
        line += 1
        defer {
            pending.removeAll(keepingCapacity: pending.capacity <= 4096)
            overlong = false
        }
        if overlong || pending.count + tail.count > maxLineBytes { return try body(.tooLong, number) }
        if pending.isEmpty { return try body(.line(Self.droppingCR(tail)), number) }
        tail.append(to: &pending)
        // SAFETY: `pending` is not changed while `body` reads its bytes: the span lives only
        // during the call, and `complete` is the only writer, after it returns.
        try unsafe pending.withUnsafeBytes { try unsafe body(.line(Self.droppingCR(ByteSpan($0))), number) }
    }

    /// `line` without a carriage return at its end (a file written with CRLF line breaks).
    @_lifetime(copy line)
    private static func droppingCR(_ line: ByteSpan) -> ByteSpan {
        line.count > 0 && line[line.count - 1] == 0x0D ? line.prefix(line.count - 1) : line
    }
}
