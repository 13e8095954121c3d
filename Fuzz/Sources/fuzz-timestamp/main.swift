import FuzzSupport

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailKit

/// The date parser on arbitrary bytes. A date it accepts must survive being written back:
/// its UTC text parses to the same instant, and its local date text is a valid date.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamp(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    guard let t = Timestamp.parse(ByteSpan(start: data, count: count)) else { return 0 }
    precondition(Timestamp.parse(t.utcString)?.utcSeconds == t.utcSeconds, "UTC text does not round-trip")
    precondition(Timestamp.parse(t.localDateString + " 00:00:00 +0000") != nil, "local date is not a date")
    precondition(abs(t.offsetMinutes) < 19 * 60, "offset out of range")
    return 0
}
