import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit
import HealthTrailDecode
import HealthTrailRun
import Logging

/// A cohort on one machine: each person's archive (`privacy.persons`) is processed by `healthtrail partial` in a
/// process of its own (up to `jobs` at once), then the partials are merged exactly and the DP
/// releases add noise once, to the merged totals.
///
/// A process per person is what makes one bad archive fail that person only: whatever goes wrong
/// inside (an error, a crash, memory) ends that process, and the cohort goes on. It is also
/// exactly what a Spark task runs, so both paths share one implementation of everything.
///
/// Layout of the output folder:
/// - `persons/<pseudonym>/`: that person's run outputs (CSV, GeoJSON, SVG as the pipeline says)
/// - `partials/<pseudonym>.partial`: the person's bounded, noise-free totals
/// - `cohort/merged.partial`: their exact merge
/// - `dp/`: the releases (their budget ledger lives in the budget folder: `LedgerLocation`)
/// - `cohort.json`: what became of each person (by pseudonym)
package enum CohortRun {
    /// The result of a cohort run: its report, and where each failed person's archive is.
    package struct Result: Sendable {
        package var report: CohortReport
        /// Pseudonym → archive path, for the failed persons (shown at the terminal only).
        package var failedArchives: [String: String]
    }

    package static func run(_ options: CohortOptions) throws -> Result {
        let started = Date()
        let log = HealthTrailLog.logger
        let out = options.outputDirectory
        guard let keyFile = options.spec.keyFile else {
            throw InputError(file: options.spec.file, "a cohort pipeline needs privacy.key_file: person ids are pseudonyms")
        }
        let key = try PseudonymKey(path: keyFile)
        try OutputStaging.makeDirectory(out)
        let lock = try OutputLock(directory: out)
        defer { withExtendedLifetime(lock) {} }
        for folder in ["persons", "partials", "cohort"] { try OutputStaging.makeDirectory(out + "/" + folder) }

        // Persons first: byte-identical archives are one person, whatever their names or the
        // persons file say. With a persons file, an archive is its listed person's, and of a
        // person's archives the one listed last is used; with `each archive`, an archive is a
        // person of its own name.
        let mapping = try options.spec.personsFile.map { try PersonMapping(path: $0) }
        let (distinct, copies) = IdenticalArchives.split(options.archives, jobs: options.jobs) { mapping?.line(ofArchive: $0) }
        var archives = distinct.map { (archive: $0, person: PersonName.of(archive: $0)) }
        var duplicates: [CohortReport.Person] = []
        var failedArchives: [String: String] = [:]
        var superseded = 0
        for (copy, kept) in copies {
            // Recorded in cohort.json only: a log line would tell whether the cohort holds a copy.
            let keptPerson: String? = mapping.map { $0.person(ofArchive: kept) } ?? PersonName.of(archive: kept)
            duplicates.append(
                .init(
                    person: key.tag(for: "archive " + PersonMapping.archiveName(of: copy), prefix: "a_"), status: "identical",
                    identicalTo: keptPerson.map { key.pseudonym(for: $0) }
                        ?? key.tag(for: "archive " + PersonMapping.archiveName(of: kept), prefix: "a_")))
            guard options.logsFigures else { continue }
            log.info(
                "an archive is a byte-identical copy of another; it is counted once",
                metadata: ["event": "cohort.archive_identical"])
        }
        if let mapping {
            let sorted = mapping.choose(distinct)
            archives = sorted.chosen
            for archive in sorted.unlisted {
                // Not a person's pseudonym: an unlisted alice.zip is not the person alice.
                let pseudonym = key.tag(for: "archive " + PersonMapping.archiveName(of: archive), prefix: "a_")
                duplicates.append(
                    .init(person: pseudonym, status: "failed", error: "not listed in privacy.persons: its person is unknown"))
                failedArchives[pseudonym] = archive
                log.error(
                    "an archive is not listed in privacy.persons; it is left out",
                    metadata: ["event": "cohort.person_unlisted", "person": .string(pseudonym)])
            }
            for archive in sorted.superseded {
                superseded += 1
                guard options.logsFigures else { continue }
                log.info(
                    "an archive is superseded by a later one of the same person",
                    metadata: [
                        "event": "cohort.archive_superseded", "person": .string(key.pseudonym(for: mapping.person(ofArchive: archive) ?? "")),
                    ])
            }
        }

        // Pseudonyms next: two archives with one name would be one person twice.
        var chosen: [(archive: String, pseudonym: String)] = []
        for (archive, person) in archives {
            let pseudonym = key.pseudonym(for: person)
            if chosen.contains(where: { $0.pseudonym == pseudonym }) {
                duplicates.append(
                    .init(
                        person: pseudonym, status: "failed",
                        error: "another archive has the same person name; this one was left out"))
                log.error(
                    "two archives have the same person name; the second is left out",
                    metadata: ["event": "cohort.duplicate_person", "person": .string(pseudonym)])
                continue
            }
            chosen.append((archive, pseudonym))
        }
        let people = chosen
        log.info(
            "cohort started",
            metadata: ["event": "cohort.started", "jobs": .stringConvertible(options.jobs)].merging(
                options.logsFigures ? ["archives": .stringConvertible(people.count)] : [:]
            ) { a, _ in a })

        let progress = ProgressCounter(total: people.count)
        let results = ParallelJobs.run(count: people.count, jobs: options.jobs) { i -> CohortReport.Person in
            let (archive, pseudonym) = people[i]
            let outcome = PersonProcess.run(archive: archive, pseudonym: pseudonym, options: options)
            let position = progress.next()
            if outcome.status == "failed" {
                // The position ("3/10") would count the cohort's persons.
                log.error(
                    "person failed: \(outcome.error ?? "?")",
                    metadata: ["event": "cohort.person_failed", "person": .string(pseudonym)].merging(
                        options.logsFigures ? ["progress": .string(position)] : [:]
                    ) { a, _ in a })
            } else if options.logsFigures {
                log.info(
                    "person \(outcome.status)",
                    metadata: [
                        "event": "cohort.person_done", "person": .string(pseudonym), "progress": .string(position),
                    ])
            }
            return outcome
        }
        for (i, outcome) in results.enumerated() where outcome.status == "failed" { failedArchives[outcome.person] = people[i].archive }

        let persons = results + duplicates
        let good = persons.filter { $0.status == "ok" || $0.status == "unchanged" }.map(\.person).sorted()
        var releases: [CohortReport.Release] = []
        var budgetLedger: String?
        var mergedChanged = false
        if !good.isEmpty {
            let parts = try good.map { try PartialAggregate.read(path: out + "/partials/\($0).partial") }
            let merged = try PartialAggregate.merge(parts)
            let mergedPath = out + "/cohort/merged.partial"
            // Released before the merged partial is written: a release that fails (over budget)
            // leaves merged.partial, dp/ and cohort.json as they were, all three describing the
            // last cohort that was released, and the next run finds the merge changed and
            // tries the release again.
            if options.spec.outputs.contains(.dp), let spec = options.spec.releases {
                do {
                    let outcomes = try ReleaseRunner.run(
                        spec: spec, partial: merged, outputDirectory: out + "/dp",
                        ledger: options.spec.ledgerLocation, persons: options.spec.personsAssumption)
                    releases = outcomes.map { .init(id: $0.id, charged: $0.charged, path: $0.path) }
                    budgetLedger = outcomes.first?.ledgerPath
                } catch {
                    // The cohort ends here too: its end is logged before the error is reported.
                    let figures: Logger.Metadata = [
                        "persons": .stringConvertible(persons.count), "merged": .stringConvertible(good.count),
                        "seconds": .stringConvertible((Date().timeIntervalSince(started) * 100).rounded() / 100),
                    ]
                    log.warning(
                        "cohort finished: its releases were refused",
                        metadata: [
                            "event": "cohort.finished",
                            "failed": .stringConvertible(persons.filter { $0.status == "failed" }.count),
                            "releases": .stringConvertible(0), "releases_refused": .stringConvertible(true),
                        ].merging(options.logsFigures ? figures : [:]) { a, _ in a })
                    throw error
                }
            }
            let bytes = merged.encode()
            if FileManager.default.contents(atPath: mergedPath).map({ [UInt8]($0) }) != bytes {
                try merged.write(to: mergedPath)
                mergedChanged = true
            }
        }
        let report = CohortReport(
            toolVersion: HealthTrailVersion.current, pipeline: options.spec.file,
            startedUTC: Timestamp(utcSeconds: Int64(started.timeIntervalSince1970)).utcString,
            seconds: (Date().timeIntervalSince(started) * 100).rounded() / 100, jobs: options.jobs,
            persons: persons, merged: good.count, releases: releases, budgetLedger: budgetLedger, superseded: superseded)
        // A cohort with nothing new leaves every file as it was, cohort.json included.
        if !report.nothingNew || mergedChanged {
            try writeReport(report, to: out + "/cohort.json")
        }
        let figures: Logger.Metadata = [
            "persons": .stringConvertible(persons.count), "merged": .stringConvertible(good.count),
            "seconds": .stringConvertible(report.seconds),
        ]
        log.info(
            "cohort finished",
            metadata: [
                "event": "cohort.finished", "failed": .stringConvertible(report.failed),
                "releases": .stringConvertible(releases.count),
            ].merging(options.logsFigures ? figures : [:]) { a, _ in a })
        return Result(report: report, failedArchives: failedArchives)
    }

    static func writeReport(_ report: CohortReport, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let temporary = path + ".tmp-\(getpid())"
        try OutputFile.write(Array(try encoder.encode(report)) + [0x0A], to: temporary)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw InputError(file: path, "cannot write the cohort report: \(String(cString: strerror(errno)))")
        }
    }
}
