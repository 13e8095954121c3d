import CZlib
import Foundation

/// A small PNG decoder for the tests: enough for the screenshots Chromium writes and the PNGs the
/// tests make with Python's stdlib. 8-bit greyscale, grey+alpha, RGB and RGBA, non-interlaced;
/// all five row filters; IDAT chunks concatenated and inflated with the system's zlib; every
/// chunk's CRC checked. Pixels are kept as RGBA (opaque when the file has no alpha).
package struct PNGImage {
    package typealias Pixel = (r: Int, g: Int, b: Int, a: Int)

    package struct DecodeError: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package let width: Int
    package let height: Int
    /// The file's colour type (0 grey, 2 RGB, 4 grey+alpha, 6 RGBA).
    package let colorType: Int
    /// width × height × 4 bytes, rows top to bottom, RGBA.
    package private(set) var rgba: [UInt8]

    package init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DecodeError("\(path): cannot read")
        }
        try self.init(bytes: [UInt8](data))
    }

    package init(bytes: [UInt8]) throws {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { throw DecodeError("not a PNG (signature)") }

        func be32(_ i: Int) -> Int {
            Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        }

        var width = 0, height = 0, colorType = -1, sawIEND = false
        var idat: [UInt8] = []
        var offset = 8
        while offset < bytes.count {
            guard offset + 12 <= bytes.count else { throw DecodeError("truncated chunk header at \(offset)") }
            let length = be32(offset)
            guard length <= bytes.count - offset - 12 else { throw DecodeError("truncated: chunk at \(offset) runs past the end") }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let dataStart = offset + 8
            let expected = UInt32(be32(dataStart + length))
            let actual = bytes.withUnsafeBufferPointer { buf in
                UInt32(crc32(0, buf.baseAddress! + offset + 4, UInt32(length + 4)))
            }
            guard expected == actual else { throw DecodeError("\(type) chunk: CRC mismatch") }
            let data = bytes[dataStart..<(dataStart + length)]
            switch type {
            case "IHDR":
                guard length == 13 else { throw DecodeError("IHDR of \(length) bytes") }
                width = be32(dataStart); height = be32(dataStart + 4)
                let depth = Int(data[dataStart + 8])
                colorType = Int(data[dataStart + 9])
                let compression = data[dataStart + 10], filter = data[dataStart + 11], interlace = data[dataStart + 12]
                guard width > 0, height > 0 else { throw DecodeError("empty image \(width)×\(height)") }
                guard depth == 8 else { throw DecodeError("bit depth \(depth) unsupported (8 only)") }
                guard [0, 2, 4, 6].contains(colorType) else { throw DecodeError("colour type \(colorType) unsupported") }
                guard compression == 0, filter == 0 else { throw DecodeError("unknown compression/filter method") }
                guard interlace == 0 else { throw DecodeError("interlaced PNGs unsupported") }
            case "IDAT":
                guard colorType >= 0 else { throw DecodeError("IDAT before IHDR") }
                idat.append(contentsOf: data)
            case "IEND":
                sawIEND = true
            default:
                // Ancillary chunks (lowercase first letter) are skipped; an unknown critical one is an error.
                if let first = type.unicodeScalars.first, first.properties.isUppercase, type != "PLTE" {
                    throw DecodeError("unknown critical chunk \(type)")
                }
            }
            offset = dataStart + length + 4
            if sawIEND { break }
        }
        guard colorType >= 0 else { throw DecodeError("no IHDR") }
        guard sawIEND else { throw DecodeError("no IEND") }
        guard !idat.isEmpty else { throw DecodeError("no IDAT") }

        let channels = [0: 1, 2: 3, 4: 2, 6: 4][colorType]!
        let stride = width * channels
        let raw = try PNGImage.inflate(idat, expected: height * (stride + 1))

        // Undo the row filters (PNG spec §9); bpp = channels at 8 bits.
        var pixels = [UInt8](repeating: 0, count: height * stride)
        for y in 0..<height {
            let filter = raw[y * (stride + 1)]
            let src = y * (stride + 1) + 1, dst = y * stride, up = dst - stride
            for i in 0..<stride {
                let x = Int(raw[src + i])
                let a = i >= channels ? Int(pixels[dst + i - channels]) : 0
                let b = y > 0 ? Int(pixels[up + i]) : 0
                let c = (y > 0 && i >= channels) ? Int(pixels[up + i - channels]) : 0
                let value: Int
                switch filter {
                case 0: value = x
                case 1: value = x + a
                case 2: value = x + b
                case 3: value = x + (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    value = x + (pa <= pb && pa <= pc ? a : (pb <= pc ? b : c))
                default: throw DecodeError("row \(y): filter type \(filter)")
                }
                pixels[dst + i] = UInt8(truncatingIfNeeded: value)
            }
        }

        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for p in 0..<(width * height) {
            let s = p * channels, d = p * 4
            switch colorType {
            case 0: rgba[d] = pixels[s]; rgba[d + 1] = pixels[s]; rgba[d + 2] = pixels[s]
            case 4: rgba[d] = pixels[s]; rgba[d + 1] = pixels[s]; rgba[d + 2] = pixels[s]; rgba[d + 3] = pixels[s + 1]
            case 2: rgba[d] = pixels[s]; rgba[d + 1] = pixels[s + 1]; rgba[d + 2] = pixels[s + 2]
            default: for k in 0..<4 { rgba[d + k] = pixels[s + k] }
            }
        }
        self.width = width
        self.height = height
        self.colorType = colorType
        self.rgba = rgba
    }

    /// Inflates a zlib stream (RFC 1950: windowBits 15, header and Adler-32 checked) that must
    /// hold exactly `expected` bytes.
    package static func inflate(_ input: [UInt8], expected: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: expected + 1)   // one spare byte to see excess
        var stream = z_stream()
        guard healthtrail_inflateInit2(&stream, 15) == Z_OK else { throw DecodeError("inflateInit2 failed") }
        defer { inflateEnd(&stream) }
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = UInt32(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = UInt32(outBuf.count)
                var status: Int32
                repeat { status = CZlib.inflate(&stream, Z_NO_FLUSH) } while status == Z_OK && stream.avail_out > 0 && stream.avail_in > 0
                return status
            }
        }
        guard status == Z_STREAM_END else {
            throw DecodeError("inflate: status \(status) after \(stream.total_out) of \(expected) bytes")
        }
        guard Int(stream.total_out) == expected else {
            throw DecodeError("image data inflates to \(stream.total_out) bytes, expected \(expected)")
        }
        output.removeLast()
        return output
    }

    /// The top-left `width` × `height` of the image.
    package func cropped(width: Int, height: Int) -> PNGImage {
        precondition(width > 0 && height > 0 && width <= self.width && height <= self.height)
        var out = [UInt8]()
        out.reserveCapacity(width * height * 4)
        for y in 0..<height { out.append(contentsOf: rgba[(y * self.width * 4)..<((y * self.width + width) * 4)]) }
        return PNGImage(width: width, height: height, colorType: colorType, rgba: out)
    }

    private init(width: Int, height: Int, colorType: Int, rgba: [UInt8]) {
        self.width = width; self.height = height; self.colorType = colorType; self.rgba = rgba
    }

    /// The pixel at (x, y), (0, 0) being the top left.
    package func pixel(x: Int, y: Int) -> Pixel {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
        let i = (y * width + x) * 4
        return (Int(rgba[i]), Int(rgba[i + 1]), Int(rgba[i + 2]), Int(rgba[i + 3]))
    }

    /// The smallest box holding every pixel within `tolerance` of `hex`, and how many pixels match;
    /// nil when none does. Bounds are inclusive pixel coordinates.
    package func boundingBox(of hex: String, tolerance: Int = 2) -> (minX: Int, minY: Int, maxX: Int, maxY: Int, count: Int)? {
        let target = PNGImage.color(hex)
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1, count = 0
        for y in 0..<height {
            for x in 0..<width where PNGImage.matches(pixel(x: x, y: y), target, tolerance: tolerance) {
                minX = min(minX, x); maxX = max(maxX, x)
                minY = min(minY, y); maxY = max(maxY, y)
                count += 1
            }
        }
        return count == 0 ? nil : (minX, minY, maxX, maxY, count)
    }

    /// How many pixels in the box (inclusive; whole image by default) are within `tolerance` of `hex`.
    package func count(of hex: String, tolerance: Int = 2, in box: (minX: Int, minY: Int, maxX: Int, maxY: Int)? = nil) -> Int {
        let target = PNGImage.color(hex)
        let b = box ?? (0, 0, width - 1, height - 1)
        var n = 0
        for y in max(0, b.minY)...min(height - 1, b.maxY) {
            for x in max(0, b.minX)...min(width - 1, b.maxX) where PNGImage.matches(pixel(x: x, y: y), target, tolerance: tolerance) {
                n += 1
            }
        }
        return n
    }

    /// "#rgb", "#rrggbb" (opaque) or "#rrggbbaa", with or without the "#".
    package static func color(_ hex: String) -> Pixel {
        var h = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        if h.count == 3 { h = h.map { "\($0)\($0)" }.joined() }
        precondition((h.count == 6 || h.count == 8) && UInt32(h, radix: 16) != nil, "bad colour \(hex)")
        if h.count == 6 { h += "ff" }
        let v = UInt32(h, radix: 16)!
        return (Int(v >> 24 & 0xFF), Int(v >> 16 & 0xFF), Int(v >> 8 & 0xFF), Int(v & 0xFF))
    }

    /// Within `tolerance` in every channel; a fully transparent target matches any pixel whose
    /// alpha is within `tolerance` of 0, whatever its colour bytes.
    package static func matches(_ p: Pixel, _ q: Pixel, tolerance: Int) -> Bool {
        if q.a == 0 { return p.a <= tolerance }
        return abs(p.r - q.r) <= tolerance && abs(p.g - q.g) <= tolerance
            && abs(p.b - q.b) <= tolerance && abs(p.a - q.a) <= tolerance
    }
}

/// Whether pixel `a` is within `tolerance` of `hex` in every channel (alpha included; a six-digit
/// colour means opaque). A fully transparent pixel matches "#00000000" whatever its colour bytes.
package func close(_ a: PNGImage.Pixel, _ hex: String, tolerance: Int = 2) -> Bool {
    PNGImage.matches(a, PNGImage.color(hex), tolerance: tolerance)
}

/// "#rrggbbaa" of a pixel, for failure messages.
package func hexString(_ p: PNGImage.Pixel) -> String {
    "#" + [p.r, p.g, p.b, p.a].map { String(format: "%02x", $0) }.joined()
}
