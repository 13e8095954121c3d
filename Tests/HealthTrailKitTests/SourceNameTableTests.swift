import Foundation
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailXML

/// The decoder's source table against a dictionary of strings, through many growths.
@Suite struct SourceNameTableTests {
    @Test func findsEveryStoredNameAndNothingElse() {
        // Names that share long prefixes and differ in length, the empty name among them.
        let names = [""] + (0..<20_000).map { "Alice’s Apple Watch \($0 % 7 == 0 ? "Ultra " : "")\($0)" }
        let storage = names.map { Array($0.utf8) }
        var spans: [ByteSpan] = []
        var table = SourceNameTable()
        var reference: [String: Int] = [:]
        storage.withUnsafeBufferPointers { buffers in
            for (i, buffer) in buffers.enumerated() {
                let span = ByteSpan(start: buffer.baseAddress!, count: buffer.count)
                let hash = SourceNameTable.hash(span)
                #expect(table.index(of: span, hash: hash, names: spans) == reference[names[i]])
                if reference[names[i]] == nil {
                    reference[names[i]] = spans.count
                    table.insert(spans.count, hash: hash)
                    spans.append(span)
                }
            }
            for (i, buffer) in buffers.enumerated() {
                let span = ByteSpan(start: buffer.baseAddress!, count: buffer.count)
                #expect(table.index(of: span, hash: SourceNameTable.hash(span), names: spans) == reference[names[i]])
            }
        }
        #expect(table.count == reference.count)
        let unknown = Array("Bob’s iPhone".utf8)
        unknown.withUnsafeBufferPointer { b in
            let span = ByteSpan(start: b.baseAddress!, count: b.count)
            #expect(table.index(of: span, hash: SourceNameTable.hash(span), names: spans) == nil)
        }
    }
}

extension Array where Element == [UInt8] {
    /// Calls `body` with each array's bytes in memory of its own, all valid during the call.
    func withUnsafeBufferPointers<R>(_ body: ([UnsafeBufferPointer<UInt8>]) -> R) -> R {
        let copies = map { bytes in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: Swift.max(1, bytes.count))
            copy.initialize(from: bytes, count: bytes.count)
            return UnsafeBufferPointer(start: copy, count: bytes.count)
        }
        defer { for copy in copies { UnsafeMutablePointer(mutating: copy.baseAddress!).deallocate() } }
        return body(copies)
    }
}
