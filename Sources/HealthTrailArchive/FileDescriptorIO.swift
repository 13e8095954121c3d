#if canImport(Glibc)
import Glibc
#endif

// Reads and writes on a file descriptor for the layers above, which hold arrays, not pointers:
// the pointer a system call takes stays in this file.

/// Writes all `count` bytes to `fd`, retrying short writes and EINTR. Returns 0, or the errno of
/// the failure: every writer (CSV, zip, SVG, ledger) shares this one loop.
@discardableResult
package func writeFully(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
    var done = 0
    while done < count {
        // SAFETY: the caller passes `count` readable bytes at `bytes`; 0 ≤ done < count, so the
        // range written is inside them.
        let n = unsafe write(fd, bytes + done, count - done)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        done += n
    }
    return 0
}

/// `writeFully` for an array.
@discardableResult
package func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
    // SAFETY: the array's own bytes, lent for the call; a non-empty array has a base address.
    unsafe bytes.withUnsafeBytes { unsafe $0.isEmpty ? 0 : writeFully(fd, $0.baseAddress!, $0.count) }
}

/// `writeFully` for the first `count` bytes of `bytes`.
@discardableResult
package func writeFully(_ fd: Int32, _ bytes: [UInt8], count: Int) -> Int32 {
    precondition(count <= bytes.count, "writeFully: count past the end of the array")
    // SAFETY: the buffer is the array's own, `count` is within it (checked above).
    return unsafe bytes.withUnsafeBytes { unsafe count == 0 ? 0 : writeFully(fd, $0.baseAddress!, count) }
}

/// Writes all of `bytes` at `offset` (`pwrite`), retrying short writes and EINTR. Returns 0, or
/// the errno of the failure.
@discardableResult
package func writeFully(_ fd: Int32, _ bytes: [UInt8], at offset: Int64) -> Int32 {
    var done = 0
    while done < bytes.count {
        // SAFETY: `done` < `bytes.count`, so the pointer and length stay inside the array.
        let n = unsafe bytes.withUnsafeBytes { unsafe pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        done += n
    }
    return 0
}

/// Reads up to `buffer.count` bytes from `fd` into the start of `buffer`, retrying EINTR.
/// Returns the count read (0 at the end of the file), or -1 with `errno` set.
package func readSome(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
    while true {
        // SAFETY: `read` writes at most `buffer.count` bytes, all inside the array.
        let n = unsafe buffer.withUnsafeMutableBytes { unsafe $0.isEmpty ? 0 : read(fd, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        return n
    }
}

/// Creates a file from `template` (ending in `XXXXXX`) with `mkstemp`: owner-only, opened for
/// reading and writing. Returns its descriptor and path, or nil with `errno` set.
package func makeTemporaryFile(template: String) -> (fd: Int32, path: String)? {
    var name = Array(template.utf8CString)
    // SAFETY: `mkstemp` rewrites the six X's in place inside the NUL-terminated array.
    let fd = unsafe name.withUnsafeMutableBufferPointer { unsafe mkstemp($0.baseAddress!) }
    guard fd >= 0 else { return nil }
    return (fd, String(cString: name))
}
