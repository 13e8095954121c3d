/// `cohort.json`: what became of each person of a cohort run, by pseudonym only.
///
/// It holds no timing: it sits beside the DP releases, and a person's processing time grows
/// with their data (the cohort's own time is on the terminal only).
package struct CohortReport: Encodable, Sendable {
    /// One person's outcome.
    package struct Person: Encodable, Sendable {
        /// The person's pseudonym.
        package var person: String
        /// `ok` (processed), `unchanged` (same archive, version and settings as before),
        /// `failed`, or `identical` (a byte-identical copy of another archive, counted once).
        package var status: String
        /// The one-line error of a failed person, with the archive's path replaced by the pseudonym.
        package var error: String?
        /// For an `identical` archive: the person whose archive it copies (its pseudonym).
        package var identicalTo: String? = nil
    }

    /// One DP release of the merged partials.
    package struct Release: Encodable, Sendable {
        package var id: String
        /// False when every period was answered from the ledger (or none is due): nothing spent.
        package var charged: Bool
        package var path: String
    }

    package var toolVersion: String
    package var pipeline: String
    package var startedUTC: String
    /// The cohort run's wall time, for the terminal's summary; not written to cohort.json.
    package var seconds: Double
    package var jobs: Int
    package var persons: [Person]
    /// Persons in the merged partial (ok + unchanged).
    package var merged: Int
    package var releases: [Release]
    /// Where the study's budget ledger lives (nil without releases).
    package var budgetLedger: String? = nil
    /// Archives left out because a later-listed archive of the same person was used
    /// (`privacy.persons`).
    package var superseded = 0

    private enum CodingKeys: String, CodingKey {
        case toolVersion, pipeline, startedUTC, jobs, persons, merged, releases, budgetLedger, superseded
    }

    package var succeeded: Int { persons.filter { $0.status == "ok" || $0.status == "unchanged" }.count }
    package var failed: Int { persons.filter { $0.status == "failed" }.count }
    /// Archives left out as byte-identical copies of another (`IdenticalArchives`).
    package var identical: Int { persons.filter { $0.status == "identical" }.count }
    /// Nothing changed: every person processed unchanged, none failed, no release spent budget.
    package var nothingNew: Bool {
        let processed = persons.filter { $0.status != "identical" }
        return !processed.isEmpty && processed.allSatisfy { $0.status == "unchanged" } && releases.allSatisfy { !$0.charged }
    }

    /// Lines for a person at a terminal; `archives` maps failed pseudonyms to their archive's
    /// path, which only the terminal sees (the files name persons by pseudonym only).
    package func summary(archives: [String: String] = [:]) -> String {
        let head =
            "healthtrail: cohort of \(persons.count) archives in \(Int(seconds.rounded())) s with \(jobs) jobs: "
            + "\(persons.filter { $0.status == "ok" }.count) processed, \(persons.filter { $0.status == "unchanged" }.count) unchanged, \(failed) failed"
            + (identical > 0 ? ", \(identical) identical copies counted once" : "")
        return ([head] + outcomeLines(archives: archives)).joined(separator: "\n")
    }

    /// Lines for a cohort that publishes DP releases: the archives that failed and what was
    /// released, never how many archives there were, which were unchanged or the time taken,
    /// which the releases' noise hides (cohort.json, owner-only, keeps each person's outcome).
    /// Whether a release spent budget follows from the spec and the date alone.
    package func releaseSummary(archives: [String: String] = [:]) -> String {
        (["healthtrail: cohort finished (cohort.json has each archive's outcome)"] + outcomeLines(archives: archives))
            .joined(separator: "\n")
    }

    /// The failed archives (by path where `archives` has it) and the releases, a line each.
    private func outcomeLines(archives: [String: String]) -> [String] {
        persons.filter { $0.status == "failed" }.map { "  failed: \(archives[$0.person] ?? $0.person): \($0.error ?? "?")" }
            + releases.map { "  released \($0.id) → \($0.path)\($0.charged ? "" : " (nothing new: nothing spent)")" }
    }
}
