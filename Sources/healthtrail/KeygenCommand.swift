import ArgumentParser
import HealthTrailKit
import HealthTrailRun

/// `healthtrail keygen FILE`.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new secret key for the pseudonyms of a cohort's partial aggregates.",
        discussion: """
            Writes 32 random bytes from the system's secure random source as 64 hex digits and a \
            newline, readable by you only (mode 0600). An existing file is never overwritten: the \
            pseudonyms made with a key stop matching once it is gone. A person's pseudonym is p_ and \
            the first 16 hex digits of HMAC-SHA256(key, name): without the key no one can tell whose \
            it is, or confirm a guess. Keep the key away from the partials.

            Example:
              healthtrail keygen ~/.healthtrail/cohort.key
            """
    )

    @Argument(help: ArgumentHelp("The key file to create.", valueName: "file"))
    var file: String

    @OptionGroup var versionOption: VersionOption

    func run() throws {
        if file == "-" { throw StandardStreamRefused("the key is a file kept secret, never printed: give its path, not - (standard output)") }
        try PseudonymKey.generate(at: file)
    }
}
