#if canImport(Glibc)
import Glibc
#endif

/// Writes all `count` bytes to `fd`, retrying short writes and EINTR. Returns 0, or the errno of
/// the failure: every writer (CSV, zip, SVG, ledger) shares this one loop.
@discardableResult
package func writeFully(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
    var done = 0
    while done < count {
        let n = write(fd, bytes + done, count - done)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        done += n
    }
    return 0
}

/// `writeFully` for an array.
package func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
    bytes.withUnsafeBytes { $0.isEmpty ? 0 : writeFully(fd, $0.baseAddress!, $0.count) }
}
