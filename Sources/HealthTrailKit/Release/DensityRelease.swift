import Foundation
import HealthTrailArchive
import HealthTrailPrivacy
import HealthTrailWrite

/// The route density map released under differential privacy: `dp/<id>.csv` and `dp/<id>.svg`.
///
/// The grid is fixed by the spec (its area and cells across), never by the data. Each privacy
/// unit (a workout, or the person) counts at most once in a cell and in at most K cells (chosen
/// by a hash of unit and cell), so one unit changes the counts by at most K in L1 (and √K in L2).
/// Every cell of the grid gets noise, empty or not; negative noisy counts are kept in the CSV and
/// floored at zero for the picture only.
enum DensityRelease {
    /// The columns of the table as drawn and stored in the ledger; `persons` as in
    /// `ReleaseRunner.drawnColumns`.
    static let columns = [
        "row", "column", "lat", "lon", "value", "error95", "mechanism", "epsilon", "rho", "delta",
        "privacy_unit", "max_partitions", "persons",
    ]

    /// The columns of `dp/<id>.csv`: the stored ones, then the ledger's (`ReleaseRunner.ledgerColumns`).
    static let publishedColumns = columns + ReleaseRunner.ledgerColumns

    /// The published CSV of a stored table: every row as drawn, then the ledger's identity and
    /// the line that recorded the draw. A table stored before draws recorded their person
    /// mapping says `not recorded` in `persons`.
    static func published(_ table: Data, ledger identity: String, seq: Int) -> Data {
        var text = publishedColumns.joined(separator: ",") + "\n"
        for row in String(decoding: table, as: UTF8.self).split(separator: "\n").dropFirst() {
            let width = row.split(separator: ",", omittingEmptySubsequences: false).count
            guard width == columns.count || width == columns.count - 1 else { continue }
            text += String(row) + (width < columns.count ? "," + ReleaseRunner.personsNotRecorded : "") + ",\(identity),\(seq)\n"
        }
        return Data(text.utf8)
    }

    /// The fixed grid of a density release, from the spec alone.
    static func grid(for r: ReleaseSpec.Release) -> DensityGrid {
        let a = r.area!
        return DensityGrid(
            bounds: GeoBoundingBox(minLatitude: a[0], minLongitude: a[1], maxLatitude: a[2], maxLongitude: a[3]),
            columns: r.cells!)
    }

    /// The bounded cell counts (row-major) of one person's route points, and the grid they lie on.
    static func bounded(_ r: ReleaseSpec.Release, runDirectory: String, person: String = "self") throws
        -> (grid: DensityGrid, counts: [Int64])
    {
        let grid = grid(for: r)
        return (grid, bound(try cellsByUnit(r, grid: grid, runDirectory: runDirectory, person: person), release: r, grid: grid))
    }

    /// The cells each privacy unit's route points fall in; units are named after `person` as in
    /// `Contribution.unit`.
    static func cellsByUnit(
        _ r: ReleaseSpec.Release, grid: DensityGrid, runDirectory: String,
        person: String
    ) throws -> [String: Set<Int>] {
        var cellsByUnit: [String: Set<Int>] = [:]
        // Only the points of workouts that started between the release's `from` and `to`.
        let counted = try ReleaseInputs.countedWorkouts(for: r, runDirectory: runDirectory)
        // route_points.csv streams line by line: it can hold millions of points.
        let path = runDirectory + "/route_points.csv"
        let file = try ReadOnlyFile(path: path)
        var line: [UInt8] = [], header = true
        func take(_ bytes: ArraySlice<UInt8>) {
            if header { header = false; return }
            let fields = bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard fields.count >= 4, let lat = Double(String(decoding: fields[2], as: UTF8.self)),
                let lon = Double(String(decoding: fields[3], as: UTF8.self)),
                let cell = grid.cell(latitude: lat, longitude: lon)
            else { return }
            let workout = String(decoding: fields[0], as: UTF8.self)
            guard counted.contains(workout) else { return }
            let unit = r.privacyUnit == .person ? person : person + "|" + workout
            cellsByUnit[unit, default: []].insert(cell.y * grid.width + cell.x)
        }
        try file.forEachChunk { chunk in
            for i in 0..<chunk.count {
                let b = chunk[i]
                if b == 0x0A { take(line[...]); line.removeAll(keepingCapacity: true) } else { line.append(b) }
            }
        }
        if !line.isEmpty { take(line[...]) }
        return cellsByUnit
    }

    /// Each unit counts once in at most K of its cells (chosen by a hash of unit and cell).
    static func bound(_ cellsByUnit: [String: Set<Int>], release r: ReleaseSpec.Release, grid: DensityGrid) -> [Int64] {
        var counts = [Int64](repeating: 0, count: grid.width * grid.height)
        for unit in cellsByUnit.keys.sorted() {
            let kept = cellsByUnit[unit]!.sorted {
                ContributionBounding.stableHash("\(unit)|\($0)") < ContributionBounding.stableHash("\(unit)|\($1)")
            }
            .prefix(r.maxPartitions)
            for cell in kept { counts[cell] += 1 }   // at most one per unit: cannot overflow
        }
        return counts
    }

    /// The noisy table (CSV bytes) for every cell.
    static func noisyTable(
        _ r: ReleaseSpec.Release, grid: DensityGrid, counts: [Int64], mechanism: NoiseMechanism,
        name: String, guarantee: StatedGuarantee, persons: String
    ) throws -> [UInt8] {
        var text = columns.joined(separator: ",") + "\n"
        let error = mechanism.errorBar95()
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let noisy = try mechanism.noisy(counts[y * grid.width + x])
                let lon = WebMercator.longitude(x: grid.originX + (Double(x) + 0.5) * grid.cellWorldSize)
                let lat = WebMercator.latitude(y: grid.originY + (Double(y) + 0.5) * grid.cellWorldSize)
                text +=
                    "\(y),\(x)," + String(format: "%.5f,%.5f", lat, lon) + ",\(noisy),\(error),\(name),"
                    + "\(guarantee.epsilon),\(guarantee.rho),\(guarantee.delta),"
                    + "\(r.privacyUnit.rawValue),\(r.maxPartitions),\(persons)\n"
            }
        }
        return Array(text.utf8)
    }

    /// The picture of a published table (`published`): noisy counts floored at zero, drawn on
    /// the same grid, its note naming the person mapping and the ledger line of the draw.
    static func svg(fromTable data: Data, grid: DensityGrid, release r: ReleaseSpec.Release, guarantee: StatedGuarantee) throws -> [UInt8] {
        let table = String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst()
        var values = [UInt32](repeating: 0, count: grid.width * grid.height)
        var error95: Int64 = 0, gaussian = false
        var provenance = ""
        for row in table {
            let f = row.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count > 5, let y = Int(f[0]), let x = Int(f[1]), let v = Int64(f[4]), y < grid.height, x < grid.width else { continue }
            values[y * grid.width + x] = UInt32(clamping: max(0, v))
            error95 = max(error95, Int64(f[5]) ?? 0)
            gaussian = f.count > 6 && f[6] == "discrete_gaussian"
            if f.count == publishedColumns.count {
                provenance = "; persons: \(f[12]); ledger \(f[13]), line \(f[14])"
            }
        }
        var picture = grid
        picture.replaceCounts(values)
        return DensityMapSVG.render(
            grid: picture, options: SVGOptions(),
            title: "Route density · differentially private (\(guarantee.sentence), per \(r.privacyUnit.rawValue))",
            note: note(error95: error95, largest: Int64(picture.maximum), cells: values.count, gaussian: gaussian, unit: r.privacyUnit)
                + provenance)
    }

    /// What a cell counts and how noisy it is, and, when the largest count is one noise alone
    /// would likely reach somewhere on a grid this size, that the map is mostly noise.
    static func note(error95: Int64, largest: Int64, cells: Int, gaussian: Bool, unit: ReleaseSpec.PrivacyUnit) -> String {
        let what = "noisy \(unit.rawValue) counts per cell, each ±\(error95) at 95 %"
        if Double(largest) <= 1.5 * noiseMaximum(error95: Double(error95), cells: cells, gaussian: gaussian) {
            return what + ": no count stands out from the noise, so read this map as noise"
        }
        return what + "; log scale: colour = log(1 + n) / log(1 + max)"
    }

    /// About the largest value noise alone reaches over `cells` cells: where its tail falls to
    /// 1/cells. Laplace tails are exponential (the 95 % error × ln(cells)/ln 20); Gaussian ones
    /// fall as e^(−x²/2σ²) with σ ≈ error95/1.96.
    static func noiseMaximum(error95: Double, cells: Int, gaussian: Bool) -> Double {
        let n = Double(max(cells, 2))
        return gaussian ? error95 / 1.96 * (2 * log(n)).squareRoot() : error95 * log(n) / log(20)
    }
}
