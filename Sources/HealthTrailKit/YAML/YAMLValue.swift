import Yams

/// Typed readings of a YAML node, shared by the schema walker (is it the right kind?) and the
/// readers that build models (what is it?), so both agree on what `15`, `"15"` and `yes` are.
///
/// Kinds follow the YAML tag the parser resolved: `15` is an integer and `"15"` is text, as a
/// reader of the file would expect. Text accepts any plain or quoted scalar except null and a
/// boolean (`output: no` is far more likely a slip than a folder named "no").
enum YAMLValue {
    /// The resolved tag's last part: `str`, `int`, `float`, `bool`, `null`, `timestamp`, `seq`, `map`.
    static func tagName(_ node: Node) -> String {
        String(node.tag.description.split(separator: ":").last ?? "")
    }

    /// True for `~`, `null` and an empty value (`key:` with nothing after it).
    static func isNull(_ node: Node) -> Bool {
        node.scalar != nil && tagName(node) == "null"
    }

    static func text(_ node: Node) -> String? {
        guard let scalar = node.scalar, !["null", "bool"].contains(tagName(node)) else { return nil }
        return scalar.string
    }

    static func bool(_ node: Node) -> Bool? {
        tagName(node) == "bool" ? node.bool : nil
    }

    static func integer(_ node: Node) -> Int? {
        tagName(node) == "int" ? node.int : nil
    }

    /// Integers and decimals alike (`upper: 110` is a number); infinities and NaN are numbers
    /// here and out of every range later.
    static func number(_ node: Node) -> Double? {
        ["int", "float"].contains(tagName(node)) ? node.float : nil
    }

    /// What the node is, in words for a message: `text "fast"`, `a list`, `a mapping`.
    static func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let scalar):
            switch tagName(node) {
            case "null": return "nothing"
            case "bool": return "\(scalar.string) (a boolean)"
            case "int", "float": return scalar.string
            default: return "text \"\(scalar.string)\""
            }
        }
    }

    /// The 1-based line and column a node starts at (1:1 when the parser gave none).
    static func position(_ node: Node) -> (line: Int, column: Int) {
        (node.mark?.line ?? 1, node.mark?.column ?? 1)
    }
}
