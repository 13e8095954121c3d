import HealthTrailArchive
import HealthTrailBase

extension PartialAggregate {
    /// One person's partial aggregate: the bounded totals of every release of `spec`, read from
    /// the outputs of `healthtrail run` in `runDirectory` (`daily.csv`, `workouts.csv`,
    /// `route_points.csv`, as the releases need).
    ///
    /// The bounding is `healthtrail release`'s own (`ContributionBounding.totals`): a release
    /// from this partial, or from the merge of many, bounds exactly as a release from the run
    /// folder would.
    ///
    /// - Parameter person: the person's pseudonym (`PseudonymKey.pseudonym(for:)`) or `self`:
    ///   letters, digits, `_`, `.`, `-`, at most 64 characters. It names the person's privacy
    ///   units and is recorded in `persons`.
    package static func build(spec: ReleaseSpec, runDirectory: String, person: String) throws -> PartialAggregate {
        guard isValidPerson(person) else {
            throw InputError(file: runDirectory, "a person is named by a pseudonym: letters, digits, _ . - only, at most 64")
        }
        var releases: [String: BoundedTotals] = [:]
        for release in spec.releases {
            releases[release.id] = try ContributionBounding.totals(for: release, runDirectory: runDirectory, person: person)
        }
        return PartialAggregate(
            specSHA256: try specFingerprint(of: spec), persons: [person],
            releases: releases)
    }
}
