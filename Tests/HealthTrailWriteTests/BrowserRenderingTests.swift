import Foundation
import HealthTrailTestSupport
import Testing

/// Writes PNGs with Python's stdlib (zlib + struct): an encoder independent of the decoder under
/// test. Each image's rows cycle through the five filter types, the zlib stream is split over
/// many IDAT chunks, and a tEXt chunk sits before them; NAME.rgba beside NAME.png holds the
/// expected pixels, expanded to RGBA.
private let pythonPNGWriter = #"""
    import sys, zlib, struct, random, os
    out = sys.argv[1]
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    def paeth(a, b, c):
        p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else (b if pb <= pc else c)
    CH = {0: 1, 2: 3, 4: 2, 6: 4}
    def encode(w, h, ct, rows, interlace=0, depth=8, split=5, filters=None):
        ch = CH[ct]; raw = bytearray(); prev = bytes(len(rows[0]))
        for y, row in enumerate(rows):
            f = (filters or [0, 1, 2, 3, 4])[y % len(filters or [0, 1, 2, 3, 4])]
            raw.append(f)
            for i in range(len(row)):
                a = row[i - ch] if i >= ch else 0; b = prev[i]; c = prev[i - ch] if i >= ch else 0
                raw.append((row[i] - [0, a, b, (a + b) // 2, paeth(a, b, c)][f]) & 255)
            prev = row
        z = zlib.compress(bytes(raw), 9)
        png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ct, 0, 0, interlace))
        png += chunk(b'tEXt', b'Comment\x00written by BrowserRenderingTests')
        for i in range(0, len(z), split): png += chunk(b'IDAT', z[i:i + split])
        return png + chunk(b'IEND', b'')
    def expand(ct, row):
        ch = CH[ct]; px = [row[i:i + ch] for i in range(0, len(row), ch)]
        return b''.join({0: lambda p: bytes([p[0]] * 3 + [255]), 2: lambda p: bytes(p) + b'\xff',
                         4: lambda p: bytes([p[0]] * 3 + [p[1]]), 6: lambda p: bytes(p)}[ct](p) for p in px)
    def save(name, w, h, ct, rows, **kw):
        open(os.path.join(out, name + '.png'), 'wb').write(encode(w, h, ct, rows, **kw))
        open(os.path.join(out, name + '.rgba'), 'wb').write(b''.join(expand(ct, r) for r in rows))
    rnd = random.Random(2024)
    noise = lambda w, h, ct: [bytes(rnd.randrange(256) for _ in range(w * CH[ct])) for _ in range(h)]
    save('rgb', 13, 7, 2, noise(13, 7, 2))
    save('rgba', 11, 10, 6, noise(11, 10, 6))
    save('gray', 5, 6, 0, noise(5, 6, 0))
    save('grayalpha', 6, 5, 4, noise(6, 5, 4))
    save('one', 1, 1, 6, [bytes([1, 2, 3, 4])], filters=[4])
    # Smooth gradients: the Paeth and average predictors pick every branch on them.
    for f in range(5):
        save('gradient%d' % f, 40, 30, 2, [bytes(v for x in range(40) for v in ((x * 6) & 255, (y * 8) & 255, (x * y) & 255)) for y in range(30)], filters=[f], split=1000)
    # Known pixels: transparent, a 2x2 #336699 block at (1,1)-(2,2), #ff8000 at (3,0).
    T, B, O = [0, 0, 0, 0], [0x33, 0x66, 0x99, 255], [0xff, 0x80, 0, 255]
    save('known', 4, 3, 6, [bytes(T + T + T + O), bytes(T + B + B + T), bytes(T + B + B + T)])
    # Unsupported or broken files.
    save('interlaced', 4, 3, 6, [bytes(16)] * 3, interlace=1)
    open(os.path.join(out, 'sixteen.png'), 'wb').write(encode(2, 2, 2, [bytes(12)] * 2, depth=16))
    good = bytearray(open(os.path.join(out, 'rgb.png'), 'rb').read())
    bad = bytearray(good); bad[40] ^= 0x01
    open(os.path.join(out, 'badcrc.png'), 'wb').write(bytes(bad))
    open(os.path.join(out, 'truncated.png'), 'wb').write(bytes(good[:len(good) // 2]))
    """#

/// Runs the Python writer once per test process; returns its folder.
private let pythonPNGs: Result<String, Error> = Result {
    let dir = Support.temporaryDirectory("pngs")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", pythonPNGWriter, dir]
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw PNGImage.DecodeError("python3 PNG writer exited with status \(process.terminationStatus)")
    }
    return dir
}

@Suite struct PNGImageTests {
    func png(_ name: String) throws -> (image: PNGImage, expected: [UInt8]) {
        let dir = try pythonPNGs.get()
        let image = try PNGImage(path: "\(dir)/\(name).png")
        let expected = [UInt8](FileManager.default.contents(atPath: "\(dir)/\(name).rgba") ?? Data())
        return (image, expected)
    }

    func allPixels(_ image: PNGImage) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                out += [UInt8(p.r), UInt8(p.g), UInt8(p.b), UInt8(p.a)]
            }
        }
        return out
    }

    static let shapes: [String: (width: Int, height: Int, colorType: Int)] = [
        "rgb": (13, 7, 2), "rgba": (11, 10, 6), "gray": (5, 6, 0), "grayalpha": (6, 5, 4), "one": (1, 1, 6),
        "gradient0": (40, 30, 2), "gradient1": (40, 30, 2), "gradient2": (40, 30, 2),
        "gradient3": (40, 30, 2), "gradient4": (40, 30, 2),
    ]

    @Test(arguments: shapes.keys.sorted())
    func decodesEveryPixelOfPythonsPNG(name: String) throws {
        let (width, height, colorType) = Self.shapes[name]!
        let (image, expected) = try png(name)
        #expect(image.width == width && image.height == height && image.colorType == colorType)
        #expect(expected.count == width * height * 4)
        let actual = allPixels(image)
        // Reported as the first differing pixel, not two whole arrays.
        let first = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }.map { $0.offset / 4 }
        #expect(first == nil, "\(name): pixel (\(first.map { $0 % width } ?? 0), \(first.map { $0 / width } ?? 0)) differs")
    }

    @Test func knownPixelsColourHelpersAndBoundingBox() throws {
        let (image, _) = try png("known")
        #expect(close(image.pixel(x: 0, y: 0), "#00000000", tolerance: 0))
        #expect(close(image.pixel(x: 3, y: 0), "#ff8000", tolerance: 0))
        #expect(close(image.pixel(x: 3, y: 0), "#fd8202", tolerance: 2))
        #expect(!close(image.pixel(x: 3, y: 0), "#fc8000", tolerance: 2))
        #expect(!close(image.pixel(x: 3, y: 0), "#ff800080", tolerance: 2))   // alpha counts
        #expect(close(image.pixel(x: 1, y: 1), "#369", tolerance: 0))
        #expect(hexString(image.pixel(x: 2, y: 2)) == "#336699ff")
        let box = try #require(image.boundingBox(of: "#336699", tolerance: 0))
        #expect((box.minX, box.minY, box.maxX, box.maxY, box.count) == (1, 1, 2, 2, 4))
        #expect(image.boundingBox(of: "#00ff00") == nil)
        #expect(image.count(of: "#00000000") == 7)
        #expect(image.count(of: "#336699", in: (0, 0, 1, 1)) == 1)
    }

    @Test(arguments: [("interlaced", "interlaced"), ("sixteen", "bit depth 16"), ("badcrc", "CRC"), ("truncated", "truncated")])
    func rejectsWhatItCannotRead(name: String, reason: String) throws {
        let dir = try pythonPNGs.get()
        let error = #expect(throws: PNGImage.DecodeError.self) { try PNGImage(path: "\(dir)/\(name).png") }
        #expect(error?.description.contains(reason) == true, "\(error?.description ?? "-")")
    }

    @Test func rejectsNonPNGAndBadZlib() throws {
        #expect(throws: PNGImage.DecodeError.self) { try PNGImage(bytes: Array("GIF89a....".utf8)) }
        // A raw-deflate stream is not a zlib stream: the header check must fail.
        #expect(throws: PNGImage.DecodeError.self) { try PNGImage.inflate([0x03, 0x00], expected: 0) }
    }
}

@Suite(.serialized, .enabled(if: BrowserRendering.isAvailable, "chromium not on PATH (make browser-deps)"))
struct BrowserRenderingTests {
    func render(_ svg: String, width: Int, height: Int) throws -> PNGImage {
        let path = Support.temporaryDirectory("svg") + "/figure.svg"
        try svg.write(toFile: path, atomically: true, encoding: .utf8)
        return try BrowserRendering.render(svgPath: path, width: width, height: height)
    }

    /// A half-red, half-blue 200×100 SVG lands unscaled at (0, 0): the corners and the pixels on
    /// both sides of the seam have the colours, to the pixel.
    @Test func redLeftBlueRight() throws {
        let image = try render(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">
              <rect x="0" y="0" width="100" height="100" fill="#ff0000"/>
              <rect x="100" y="0" width="100" height="100" fill="#0000ff"/>
            </svg>
            """, width: 200, height: 100)
        #expect(image.width == 200 && image.height == 100)
        for (x, y) in [(0, 0), (50, 50), (99, 99), (0, 99), (10, 90)] {
            #expect(close(image.pixel(x: x, y: y), "#ff0000", tolerance: 2), "(\(x), \(y)) is \(hexString(image.pixel(x: x, y: y)))")
        }
        for (x, y) in [(100, 0), (150, 50), (199, 99), (199, 0), (190, 10)] {
            #expect(close(image.pixel(x: x, y: y), "#0000ff", tolerance: 2), "(\(x), \(y)) is \(hexString(image.pixel(x: x, y: y)))")
        }
        let red = try #require(image.boundingBox(of: "#ff0000"))
        #expect((red.minX, red.minY, red.maxX, red.maxY, red.count) == (0, 0, 99, 99, 100 * 100))
    }

    /// Where the SVG draws nothing the picture is transparent; a square's box is found exactly,
    /// down in the bottom-right corner (the part Chromium's headless viewport would have cut off).
    @Test func transparentBackgroundAndExactPlacement() throws {
        let image = try render(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="300" height="200">
              <rect x="250" y="150" width="50" height="50" fill="#123456"/>
              <circle cx="60" cy="60" r="30" fill="#00a000"/>
            </svg>
            """, width: 300, height: 200)
        #expect(close(image.pixel(x: 0, y: 0), "#00000000", tolerance: 0))
        #expect(close(image.pixel(x: 150, y: 100), "#00000000", tolerance: 0))
        let square = try #require(image.boundingBox(of: "#123456", tolerance: 0))
        #expect((square.minX, square.minY, square.maxX, square.maxY, square.count) == (250, 150, 299, 199, 2500))
        // The circle's solid pixels fit inside its box; its anti-aliased rim is not sampled.
        let disc = try #require(image.boundingBox(of: "#00a000", tolerance: 2))
        #expect(abs(disc.minX - 30) <= 1 && abs(disc.maxX - 89) <= 1 && abs(disc.minY - 30) <= 1 && abs(disc.maxY - 89) <= 1)
        #expect(close(image.pixel(x: 60, y: 60), "#00a000", tolerance: 2))
        #expect(abs(disc.count - Int(Double.pi * 30 * 30)) < 2 * 30 * 4)
    }

    /// Strokes, opacity and a path: what a route map is made of. A 50 %-opaque red over white is pink.
    @Test func strokesAndOpacity() throws {
        let image = try render(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">
              <rect width="120" height="80" fill="#ffffff"/>
              <path d="M 10 40 L 110 40" stroke="#e6550d" stroke-width="10" fill="none"/>
              <rect x="10" y="60" width="20" height="15" fill="#ff0000" fill-opacity="0.5"/>
            </svg>
            """, width: 120, height: 80)
        #expect(close(image.pixel(x: 5, y: 5), "#ffffff", tolerance: 0))
        #expect(close(image.pixel(x: 60, y: 40), "#e6550d", tolerance: 2))
        let line = try #require(image.boundingBox(of: "#e6550d", tolerance: 2))
        #expect((line.minX, line.minY, line.maxX, line.maxY) == (10, 35, 109, 44))
        #expect(close(image.pixel(x: 20, y: 67), "#ff8080", tolerance: 2), "\(hexString(image.pixel(x: 20, y: 67)))")
    }

    @Test func aMissingFileIsAnError() {
        #expect(throws: BrowserRendering.RenderError.self) {
            try BrowserRendering.render(svgPath: "/nonexistent/figure.svg", width: 10, height: 10)
        }
    }
}
