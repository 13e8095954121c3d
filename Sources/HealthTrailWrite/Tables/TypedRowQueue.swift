import Foundation

/// Tables' rows in batches, from the thread that reads the staged CSV files to the thread that
/// writes the database: one reading feeds both formats, and the reading overlaps the writing.
///
/// Bounded: `send` waits while `capacity` messages are queued, so memory stays flat whatever
/// the table's size. Either end can stop the other: the reader by `finish(throwing:)`, the
/// writer by `cancel()`, after which `send` throws `Cancelled` instead of waiting forever.
package final class TypedRowQueue: @unchecked Sendable {
    /// What the reader sends, in order: a table's start, its batches, its end with the rows read.
    package enum Message {
        /// A table begins; `file` names it in messages (`heart_rate.csv`).
        case begin(TableSchema, file: String)
        /// Rows of the table begun last.
        case rows(TypedRowBatch)
        /// The table begun last ends; the reader read `rows` rows.
        case end(rows: Int)
    }

    /// `send` after the writer gave up: the writer's own error says why.
    package struct Cancelled: Error {
        /// The error a stopped run gives the database thread.
        package init() {}
    }

    // `@unchecked Sendable`: every stored property below is read and written with `condition`
    // locked.
    private let condition = NSCondition()
    /// At most `capacity` messages: removing the first moves at most that many.
    private var messages: [Message] = []
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    private let capacity: Int
    /// Batches the writer has replayed, to be filled again: a batch's arrays are large enough
    /// that allocating them anew for every few thousand rows costs page faults.
    private var spare: [TypedRowBatch] = []

    /// A queue holding at most `capacity` messages at a time.
    package init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// Queues `message`, waiting while the queue is full; throws `Cancelled` once the writer has
    /// given up.
    package func send(_ message: Message) throws {
        condition.lock()
        defer { condition.unlock() }
        while messages.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        messages.append(message)
        condition.broadcast()
    }

    /// The reader is done: `error` nil when every table was sent, else why it stopped.
    package func finish(throwing error: Error? = nil) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The writer gives up: queued messages are dropped and the reader's next `send` throws.
    package func cancel() {
        condition.lock()
        cancelled = true
        messages = []
        condition.broadcast()
        condition.unlock()
    }

    /// An empty batch for the reader to fill: a replayed one if any is spare, else a new one.
    package func emptyBatch(columns: Int) -> TypedRowBatch {
        condition.lock()
        let batch = spare.popLast()
        condition.unlock()
        guard let batch else { return TypedRowBatch(columns: columns) }
        batch.removeAll()
        return batch
    }

    /// Hands a batch the writer has replayed back to the reader, to be filled again.
    package func recycle(_ batch: TypedRowBatch) {
        condition.lock()
        if spare.count < capacity + 2 { spare.append(batch) }
        condition.unlock()
    }

    /// The next message, waiting for one; nil once the reader finished without error and
    /// everything it sent was received. Throws the reader's error as soon as it stopped on one,
    /// whatever is still queued.
    package func receive() throws -> Message? {
        condition.lock()
        defer { condition.unlock() }
        while messages.isEmpty && !finished { condition.wait() }
        if let failure { throw failure }
        guard !messages.isEmpty else { return nil }
        condition.broadcast()
        return messages.removeFirst()
    }
}
