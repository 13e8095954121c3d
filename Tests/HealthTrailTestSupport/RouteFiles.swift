import Foundation

extension Support {
    /// A route file of `count` points a second apart from `start`; every `gapEvery`-th point
    /// lacks elevation and extensions, and `badPoint` (if any) has a longitude that is no number.
    package static func gpx(start: Int64, count: Int, gapEvery: Int = 4, badPoint: Int? = nil) -> String {
        let utcTime = ISO8601DateFormatter()   // 2023-11-14T22:13:20Z
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
        for k in 0..<count {
            let lon = k == badPoint ? "east" : String(format: "%.6f", 2.35 + Double(k) * 0.00003)
            let time = utcTime.string(from: Date(timeIntervalSince1970: TimeInterval(start + Int64(k))))
            if k % gapEvery == 0 {
                text += "<trkpt lon=\"\(lon)\" lat=\"48.8500\"><time>\(time)</time></trkpt>\n"
            } else {
                text +=
                    "<trkpt lon=\"\(lon)\" lat=\"48.85\(k % 10)0\"><ele>3\(k % 10).25</ele><time>\(time)</time>"
                    + "<extensions><speed>2.\(k % 7)</speed><course>1\(k % 9)</course><hAcc>3.2</hAcc>"
                    + "<vAcc>2.1</vAcc></extensions></trkpt>\n"
            }
        }
        return text + "</trkseg></trk></gpx>\n"
    }
}
