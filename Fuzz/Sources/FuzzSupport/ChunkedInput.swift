/// A fuzz input split into chunks the way an inflated entry arrives: the first byte chooses the
/// chunk size, so libFuzzer also explores where chunk boundaries fall (inside a name, a
/// multi-byte character, the `<HealthData` the prolog filter looks for).
public struct ChunkedInput {
    /// The bytes after the first.
    public let body: UnsafeRawBufferPointer
    /// 1 to 256 bytes, from the first byte.
    public let chunkSize: Int

    public init(_ data: UnsafePointer<UInt8>, _ count: Int) {
        let bytes = UnsafeRawBufferPointer(start: data, count: count)
        chunkSize = count > 0 ? Int(bytes[0]) + 1 : 1
        body = count > 0 ? UnsafeRawBufferPointer(rebasing: bytes[1...]) : UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// Calls `body` with each chunk in order.
    public func forEachChunk(_ deliver: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + chunkSize)
            try deliver(UnsafeRawBufferPointer(rebasing: body[offset..<end]))
            offset = end
        }
    }
}
