import HealthTrailAnalysis
import HealthTrailRun

/// One unattended run, as declared by a pipeline file (`pipelines/nightly.yaml`,
/// `pipelines/cohort.yaml`) and checked by `PipelineFile.load`.
///
/// Paths are absolute and standardised (`~` expanded, relative paths resolved against the
/// pipeline file's folder); optional settings the file leaves out are nil, so the run keeps its
/// own defaults for them.
package struct PipelineSpec: Sendable, Equatable {
    /// One person's archive (`person`) or one archive per person of a study (`cohort`).
    package enum Kind: String, Sendable {
        /// The newest export of one person, typically every night.
        case person
        /// One archive per participant of a study, pseudonymised, released per person.
        case cohort
    }

    /// What a run writes. CSV is always written: every other output is made from it.
    package enum Output: String, Sendable, CaseIterable {
        /// The CSV tables (daily, workouts, routes, …) and manifest.json.
        case csv
        /// routes.geojson.
        case geojson
        /// The SVG maps and calendars.
        case svg
        /// report.html.
        case report
        /// The differentially private releases (`dp/`), from `releases`.
        case dp
    }

    /// Which archives of `inputPath` a run reads: the newest one, or all of them.
    package enum Pick: String, Sendable {
        /// The archive with the newest modification time (ties: the last by path).
        case newest
        /// Every archive, sorted by path.
        case all
    }

    /// How heart-rate zones are chosen (the run's `--max-hr` and `--max-hr-from-birth-date`).
    package enum Zones: Sendable, Equatable {
        /// The default: five zones from the workouts' maximum heart rate (`ZoneChoice.fromWorkouts`).
        case standard
        /// From 220 − age, age from the export's date of birth.
        case fromBirthDate
        /// From this maximum heart rate, in the range of `RunOptionDeclaration.maxHR`.
        case maximum(Double)
    }

    /// The SVG map settings (the run's `--maps`, `--svg-size`, `--colour-scale`, `--map-area`,
    /// `--map-min-points`); nil fields keep the run's defaults.
    package struct Maps: Sendable, Equatable {
        /// Any of `workouts`, `routes`, `density`, `calendars`.
        package var kinds: [String]?
        /// Width in pixels, in the range of `RunOptionDeclaration.svgSize`.
        package var size: Int?
        /// `viridis` or `inferno`.
        package var colourScale: String?
        /// `[minLat, minLon, maxLat, maxLon]` of the overview and density maps.
        package var area: [Double]?
        /// Routes with fewer points are not drawn; in the range of `RunOptionDeclaration.mapMinPoints`.
        package var minPoints: Int?

        /// Map settings; every one left nil keeps the run's default.
        package init(
            kinds: [String]? = nil, size: Int? = nil, colourScale: String? = nil, area: [Double]? = nil,
            minPoints: Int? = nil
        ) {
            self.kinds = kinds
            self.size = size
            self.colourScale = colourScale
            self.area = area
            self.minPoints = minPoints
        }
    }

    /// Absolute path of the pipeline file.
    package var file: String
    /// A person or a cohort pipeline.
    package var kind: Kind
    /// Absolute, `~` expanded; its last component may be a glob (`*`, `?`, `[…]`).
    package var inputPath: String
    /// Defaults to `newest` for a person, `all` for a cohort.
    package var pick: Pick
    /// Absolute output folder.
    package var output: String
    /// Defaults to all four; always holds `csv`.
    package var outputs: Set<Output>
    /// Fail on the first malformed record instead of skipping it (default false).
    package var strict: Bool
    /// Seconds a heart-rate sample may be from a route point, in the range of
    /// `RunOptionDeclaration.joinTolerance`.
    package var joinToleranceSeconds: Int?
    /// How heart-rate zones are chosen.
    package var zones: Zones?
    /// Parts of source names, best first (the run's `--source-priority`).
    package var sourcePriority: [String]?
    /// The SVG map settings, when the file has a `maps` section.
    package var maps: Maps?
    /// Add a timestamp to every position of routes.geojson.
    package var geojsonTimes: Bool?
    /// The length of a split in splits.csv (`split_unit`; nil: kilometres).
    package var splitUnit: SplitUnit?
    /// Write `ecg_samples.csv` (`ecg_samples: true`).
    package var ecgSamples: Bool?
    /// The formats the tables are written in (`formats:`; nil: CSV only).
    package var formats: TableFormats?
    /// Archives processed at once in a cohort (1…256; nil: one per core). Always nil for a person.
    package var jobs: Int?
    /// The pipeline's privacy unit when it states one; every release's own unit is in `releases`.
    package var privacyUnit: ReleaseSpec.PrivacyUnit?
    /// Absolute path of the pseudonym key (cohorts only; its existence is checked by the run).
    package var keyFile: String?
    /// `privacy.subject`: whose budget the releases spend (default: `self` for a person,
    /// `cohort` for a cohort; see `LedgerLocation`).
    package var subject: String?
    /// `privacy.persons`: how a cohort's archives map to persons (nil: not stated, which a
    /// cohort that publishes `dp` refuses).
    package var persons: PersonsSource?
    /// The persons file of `privacy.persons: <CSV>` (`PersonMapping`), absolute; read by the
    /// run, which refuses a missing file. Nil for `each archive` or without `persons`.
    package var personsFile: String? {
        if case .file(let path) = persons { return path }
        return nil
    }
    /// What a cohort's releases say their draw assumed about persons (`PersonsSource.label`):
    /// `persons file`, `each archive`, or, when the pipeline states nothing, `each archive`
    /// too, the rule a cohort without `dp` follows.
    package var personsAssumption: String { (persons ?? .eachArchive).label }
    /// `privacy.budget_dir`: the budget folder, absolute (default: `LedgerLocation`'s).
    package var budgetDirectory: String?

    /// Where this pipeline's releases record their spend.
    package var ledgerLocation: LedgerLocation {
        // The budget folder's own key, never the cohort's pseudonym key: that one travels to
        // every machine that runs `partial` (Spark's executors), the ledger's must not.
        LedgerLocation(
            budgetDirectory: budgetDirectory, subject: subject ?? (kind == .cohort ? "cohort" : LedgerLocation.defaultSubject))
    }
    /// The releases, resolved: read from the release file or inline, the pipeline's budget in
    /// place of the file's, and every release's privacy unit filled in.
    package var releases: ReleaseSpec?

    /// One line for people: `person pipeline: newest archive of /home/a/HealthExports →
    /// /home/a/health; outputs csv, geojson, svg, report, dp; 5 releases (rho budget 2)`.
    package var summary: String {
        let what = pick == .newest ? "newest archive of" : "all archives of"
        var text =
            "\(kind.rawValue) pipeline: \(what) \(inputPath) → \(output); outputs "
            + Output.allCases.filter(outputs.contains).map(\.rawValue).joined(separator: ", ")
        if let formats, formats != [.csv] { text += "; tables as " + formats.names.joined(separator: ", ") }
        if kind == .cohort { text += "; jobs \(jobs.map(String.init) ?? "one per core")" }
        if let releases {
            let count = releases.releases.count
            text += "; \(count) release\(count == 1 ? "" : "s")"
            if let budget = releases.budget {
                let parts = [
                    budget.epsilon.map {
                        budget.accountant == .renyi
                            ? "(epsilon, delta) budget (\(YAMLSchema.Bounds.format($0)), \(budget.delta ?? 1e-6)) by Rényi accounting"
                            : "epsilon budget \(YAMLSchema.Bounds.format($0))"
                    },
                    budget.rho.map { "rho budget \(YAMLSchema.Bounds.format($0))" },
                ].compactMap { $0 }
                text += " (" + parts.joined(separator: ", ") + ")"
            }
        }
        return text
    }
}

/// `privacy.persons`: which archives of a cohort are one person.
package enum PersonsSource: Sendable, Equatable {
    /// `persons: each archive`: every archive is a person of its own (byte-identical copies of
    /// one archive count once).
    case eachArchive
    /// `persons: <CSV>`: the file lists whose each archive is (`PersonMapping`); absolute path.
    case file(String)

    /// The value of `privacy.persons` that says each archive is its own person.
    package static let eachArchiveValue = "each archive"

    /// How a published DP row names the assumption its draw was made under (its `persons` column).
    package var label: String {
        switch self {
        case .eachArchive: return "each archive"
        case .file: return "persons file"
        }
    }
}
