import Foundation
import HealthTrailTestSupport
import Testing

/// Inside HealthTrailRun and HealthTrailKit the folders are layers, lowest first: no file names
/// a type, function or constant declared at the top level of a folder above its own. The compiler
/// does not keep the folders of one target apart; this test does, so that each folder could
/// become a target of its own without an import loop (docs/ARCHITECTURE.md, "Code map").
@Suite struct FolderLayeringTests {
    /// Each target's folders, lowest first.
    static let layers: [(target: String, folders: [String])] = [
        ("Sources/HealthTrailRun", ["Outputs", "Run"]),
        ("Sources/HealthTrailKit", ["YAML", "Release", "Pipeline", "Cohort"]),
    ]

    /// A declaration at the start of a line (top level), not private to its file.
    static let declaration = try! NSRegularExpression(
        pattern:
            #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|final|indirect|nonisolated)\s+)*(?:struct|class|enum|protocol|actor|typealias|func|let|var)\s+([A-Za-z_][A-Za-z0-9_]*)"#,
        options: .anchorsMatchLines)

    @Test func noFolderNamesADeclarationOfAFolderAboveIt() throws {
        var checked = 0
        for (target, folders) in Self.layers {
            let root = Support.packageRoot.appendingPathComponent(target)
            let all = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { !$0.hasPrefix(".") }
            #expect(Set(all) == Set(folders), "\(target) has the folders \(all.sorted()), the layers list \(folders)")
            var texts: [(layer: Int, file: String, code: String)] = []
            var declaredIn: [String: Int] = [:]
            for (layer, folder) in folders.enumerated() {
                let path = root.appendingPathComponent(folder)
                for file in try FileManager.default.contentsOfDirectory(atPath: path.path) where file.hasSuffix(".swift") {
                    let text = try String(contentsOf: path.appendingPathComponent(file), encoding: .utf8)
                    let code = text.components(separatedBy: "\n").map { $0.components(separatedBy: "//")[0] }.joined(separator: "\n")
                    texts.append((layer, folder + "/" + file, code))
                    let range = NSRange(code.startIndex..., in: code)
                    for match in Self.declaration.matches(in: code, range: range) {
                        declaredIn[String(code[Range(match.range(at: 1), in: code)!])] = layer
                    }
                }
            }
            for (layer, file, code) in texts {
                let words = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
                for word in words {
                    guard let owner = declaredIn[word] else { continue }
                    checked += 1
                    #expect(owner <= layer, "\(target)/\(file) names \(word), declared in \(folders[owner])/, a folder above its own")
                }
            }
        }
        #expect(checked > 100)
    }
}
