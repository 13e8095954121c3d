import Foundation
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailSynth
@testable import HealthTrailXML

/// The decoder's source table and name store against a dictionary of strings, through many growths.
@Suite struct SourceNameTableTests {
    @Test func findsEveryStoredNameAndNothingElse() {
        // Names that share long prefixes and differ in length, the empty name among them.
        let names = [""] + (0..<20_000).map { "Alice’s Apple Watch \($0 % 7 == 0 ? "Ultra " : "")\($0)" }
        let store = NameBytes()
        var table = SourceNameTable()
        var reference: [String: Int] = [:]
        for name in names {
            ByteSpan.withUTF8(name) { span in
                let hash = SourceNameTable.hash(span)
                #expect(table.index(of: span, hash: hash, names: store) == reference[name])
                if reference[name] == nil {
                    reference[name] = store.append(span)
                    table.insert(reference[name]!, hash: hash)
                }
            }
        }
        for name in names {
            ByteSpan.withUTF8(name) { span in
                #expect(table.index(of: span, hash: SourceNameTable.hash(span), names: store) == reference[name])
            }
        }
        #expect(table.count == reference.count)
        ByteSpan.withUTF8("Bob’s iPhone") { span in
            #expect(table.index(of: span, hash: SourceNameTable.hash(span), names: store) == nil)
        }
    }

    /// The decoder's ids, names and record counts for a random stream of names (non-ASCII, the
    /// empty name, repeats near and far, so that both the recent sources and the table answer)
    /// against a dictionary keyed by the names' bytes.
    @Test func decoderSourcesMatchADictionary() {
        var rng = SynthRandom(seed: 37)
        let stems = ["", "Alex’s Apple Watch", "iPhone", "caf\u{E9}", "cafe\u{301}", "Ψ", "🏃 Strava", "a,b\"c", "x"]
        let pool = (0..<5000).map { i in stems[rng.int(0, stems.count - 1)] + (i % 3 == 0 ? "" : " \(rng.int(0, 9999))") }
        let decoder = ExportDecoder(
            sink: nil, faults: FaultLog(file: "export.xml", strict: false), fileName: "export.xml", entryName: "export.xml")
        var ids: [[UInt8]: Int] = [:]
        var counts: [Int] = []
        for _ in 0..<60_000 {
            // Mostly a name met lately, sometimes any of the pool.
            let name = rng.int(0, 3) == 0 ? pool[rng.int(0, pool.count - 1)] : pool[rng.int(0, 40)]
            let bytes = Array(name.utf8)
            let expected = ids[bytes] ?? counts.count
            if ids[bytes] == nil {
                ids[bytes] = expected
                counts.append(0)
            }
            counts[expected] += 1
            let index = ByteSpan.withUTF8(name) { decoder.sourceIndex($0) }
            #expect(index == expected, "\(name)")
        }
        #expect(decoder.sourceCount == ids.count)
        #expect(decoder.sourceRecordCounts == counts)
        for (bytes, id) in ids {
            #expect(decoder.sourceName(id) == String(decoding: bytes, as: UTF8.self))
            #expect(decoder.sourceNames.withName(id) { $0.bytes } == bytes)
        }
    }

    /// Names compare as their `String`s: ASCII by bytes, anything else as Swift compares it
    /// (canonically equal accents are equal, whatever their bytes).
    @Test func namesCompareAsStrings() {
        var rng = SynthRandom(seed: 4)
        let stems = ["", "a", "A", "ab", "b", "caf\u{E9}", "cafe\u{301}", "cafe", "Ψ", "z\u{0}", "\u{7F}", "é"]
        let names = (0..<400).map { _ in stems[rng.int(0, stems.count - 1)] + stems[rng.int(0, stems.count - 1)] }
        let store = NameBytes(names)
        for a in names.indices {
            for b in names.indices {
                let expected = names[a] < names[b] ? -1 : (names[b] < names[a] ? 1 : 0)
                #expect(store.compareAsStrings(a, b) == expected, "\(names[a]) vs \(names[b])")
            }
        }
    }
}
