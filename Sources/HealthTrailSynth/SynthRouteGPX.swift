#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one workout's route as Apple's exporter does: same header, one `trkseg`, a point a
/// second with six-decimal lon/lat/ele/speed/course/accuracies, UTC times, no final newline.
package struct SynthRouteGPX {
    package let workout: SynthWorkoutPlan
    package let seed: UInt64
    /// When the export was made (the `<metadata><time>` of every file).
    package let exportInstant: Int

    /// Writes the file into `buf` and returns the number of `<trkpt>` written.
    package func write(into buf: SynthBuffer) throws -> Int {
        var r = SynthRandom(seed: seed, stream: SynthSchedule.Stream.route.rawValue, index: workout.stream)
        let w = workout
        buf.lit(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n  <metadata>\n    <time>"
        )
        buf.isoUTC(exportInstant)
        buf.lit("</time>\n  </metadata>\n  <trk>\n    <name>Route ")
        // "Route 2024-11-14 6:05pm": the local time of the last point, like the file name.
        let local = w.routeLast + w.zone.offset(utc: w.routeLast)
        let day = SynthCalendar.floorDiv(local, 86_400)
        let s = local - day * 86_400
        buf.day(day)
        buf.byte(UInt8(ascii: " "))
        let h24 = s / 3_600
        buf.int(h24 % 12 == 0 ? 12 : h24 % 12)
        buf.byte(UInt8(ascii: ":"))
        buf.two((s / 60) % 60)
        buf.lit(h24 < 12 ? "am</name>\n    <trkseg>\n" : "pm</name>\n    <trkseg>\n")

        // A random walk with inertia around home, turning back when it strays beyond ~2.5 km.
        let home = w.zone.home
        var lat = home.lat + r.double(-0.004, 0.004)
        var lon = home.lon + r.double(-0.006, 0.006)
        let metresPerDegLat = 111_320.0
        let metresPerDegLon = 111_320.0 * cos(home.lat * .pi / 180)
        var heading = r.double(0, 2 * .pi)
        var turn = 0.0
        var speed = w.activity.speed
        var ele = (w.zone == .paris ? 42.0 : 28.0) + r.double(-5, 5)
        var climb = 0.0
        var points = 0
        var t = w.routeFirst
        let driveFrom = w.routeLast - w.driveSeconds + 1
        while t <= w.routeLast {
            if t >= w.pauseStart && t < w.pauseEnd { t += 1; continue }
            try buf.flushIfFull()
            buf.lit("      <trkpt lon=\"")
            buf.fixed(lon, 6, trim: false)
            buf.lit("\" lat=\"")
            buf.fixed(t == w.glitchAt ? lat + SynthWorkoutPlan.glitchMetres / metresPerDegLat : lat, 6, trim: false)
            buf.lit("\"><ele>")
            buf.fixed(ele, 6, trim: false)
            buf.lit("</ele><time>")
            buf.isoUTC(t)
            buf.lit("</time><extensions><speed>")
            buf.fixed(speed, 6, trim: false)
            buf.lit("</speed><course>")
            var course = heading * 180 / .pi
            course -= 360 * (course / 360).rounded(.down)
            buf.fixed(course, 6, trim: false)
            buf.lit("</course><hAcc>")
            buf.fixed(r.double(0.8, 4.5), 6, trim: false)
            buf.lit("</hAcc><vAcc>")
            buf.fixed(r.double(0.7, 3.5), 6, trim: false)
            buf.lit("</vAcc></extensions></trkpt>\n")
            points += 1

            // Advance one second.
            let dy = (lat - home.lat) * metresPerDegLat, dx = (lon - home.lon) * metresPerDegLon
            if dx * dx + dy * dy > 2_500 * 2_500 {
                var homeward = atan2(-dx, -dy) - heading
                homeward -= 2 * .pi * (homeward / (2 * .pi)).rounded()
                turn = turn * 0.9 + homeward * 0.01
            } else {
                turn = turn * 0.95 + r.gauss() * 0.004
            }
            heading += turn
            speed = max(0.3, speed + (w.activity.speed - speed) * 0.05 + r.gauss() * 0.08)
            if t + 1 >= driveFrom { speed = SynthWorkoutPlan.driveSpeed }
            lat += speed * cos(heading) / metresPerDegLat
            lon += speed * sin(heading) / metresPerDegLon
            climb = climb * 0.98 + r.gauss() * 0.01
            ele += climb
            t += 1
        }
        buf.lit("    </trkseg>\n  </trk>\n</gpx>")
        return points
    }
}
