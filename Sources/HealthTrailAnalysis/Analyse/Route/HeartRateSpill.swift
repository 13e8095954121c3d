import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#endif

/// Every heart-rate sample of an export, written to a binary file as export.xml streams by.
///
/// Heart rate comes before workouts in export.xml, so while it streams nobody knows which
/// samples the route join will need. Keeping them all in memory would grow with the export
/// (tens of millions on a Watch owner's archive); instead each sample costs 12 bytes of disk
/// here, and `HeartRateJoin` later reads back only those inside workout windows.
package final class HeartRateSpill {
    /// On-disk record: seconds since 1970 (UInt32, good to 2106), bpm (Float), source (UInt32).
    package struct Record: BitwiseCopyable {
        package var time: UInt32
        package var bpm: Float
        package var source: UInt32
    }

    package let path: String
    private let writer: SpillRecordWriter
    private(set) var count = 0

    package init(path: String) throws {
        self.path = path
        writer = try SpillRecordWriter(path: path, bufferSize: 1 << 20, writeBehind: true)
    }

    @inline(__always)
    package func add(time: Int64, bpm: Double, source: Int) {
        // Routes are GPS-timed (GPS time starts in 1980), and the join places only route points
        // between 1970 and 2106 (`HeartRateJoin`): a sample outside could join nothing, and
        // clamped to the range's edge it would join a point it was never near.
        guard time >= 0, time <= Int64(UInt32.max) else { return }
        let record = Record(time: UInt32(clamping: time), bpm: Float(bpm), source: UInt32(clamping: source))
        writer.append(record)
        count += 1
    }

    /// Finishes the file; reading may start after this.
    package func close() throws { try writer.close() }

    /// Streams the records back in file order.
    package func forEach(_ body: (Record) -> Void) throws {
        try ReadOnlyFile(path: path).forEachRecord(Record.self, body)
    }

    package func remove() { unlink(path) }
}
