import Foundation
import HealthTrailTestSupport
import Testing

/// The compiler, not a comment, keeps a byte view inside the call that lent it: `ByteSpan` is
/// nonescapable, so a program that stores one past its scope does not compile.
///
/// Each case compiles a few lines against the HealthTrailBase module this test process was built
/// with (`swiftc -emit-sil`, which runs the lifetime checks), and expects the compiler's refusal
/// by its message, so an unrelated failure (no module found) does not pass for one;
/// the control case, which reads the same span in place, must compile, so a broken setup (no
/// `swiftc`, no module) fails rather than passing for a refusal.
@Suite struct ByteViewEscapeTests {
    /// Storing a span in a class property: the view would outlive the string that lent it.
    @Test func aSpanStoredInAClassDoesNotCompile() throws {
        let result = try Self.compile(
            """
            final class KeptView { var span: ByteSpan? = nil }
            func keep(_ text: String, in kept: KeptView) { ByteSpan.withUTF8(text) { kept.span = $0 } }
            """)
        #expect(result.status != 0, "a span stored in a class compiled")
        #expect(result.errors.contains("'$0' escapes its scope"), "\(result.errors)")
    }

    /// Capturing a span in a closure that is kept for later.
    @Test func aSpanCapturedByAnEscapingClosureDoesNotCompile() throws {
        let result = try Self.compile(
            """
            final class Later { var run: (() -> Int)? = nil }
            func keep(_ text: String, _ later: Later) { ByteSpan.withUTF8(text) { span in later.run = { span.count } } }
            """)
        #expect(result.status != 0, "a span captured by an escaping closure compiled")
        #expect(result.errors.contains("'span' escapes its scope"), "\(result.errors)")
    }

    /// Returning the span from the closure that lent it, or keeping spans in an array.
    @Test func aSpanReturnedFromItsClosureOrKeptInAnArrayDoesNotCompile() throws {
        let returned = try Self.compile("func first(_ text: String) -> ByteSpan { ByteSpan.withUTF8(text) { $0 } }")
        #expect(returned.status != 0, "a span returned from withUTF8's closure compiled")
        #expect(returned.errors.contains("requires that 'ByteSpan' conform to 'Escapable'"), "\(returned.errors)")
        let array = try Self.compile("var kept: [ByteSpan] = []")
        #expect(array.status != 0, "an array of spans compiled")
        #expect(array.errors.contains("'ByteSpan' does not conform to protocol 'Escapable'"), "\(array.errors)")
    }

    /// The same span read in place compiles: the refusals above are about escaping, not setup.
    @Test func aSpanReadInPlaceCompiles() throws {
        let result = try Self.compile(
            """
            func length(_ text: String) -> Int { ByteSpan.withUTF8(text) { span in span.prefix(2).count + span.dropFirst(1).count } }
            """)
        #expect(result.status == 0, "\(result.errors)")
    }

    /// Compiles `code` after `import HealthTrailBase` to SIL; the exit status and the errors.
    static func compile(_ code: String) throws -> (status: Int32, errors: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("byte-view-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("main.swift")
        try ("import HealthTrailBase\n" + code + "\n").write(to: source, atomically: true, encoding: .utf8)
        let swiftc = try #require(Self.swiftc, "no swiftc on PATH")
        let modules = try #require(Self.baseModuleFolder, "no HealthTrailBase.swiftmodule beside the test binary or in .build/release/Modules")
        // The language mode and the feature the project's targets that use views build with
        // (`swift6Views` in Package.swift).
        let result = try Support.runProgram(
            swiftc,
            [
                "-emit-sil", "-o", "/dev/null", "-swift-version", "6", "-enable-experimental-feature", "Lifetimes",
                "-package-name", Self.packageName, "-I", modules, source.path,
            ],
            timeout: 120)
        return (result.status, result.stderr)
    }

    /// The folder with the HealthTrailBase module of this build: `Modules` beside the test
    /// binary (the build under test), else that of the release build.
    static let baseModuleFolder: String? = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var candidates = [testBinary.deletingLastPathComponent().appendingPathComponent("Modules").path]
        // On macOS the test binary sits inside a bundle, three folders below the build's.
        candidates.append(
            testBinary.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Modules").path)
        candidates.append(Support.packageRoot.appendingPathComponent(".build/release/Modules").path)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/HealthTrailBase.swiftmodule") }
    }()

    /// The package name the build gave its modules: the snippet uses `package` declarations,
    /// which only code of the same package name sees. Read from the build's own description
    /// (`<scratch>/<configuration>.yaml`, the command that compiled HealthTrailBase); else as
    /// SwiftPM derives it, from the package's folder, lowercased, anything but a letter or a
    /// digit made `_`.
    static let packageName: String = {
        let configurationFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let description = configurationFolder.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(configurationFolder.lastPathComponent + ".yaml")
        if let text = try? String(contentsOf: description, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.contains(#""-module-name","HealthTrailBase""#) }),
            let match = line.firstMatch(of: #/"-package-name","([^"]+)"/#)
        {
            return String(match.output.1)
        }
        return String(Support.packageRoot.standardizedFileURL.lastPathComponent.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }()

    /// `swiftc` on PATH.
    static let swiftc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
}
