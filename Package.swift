// swift-tools-version:6.0
import PackageDescription

// HealthTrail: Apple Health export archives → CSV / GeoJSON / SVG / DP releases.
// Each target is a layer of docs/ARCHITECTURE.md, and its dependencies are the only arrows the
// compiler allows: HealthTrailArchive (files, zip, inflate) ← HealthTrailXML (libxml2 SAX) ←
// HealthTrailDecode (export.xml and GPX → typed records for a sink; it writes nothing) ←
// HealthTrailAnalysis (normalise, join, analyse: records to figures) ← HealthTrailKit (a run,
// its output files, pipelines, cohorts, DP releases). Both write through HealthTrailWrite
// (CSV, GeoJSON and SVG from plain values: the formats, not the tables); Kit also uses
// HealthTrailCommit (staging and the journalled commit, which know files, not health data) and
// HealthTrailPrivacy (the DP samplers and budget ledger, blind to exports); HealthTrailSynth,
// the generator the tests and benchmarks compare against, sees only the archive writer.
// Only HealthTrailArchive and HealthTrailXML import zlib, libdeflate and libxml2: the decoders
// receive libxml2's events through HealthTrailXML's SAXEventHandler.
// Swift 6 language mode (complete data-race checking) for every target.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "HealthTrail",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "healthtrail", targets: ["healthtrail"]),
        .library(
            name: "HealthTrailKit",
            targets: [
                "HealthTrailKit", "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailAnalysis",
                "HealthTrailWrite", "HealthTrailCommit", "HealthTrailPrivacy", "HealthTrailSynth",
            ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        // System libraries, linked from Debian's packages (see Makefile `deps`).
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // The CRC-32 of every inflated byte: libdeflate's (carry-less multiplication) is about
        // five times zlib's, 0.13 s less CPU on the benchmark's export.xml.
        .systemLibrary(
            name: "CLibDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
        ),
        // The SQLite library healthtrail.db is written with.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // Bytes in and out: files and folders, zip (central directory, inflate, CRC), the archive
        // writer, the buffered output files and spill records, and the errors and faults every
        // layer reports input problems with. With HealthTrailXML, the only target with pointers
        // (besides HealthTrailWrite's SQLite folder, which holds libsqlite3's handles).
        .target(
            name: "HealthTrailArchive",
            dependencies: ["CZlib", "CLibDeflate"],
            swiftSettings: swift6
        ),
        // libxml2's SAX parser behind one type, the events and byte spans its callbacks hand
        // over, the capture of events for a decoding thread, and the rewrite of device values.
        .target(
            name: "HealthTrailXML",
            dependencies: ["HealthTrailArchive", "CLibXML2"],
            swiftSettings: swift6
        ),
        // export.xml and GPX decoded into typed records for a sink (`ExportRecordSink`), and the
        // vocabulary of an export: record types, units and their conversions, activities, dates.
        // It writes nothing and knows no output.
        .target(
            name: "HealthTrailDecode",
            dependencies: [
                "HealthTrailArchive", "HealthTrailXML",
                .product(name: "Crypto", package: "swift-crypto"),   // SHA-256 that shortens an overlong type's name
            ],
            swiftSettings: swift6
        ),
        // The file formats HealthTrail writes, knowing no health type beyond a route point:
        // buffered CSV, typed tables in SQLite and Parquet, GeoJSON routes, and the SVG maps and
        // calendars drawn from plain values. Its SQLite folder holds the connection's pointers.
        .target(
            name: "HealthTrailWrite",
            dependencies: ["HealthTrailArchive", "HealthTrailDecode", "CSQLite"],
            swiftSettings: swift6
        ),
        // From decoded records to figures: sources ranked and de-duplicated, cumulative series,
        // routes linked to workouts and joined to heart rate, zones, daily figures, sleep nights.
        .target(
            name: "HealthTrailAnalysis",
            dependencies: ["HealthTrailArchive", "HealthTrailDecode", "HealthTrailWrite", "HealthTrailCommit"],
            swiftSettings: swift6
        ),
        // The seeded export generator: the tests' and benchmarks' oracle, and `healthtrail synth`.
        .target(
            name: "HealthTrailSynth",
            dependencies: ["HealthTrailArchive"],
            swiftSettings: swift6
        ),
        // Output that is all or nothing: owner-only files written in a staging folder, moved into
        // place by a journalled commit that a killed run's successor finishes.
        .target(
            name: "HealthTrailCommit",
            dependencies: ["HealthTrailArchive"],
            swiftSettings: swift6
        ),
        // Differential privacy's arithmetic: exact discrete samplers and the budget ledger. It sees
        // bounded aggregates only, never an export or a decoder.
        .target(
            name: "HealthTrailPrivacy",
            dependencies: [
                "HealthTrailArchive",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swift6
        ),
        .target(
            name: "HealthTrailKit",
            dependencies: [
                "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailAnalysis", "HealthTrailWrite",
                "HealthTrailCommit", "HealthTrailPrivacy",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift6
        ),
        .executableTarget(
            name: "healthtrail",
            dependencies: [
                "HealthTrailKit", "HealthTrailArchive", "HealthTrailAnalysis", "HealthTrailWrite", "HealthTrailPrivacy",
                "HealthTrailSynth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift6
        ),
        // The bare floor the benchmark compares against: zlib inflate + libxml2 SAX, empty callbacks.
        .executableTarget(
            name: "healthtrail-floor",
            dependencies: ["HealthTrailArchive", "HealthTrailXML", "CLibXML2", "CZlib"],
            path: "Benchmarks/Floor",
            swiftSettings: swift6
        ),
        // Drives `make bench`: medians of wall time and peak RSS, floor vs. healthtrail, same run.
        .executableTarget(
            name: "healthtrail-bench",
            dependencies: ["HealthTrailKit", "HealthTrailArchive", "HealthTrailDecode", "HealthTrailSynth"],
            path: "Benchmarks/Bench",
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailKitTests",
            dependencies: [
                "HealthTrailKit", "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailAnalysis", "HealthTrailWrite",
                "HealthTrailCommit", "HealthTrailPrivacy", "HealthTrailSynth", "CLibXML2", "CZlib",
            ],
            // The GeoJSON validator, the readers of every table format and the allocation counter the tests run.
            exclude: ["geojson_check.py", "table_check.py", "malloc_counter.c"],
            swiftSettings: swift6
        ),
    ],
)
