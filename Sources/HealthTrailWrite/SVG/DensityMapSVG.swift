import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `svg/density.svg`: where the routes went, as a heatmap of a `DensityGrid` over a dark
/// background.
///
/// Display value of a cell with count n: t = log(1 + n) / log(1 + max), so one pass stays visible
/// beside a daily commute (the legend says so). t is quantised to `options.densityLevels` levels
/// (32 by default: more steps than the eye separates in a smooth scale); level ℓ is drawn at
/// position 0.15 + 0.85 · ℓ / (levels − 1) of `options.colourScale`, so the busiest cell gets
/// the scale's top colour and the lowest level stays visible on the dark background (inferno
/// starts at black). Each horizontal run of cells of one level is one box of that level's `<path>`; empty cells are
/// not drawn. Runs are grouped by level in `<g fill>` elements, in cell units under one
/// transform, so a rect costs about 40 bytes and the file size follows the number of runs, not
/// the number of points.
package enum DensityMapSVG {
    package static let titleBand: Double = 40
    package static let legendBand: Double = 76
    package static let background = "#141414"
    /// Scale position of the lowest level.
    package static let scaleFloor = 0.15

    /// Renders the tracks (one per route file): over `options.densityBoundingBox`, or else over
    /// the data's box padded by `options.densityPadding`.
    package static func render(tracks: [[RoutePoint]], options: SVGOptions = SVGOptions()) -> [UInt8] {
        if let b = options.densityBoundingBox {
            var grid = DensityGrid(bounds: b, options: options)
            for t in tracks { grid.add(track: t) }
            return render(grid: grid, options: options)
        }
        var stored = DensityTracks()
        for t in tracks { stored.add(track: t) }
        return render(grid: stored.grid(options: options), options: options)
    }

    /// Renders a grid accumulated elsewhere (`DensityGrid.add(track:)` as routes finish, or
    /// `DensityTracks.grid(options:)`). Each cell is `options.size / grid.width` px, at least 1.
    /// A map of other counts than points and crossings (a differentially private one) passes its
    /// own `title` and the `note` under its legend that says what a cell counts.
    package static func render(
        grid: DensityGrid, options: SVGOptions = SVGOptions(), title customTitle: String? = nil, note customNote: String? = nil
    ) -> [UInt8] {
        let cell = max(1, options.mapWidth / grid.width)
        let width = grid.width * cell
        let mapHeight = grid.height * cell
        let height = Int(titleBand) + mapHeight + Int(legendBand)
        let levels = min(256, max(2, options.densityLevels))
        let scale = options.colourScale

        // Level of every count present: 0…levels−1, −1 for empty cells.
        let logMax = log1p(Double(grid.maximum))
        func level(_ c: UInt32) -> Int {
            guard c > 0 else { return -1 }
            guard logMax > 0 else { return levels - 1 }
            return min(levels - 1, Int(log1p(Double(c)) / logMax * Double(levels)))
        }
        var runs = [[(x: Int, y: Int, length: Int)]](repeating: [], count: levels)
        var minimum = UInt32.max
        let counts = grid.counts
        for y in 0..<grid.height {
            let row = y * grid.width
            var x = 0
            while x < grid.width {
                let c = counts[row + x]
                guard c > 0 else { x += 1; continue }
                minimum = min(minimum, c)
                let l = level(c)
                var end = x + 1
                while end < grid.width, counts[row + end] > 0, level(counts[row + end]) == l {
                    minimum = min(minimum, counts[row + end])
                    end += 1
                }
                runs[l].append((x, y, end - x))
                x = end
            }
        }
        func colour(_ l: Int) -> String {
            SVGFormat.hex(scale.rgb(at: scaleFloor + (1 - scaleFloor) * Double(l) / Double(levels - 1)))
        }

        let rectCount = runs.reduce(0) { $0 + $1.count }
        var out = SVGBytes(capacity: 8192 + rectCount * 16)
        out.open(width: width, height: height)
        // A differentially private map passes its own title: raw track and point counts would leak.
        let title =
            customTitle
            ?? ("Route density · \(grid.tracks) track" + (grid.tracks == 1 ? "" : "s")
                + " · \(grid.points) point" + (grid.points == 1 ? "" : "s"))
        out.literal("<title>"); out.text(title); out.literal("</title>\n")
        out.literal("<rect width=\"100%\" height=\"100%\" fill=\""); out.plain(background); out.literal("\"/>\n")
        out.textElement(title, x: 16, y: 26, size: 16, fill: "#f0f0f0", weight: "bold", cls: "title")

        out.literal("<g id=\"density\" shape-rendering=\"crispEdges\" transform=\"translate(0,")
        out.int(Int(titleBand)); out.literal(")")
        if cell != 1 { out.literal(" scale("); out.int(cell); out.literal(")") }
        out.literal("\">\n")
        // One path per level, one `M x y h w v1 h-w z` box per run: about 15 bytes a run where a
        // `<rect>` takes 40, which keeps a dense multi-year map well under 5 MB.
        for l in 0..<levels where !runs[l].isEmpty {
            out.literal("<path class=\"level\" fill=\""); out.plain(colour(l)); out.literal("\" d=\"")
            for (k, r) in runs[l].enumerated() {
                if k > 0 && k % 16 == 0 { out.literal("\n") }
                out.literal("M"); out.int(r.x); out.literal(" "); out.int(r.y)
                out.literal("h"); out.int(r.length); out.literal("v1h-"); out.int(r.length); out.literal("z")
            }
            out.literal("\"/>\n")
        }
        out.literal("</g>\n")
        if grid.maximum == 0 {
            out.textElement(
                "No route to draw", x: Double(width) / 2, y: titleBand + Double(mapHeight) / 2, size: 16,
                anchor: "middle", fill: "#bbbbbb", cls: "note")
        }

        // Legend: the levels present, from the smallest count's to the top, with their counts.
        let top = titleBand + Double(mapHeight)
        out.literal("<g id=\"legend\">\n")
        if grid.maximum > 0 {
            let low = level(minimum)
            let barWidth = Double(min(256, max(64, width - 200)))
            let step = barWidth / Double(levels - low)
            out.literal("<g class=\"legend-bar\" shape-rendering=\"crispEdges\">\n")
            for l in low..<levels {
                out.literal("<rect"); out.attribute("x", 16 + Double(l - low) * step); out.attribute("y", top + 14)
                out.attribute("width", step + 0.3); out.literal(" height=\"12\" fill=\""); out.plain(colour(l))
                out.literal("\"/>\n")
            }
            out.literal("</g>\n")
            out.textElement("\(minimum)", x: 16, y: top + 40, size: 12, fill: "#e0e0e0", cls: "legend-min")
            out.textElement(
                "\(grid.maximum)", x: 16 + barWidth, y: top + 40, size: 12, anchor: "end",
                fill: "#e0e0e0", cls: "legend-max")
        }
        out.textElement(
            customNote ?? "points and line crossings per cell, log scale: colour = log(1 + n) / log(1 + max), " + scale.rawValue,
            x: 16, y: top + 62, size: 11, fill: "#bdbdbd", cls: "legend-note")
        out.literal("</g>\n")
        let lat = WebMercator.latitude(y: grid.originY + Double(grid.height) * grid.cellWorldSize / 2)
        let mpp = WebMercator.metresPerWorldUnit(atLatitude: lat) * grid.cellWorldSize / Double(cell)
        ScaleBar.draw(&out, metresPerPixel: mpp, width: Double(width), right: Double(width) - 16, y: top + 34, dark: true)
        out.close()
        return out.bytes
    }
}
