import Foundation

/// Renders an SVG file the way a person's browser shows it: Debian's headless Chromium takes a
/// screenshot, and `PNGImage` decodes it. Tests that need it are
/// `.enabled(if: BrowserRendering.isAvailable)`; `make test` installs chromium (`browser-deps`).
///
/// The SVG is placed by a minimal HTML page — zero margins, an `<img>` of exactly width × height
/// at (0, 0) — so the image lands unscaled (for an SVG of that intrinsic size) at the top left,
/// over a transparent background. The command line, per render:
///
///     timeout -k 5 60 chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage
///         --hide-scrollbars --force-device-scale-factor=1 --force-color-profile=srgb
///         --default-background-color=00000000 --no-first-run --no-default-browser-check
///         --disable-extensions --disable-background-networking --disable-component-update
///         --disable-sync --mute-audio --user-data-dir=TMP/profile --window-size=W,H+256
///         --screenshot=TMP/out.png file:///TMP/page.html
///
/// Chromium 156's new headless mode takes the screenshot at the window's size but lays the page
/// out in a viewport 87 px shorter (the height of an emulated toolbar), leaving the bottom of the
/// picture blank. So the window is made 256 px taller than asked and the top W × H is kept.
package enum BrowserRendering {
    package struct RenderError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Extra window height beyond what the page needs: covers the emulated browser chrome.
    package static let windowPadding = 256
    /// Chromium is killed (with its children: `timeout` signals its whole process group) after this.
    package static let timeoutSeconds = 60

    /// The chromium executable on PATH (`chromium`, Debian's, or `chromium-browser`), or
    /// $HEALTHTRAIL_CHROMIUM when set.
    package static let executable: String? = {
        let env = ProcessInfo.processInfo.environment
        if let path = env["HEALTHTRAIL_CHROMIUM"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let dirs = (env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser"] {
            for dir in dirs where !dir.isEmpty {
                let path = dir + "/" + name
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        return nil
    }()

    package static var isAvailable: Bool { executable != nil }

    /// One chromium at a time: the machine has 2 cores, and the tests run in parallel.
    private static let lock = NSLock()

    /// Renders the SVG at `svgPath` into a `width` × `height` picture and decodes it.
    package static func render(svgPath: String, width: Int, height: Int) throws -> PNGImage {
        guard let chromium = executable else { throw RenderError(description: "no chromium on PATH") }
        precondition(width > 0 && height > 0)
        let svgURL = URL(fileURLWithPath: svgPath).standardizedFileURL
        guard FileManager.default.fileExists(atPath: svgURL.path) else {
            throw RenderError(description: "\(svgPath): no such file")
        }

        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("healthtrail-chromium-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let page = work.appendingPathComponent("page.html")
        let output = work.appendingPathComponent("out.png")
        let html = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><style>
            html, body { margin: 0; padding: 0; background: transparent; overflow: hidden; }
            img { position: absolute; left: 0; top: 0; display: block; }
            </style></head><body><img src="\(htmlEscaped(svgURL.absoluteString))" width="\(width)" height="\(height)" alt=""></body></html>
            """
        try html.write(to: page, atomically: true, encoding: .utf8)

        let arguments = [
            "-k", "5", String(timeoutSeconds), chromium,
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
            "--default-background-color=00000000",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--mute-audio",
            "--user-data-dir=\(work.appendingPathComponent("profile").path)",
            "--window-size=\(width),\(height + windowPadding)",
            "--screenshot=\(output.path)",
            page.absoluteString,
        ]

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = work.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = work.appendingPathComponent("cache").path
        process.environment = environment
        // No stdin; stdout and stderr to files (chromium is chatty: dbus errors and the like on a
        // machine with no session bus; they are shown only when the render fails).
        let logPath = work.appendingPathComponent("chromium.log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log

        lock.lock()
        defer { lock.unlock() }
        try process.run()
        process.waitUntilExit()

        let status = process.terminationStatus
        let pngExists = FileManager.default.fileExists(atPath: output.path)
        if status != 0 || !pngExists {
            let what =
                status == 124 || status == 137
                ? "timed out after \(timeoutSeconds) s" : "exited with status \(status)"
            throw RenderError(
                description: "chromium \(what)\(pngExists ? "" : ", no screenshot"); log:\n"
                    + relevantLog(logPath))
        }
        let full = try PNGImage(path: output.path)
        guard full.width == width, full.height >= height else {
            throw RenderError(description: "screenshot is \(full.width)×\(full.height), asked for \(width)×\(height + windowPadding)")
        }
        return full.cropped(width: width, height: height)
    }

    /// Opens the page at `htmlPath` from disk, as a person's browser would, and returns its DOM
    /// once its scripts have run (`--dump-dom`) with the browser's log, console messages
    /// included (`--enable-logging=stderr`): a script error or a refused request shows there.
    package static func dumpDOM(htmlPath: String, width: Int = 1280, height: Int = 900) throws -> (dom: String, log: String) {
        let (work, log) = try runChromium(["--dump-dom", "--enable-logging=stderr", "--v=0"], page: htmlPath, width: width, height: height)
        defer { try? FileManager.default.removeItem(at: work) }
        let dom = (try? String(contentsOf: work.appendingPathComponent("stdout"), encoding: .utf8)) ?? ""
        return (dom, log)
    }

    /// A screenshot of the top `width` × `height` of the page at `htmlPath`, laid out at that width.
    package static func screenshot(htmlPath: String, width: Int, height: Int) throws -> PNGImage {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("healthtrail-page-\(getpid())-\(UUID().uuidString.prefix(8)).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let (work, _) = try runChromium(["--screenshot=\(output.path)"], page: htmlPath, width: width, height: height + windowPadding)
        try? FileManager.default.removeItem(at: work)
        let full = try PNGImage(path: output.path)
        return full.cropped(width: width, height: min(height, full.height))
    }

    /// Runs headless chromium on a page with `extra` arguments; returns its work folder (stdout
    /// in `stdout`) and its relevant log.
    private static func runChromium(_ extra: [String], page: String, width: Int, height: Int) throws -> (URL, String) {
        guard let chromium = executable else { throw RenderError(description: "no chromium on PATH") }
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("healthtrail-chromium-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments =
            [
                "-k", "5", String(timeoutSeconds), chromium,
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio",
                "--user-data-dir=\(work.appendingPathComponent("profile").path)", "--window-size=\(width),\(height)",
            ] + extra + [URL(fileURLWithPath: page).standardizedFileURL.absoluteString]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = work.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = work.appendingPathComponent("cache").path
        process.environment = environment
        let outPath = work.appendingPathComponent("stdout").path, logPath = work.appendingPathComponent("chromium.log").path
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? out.close(); try? log.close() }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = log
        lock.lock()
        defer { lock.unlock() }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RenderError(description: "chromium exited with status \(process.terminationStatus); log:\n" + relevantLog(logPath))
        }
        return (work, relevantLog(logPath))
    }

    /// The log less the noise of a machine with no D-Bus (or Debian's launcher's shm check).
    package static func relevantLog(_ path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let noise = ["dbus/", "/usr/bin/chromium:", "bytes written to file"]
        let lines = text.split(separator: "\n").filter { line in !noise.contains { line.contains($0) } }
        return lines.suffix(40).joined(separator: "\n")
    }

    private static func htmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
