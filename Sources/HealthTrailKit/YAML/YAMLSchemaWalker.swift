import Foundation
import Yams

/// Checks a parsed YAML document against a `YAMLSchema`, collecting every problem (not just the
/// first) with the line and column it is at.
///
/// A wrong value is reported where the value is; an unknown or repeated key where the key is;
/// a missing key at the key that holds the mapping (or the mapping's first line at the top).
struct YAMLSchemaWalker {
    /// The file problems are attributed to; nil for the file being loaded.
    let file: String?
    /// Every problem found so far, in the order found.
    private(set) var problems: [PipelineProblem] = []

    init(file: String? = nil) {
        self.file = file
    }

    /// Parses YAML text into one document; a syntax error becomes a problem at its line.
    /// Nil (and a problem) when the text is not YAML or holds no document.
    mutating func parse(_ text: String) -> Node? {
        do {
            guard let node = try Yams.compose(yaml: text) else {
                report(line: 1, column: 1, path: "", "the file is empty")
                return nil
            }
            return node
        } catch let error as YamlError {
            switch error {
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                let while_ = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
                report(line: mark.line, column: mark.column, path: "", "YAML syntax error: \(problem)\(while_)")
            case .reader(let problem, _, _, _):
                report(line: 1, column: 1, path: "", "not readable as UTF-8 YAML: \(problem)")
            default:
                report(line: 1, column: 1, path: "", "not valid YAML")
            }
            return nil
        } catch {
            report(line: 1, column: 1, path: "", "not valid YAML")
            return nil
        }
    }

    /// Checks `node` against `schema`; true when it conforms. `path` names the node in messages;
    /// `key` is the key that holds it, where a missing key inside it is reported.
    @discardableResult
    mutating func check(_ node: Node, _ schema: YAMLSchema, path: String, key: Node? = nil) -> Bool {
        switch schema {
        case .text(let nonEmpty):
            guard let text = YAMLValue.text(node) else { return wrongKind(node, schema, path) }
            if nonEmpty && text.trimmingCharacters(in: .whitespaces).isEmpty {
                report(node, path: path, "must not be empty")
                return false
            }
            return true
        case .bool:
            return YAMLValue.bool(node) != nil || wrongKind(node, schema, path)
        case .integer(let range, let unit):
            guard let value = YAMLValue.integer(node) else { return wrongKind(node, schema, path) }
            guard range.contains(value) else {
                report(node, path: path, "must be \(YAMLSchema.rangeText(range, unit: unit)), got \(value)")
                return false
            }
            return true
        case .number(let bounds):
            guard let value = YAMLValue.number(node) else { return wrongKind(node, schema, path) }
            guard bounds.contains(value) else {
                report(node, path: path, "must be \(bounds.text), got \(node.scalar?.string ?? "")")
                return false
            }
            return true
        case .word(let words):
            guard let text = YAMLValue.text(node) ?? (YAMLValue.bool(node) != nil ? node.scalar?.string : nil) else {
                return wrongKind(node, schema, path)
            }
            guard words.contains(text) else {
                let hint = Self.suggestion(for: text, among: words).map { " (did you mean \($0)?)" } ?? ""
                report(node, path: path, "must be \(schema.expectation); got \"\(text)\"\(hint)")
                return false
            }
            return true
        case .list(let element, let count):
            return checkList(node, element: element, count: count, path: path)
        case .mapping(let fields):
            return checkMapping(node, fields: fields, path: path, key: key)
        case .oneOf(let options):
            guard let option = options.first(where: { Self.shapeMatches(node, $0) }) else { return wrongKind(node, schema, path) }
            return check(node, option, path: path, key: key)
        }
    }

    private mutating func checkList(_ node: Node, element: YAMLSchema, count: ClosedRange<Int>, path: String) -> Bool {
        guard case .sequence(let sequence) = node else { return wrongKind(node, .list(of: element, count: count), path) }
        var ok = true
        if sequence.isEmpty && count.lowerBound == 1 {
            report(node, path: path, "must not be empty")
            ok = false
        } else if !count.contains(sequence.count) {
            let wanted =
                count.lowerBound == count.upperBound
                ? "exactly \(count.lowerBound)"
                : count.upperBound == Int.max ? "at least \(count.lowerBound)" : "\(count.lowerBound)…\(count.upperBound)"
            report(node, path: path, "must have \(wanted) items, has \(sequence.count)")
            ok = false
        }
        var seen: Set<String> = []
        for (i, item) in sequence.enumerated() {
            ok = check(item, element, path: "\(path)[\(i)]") && ok
            // A word listed twice is a slip (the second copy would do nothing).
            if case .word = element, let word = YAMLValue.text(item), !seen.insert(word).inserted {
                report(item, path: "\(path)[\(i)]", "\(word) is listed twice")
                ok = false
            }
        }
        return ok
    }

    private mutating func checkMapping(_ node: Node, fields: [YAMLSchema.Field], path: String, key: Node?) -> Bool {
        guard case .mapping(let mapping) = node else { return wrongKind(node, .mapping(fields), path) }
        var ok = true
        var seen: [String: Int] = [:]
        for (k, value) in mapping {
            let name = k.scalar?.string ?? YAMLValue.describe(k)
            let childPath = path.isEmpty ? name : path + "." + name
            if let first = seen[name] {
                report(k, path: childPath, "duplicate key (first at line \(first))")
                ok = false
                continue
            }
            seen[name] = YAMLValue.position(k).line
            guard let field = fields.first(where: { $0.name == name }) else {
                let hint = Self.suggestion(for: name, among: fields.map(\.name)).map { "; did you mean \($0)?" } ?? ""
                report(k, path: childPath, "unknown key\(hint)")
                ok = false
                continue
            }
            // `key:` with nothing after it (often every sub-key commented out) is as if absent.
            if YAMLValue.isNull(value) {
                if field.required {
                    report(k, path: childPath, "needs a value (\(field.schema.expectation))")
                    ok = false
                }
                continue
            }
            ok = check(value, field.schema, path: childPath, key: k) && ok
        }
        for field in fields where field.required && seen[field.name] == nil {
            let why = field.whyRequired.map { " (\($0))" } ?? ""
            report(key ?? node, path: path.isEmpty ? field.name : path + "." + field.name, "required key missing\(why)")
            ok = false
        }
        return ok
    }

    /// Reports `node` as the wrong kind of value; always false.
    private mutating func wrongKind(_ node: Node, _ schema: YAMLSchema, _ path: String) -> Bool {
        report(node, path: path, "must be \(schema.expectation), got \(YAMLValue.describe(node))")
        return false
    }

    /// Whether an alternative of a `oneOf` is meant for this node's shape.
    static func shapeMatches(_ node: Node, _ schema: YAMLSchema) -> Bool {
        switch (node, schema) {
        case (.mapping, .mapping), (.sequence, .list): return true
        case (.scalar, .text), (.scalar, .bool), (.scalar, .integer), (.scalar, .number), (.scalar, .word): return true
        case (_, .oneOf(let options)): return options.contains { shapeMatches(node, $0) }
        default: return false
        }
    }

    /// Records a problem at `node`'s position.
    mutating func report(_ node: Node, path: String, _ message: String) {
        let (line, column) = YAMLValue.position(node)
        report(line: line, column: column, path: path, message)
    }

    /// Records a problem at a position.
    mutating func report(line: Int, column: Int, path: String, _ message: String) {
        problems.append(PipelineProblem(line: line, column: column, keyPath: path, message: message, file: file))
    }

    /// The closest of `candidates` to a misspelt `word` when it is within two edits and no
    /// other candidate is as close; nil otherwise.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }.filter { $0.1 <= 2 }
        guard let best = scored.min(by: { $0.1 < $1.1 }), scored.filter({ $0.1 == best.1 }).count == 1 else { return nil }
        return best.0
    }

    /// Levenshtein distance (insertions, deletions, substitutions), on characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
