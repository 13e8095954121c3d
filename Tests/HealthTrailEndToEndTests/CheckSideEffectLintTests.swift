import Foundation
import HealthTrailTestSupport
import Testing

/// Nothing inside `assert`, `precondition` and their kin changes state.
///
/// Whether such a check's condition runs at all depends on the optimisation mode (`-Ounchecked`
/// skips preconditions, `-O` skips asserts), so a side effect inside one makes the builds compute
/// different things: a unit table filled inside `precondition(...)` was empty in the release
/// binary. This lint reads every Swift file below Sources/ and Benchmarks/ and refuses, inside the
/// parentheses of such a call, assignments, `inout` arguments, `try`, and calls of mutating or
/// effectful methods (`append`, `insert`, `remove…`, `update…`, `next`, `write`, …).
@Suite struct CheckSideEffectLintTests {
    /// The checks whose arguments may not run in every build.
    static let checks = ["assert", "assertionFailure", "precondition", "preconditionFailure", "dispatchPrecondition"]

    /// Method names whose call changes state (or does I/O): a heuristic list, not a proof.
    static let effectfulMethods = [
        "append", "insert", "remove", "removeAll", "removeFirst", "removeLast", "removeValue", "popFirst",
        "popLast", "updateValue", "update", "merge", "formUnion", "formIntersection", "subtract",
        "sort", "reverse", "shuffle", "swapAt", "reserveCapacity", "next", "write", "read", "close",
        "open", "run", "send", "signal", "wait", "lock", "unlock", "flush", "sync", "increment",
        "decrement", "add", "consume", "take", "push", "pop", "enqueue", "dequeue", "set", "reset",
    ]

    /// A problem found: the check's name, the 1-based line and the reason.
    struct Finding: CustomStringConvertible {
        var line: Int, check: String, reason: String
        var description: String { "line \(line): \(check)(…) \(reason)" }
    }

    /// The arguments of every check call in `source`, with the line each starts on. String
    /// literals are blanked (their text cannot have effects, interpolations aside, which are kept).
    static func checkArguments(in source: String) -> [(check: String, line: Int, text: String)] {
        let chars = Array(source)
        var result: [(String, Int, String)] = []
        var i = 0, line = 1
        func isIdentifier(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
        while i < chars.count {
            let c = chars[i]
            if c == "\n" { line += 1; i += 1; continue }
            if c == "/" && i + 1 < chars.count && chars[i + 1] == "/" {   // comment to the end of the line
                while i < chars.count && chars[i] != "\n" { i += 1 }
                continue
            }
            if c == "\"" && i + 2 < chars.count && chars[i + 1] == "\"" && chars[i + 2] == "\"" {   // a multi-line string
                i += 3
                while i + 2 < chars.count && !(chars[i] == "\"" && chars[i + 1] == "\"" && chars[i + 2] == "\"") {
                    if chars[i] == "\n" { line += 1 }
                    i += 1
                }
                i += 3
                continue
            }
            if c == "\"" {   // a string outside any check: skip it
                i += 1
                while i < chars.count && chars[i] != "\"" {
                    if chars[i] == "\\" { i += 1 }; if i < chars.count && chars[i] == "\n" { line += 1 }; i += 1
                }
                i += 1
                continue
            }
            guard isIdentifier(c), i == 0 || !(isIdentifier(chars[i - 1]) || chars[i - 1] == ".") else { i += 1; continue }
            var j = i
            while j < chars.count && isIdentifier(chars[j]) { j += 1 }
            let word = String(chars[i..<j])
            guard checks.contains(word), j < chars.count, chars[j] == "(" else { i = j; continue }
            // The balanced argument text, strings blanked except their interpolations.
            var depth = 0, k = j, text = "", inString = false
            let startLine = line
            while k < chars.count {
                let d = chars[k]
                if d == "\n" { line += 1 }
                if inString {
                    if d == "\\" && k + 1 < chars.count && chars[k + 1] == "(" {
                        inString = false; text.append("("); depth += 1; k += 2; continue
                    }
                    if d == "\\" { k += 2; continue }
                    if d == "\"" { inString = false; text.append("\"") }
                    k += 1
                    continue
                }
                if d == "\"" { inString = true; text.append("\""); k += 1; continue }
                if d == "(" { depth += 1 }
                if d == ")" { depth -= 1; if depth == 0 { break } }
                text.append(d)
                k += 1
            }
            result.append((word, startLine, String(text.dropFirst())))
            i = k + 1
        }
        return result
    }

    /// What is wrong with one check's arguments, if anything.
    static func problem(in text: String) -> String? {
        let ns = text as NSString
        func matches(_ pattern: String) -> Bool {
            (try! NSRegularExpression(pattern: pattern)).firstMatch(in: text, range: NSRange(location: 0, length: ns.length)) != nil
        }
        if matches(#"(^|[^=!<>&|^+\-*/%.])=($|[^=])"#) { return "assigns" }
        if matches(#"(\+|-|\*|/|%|&|\||\^|<<|>>)=(?!=)"#) { return "assigns" }
        if matches(#"[(,:]\s*&[A-Za-z_]"#) { return "passes an inout argument" }
        if matches(#"\btry[!?]?\s"#) { return "calls a throwing function" }
        for name in effectfulMethods where matches(#"\."# + name + #"[A-Z(]?\w*\("#) {
            return "calls .\(name)…(), which changes state"
        }
        return nil
    }

    static func findings(in source: String) -> [Finding] {
        checkArguments(in: source).compactMap { check, line, text in
            problem(in: text).map { Finding(line: line, check: check, reason: $0) }
        }
    }

    @Test func theLintCatchesSideEffectsAndPassesPlainConditions() {
        let bad = [
            #"precondition(byName.updateValue(entry, forKey: entry.unit) == nil, "duplicate unit \(entry.unit)")"#,
            "assert(seen.insert(key).inserted)",
            "assert((count += 1) == ())",
            "precondition(x = 3)",
            "assert(buffer.removeLast() > 0)",
            "precondition(swap(&a, &b) == ())",
            "assert(try file.size() > 0)",
            "assert(iterator.next() != nil)",
        ]
        for line in bad { #expect(!Self.findings(in: line).isEmpty, "not caught: \(line)") }
        let good = [
            #"precondition(n > 0, "uniform(below: 0)")"#,
            #"precondition(other.width == width && a <= b, "x = \(a)")"#,
            "precondition(numerator != .min && denominator != .min)",
            #"assert(values.count == counts.count, "sizes \(values.count) != \(counts.count)")"#,
            "assertionFailure(\"unreachable: a = b\")",
            "preconditions(x = 1)",   // another function
        ]
        for line in good { #expect(Self.findings(in: line).isEmpty, "flagged: \(line) \(Self.findings(in: line))") }
    }

    @Test func noCheckInTheSourcesHasASideEffect() throws {
        var problems: [String] = []
        var checked = 0
        for folder in ["Sources", "Benchmarks"] {
            let root = Support.packageRoot.appendingPathComponent(folder)
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                let source = try String(contentsOf: url, encoding: .utf8)
                checked += Self.checkArguments(in: source).count
                for finding in Self.findings(in: source) {
                    problems.append("\(url.path.dropFirst(Support.packageRoot.path.count + 1)): \(finding)")
                }
            }
        }
        #expect(problems.isEmpty, "side effects inside checks:\n\(problems.joined(separator: "\n"))")
        #expect(checked >= 10, "the lint found only \(checked) checks: is it reading the sources?")
    }
}
