import Foundation
import HealthTrailTestSupport
import Testing

/// The repository describes the software, never how the work on it was organised: no Markdown
/// file and no code comment speaks of work sessions, cites the tracker's issue numbers, dates a
/// figure by a change ("before the last … change"), tells the time of day of a measurement, speaks
/// of who directs the project, or cites commit hashes in prose. History goes to CHANGELOG.md, as
/// changes a user can see; the rest is in the repository's own history.
///
/// The rules leave the domain's own words alone: a sleep session, a Spark session, `SparkSession`,
/// and "session" on its own. Hex strings are data, not commit hashes, inside fenced code blocks of
/// Markdown, inside words (`bench-export-720d-…zip`, `0x…`, `#1f77b4…`) and in test sources
/// (RFC test vectors).
@Suite struct DocsNarrationTests {
    /// One rule: a name for the message and a case-insensitive pattern.
    struct Rule {
        var name: String
        var regex: NSRegularExpression

        init(_ name: String, _ pattern: String, caseInsensitive: Bool = true) {
            self.name = name
            regex = try! NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        }
    }

    static let phraseRules = [
        Rule(
            "a work session",
            #"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|[4-9]th|this|earlier|last|previous|prior|later|morning|afternoon|evening|working|coding|review)\s+sessions?\b"#
        ),
        Rule("an issue number", #"\bissues?\s*#\s*\d+|\bissues?\s+\d+\b|\(#\d+\)"#),
        Rule(
            "a figure dated by a change",
            #"\b(before|after|since|until)\s+the\s+(last|latest|previous|next)\s+(\w+\s+)?(change|changes|commit|session|fix|fixes|review|round)\b"#),
        Rule("who steers the project", #"\bsteer(s|ing|ed)?\b"#),
        Rule(
            "the time of day of the work",
            #"\b(earlier|later)\s+that\s+(morning|afternoon|evening|night|day)\b|\bthat\s+(afternoon|evening)\b|\b\d{1,2}:\d{2}\s+(that|this)\s+(morning|afternoon|evening)\b"#
        ),
    ]

    /// A commit hash in prose: 7 to 40 lower-case hex digits with at least one letter and one
    /// digit, standing alone as a word (not inside a file name, a hex literal or a colour).
    static let hashRule = Rule(
        "a commit hash",
        #"(?<![\w./#@:-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/@-])(?!\.\w)"#,
        caseInsensitive: false)

    /// The places in `text` a rule matches: (1-based line, rule name, the words matched).
    static func findings(in text: String, hashes: Bool) -> [(line: Int, rule: String, match: String)] {
        let ns = text as NSString
        var found: [(Int, String, String)] = []
        for rule in phraseRules + (hashes ? [hashRule] : []) {
            for m in rule.regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                let line = ns.substring(to: m.range.location).reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
                found.append((line, rule.name, ns.substring(with: m.range)))
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    /// Markdown with the lines of fenced code blocks blanked (the line count kept): what the hash
    /// rule reads.
    static func proseOnly(_ markdown: String) -> String {
        var inFence = false
        return markdown.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { inFence.toggle(); return "" }
            return inFence ? "" : line
        }.joined(separator: "\n")
    }

    /// The comments of a Swift source, each on the line it is written on and every other line
    /// blank, so that line numbers stay those of the source and a phrase may wrap from one comment
    /// line to the next. String literals (plain, multi-line and raw) are skipped.
    static func comments(ofSwift source: String) -> String {
        let chars = Array(source)
        var lines: [String] = [""]
        var i = 0
        func at(_ k: Int, _ s: String) -> Bool {
            var k = k
            for c in s { guard k < chars.count, chars[k] == c else { return false }; k += 1 }
            return true
        }
        func skipString(from start: Int) -> Int {   // `start` at the first `#` or `"`; returns the index after the literal
            var k = start, hashes = 0
            while k < chars.count, chars[k] == "#" { hashes += 1; k += 1 }
            let multiLine = at(k, "\"\"\"")
            k += multiLine ? 3 : 1
            let close = (multiLine ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
            while k < chars.count {
                if chars[k] == "\n" {
                    lines.append("")
                    if !multiLine { return k + 1 }   // an unterminated string ends with its line
                }
                if chars[k] == "\\" && hashes == 0 { k += 2; continue }
                if at(k, close) { return k + close.count }
                k += 1
            }
            return k
        }
        while i < chars.count {
            let c = chars[i]
            if c == "\n" { lines.append(""); i += 1; continue }
            if at(i, "//") {
                i += 2
                while i < chars.count, chars[i] != "\n" { lines[lines.count - 1].append(chars[i]); i += 1 }
                continue
            }
            if at(i, "/*") {
                var depth = 1
                i += 2
                while i < chars.count, depth > 0 {
                    if at(i, "/*") { depth += 1; i += 2; continue }
                    if at(i, "*/") { depth -= 1; i += 2; continue }
                    if chars[i] == "\n" { lines.append("") } else { lines[lines.count - 1].append(chars[i]) }
                    i += 1
                }
                continue
            }
            if c == "\"" { i = skipString(from: i); continue }
            if c == "#" {
                var k = i
                while k < chars.count, chars[k] == "#" { k += 1 }
                if k < chars.count, chars[k] == "\"" { i = skipString(from: i); continue }
            }
            i += 1
        }
        return lines.map { $0.drop { $0 == "/" || $0 == "*" } }.joined(separator: "\n")
    }

    /// Files below `folder` (the root when empty) whose names end in `suffix`, relative to the
    /// root; hidden folders (`.build`, `.git`, `.bench`, `.fuzz`) and `out/` are not entered.
    static func files(under folder: String, ending suffix: String) -> [String] {
        let root = Support.packageRoot.path
        let start = folder.isEmpty ? Support.packageRoot : Support.packageRoot.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(
            at: start, includingPropertiesForKeys: [.isDirectoryKey],
            options: [.skipsHiddenFiles])
        var result: [String] = []
        while let url = walker?.nextObject() as? URL {
            let relative = String(url.path.dropFirst(root.count + 1))
            if relative == "out" || relative.hasPrefix("Fuzz/.build") { walker?.skipDescendants(); continue }
            if url.lastPathComponent.hasSuffix(suffix) { result.append(relative) }
        }
        return result.sorted()
    }

    static func report(_ path: String, _ findings: [(line: Int, rule: String, match: String)]) -> [String] {
        findings.map { "\(path):\($0.line): \($0.rule): \"\($0.match)\"" }
    }

    @Test func theRulesCatchNarrationAndLeaveTheDomainAlone() {
        let narration = [
            "Then (third\nsession) the route files got cheaper.",
            "This was measured in the second session.",
            "as planned for this session",
            "An earlier session tried it; the last session dropped it.",
            "about 10 % less, from 1.82× when issue 9 was taken.",
            "See issue #9 for the background.",
            "the distinct-sources case (issue 12)",
            "the figures before the last speed change",
            "1.77× at 720 days, at 34cab65.",
            "An earlier full run at af5f3d7 read 0.98×.",
            "(at c037c4b)",
            "The design notes (shared with the project's steering) describe it.",
            "At the final code (21:32 that evening, the machine slower).",
            "At 34cab65, earlier that morning: 1.77×.",
        ]
        for text in narration {
            #expect(!Self.findings(in: text, hashes: true).isEmpty, "not caught: \(text)")
        }
        let domain = [
            "A sleep session is a cluster of sleep samples; one open session is held at a time.",
            "the session's span: what tells a night from a daytime nap.",
            "~17 s to start the JVM and the session, whatever the cohort's size",
            "The tests run this variant both on a classic session and as a Spark Connect session.",
            "spark = SparkSession.builder.getOrCreate()",
            "of which the fixed cost: session start-up + an empty job in the same session",
            "The night that ended that morning, recorded by the band.",
            "The night that ends this morning (UTC), or none (red-eye flight).",
            "Archive: `.bench/bench-export-720d-23e059b3f6.zip`, 76.5 MB",
            "a colour of #1f77b4cc, a pointer 0x7f3a1b2c9d, a span 1900–2200, 463277 samples",
            "`h_` and 16 hex digits of HMAC-SHA256, e.g. h_3fa85f6457174562",
            "records/step_count.csv, zone_resting_s, 20240102T060000Z-running",
            "Issued on 2026-11-25T11:33:39Z; the issue of time zones is that exports stamp every date.",
            "the next session starts when a sample begins more than 60 minutes after the current session ends",
        ]
        for text in domain {
            #expect(Self.findings(in: text, hashes: true).isEmpty, "flagged: \(text) \(Self.findings(in: text, hashes: true))")
        }
        // Hashes inside fenced code blocks are data.
        let fenced = "The digest:\n\n```\nsha1 a94a8fe5ccb19ba61c4c0873d391e987982fbbd3\n```\n"
        #expect(Self.findings(in: Self.proseOnly(fenced), hashes: true).isEmpty)
        #expect(!Self.findings(in: fenced, hashes: true).isEmpty)
    }

    @Test func commentsAreFoundAndStringsSkipped() {
        let source = """
            let url = "https://example.org/issue 9"   // a trailing comment
            /// A doc comment on
            /// two lines.
            let raw = #"the second session "quoted" // not a comment"#
            let block = \"\"\"
                // not a comment either
                \"\"\"
            /* a block
               comment */ let x = 1
            """
        let comments = Self.comments(ofSwift: source).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(comments.count == source.split(separator: "\n", omittingEmptySubsequences: false).count)
        #expect(comments[0].contains("a trailing comment"))
        #expect(comments[1].contains("A doc comment on") && !comments[1].hasPrefix("/"))
        #expect(comments[3].isEmpty && comments[5].isEmpty)
        #expect(comments[7].contains("a block") && comments[8].contains("comment"))
        #expect(Self.findings(in: Self.comments(ofSwift: source), hashes: true).isEmpty)
    }

    @Test func noMarkdownFileNarrates() throws {
        let paths = Self.files(under: "", ending: ".md")
        #expect(
            paths.contains("README.md") && paths.contains("CHANGELOG.md") && paths.contains("docs/outputs.md"),
            "the walk did not find the documentation: \(paths)")
        var problems: [String] = []
        for path in paths {
            let text = try String(contentsOfFile: Support.packageRoot.path + "/" + path, encoding: .utf8)
            problems += Self.report(path, Self.findings(in: text, hashes: false))
            problems += Self.report(path, Self.findings(in: Self.proseOnly(text), hashes: true).filter { $0.rule == Self.hashRule.name })
        }
        #expect(problems.isEmpty, "narration in the documentation:\n\(problems.joined(separator: "\n"))")
    }

    @Test func noCommentNarrates() throws {
        var problems: [String] = []
        var checked = 0
        // Test sources hold data in comments (RFC test vectors), so only the phrases apply there.
        for (folder, hashes) in [("Sources", true), ("Benchmarks", true), ("Fuzz", true), ("Tests", false)] {
            for path in Self.files(under: folder, ending: ".swift") {
                let source = try String(contentsOfFile: Support.packageRoot.path + "/" + path, encoding: .utf8)
                problems += Self.report(path, Self.findings(in: Self.comments(ofSwift: source), hashes: hashes))
                checked += 1
            }
        }
        // Scripts, the Makefile and the pipeline files: comments are most of what narrates there.
        let others =
            ["Makefile", "Package.swift", ".ci/run"]
            + ["Benchmarks", "Fuzz", "pipelines", "docs"].flatMap { folder in
                [".sh", ".py", ".yaml"].flatMap { Self.files(under: folder, ending: $0) }
            }
        for path in others where FileManager.default.fileExists(atPath: Support.packageRoot.path + "/" + path) {
            let text = try String(contentsOfFile: Support.packageRoot.path + "/" + path, encoding: .utf8)
            problems += Self.report(path, Self.findings(in: text, hashes: false))
            checked += 1
        }
        #expect(problems.isEmpty, "narration in comments:\n\(problems.joined(separator: "\n"))")
        #expect(checked >= 100, "only \(checked) files read: is the walk finding the sources?")
    }
}
