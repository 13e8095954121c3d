import Foundation
import HealthTrailBase
import HealthTrailTestSupport
import Testing

/// The dependency graph docs/ARCHITECTURE.md draws is the one Package.swift declares, and no
/// source file imports a module its target does not declare.
///
/// SwiftPM lets a target import the modules of its dependencies' dependencies (HealthTrailKit
/// could `import CZlib` through HealthTrailArchive), so the compiler alone does not keep a layer
/// from reaching past the one below it: the import check does.
@Suite struct ArchitectureGraphTests {
    /// A target of the package as `swift package dump-package` describes it.
    struct Target {
        var name: String
        var kind: String
        var folder: String
        var dependencies: Set<String>
        /// Its Swift settings as `dump-package` spells them, one per setting: the kind, then its
        /// arguments (`strictMemorySafety`, `treatWarning StrictMemorySafety error`).
        var swiftSettings: Set<String> = []
        /// A test target, or a target under Tests/ that only test targets use (the shared helpers).
        var isTestSide: Bool { kind == "test" || folder.hasPrefix("Tests/") }
    }

    /// Modules every target may import: the platform's own.
    static let platformModules: Set<String> = ["Foundation", "FoundationXML", "Glibc", "Darwin", "Musl", "Dispatch", "Synchronization"]

    /// The words docs/ARCHITECTURE.md uses for modules that are not targets of this package.
    static let moduleForWord = [
        "zlib": "CZlib", "libdeflate": "CLibDeflate", "libsqlite3": "CSQLite", "libxml2": "CLibXML2", "swift-crypto": "Crypto",
        "Yams": "Yams", "swift-log": "Logging", "swift-argument-parser": "ArgumentParser",
    ]

    static func targets() throws -> [Target] {
        let root = Support.packageRoot.path
        let result = try Support.runProgram("/usr/bin/env", ["swift", "package", "--package-path", root, "dump-package"])
        #expect(result.status == 0, "swift package dump-package: \(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        return (json["targets"] as! [[String: Any]]).map { target in
            let name = target["name"] as! String
            let kind = target["type"] as! String
            let folder = target["path"] as? String ?? (kind == "test" ? "Tests/\(name)" : "Sources/\(name)")
            // Each dependency is {"byName"|"target"|"product": [name, …]}: its first element names the module.
            let dependencies = (target["dependencies"] as! [[String: Any]]).compactMap { ($0.values.first as? [Any])?.first as? String }
            // Each setting is {"tool": "swift", "kind": {name: {"_0": argument, …}}}.
            let settings = (target["settings"] as? [[String: Any]] ?? []).filter { $0["tool"] as? String == "swift" }
            let swiftSettings = settings.compactMap { $0["kind"] as? [String: Any] }.flatMap { kind in
                kind.map { name, value in
                    let arguments = (value as? [String: Any] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.value)" }
                    return ([name] + arguments).joined(separator: " ")
                }
            }
            return Target(name: name, kind: kind, folder: folder, dependencies: Set(dependencies), swiftSettings: Set(swiftSettings))
        }
    }

    @Test func theDocumentedGraphIsTheDeclaredOne() throws {
        let text = try String(contentsOf: Support.packageRoot.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "| target | depends on |"))
        var documented: [String: Set<String>] = [:]
        for line in lines[(start + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let target = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            // "nothing" is the row of a target without dependencies.
            let words = cells[1] == "nothing" ? [] : cells[1].components(separatedBy: ", ")
            documented[target] = Set(words.map { Self.moduleForWord[$0] ?? $0 })
        }
        let declared = try Self.targets()
        #expect(!documented.isEmpty)
        for (name, dependencies) in documented {
            let target = declared.first { $0.name == name }
            #expect(
                target?.dependencies == dependencies,
                "docs/ARCHITECTURE.md: \(name) depends on \(dependencies.sorted()); Package.swift: \(target?.dependencies.sorted() ?? [])")
        }
        // Every library target is in the table.
        for target in declared where target.kind == "regular" && !target.isTestSide {
            #expect(documented[target.name] != nil, "docs/ARCHITECTURE.md has no row for \(target.name)")
        }
    }

    /// The code map's picture puts each target on a row; every dependency between HealthTrail's
    /// own targets points to a lower row, so the picture is a true layering.
    @Test func theLayerPictureOrdersEveryArrow() throws {
        let text = try String(contentsOf: Support.packageRoot.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let map = try #require(text.range(of: "## Code map"))
        let fence = try #require(text.range(of: "```\n", range: map.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```", range: fence.upperBound..<text.endIndex))
        let declared = try Self.targets().filter { !$0.isTestSide && $0.kind != "system" }
        let names = Set(declared.map(\.name))
        var row: [String: Int] = [:]
        for (index, line) in text[fence.upperBound..<end.lowerBound].split(separator: "\n").enumerated() {
            for word in line.split(separator: " ") where names.contains(String(word)) { row[String(word)] = index }
        }
        for target in declared where target.name != "healthtrail-floor" {
            let own = try #require(row[target.name], "the code map's picture has no row for \(target.name)")
            for dependency in target.dependencies where names.contains(dependency) {
                let below = try #require(row[dependency], "the code map's picture has no row for \(dependency)")
                #expect(below > own, "\(target.name) depends on \(dependency), which the picture does not draw below it")
            }
        }
    }

    @Test func noFileImportsAModuleItsTargetDoesNotDeclare() throws {
        let declared = try Self.targets()
        let ownModules = Set(declared.map(\.name).map { $0.replacingOccurrences(of: "-", with: "_") })
        // A Swift import at the start of a line, of one module (or a declaration in it), with at most
        // a comment after it: Python's `import json, sys` inside the tests' scripts is not one.
        let importLine = try NSRegularExpression(
            pattern:
                #"^(?:@testable\s+|@_implementationOnly\s+)?import\s+(?:(?:struct|class|enum|func|var|let|protocol|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_.]+)?[ \t]*(?://.*)?$"#,
            options: .anchorsMatchLines)
        var checked = 0
        for target in declared where target.kind != "system" {
            let folder = Support.packageRoot.appendingPathComponent(target.folder)
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            #expect(!files.isEmpty, "no Swift files under \(target.folder)")
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let range = NSRange(text.startIndex..., in: text)
                for match in importLine.matches(in: text, range: range) {
                    let module = String(text[Range(match.range(at: 1), in: text)!])
                    guard !Self.platformModules.contains(module), module != "Testing" else { continue }
                    checked += 1
                    let allowed = target.dependencies.contains(module) || (target.isTestSide && ownModules.contains(module))
                    #expect(allowed, "\(target.folder)/\(file) imports \(module), which \(target.name) does not declare")
                }
            }
        }
        #expect(checked > 50)
    }

    /// The layer test targets run in process: only HealthTrailEndToEndTests drives the binary,
    /// so `make test-unit` needs no build of it and a layer's failure names that layer.
    @Test func onlyTheEndToEndTargetRunsTheBinary() throws {
        let drives = try Regex(#"\brunCLI\(|Support\.binary\b|Support\.debugBinary\b"#)
        var checked = 0
        for target in try Self.targets() where target.kind == "test" && target.name != "HealthTrailEndToEndTests" {
            let folder = Support.packageRoot.appendingPathComponent(target.folder)
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files {
                checked += 1
                let code = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                #expect(!code.contains(drives), "\(target.folder)/\(file) runs the binary: it belongs in HealthTrailEndToEndTests")
            }
        }
        #expect(checked > 30)
    }

    /// Raw pointers live in HealthTrailBase, HealthTrailArchive and HealthTrailXML only, behind
    /// small types that state their invariants (`ByteSpan`, `OwnedBytes`, `OutputBuffer`,
    /// `SpillRecordReader`, `FixedSlots`, `SAXEventCapture`); so do libxml2's callbacks and `Unmanaged`. The one exception is
    /// HealthTrailWrite's `SQLite/` folder, whose two types hold libsqlite3's handles. Every other
    /// file works with spans, slots and records as values.
    @Test func pointerCodeStaysInTheLowerLayers() throws {
        // A pointer type or cast, or one of the accessors that hand out a raw address (a buffer's
        // `baseAddress`, a literal's `utf8Start` or `withUTF8Buffer`, a string's `withUTF8`); `ByteSpan.withUTF8`,
        // the safe view HealthTrailArchive offers instead, is not one.
        let pointer = try Regex(
            #"\bUnsafe[A-Za-z]*|withUnsafe|\bUnmanaged\b|\bOpaquePointer\b|unsafeAddress|assumingMemoryBound|\.baseAddress\b|\.utf8Start\b|\.withUTF8(Buffer)?\b"#
        )
        let callbacks = try Regex(#"\bUnmanaged\b|xmlSAXHandler|_withUnsafeGuaranteedRef|import CLibXML2"#)
        let sources = Support.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        var pointerFiles: Set<String> = []
        for file in files where !Self.pointerFolders.contains(where: file.hasPrefix) {
            let code = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
                .replacingOccurrences(of: "ByteSpan.withUTF8", with: "")
            if code.contains(pointer) { pointerFiles.insert(file) }
            #expect(!code.contains(callbacks), "\(file): libxml2 callbacks or Unmanaged outside HealthTrailXML and HealthTrailArchive")
        }
        #expect(pointerFiles.isEmpty, "pointer code outside \(Self.pointerFolders): \(pointerFiles.sorted())")
    }

    /// The folders under Sources/ that may hold pointer code.
    static let pointerFolders = ["HealthTrailBase/", "HealthTrailArchive/", "HealthTrailXML/", "HealthTrailWrite/SQLite/"]

    /// The Swift settings of strict memory safety, as `dump-package` spells them: each unsafe use
    /// must be marked `unsafe`, and an unmarked one fails the build.
    static let strictMemorySafetySettings: Set<String> = ["strictMemorySafety", "treatWarning StrictMemorySafety error"]

    /// Every target holding pointer code (a folder of `pointerFolders`) compiles with strict
    /// memory safety, so that each unsafe use in it is marked where its `SAFETY:` note stands and
    /// a new pointer target cannot leave the setting out.
    @Test func everyPointerTargetHasStrictMemorySafety() throws {
        let declared = try Self.targets()
        let pointerTargets = Set(Self.pointerFolders.map { String($0.prefix { $0 != "/" }) })
        #expect(pointerTargets.count == 4)
        for name in pointerTargets.sorted() {
            let target = try #require(declared.first { $0.name == name }, "Package.swift has no target \(name)")
            let missing = Self.strictMemorySafetySettings.subtracting(target.swiftSettings)
            #expect(missing.isEmpty, "\(name) holds pointer code but Package.swift does not give it \(missing.sorted())")
        }
    }

    /// Every pointer access in the pointer folders says why it is valid (bounds,
    /// lifetime, initialisation, alignment, exclusivity) in a comment near it.
    ///
    /// A simple heuristic, by lines: a code line (not a comment) that matches `access` below,
    /// once the name of a function it declares (`func withUnsafeBytes`) is dropped, is covered
    /// when one of the `window` lines before it, or the line itself, contains `SAFETY:` or
    /// `Invariant`, or when the comment just above the declaration of its enclosing type
    /// contains `SAFETY:`, `Invariant` or `invariant`. The enclosing type is found by indentation
    /// (the files are formatted): walking back from the line, each code line indented less than
    /// the last one found opens a scope around it, and the first such line that declares a
    /// `class`, `struct`, `enum`, `actor` or `extension` is the type. It does not check that the
    /// note is true.
    @Test func everyUnsafeBlockStatesItsInvariant() throws {
        let access = try NSRegularExpression(
            pattern:
                #"withUnsafe|\.baseAddress\b|assumingMemoryBound|bindMemory|loadUnaligned|storeBytes|\.pointee\b|memcpy|memmove|memcmp|\.update\(from:|copyMemory|Unmanaged|\bUnsafe(Mutable)?(Raw)?(Buffer)?Pointer\("#
        )
        let declaredFunction = try NSRegularExpression(pattern: #"\bfunc\s+\w+"#)
        let typeDeclaration = try NSRegularExpression(pattern: #"^\s*(?:@\w+(?:\([^)]*\))?\s+|\w+\s+)*(?:class|struct|enum|actor|extension)\s+\w"#)
        let window = 12
        let sources = Support.packageRoot.appendingPathComponent("Sources")
        var checked = 0
        var uncovered: [String] = []
        for folder in Self.pointerFolders.map({ String($0.dropLast()) }) {
            let directory = sources.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files.sorted() {
                let lines = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
                let indentation = { (line: String) in line.prefix { $0 == " " }.count }
                let isComment = { (line: String) in line.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                let statesInvariant = { (line: String) in line.contains("SAFETY:") || line.contains("Invariant") }
                for (index, line) in lines.enumerated() where !isComment(line) {
                    let code = declaredFunction.stringByReplacingMatches(
                        in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "func")
                    guard access.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil else { continue }
                    checked += 1
                    if lines[max(0, index - window)...index].contains(where: statesInvariant) { continue }
                    // The enclosing type: walking back, each code line indented less than the last
                    // one found opens a scope around the line; the first that declares a type.
                    var threshold = indentation(line)
                    var enclosing: Int?
                    for candidate in stride(from: index - 1, through: 0, by: -1) where threshold > 0 {
                        let text = lines[candidate], trimmed = text.trimmingCharacters(in: .whitespaces)
                        guard !trimmed.isEmpty, !isComment(text), !trimmed.hasPrefix("#"), indentation(text) < threshold else { continue }
                        if typeDeclaration.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                            enclosing = candidate
                            break
                        }
                        threshold = indentation(text)
                    }
                    if let enclosing {
                        // Its doc comment: the comment lines right above it (attributes may sit between).
                        var above = enclosing - 1
                        while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                        var comment: [String] = []
                        while above >= 0, isComment(lines[above]) {
                            comment.append(lines[above])
                            above -= 1
                        }
                        if comment.contains(where: { statesInvariant($0) || $0.contains("invariant") }) { continue }
                    }
                    uncovered.append("Sources/\(folder)/\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces).prefix(100))")
                }
            }
        }
        #expect(checked > 50)
        #expect(
            uncovered.isEmpty,
            "\(uncovered.count) pointer accesses with no SAFETY: or Invariant note in the \(window) lines before them or on their type:\n\(uncovered.joined(separator: "\n"))"
        )
    }

    /// Nothing outside the package uses HealthTrail's modules (the fuzz targets import them
    /// `@testable`), so declarations are `package`; `public` is kept only where Swift requires
    /// it: the `open` record sink that HealthTrailRun subclasses, and the types its methods take.
    @Test func publicOnlyWhereSubclassingAcrossModulesNeedsIt() throws {
        let declaration = try Regex(
            #"^\s*(?:@[\w()]+\s+)*(?:public|open)\s+(?:(?:final|static|override)\s+)*(?:struct|class|enum|protocol|func|var|let|init|subscript)\s*([^\s(:{]*)"#
        )
        let sources = Support.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        var found: Set<String> = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if let match = line.firstMatch(of: declaration) {
                    found.insert("\((file as NSString).lastPathComponent): \(match.output[1].substring ?? "")")
                }
            }
        }
        let allowed: Set<String> = [
            "ExportRecordSink.swift: ExportRecordSink", "ExportRecordSink.swift: record", "ExportRecordSink.swift: heartRate",
            "ExportRecordSink.swift: heartRateEnded", "ExportRecordSink.swift: recordTimeZone", "ExportRecordSink.swift: hrvBeat",
            "ExportRecordSink.swift: activitySummary", "ExportRecordSink.swift: DecodedRecord", "ExportRecordSink.swift: DecodedActivitySummary",
            "RecordType.swift: RecordType", "ExportDecoder.swift: ExportDecoder", "ByteSpan.swift: ByteSpan",
            // `Timestamp` is public, so its `Comparable` witness must be too.
            "Timestamp.swift: Timestamp", "Timestamp.swift: <",
        ]
        #expect(found.subtracting(allowed).isEmpty, "public where package would do: \(found.subtracting(allowed).sorted())")
        #expect(allowed.subtracting(found).isEmpty, "no longer public, drop from the list: \(allowed.subtracting(found).sorted())")
    }

    /// No public declaration takes or returns a raw pointer: a pointer valid only during a call
    /// stays inside HealthTrail's own targets (`package`), where its invariant is stated.
    @Test func noPublicDeclarationHandsOutARawPointer() throws {
        let pointer = try NSRegularExpression(pattern: #"\bUnsafe(Mutable)?(Raw)?(Buffer)?Pointer\b|\bOpaquePointer\b|\bUnmanaged\b"#)
        let sources = Support.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        var found: [String] = []
        for file in files {
            let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                var words = line.split(separator: " ").drop { $0.hasPrefix("@") }
                words = words.drop { $0 == "final" || $0 == "static" || $0 == "nonisolated" }
                guard let first = words.first, first == "public" || first == "open" else { continue }
                let signature = Self.signature(lines[index...])
                if pointer.firstMatch(in: signature, range: NSRange(signature.startIndex..., in: signature)) != nil {
                    found.append("Sources/\(file):\(index + 1): \(signature.prefix(120))")
                }
            }
        }
        #expect(found.isEmpty, "public declarations with a raw pointer:\n\(found.joined(separator: "\n"))")
    }

    /// A declaration's signature from its first line: up to its body or value (`{` or `=` outside
    /// brackets), across the lines its parameters are wrapped over.
    static func signature(_ lines: ArraySlice<String>) -> String {
        var text = "", depth = 0
        for line in lines {
            var previous: Character = " "
            for character in line {
                if depth == 0 && (character == "{" || character == "=") { return text }
                // A generic parameter list follows a name (`Array<T>`, `func f<T>`); `func <` and
                // `->` are an operator and an arrow.
                let opensGenerics = character == "<" && (previous.isLetter || previous.isNumber)
                if character == "(" || character == "[" || opensGenerics { depth += 1 }
                if character == ")" || character == "]" || (character == ">" && previous != "-") { depth = max(0, depth - 1) }
                text.append(character)
                previous = character
            }
            if depth == 0 { return text }
            text.append(" ")
        }
        return text
    }
}
