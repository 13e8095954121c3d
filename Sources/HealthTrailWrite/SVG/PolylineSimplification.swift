/// Fewer vertices for drawing, without a visible change.
package enum PolylineSimplification {
    /// Douglas–Peucker (Ramer 1972; Douglas & Peucker 1973): the indices of `points` to keep,
    /// ascending, first and last always kept (a single point gives `[0]`, none gives `[]`).
    ///
    /// Every dropped point lies within `tolerance` of the kept polyline: between two consecutive
    /// kept indices a and b, each point of a…b is at most `tolerance` from the segment a–b.
    /// Distances are to the segment, not to its infinite line, so a route that doubles back
    /// (out and back, a loop whose ends meet) keeps its turning point.
    ///
    /// Iterative (an explicit stack), so a long route cannot overflow the call stack; O(n log n)
    /// on typical tracks, O(n²) at worst. Non-finite coordinates are not expected (project first).
    package static func douglasPeucker(_ points: [(x: Double, y: Double)], tolerance: Double) -> [Int] {
        let n = points.count
        guard n > 2 else { return Array(0..<n) }
        var keep = [Bool](repeating: false, count: n)
        keep[0] = true
        keep[n - 1] = true
        let limit = max(0, tolerance) * max(0, tolerance)
        var stack: [(Int, Int)] = [(0, n - 1)]
        while let (a, b) = stack.popLast() {
            guard b > a + 1 else { continue }
            let ax = points[a].x, ay = points[a].y
            let dx = points[b].x - ax, dy = points[b].y - ay
            let length2 = dx * dx + dy * dy
            var worst = -1.0, worstIndex = a
            for i in (a + 1)..<b {
                let px = points[i].x - ax, py = points[i].y - ay
                var d2: Double
                if length2 > 0 {
                    let t = min(1, max(0, (px * dx + py * dy) / length2))
                    let ex = px - t * dx, ey = py - t * dy
                    d2 = ex * ex + ey * ey
                } else {
                    d2 = px * px + py * py
                }
                if d2 > worst { worst = d2; worstIndex = i }
            }
            if worst > limit {
                keep[worstIndex] = true
                stack.append((worstIndex, b))
                stack.append((a, worstIndex))
            }
        }
        var result: [Int] = []
        for i in 0..<n where keep[i] { result.append(i) }
        return result
    }
}
