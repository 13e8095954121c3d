import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts of route points and route lines per cell of a Web Mercator grid: the data of
/// `svg/density.svg`, accumulated one track at a time (memory is the grid, whatever the number
/// of points).
///
/// What a cell counts, per track: +1 for every point inside it, and +1 for every line between
/// consecutive points that crosses it without having an end point in it. The line's cells are
/// found by walking the grid (Amanatides & Woo, 1987, the DDA of voxel traversal): every cell
/// the straight segment passes through, so GPS fixes tens of metres apart still leave a
/// continuous track, and a cell where someone stood for a minute counts every fix. Steps longer
/// than `maxStepMetres` (lost signal, two route files joined) are not drawn. Lines are clipped to
/// the grid first, so a far-away point costs nothing.
///
/// Cells are square in Web Mercator (conformal, so square on the ground too).
package struct DensityGrid: Sendable {
    /// Cells across and down.
    package let width: Int
    package let height: Int
    /// Side of a cell in world units (`WebMercator.project`).
    package let cellWorldSize: Double
    /// World units of the grid's top-left corner.
    package let originX: Double
    package let originY: Double
    /// Row-major counts, `width × height`.
    package private(set) var counts: [UInt32]
    /// Largest count.
    package private(set) var maximum: UInt32 = 0
    /// Tracks and usable points added.
    package private(set) var tracks: Int = 0
    package private(set) var points: Int = 0
    /// Steps longer than this (metres) are left as a gap.
    package var maxStepMetres: Double = 2000

    /// A grid `columns` cells across covering `bounds` exactly in width (its height is as many
    /// square cells as the bounds need, at most 1.5 × `columns`; taller bounds make the grid
    /// narrower instead). Bounds smaller than 200 m are grown about their centre.
    package init(bounds: GeoBoundingBox, columns: Int) {
        self.init(world: WorldBox(bounds), columns: columns)
    }

    /// The grid of a density map of `options`: `options.size / options.densityCellSize` columns.
    package init(bounds: GeoBoundingBox, options: SVGOptions) {
        self.init(bounds: bounds, columns: Self.columns(options))
    }

    package static func columns(_ options: SVGOptions) -> Int {
        max(1, options.mapWidth / max(1, min(options.densityCellSize, options.mapWidth)))
    }

    package init(world: WorldBox, columns: Int) {
        let box = world.atLeast(metres: MapGeometry.minimumSpanMetres)
        let cols = max(1, min(columns, 10_000))
        let bw = box.maxX - box.minX, bh = box.maxY - box.minY
        var cell = bw / Double(cols)
        var rows = Int((bh / cell).rounded(.up))
        var across = cols
        let maxRows = max(1, cols * 3 / 2)
        if rows > maxRows {
            cell = bh / Double(maxRows)
            rows = maxRows
            across = max(1, Int((bw / cell).rounded(.up)))
        }
        width = across
        height = max(1, rows)
        cellWorldSize = cell
        // Centred: the grid may be a fraction of a cell larger than the box.
        originX = (box.minX + box.maxX) / 2 - Double(across) * cell / 2
        originY = (box.minY + box.maxY) / 2 - Double(height) * cell / 2
        counts = [UInt32](repeating: 0, count: width * height)
    }

    /// The cell (column, row) of a WGS84 point, nil outside the grid.
    package func cell(latitude: Double, longitude: Double) -> (x: Int, y: Int)? {
        let w = WebMercator.project(lat: latitude, lon: longitude)
        let x = Int(((w.x - originX) / cellWorldSize).rounded(.down)), y = Int(((w.y - originY) / cellWorldSize).rounded(.down))
        return x >= 0 && x < width && y >= 0 && y < height ? (x, y) : nil
    }

    /// Replaces every cell's count (row-major, `width × height`): a differentially private
    /// release draws its noisy counts itself and reuses this grid's geometry and drawing.
    package mutating func replaceCounts(_ values: [UInt32]) {
        precondition(values.count == counts.count)
        counts = values
        maximum = values.max() ?? 0
    }

    /// The count of cell (x, y), 0 outside the grid.
    package subscript(x: Int, y: Int) -> UInt32 {
        guard x >= 0, x < width, y >= 0, y < height else { return 0 }
        return counts[y * width + x]
    }

    /// Adds one track (one route file, points in time order). Unusable points are skipped, and the
    /// line runs on from the previous usable point.
    package mutating func add(track: [RoutePoint]) {
        var world: [(x: Double, y: Double)] = []
        world.reserveCapacity(track.count)
        for p in track where MapGeometry.isUsable(p) {
            world.append(WebMercator.project(lat: p.latitude, lon: p.longitude))
        }
        add(world: world)
    }

    /// Adds one track given in world units.
    package mutating func add(world: [(x: Double, y: Double)]) {
        guard !world.isEmpty else { return }
        tracks += 1
        points += world.count
        let inv = 1 / cellWorldSize
        var previous: (x: Double, y: Double)?
        for w in world {
            let gx = (w.x - originX) * inv, gy = (w.y - originY) * inv
            bump(Int(floor(gx)), Int(floor(gy)))
            if let p = previous {
                // Metres of the step: world distance × the Mercator scale at its latitude
                // (1 / cosh(π(1 − 2y)) is cos(latitude)).
                let dx = w.x - p.x, dy = w.y - p.y
                let metres =
                    (dx * dx + dy * dy).squareRoot() * 2 * Double.pi * WebMercator.earthRadius
                    / cosh(Double.pi * (1 - 2 * w.y))
                if metres <= maxStepMetres {
                    line((p.x - originX) * inv, (p.y - originY) * inv, gx, gy)
                }
            }
            previous = w
        }
    }

    @inline(__always)
    private mutating func bump(_ x: Int, _ y: Int) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let i = y * width + x
        let c = counts[i] &+ 1
        counts[i] = c
        if c > maximum { maximum = c }
    }

    /// +1 for every cell the segment (grid units) crosses, except its two end points' cells.
    private mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let startX = Int(floor(x0)), startY = Int(floor(y0))
        let endX = Int(floor(x1)), endY = Int(floor(y1))
        if startX == endX && startY == endY { return }
        if abs(startX - endX) <= 1 && abs(startY - endY) <= 1 && (startX == endX || startY == endY) { return }
        // Clip to the grid grown by a cell (Liang–Barsky), so the walk stays within the grid.
        var t0 = 0.0, t1 = 1.0
        let dx = x1 - x0, dy = y1 - y0
        let lo = -1.0, hiX = Double(width + 1), hiY = Double(height + 1)
        guard Self.clip(-dx, x0 - lo, &t0, &t1), Self.clip(dx, hiX - x0, &t0, &t1),
            Self.clip(-dy, y0 - lo, &t0, &t1), Self.clip(dy, hiY - y0, &t0, &t1)
        else { return }
        let ax = x0 + t0 * dx, ay = y0 + t0 * dy
        let bx = x0 + t1 * dx, by = y0 + t1 * dy
        var cx = Int(floor(ax)), cy = Int(floor(ay))
        let lastX = Int(floor(bx)), lastY = Int(floor(by))
        let stepX = dx > 0 ? 1 : -1, stepY = dy > 0 ? 1 : -1
        let deltaX = dx != 0 ? abs(1 / dx) : Double.infinity
        let deltaY = dy != 0 ? abs(1 / dy) : Double.infinity
        // Parameter t (0…1 over the original segment) of the next vertical / horizontal grid line.
        var nextX = dx > 0 ? (Double(cx + 1) - x0) / dx : dx < 0 ? (x0 - Double(cx)) / -dx : Double.infinity
        var nextY = dy > 0 ? (Double(cy + 1) - y0) / dy : dy < 0 ? (y0 - Double(cy)) / -dy : Double.infinity
        var remaining = abs(lastX - cx) + abs(lastY - cy)
        while remaining > 0 {
            if nextX < nextY {
                cx += stepX; nextX += deltaX
            } else {
                cy += stepY; nextY += deltaY
            }
            remaining -= 1
            if (cx == startX && cy == startY) || (cx == endX && cy == endY) { continue }
            bump(cx, cy)
        }
    }

    /// One edge of Liang–Barsky: false when the segment lies wholly outside it.
    @inline(__always)
    private static func clip(_ p: Double, _ q: Double, _ t0: inout Double, _ t1: inout Double) -> Bool {
        if p == 0 { return q >= 0 }
        let r = q / p
        if p < 0 {
            if r > t1 { return false }
            if r > t0 { t0 = r }
        } else {
            if r < t0 { return false }
            if r < t1 { t1 = r }
        }
        return true
    }

    /// Adds another grid's counts (same geometry), e.g. one filled by a second thread.
    package mutating func merge(_ other: DensityGrid) {
        precondition(
            other.width == width && other.height == height && other.originX == originX
                && other.originY == originY && other.cellWorldSize == cellWorldSize,
            "DensityGrid.merge needs grids of the same geometry")
        for i in counts.indices {
            let c = counts[i] &+ other.counts[i]
            counts[i] = c
            if c > maximum { maximum = c }
        }
        tracks += other.tracks
        points += other.points
    }
}

/// Tracks kept compactly until the area of the density map is known: the default map fits the
/// data, which is known only after the last route. Each usable point is stored as two 32-bit
/// fixed-point world coordinates (8 bytes, ~1 cm at the equator), about an eighth of a
/// `RoutePoint`; with a known area (`SVGOptions.densityBoundingBox`) feed a `DensityGrid`
/// directly instead and memory stays the grid's.
package struct DensityTracks: Sendable {
    private var xs: [UInt32] = []
    private var ys: [UInt32] = []
    /// End index (exclusive) in `xs`/`ys` of each track.
    private var ends: [Int] = []
    private var box = WorldBox()

    package init() {}

    /// Usable points stored.
    package var points: Int { xs.count }
    package var tracks: Int { ends.count }

    /// Stores one track (one route file, points in time order); unusable points are skipped.
    package mutating func add(track: [RoutePoint]) {
        var any = false
        for p in track where MapGeometry.isUsable(p) {
            let w = WebMercator.project(lat: p.latitude, lon: p.longitude)
            let x = Self.fixed(w.x), y = Self.fixed(w.y)
            xs.append(x); ys.append(y)
            box.add(Self.world(x), Self.world(y))
            any = true
        }
        if any { ends.append(xs.count) }
    }

    /// The data's area in WGS84, nil without points.
    package var bounds: GeoBoundingBox? {
        guard !box.isEmpty else { return nil }
        return GeoBoundingBox(
            minLatitude: WebMercator.latitude(y: box.maxY), minLongitude: WebMercator.longitude(x: box.minX),
            maxLatitude: WebMercator.latitude(y: box.minY), maxLongitude: WebMercator.longitude(x: box.maxX))
    }

    /// The grid of `options`: over `options.densityBoundingBox`, or else the data's box padded by
    /// `options.densityPadding` on every side; every stored track added in order.
    package func grid(options: SVGOptions) -> DensityGrid {
        var grid: DensityGrid
        if let b = options.densityBoundingBox {
            grid = DensityGrid(bounds: b, options: options)
        } else {
            grid = DensityGrid(
                world: box.isEmpty ? box : box.padded(max(0, options.densityPadding)),
                columns: DensityGrid.columns(options))
        }
        var start = 0
        var world: [(x: Double, y: Double)] = []
        for end in ends {
            world.removeAll(keepingCapacity: true)
            for i in start..<end { world.append((Self.world(xs[i]), Self.world(ys[i]))) }
            grid.add(world: world)
            start = end
        }
        return grid
    }

    @inline(__always)
    package static func fixed(_ v: Double) -> UInt32 {
        UInt32((v.clamped(0, 1) * 4_294_967_295).rounded())
    }

    @inline(__always)
    package static func world(_ v: UInt32) -> Double {
        Double(v) / 4_294_967_295
    }
}
