import ArgumentParser
import HealthTrailArchive
import HealthTrailBase
import HealthTrailKit
import HealthTrailPrivacy
import Synchronization

#if canImport(Glibc)
import CMalloc
import Glibc
import HealthTrailRun
#endif

/// Entry point: exit codes are part of the interface (README "Exit codes"), so usage errors
/// map to 2 rather than ArgumentParser's default 64.
@main
struct Main {
    static func main() {
        // Past a file-size limit (`ulimit -f`) a write fails with EFBIG, which the writers report
        // as one line naming the file ("File too large"); the default action of SIGXFSZ would
        // kill the process without a word and leave its staging folder behind.
        signal(SIGXFSZ, SIG_IGN)
        #if canImport(Glibc)
        // Buffers of a MiB or more (Parquet row groups, route batches, SQLite's pages) are mapped
        // on their own and unmapped when freed. glibc's default raises that threshold each time
        // such a block is freed, after which large buffers come from the threads' heaps, which
        // fragment and never shrink: peak memory then grew with the export's length, and more so
        // with several threads writing at once.
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        #endif
        // `-V`/`--version` anywhere, answered before parsing as `--help` is (VersionOption).
        if VersionOption.isRequested(in: Array(CommandLine.arguments.dropFirst())) {
            print(HealthTrailVersion.current)
            exit(ExitStatus.ok)
        }
        do {
            var command = try HealthTrailCommand.parseAsRoot()
            try command.run()
            Interruption.yieldToSignalHandler()
        } catch {
            Interruption.yieldToSignalHandler()
            report(error)
        }
    }

    /// Prints `error` as one line and exits with its code.
    static func report(_ error: Error) -> Never {
        do {
            throw error
        } catch let invalid as PipelineInvalid {
            // Every mistake, one line each, pointing at its line of the file.
            for line in invalid.lines { HealthTrailLog.fatal(line, event: "pipeline.invalid") }
            exit(ExitStatus.usage)
        } catch var error as InputError {
            // An archive read from standard input is `stdin`, not its spool's path.
            if error.file == StandardInputAlias.path { error.file = StandardInputArchive.label }
            HealthTrailLog.fatal("\(error)", event: "failed")
            exit(ExitStatus.failed)
        } catch let error as LedgerError {
            // The ledger refused the releases (over budget, tampered, locked…): nothing was
            // spent or published. One line, as every failure, with its own event.
            let reason = error.kind == .overBudget ? "over_budget" : error.kind.rawValue
            HealthTrailLog.fatal("\(error)", event: "release.refused", metadata: ["reason": .string(reason)])
            exit(ExitStatus.failed)
        } catch var skipped as NothingNew {
            if skipped.input == StandardInputAlias.path { skipped.input = StandardInputArchive.label }
            HealthTrailLog.logger.info("\(skipped)", metadata: ["event": "run.nothing_new"])
            exit(ExitStatus.nothingNew)
        } catch let refused as StandardStreamRefused {
            HealthTrailLog.fatal(refused.message, event: "usage")
            exit(ExitStatus.usage)
        } catch let busy as OutputBusy {
            HealthTrailLog.fatal("\(busy)", event: "run.busy")
            exit(ExitStatus.busy)
        } catch {
            let code = HealthTrailCommand.exitCode(for: error)
            if code == .success || code == ExitCode(ExitStatus.failed) {
                HealthTrailCommand.exit(withError: error)
            }
            // Help and version requests print and exit 0; everything else is a usage error.
            let message = HealthTrailCommand.fullMessage(for: error)
            if code == .validationFailure || code.rawValue == 64 {
                writeToStandardError(message + "\n")
                exit(ExitStatus.usage)
            }
            HealthTrailCommand.exit(withError: error)
        }
    }
}

/// The path the archive read from standard input was opened by (`/proc/self/fd/N`), so that
/// messages name it `stdin`.
enum StandardInputAlias {
    private static let opened = Mutex<String?>(nil)

    /// Set once the archive is spooled; read when an error is reported.
    static var path: String? {
        get { opened.withLock { $0 } }
        set { opened.withLock { $0 = newValue } }
    }
}

/// Writes `text` on standard error in full, unbuffered as `stderr` is (a write error is ignored,
/// as `fputs`' would be: there is nowhere left to report it).
func writeToStandardError(_ text: String) {
    _ = writeFully(STDERR_FILENO, Array(text.utf8))
}

/// `-` given where a stream cannot stand in for a file: a usage error, said in one line.
struct StandardStreamRefused: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Process exit codes, documented in the README.
enum ExitStatus {
    static let ok: Int32 = 0
    static let failed: Int32 = 1
    static let usage: Int32 = 2
    static let nothingNew: Int32 = 3
    static let busy: Int32 = 4
}
