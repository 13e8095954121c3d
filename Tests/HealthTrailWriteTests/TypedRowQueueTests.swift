import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailTestSupport
import Testing

@testable import HealthTrailWrite

/// One reading of a staged CSV file feeds the Parquet writer on the reading thread and, through
/// `TypedRowQueue`, the database's thread. The database must get exactly the calls a reader of
/// the CSV would have made, across batch boundaries, and either end must be able to stop the
/// other without a hang.
@Suite struct TypedRowQueueTests {
    /// Every call a sink receives, as text.
    final class Recording: TableRowSink, @unchecked Sendable {
        var calls: [String] = []
        func null(_ column: Int) { calls.append("\(column) null") }
        func text(_ column: Int, _ value: ByteSpan) { calls.append("\(column) text \(value.string)") }
        func integer(_ column: Int, _ value: Int64) { calls.append("\(column) integer \(value)") }
        func real(_ column: Int, _ value: Double) { calls.append("\(column) real \(value.bitPattern)") }
        func boolean(_ column: Int, _ value: Bool) { calls.append("\(column) boolean \(value)") }
        func date(_ column: Int, days: Int32, text: ByteSpan) { calls.append("\(column) date \(days) \(text.string)") }
        func timestamp(_ column: Int, seconds: Int64) { calls.append("\(column) timestamp \(seconds)") }
        func endRow() throws { calls.append("end") }
    }

    static let schema = TableSchema(
        name: "t",
        columns: [
            TableColumn("id", .integer), TableColumn("name", .text), TableColumn("value", .real), TableColumn("ok", .boolean),
            TableColumn("day", .date), TableColumn("at", .timestamp),
        ])

    /// Rows enough for three batches, each row's values known from its number: the day and the
    /// instant by Foundation's calendar, not HealthTrail's.
    static func writeCSV(rows: Int) throws -> (path: String, expected: [String]) {
        let path = Support.temporaryDirectory() + "/typed-rows.csv"
        var text = "id,name,value,ok,day,at\n"
        var expected: [String] = []
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        let instant = ISO8601DateFormatter()
        for i in 0..<rows {
            let seconds = Int64(1_700_000_000 + i * 61)
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let at = instant.string(from: date)
            let dayText = day.string(from: date)
            let days = Int32(seconds / 86_400)
            // Every 7th row has an empty name, a quoted comma every 5th.
            let name = i % 7 == 0 ? "" : (i % 5 == 0 ? "\"Alex, Watch \(i)\"" : "src\(i)")
            let value = Double(i) / 8 - 3
            text += "\(i),\(name),\(value),\(i % 2 == 0),\(dayText),\(at)\n"
            expected += [
                "0 integer \(i)", i % 7 == 0 ? "1 null" : (i % 5 == 0 ? "1 text Alex, Watch \(i)" : "1 text src\(i)"),
                "2 real \(value.bitPattern)", "3 boolean \(i % 2 == 0)", "4 date \(days) \(dayText)", "5 timestamp \(seconds)",
                "end",
            ]
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, expected)
    }

    @Test func theDatabaseThreadGetsEveryCallTheReaderMade() throws {
        let rows = 9_000   // more than two batches of 4,096
        let (path, expected) = try Self.writeCSV(rows: rows)
        let queue = TypedRowQueue(capacity: 2)
        let received = Recording()
        let done = DispatchSemaphore(value: 0)
        let receivedBatches = LockedCount()
        Thread {
            while let message = try? queue.receive() {
                if case .rows(let batch) = message {
                    try? batch.replay(into: received)
                    receivedBatches.add()
                    queue.recycle(batch)
                }
            }
            done.signal()
        }.start()
        let local = Recording()
        try queue.send(.begin(Self.schema, file: "typed-rows.csv"))
        let tee = TypedRowTee(local: local, queue: queue, columns: Self.schema.columns.count)
        let read = try CSVTableReader.copy(path, as: Self.schema, into: tee)
        try tee.flush()
        try queue.send(.end(rows: read))
        queue.finish()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(read == rows)
        #expect(receivedBatches.value == 3)
        #expect(local.calls == expected)
        #expect(received.calls == expected)
    }

    @Test func aWriterThatGivesUpStopsTheReaderWaitingOnAFullQueue() throws {
        let queue = TypedRowQueue(capacity: 1)
        try queue.send(.begin(Self.schema, file: "t.csv"))
        let outcome = LockedCount()
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                try queue.send(.end(rows: 0))   // waits: the queue is full
            } catch is TypedRowQueue.Cancelled {
                outcome.add()
            } catch {}
            done.signal()
        }.start()
        queue.cancel()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(outcome.value == 1)
        #expect(throws: TypedRowQueue.Cancelled.self) { try queue.send(.end(rows: 0)) }
    }

    @Test func aReaderThatFailsStopsTheWriterBeforeWhatIsQueued() throws {
        struct Broken: Error, Equatable {}
        let queue = TypedRowQueue()
        try queue.send(.begin(Self.schema, file: "t.csv"))
        queue.finish(throwing: Broken())
        #expect(throws: Broken()) { _ = try queue.receive() }
    }

    @Test func aReaderThatEndsEndsTheWriterAfterEverything() throws {
        let queue = TypedRowQueue()
        try queue.send(.begin(Self.schema, file: "t.csv"))
        try queue.send(.end(rows: 0))
        queue.finish()
        guard case .begin(_, file: "t.csv")? = try queue.receive(), case .end(0)? = try queue.receive() else {
            Issue.record("messages out of order")
            return
        }
        #expect(try queue.receive() == nil)
    }
}

/// A count several threads add to.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
