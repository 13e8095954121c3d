@testable import HealthTrailKit

extension LedgerLocation {
    /// The ledger file `path`, its key in the budget folder `<path>.budget` beside it: each test
    /// keeps its budget to itself.
    static func testing(_ path: String) -> LedgerLocation {
        LedgerLocation(budgetDirectory: path + ".budget", subject: "test", ledgerFile: path)
    }
}
