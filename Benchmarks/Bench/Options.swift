/// The driver's command line, parsed by hand: the bench target has no dependencies but the kit.
struct Options {
    var archive = ""
    var healthtrail = ""
    var floor = ""
    var runs = 5
    var outDir = ".bench/out"
    var report: String? = nil
    var label: String? = nil
    /// Also time `healthtrail run --format csv,sqlite,parquet` each round (`--formats`).
    var allFormats = true
    /// An earlier report's JSON to compare with (`--compare`).
    var compare: String? = nil
    /// The commit measured, written into the report (`--commit`).
    var commit: String? = nil
    /// Exit 3 when a figure regressed beyond noise against `--compare` (`--fail-on-regression yes`).
    var failOnRegression = false

    static let usage = """
        usage: healthtrail-bench --archive PATH --healthtrail BIN --floor BIN
                                 [--runs 5] [--out-dir DIR] [--report FILE.md] [--label TEXT]
                                 [--formats yes|no] [--compare EARLIER.json] [--commit TEXT]
                                 [--fail-on-regression yes|no]

        Runs one warm-up round, then --runs rounds of `floor ARCHIVE` followed by
        `healthtrail run ARCHIVE --out DIR/run-N --quiet` and (unless --formats no) the same
        run with `--format csv,sqlite,parquet`, and reports medians of wall time and peak RSS.
        --report also writes FILE.md and FILE.json.
        --compare adds a section comparing every figure with an earlier report's JSON and
        naming those that moved beyond noise; with --fail-on-regression yes the driver then
        exits 3 when one got slower or larger (after writing the report).
        """

    /// Parses `arguments` (without the program name); throws a message for the user.
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        for (flag, value) in try flagValuePairs(arguments) {
            switch flag {
            case "--archive": options.archive = value
            case "--healthtrail": options.healthtrail = value
            case "--floor": options.floor = value
            case "--out-dir": options.outDir = value
            case "--report": options.report = value
            case "--label": options.label = value
            case "--formats":
                guard value == "yes" || value == "no" else { throw UsageError(message: "--formats takes yes or no") }
                options.allFormats = value == "yes"
            case "--compare": options.compare = value
            case "--commit": options.commit = value.isEmpty ? nil : value
            case "--fail-on-regression":
                guard value == "yes" || value == "no" else { throw UsageError(message: "--fail-on-regression takes yes or no") }
                options.failOnRegression = value == "yes"
            case "--runs":
                options.runs = try positiveInteger(value, for: flag)
            default:
                throw UsageError(message: "unknown option \(flag)")
            }
        }
        for (flag, value) in [("--archive", options.archive), ("--healthtrail", options.healthtrail), ("--floor", options.floor)]
        where value.isEmpty {
            throw UsageError(message: "\(flag) is required")
        }
        if options.failOnRegression && options.compare == nil {
            throw UsageError(message: "--fail-on-regression needs --compare")
        }
        return options
    }
}

/// A bad command line; `message` nil means help was asked for.
struct UsageError: Error {
    var message: String?
}

/// The `--flag value` pairs of a command line, in order; `-h`/`--help` anywhere asks for help,
/// and a flag without its value is a usage error. Every subcommand's options take a value.
func flagValuePairs(_ arguments: [String]) throws -> [(flag: String, value: String)] {
    var pairs: [(flag: String, value: String)] = []
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        if flag == "-h" || flag == "--help" { throw UsageError(message: nil) }
        guard let value = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
        pairs.append((flag, value))
    }
    return pairs
}

/// `value` as an integer of at least 1, or a usage error naming `flag`.
func positiveInteger(_ value: String, for flag: String) throws -> Int {
    guard let n = Int(value), n >= 1 else { throw UsageError(message: "\(flag) must be a positive integer") }
    return n
}
