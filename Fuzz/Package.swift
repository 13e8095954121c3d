// swift-tools-version:5.4
import PackageDescription

// libFuzzer targets for HealthTrail's input readers: a package of its own, so that `swift build`
// and `swift test` of HealthTrail never see them. Built and run by `make fuzz` (see README.md)
// with `-sanitize=fuzzer,address -parse-as-library`; each target is one `LLVMFuzzerTestOneInput`
// and libFuzzer supplies `main`.
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM links an executable target's entry point
// as `<module>_main`, which a libFuzzer target does not have (the link fails); a 5.4 executable
// target is linked as is. Its sources are named main.swift, as 5.4 executables must be.
let package = Package(
    name: "HealthTrailFuzz",
    platforms: [.macOS("15.0")],
    dependencies: [
        .package(name: "HealthTrail", path: "..")
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "HealthTrailKit", package: "HealthTrail")]
        ),
        .executableTarget(name: "fuzz-zip", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-export-xml", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-device-elision", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-gpx", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-timestamp", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-ecg", dependencies: ["FuzzSupport"]),
    ],
    swiftLanguageVersions: [.v5]
)
