// swift-tools-version:6.2
import PackageDescription

// HealthTrail: Apple Health export archives → CSV / GeoJSON / SVG / DP releases.
// Each target is a layer of docs/ARCHITECTURE.md, and its dependencies are the arrows between
// layers: HealthTrailBase (the vocabulary every layer speaks: byte views, timestamps, numbers,
// route points, errors and faults) ← HealthTrailArchive (files, zip, inflate) ← HealthTrailXML
// (libxml2 SAX) ← HealthTrailDecode (export.xml and GPX → typed records for a sink; it writes
// nothing) ← HealthTrailAnalysis (normalise, join, analyse: records to figures) ← HealthTrailRun
// (one run of one export and its output files) ← HealthTrailKit (pipelines, cohorts, DP
// releases). They write through HealthTrailWrite (CSV, GeoJSON and SVG from plain values: the
// formats, not the tables; it sees no decoder); the run also uses HealthTrailCommit (staging and
// the journalled commit, which know files, not health data), and Kit HealthTrailPrivacy (the DP
// samplers and budget ledger, blind to exports); HealthTrailSynth, the generator the tests and
// benchmarks compare against, sees only the archive writer.
// SwiftPM lets a target import its dependencies' dependencies too, so the compiler alone allows
// more than these arrows: the architecture test (ArchitectureGraphTests,
// `noFileImportsAModuleItsTargetDoesNotDeclare`) refuses any import of a module the importing
// file's target does not declare.
// Only HealthTrailArchive and HealthTrailXML import zlib, libdeflate and libxml2: the decoders
// receive libxml2's events through HealthTrailXML's SAXEventHandler.
// Swift 6 language mode (complete data-race checking) for every target.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
// Strict memory safety for the targets that hold pointers (HealthTrailBase, HealthTrailArchive,
// HealthTrailXML, HealthTrailWrite): the compiler reports every use of an unsafe construct (a raw pointer,
// `Unmanaged`, a C function that takes one, a type or function declared `@unsafe`) that is not
// marked `unsafe`, and the warning is an error, so each use is marked where its `SAFETY:` note
// says why it is valid and an unmarked one fails the build. ArchitectureGraphTests checks that
// every target with pointer code has both settings.
let strictMemorySafety: [SwiftSetting] = [.strictMemorySafety(), .treatWarning("StrictMemorySafety", as: .error)]
// The targets that declare byte views or return them: a `ByteSpan` is nonescapable, and a
// function that makes or returns one states what it borrows (`@_lifetime`), which Swift 6.3
// accepts only with the experimental feature `Lifetimes`.
let swift6Views: [SwiftSetting] = swift6 + [.enableExperimentalFeature("Lifetimes")]

let package = Package(
    name: "HealthTrail",
    // macOS 15: the Synchronization module's `Mutex` (the locks of the run's shared state) starts there.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "healthtrail", targets: ["healthtrail"]),
        .library(
            name: "HealthTrailKit",
            targets: [
                "HealthTrailKit", "HealthTrailBase", "HealthTrailRun", "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode",
                "HealthTrailAnalysis", "HealthTrailWrite", "HealthTrailCommit", "HealthTrailPrivacy", "HealthTrailSynth",
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
        // glibc's `mallopt`, for the executable's allocator settings (part of libc: no package).
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The vocabulary every layer speaks: views of bytes owned elsewhere and owned copies,
        // timestamps, numbers as exports write them, route points, and the errors and faults
        // input problems are reported with. It depends on nothing.
        // Strict memory safety: every use of a pointer is marked `unsafe` beside its SAFETY note,
        // and a new unmarked one is a build error.
        .target(
            name: "HealthTrailBase",
            swiftSettings: swift6Views + strictMemorySafety
        ),
        // Bytes in and out: files and folders, zip (central directory, inflate, CRC), the archive
        // writer, the buffered output files and spill records. With HealthTrailBase and
        // HealthTrailXML, the only targets with pointers (besides HealthTrailWrite's SQLite
        // folder, which holds libsqlite3's handles).
        .target(
            name: "HealthTrailArchive",
            dependencies: ["HealthTrailBase", "CZlib", "CLibDeflate"],
            swiftSettings: swift6Views + strictMemorySafety
        ),
        // libxml2's SAX parser behind one type, the events and byte spans its callbacks hand
        // over, the capture of events for a decoding thread, and the rewrite of device values.
        .target(
            name: "HealthTrailXML",
            dependencies: ["HealthTrailBase", "HealthTrailArchive", "CLibXML2"],
            swiftSettings: swift6Views + strictMemorySafety
        ),
        // export.xml and GPX decoded into typed records for a sink (`ExportRecordSink`), and the
        // vocabulary of an export: record types, units and their conversions, activities.
        // It writes nothing and knows no output.
        .target(
            name: "HealthTrailDecode",
            dependencies: [
                "HealthTrailBase", "HealthTrailArchive", "HealthTrailXML",
                .product(name: "Crypto", package: "swift-crypto"),   // SHA-256 that shortens an overlong type's name
            ],
            swiftSettings: swift6Views
        ),
        // The file formats HealthTrail writes, knowing no health type beyond a route point:
        // buffered CSV, typed tables in SQLite and Parquet, GeoJSON routes, and the SVG maps and
        // calendars drawn from plain values. Its SQLite folder holds the connection's pointers.
        .target(
            name: "HealthTrailWrite",
            dependencies: ["HealthTrailBase", "HealthTrailArchive", "CSQLite"],
            swiftSettings: swift6Views + strictMemorySafety
        ),
        // From decoded records to figures: sources ranked and de-duplicated, cumulative series,
        // routes linked to workouts and joined to heart rate, zones, daily figures, sleep nights.
        .target(
            name: "HealthTrailAnalysis",
            dependencies: ["HealthTrailBase", "HealthTrailArchive", "HealthTrailDecode", "HealthTrailWrite"],
            swiftSettings: swift6Views
        ),
        // The seeded export generator: the tests' and benchmarks' oracle, and `healthtrail synth`.
        .target(
            name: "HealthTrailSynth",
            dependencies: ["HealthTrailBase", "HealthTrailArchive"],
            swiftSettings: swift6
        ),
        // Output that is all or nothing: owner-only files written in a staging folder, moved into
        // place by a journalled commit that a killed run's successor finishes.
        .target(
            name: "HealthTrailCommit",
            dependencies: ["HealthTrailBase", "HealthTrailArchive"],
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
        // One run of one export: its stages, options, manifest, lock and log, and the output files
        // it writes (tables, maps, the SQLite and Parquet copies, their schema).
        .target(
            name: "HealthTrailRun",
            dependencies: [
                "HealthTrailBase", "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailAnalysis", "HealthTrailWrite",
                "HealthTrailCommit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift6
        ),
        // Above a run: the YAML schema language, DP releases of a run's bounded totals (partial
        // aggregates, the release runner and its ledger), pipeline files, and cohorts of persons.
        .target(
            name: "HealthTrailKit",
            dependencies: [
                "HealthTrailBase", "HealthTrailRun", "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailAnalysis",
                "HealthTrailWrite", "HealthTrailCommit", "HealthTrailPrivacy",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift6
        ),
        .executableTarget(
            name: "healthtrail",
            dependencies: [
                "HealthTrailKit", "HealthTrailBase", "HealthTrailRun", "HealthTrailArchive", "HealthTrailAnalysis", "HealthTrailWrite",
                "HealthTrailPrivacy", "HealthTrailSynth", .target(name: "CMalloc", condition: .when(platforms: [.linux])),
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
            dependencies: ["HealthTrailKit", "HealthTrailBase", "HealthTrailArchive", "HealthTrailDecode", "HealthTrailSynth"],
            path: "Benchmarks/Bench",
            swiftSettings: swift6
        ),
        // The tests, a target per layer, each importing its layer and the ones below (their
        // tests run in process, never the binary), and one end-to-end target that drives the
        // release binary (`make test-unit` runs the layer targets alone; see CONTRIBUTING.md).
        // Helpers every test target shares: paths, the binaries, a CSV reader, zip bytes, the
        // independent GeoJSON check.
        .target(
            name: "HealthTrailTestSupport",
            dependencies: ["HealthTrailBase", "HealthTrailArchive", "CZlib"],
            path: "Tests/HealthTrailTestSupport",
            exclude: ["geojson_check.py"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailArchiveTests",
            dependencies: [
                "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailWrite", "HealthTrailCommit", "HealthTrailSynth",
                "HealthTrailTestSupport", "HealthTrailBase", "CZlib",
            ],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailXMLTests",
            dependencies: ["HealthTrailArchive", "HealthTrailXML", "HealthTrailSynth", "HealthTrailTestSupport", "HealthTrailBase"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailDecodeTests",
            dependencies: [
                "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailCommit", "HealthTrailSynth", "HealthTrailTestSupport",
                "HealthTrailBase",
            ],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailAnalysisTests",
            dependencies: [
                "HealthTrailArchive", "HealthTrailDecode", "HealthTrailAnalysis", "HealthTrailWrite", "HealthTrailCommit", "HealthTrailSynth",
                "HealthTrailTestSupport", "HealthTrailBase",
            ],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailWriteTests",
            dependencies: [
                "HealthTrailArchive", "HealthTrailDecode", "HealthTrailAnalysis", "HealthTrailWrite", "HealthTrailCommit", "HealthTrailSynth",
                "HealthTrailTestSupport", "HealthTrailBase", "CZlib",
            ],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailPrivacyTests",
            dependencies: ["HealthTrailPrivacy", "HealthTrailTestSupport", "HealthTrailBase"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailSynthTests",
            dependencies: ["HealthTrailArchive", "HealthTrailDecode", "HealthTrailSynth", "HealthTrailTestSupport", "HealthTrailBase"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailRunTests",
            dependencies: [
                "HealthTrailRun", "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailAnalysis", "HealthTrailWrite",
                "HealthTrailCommit", "HealthTrailSynth", "HealthTrailTestSupport", "HealthTrailBase",
            ],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailKitTests",
            dependencies: [
                "HealthTrailKit", "HealthTrailRun", "HealthTrailArchive", "HealthTrailDecode", "HealthTrailPrivacy", "HealthTrailSynth",
                "HealthTrailTestSupport", "HealthTrailBase",
            ],
            swiftSettings: swift6
        ),
        // The benchmark driver's comparison of two reports (`--compare`), from known figures: in
        // process, nothing measured or run.
        .testTarget(
            name: "HealthTrailBenchTests",
            dependencies: ["healthtrail-bench"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "HealthTrailEndToEndTests",
            dependencies: [
                "HealthTrailKit", "HealthTrailRun", "HealthTrailArchive", "HealthTrailXML", "HealthTrailDecode", "HealthTrailAnalysis",
                "HealthTrailWrite",
                "HealthTrailCommit", "HealthTrailPrivacy", "HealthTrailSynth", "HealthTrailTestSupport", "HealthTrailBase", "CZlib",
            ],
            // The readers of every table format and the allocation counter the tests run.
            exclude: ["table_check.py", "malloc_counter.c"],
            swiftSettings: swift6
        ),
    ]
)
