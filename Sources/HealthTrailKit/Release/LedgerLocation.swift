import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailPrivacy

#if canImport(Glibc)
import Glibc
import HealthTrailRun
#endif

/// Where a data subject's budget ledger lives and the key it is bound to.
///
/// The ledger belongs to the subject (a person, or a cohort), not to an output folder: it lives
/// in the budget folder, named by the subject's tag under the key, so a fresh `--out` (or a
/// fresh copy of the outputs) for the same subject and key continues the same budget. The
/// budget folder is `privacy.budget_dir`, `--budget-dir`, or by default
/// `$XDG_STATE_HOME/healthtrail` (`~/.local/state/healthtrail`). It holds:
///
/// - `ledger.key`: the budget's own key, 32 random bytes made on first use (never a cohort's
///   pseudonym key, which travels to every machine that runs `partial`), unless `--key` names
///   another;
/// - `ledgers/<tag>.jsonl` and its `.head`, `.d/`, `.lock` (see `BudgetLedger`).
///
/// Losing the key loses the budget: a new key is a new subject. Keep the folder with your
/// backups, and never copy it to anyone the releases are for.
package struct LedgerLocation: Sendable, Equatable {
    /// The budget folder.
    package var budgetDirectory: String
    /// The data subject's name (only its keyed tag is written anywhere).
    package var subject: String
    /// A key file to bind the ledger to instead of the budget folder's own `ledger.key`.
    package var keyFile: String?
    /// A ledger file to use instead of the subject's ledger in the budget folder.
    package var ledgerFile: String?

    /// The subject a person's own releases are recorded for when none is named.
    package static let defaultSubject = "self"

    package init(budgetDirectory: String? = nil, subject: String? = nil, keyFile: String? = nil, ledgerFile: String? = nil) {
        self.budgetDirectory = budgetDirectory ?? Self.defaultBudgetDirectory()
        self.subject = subject ?? Self.defaultSubject
        self.keyFile = keyFile
        self.ledgerFile = ledgerFile
    }

    /// `$XDG_STATE_HOME/healthtrail`, else `$HOME/.local/state/healthtrail`.
    package static func defaultBudgetDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/healthtrail" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/healthtrail"
    }

    /// The key: the given key file, or the budget folder's own (made on first use).
    func key() throws -> LedgerKey {
        if let keyFile { return try PseudonymKey(path: keyFile).ledgerKey }
        do { try makeOwnerOnlyFolder(budgetDirectory) } catch {
            throw InputError(file: budgetDirectory, "cannot create the budget folder")
        }
        let path = budgetDirectory + "/ledger.key"
        if access(path, F_OK) != 0 {
            // A new key would be a new subject tag and a fresh ledger beside the old ones.
            let ledgers = (try? FileManager.default.contentsOfDirectory(atPath: budgetDirectory + "/ledgers")) ?? []
            if ledgers.contains(where: { $0.hasSuffix(".jsonl") || $0.hasSuffix(".head") }) {
                throw InputError(
                    file: path, "missing, but the budget folder holds ledgers made with it: restore the key (a new one would start every budget over)"
                )
            }
            // Written whole under a temporary name, then linked into place: two first runs at
            // once end up with one key, and nobody reads a half-written one.
            let temporary = budgetDirectory + "/.ledger.key.tmp-\(getpid())"
            unlink(temporary)
            try PseudonymKey.generate(at: temporary)
            defer { unlink(temporary) }
            if link(temporary, path) != 0 && errno != EEXIST {
                throw InputError(file: path, "cannot create the budget key: \(String(cString: strerror(errno)))")
            }
        }
        return try PseudonymKey(path: path, followingLinks: false).ledgerKey
    }

    /// The ledger's path for `key`: the given file, or `<budget folder>/ledgers/<tag>.jsonl`.
    func ledgerPath(key: LedgerKey) -> String {
        ledgerFile ?? budgetDirectory + "/ledgers/" + key.subjectTag(subject) + ".jsonl"
    }

    /// The ledger's path, the key read (or made) to name it.
    package func resolvedLedgerPath() throws -> String { ledgerPath(key: try key()) }

    /// Opens the subject's ledger with `limit`.
    func open(limit: BudgetLimit) throws -> BudgetLedger {
        let key = try key()
        return try BudgetLedger(path: ledgerPath(key: key), limit: limit, key: key, subject: subject)
    }
}

extension PseudonymKey {
    /// The key as a budget ledger's key: one key file both names persons and signs the ledger.
    var ledgerKey: LedgerKey { LedgerKey(material: material) }
}
