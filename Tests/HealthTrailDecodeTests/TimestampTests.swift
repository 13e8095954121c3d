import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailXML

@Suite struct TimestampTests {
    @Test func parsesAppleExportDates() throws {
        let t = try #require(Timestamp.parse("2024-01-02 07:31:22 -0800"))
        #expect(t.utcString == "2024-01-02T15:31:22Z")
        #expect(t.offsetMinutes == -480)
        #expect(t.offsetString == "-08:00")
        #expect(t.localDateString == "2024-01-02")
    }

    @Test func localDateFollowsTheOffset() throws {
        // 00:30 in Paris is still the previous day in UTC.
        let t = try #require(Timestamp.parse("2024-07-01 00:30:00 +0200"))
        #expect(t.utcString == "2024-06-30T22:30:00Z")
        #expect(t.localDateString == "2024-07-01")
        let india = try #require(Timestamp.parse("2024-07-01 05:00:00 +0530"))
        #expect(india.utcString == "2024-06-30T23:30:00Z")
        #expect(india.offsetString == "+05:30")
    }

    @Test func parsesISO8601FromGPX() throws {
        #expect(Timestamp.parse("2024-11-14T17:04:42Z")?.utcSeconds == 1_731_603_882)
        #expect(Timestamp.parse("2024-11-14T17:04:42.250Z")?.utcSeconds == 1_731_603_882)
        #expect(Timestamp.parse("2024-11-14T18:04:42+01:00")?.utcSeconds == 1_731_603_882)
        #expect(Timestamp.parse("2024-11-14T17:04:42")?.utcSeconds == 1_731_603_882)
    }

    @Test func agreesWithCalendarArithmeticOverManyDays() throws {
        // Every day from 1969 to 2101, including leap days, round-trips through format and parse.
        var days: Int64 = -400
        while days < 48_000 {
            let seconds = days * 86_400 + 12_345
            let text = Timestamp(utcSeconds: seconds).utcString
            #expect(Timestamp.parse(text)?.utcSeconds == seconds, "\(text)")
            days += 1
        }
        #expect(Timestamp.parse("2000-02-29 12:00:00 +0000") != nil)
        #expect(Timestamp.parse("2100-02-29 12:00:00 +0000") == nil)
        #expect(Timestamp.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
    }

    @Test(arguments: [
        "", "2024-01-02", "2024-13-02 07:31:22 -0800", "2024-01-32 07:31:22 -0800",
        "2024-01-02 25:31:22 -0800", "2024-01-02 07:31:22 -08", "2024-01-02 07:31:22 +0800x",
        "2024/01/02 07:31:22 -0800", "yesterday at noon please", "2024-01-02 07:3a:22 -0800",
    ])
    func rejectsMalformedDates(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func readsHRVTimeOfDayInBothLocales() {
        func seconds(_ s: String) -> Int? {
            var s = s
            return s.withUTF8 { TimeOfDay.seconds(ByteSpan(start: $0.baseAddress!, count: $0.count)) }
        }
        #expect(seconds("00:20:37,80") == 1237)
        #expect(seconds("7:20:37.80 PM") == 19 * 3600 + 20 * 60 + 37)
        #expect(seconds("12:00:01.00 AM") == 1)
        #expect(seconds("12:00:01 PM") == 12 * 3600 + 1)
        #expect(seconds("25:00:00") == nil)
        #expect(seconds("7:20") == nil)
    }

    @Test func numbersAreCheckedWithoutGuessing() {
        func isNumber(_ s: String) -> Bool {
            var s = s
            return s.withUTF8 { NumberText.isNumber(ByteSpan(start: $0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: $0.count)) }
        }
        for good in ["72", "-0.5", "1.2e-05", "0.0833333", "+3", "5."] { #expect(isNumber(good), "\(good)") }
        for bad in ["", "-", ".", "seventy", "72 bpm", "1,5", "1e", "NaN"] { #expect(!isNumber(bad), "\(bad)") }
    }
}
