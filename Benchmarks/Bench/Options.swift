/// The driver's command line, parsed by hand: the bench target has no dependencies but the kit.
struct Options {
    var archive = ""
    var healthtrail = ""
    var floor = ""
    var runs = 5
    var outDir = ".bench/out"
    var report: String? = nil
    var label: String? = nil

    static let usage = """
        usage: healthtrail-bench --archive PATH --healthtrail BIN --floor BIN
                                 [--runs 5] [--out-dir DIR] [--report FILE.md] [--label TEXT]

        Runs one warm-up round, then --runs rounds of `floor ARCHIVE` followed by
        `healthtrail run ARCHIVE --out DIR/run-N --quiet`, and reports medians of wall time
        and peak RSS. --report also writes FILE.md and FILE.json.
        """

    /// Parses `arguments` (without the program name); throws a message for the user.
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "-h" || flag == "--help" { throw UsageError(message: nil) }
            guard let value = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            switch flag {
            case "--archive": options.archive = value
            case "--healthtrail": options.healthtrail = value
            case "--floor": options.floor = value
            case "--out-dir": options.outDir = value
            case "--report": options.report = value
            case "--label": options.label = value
            case "--runs":
                guard let runs = Int(value), runs >= 1 else { throw UsageError(message: "--runs must be a positive integer") }
                options.runs = runs
            default:
                throw UsageError(message: "unknown option \(flag)")
            }
        }
        for (flag, value) in [("--archive", options.archive), ("--healthtrail", options.healthtrail), ("--floor", options.floor)]
        where value.isEmpty {
            throw UsageError(message: "\(flag) is required")
        }
        return options
    }
}

/// A bad command line; `message` nil means help was asked for.
struct UsageError: Error {
    var message: String?
}
