import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// Decodes one GPX route file into points, handed one by one to `onPoint`.
///
/// Apple's route files carry one `trkpt` per second: `lat`/`lon` attributes and `ele`, `time`,
/// and `extensions/{speed,course,hAcc,vAcc}` children whose text is captured into a small
/// fixed buffer (a field longer than that is a fault, not an allocation). Each point comes with
/// its fields' text too, so writers can copy the numbers as the file wrote them.
package final class GPXDecoder: SAXDocumentDecoder, SAXEventHandler {
    package enum Field: Int { case ele = 0, time, speed, course, hAcc, vAcc, none }

    package var points: Int { pointCount }
    package var firstUTC: Int64? { earliestUTC }
    package var lastUTC: Int64? { latestUTC }
    // Updated once per point in private properties: public stored ones would be checked for
    // exclusive access at run time on every update.
    private var pointCount = 0
    private var earliestUTC: Int64?
    private var latestUTC: Int64?

    /// Receives each valid point with its raw fields (nonescapable: they cannot leave the call).
    package let onPoint: ((RoutePoint, GPXRawFields) -> Void)?
    package let faults: FaultLog
    package let entryName: String
    package var parser: SAXPushParser!
    package var fatal: InputError?

    package let names = InternedNames<Field> { GPXDecoder.field(named: $0) }
    var trkptName: SAXName?
    var inPoint = false
    var current = Field.none
    /// Open elements, to stop past `SAXPushParser.maxDepth`.
    var depth = 0
    /// Text of lat, lon and each child field of the current point, in fixed slots: a point
    /// costs no allocation. Slot `i` holds `lengths[i]` bytes at `i * maxFieldLength`.
    package let text = FixedSlots<UInt8>(repeating: 0, count: 8 * GPXDecoder.maxFieldLength)
    package let lengths = FixedSlots<Int>(repeating: 0, count: 8)
    package static let maxFieldLength = 64
    package static let latSlot = 6, lonSlot = 7

    package init(
        faults: FaultLog, fileName: String, entryName: String,
        onPoint: ((RoutePoint, GPXRawFields) -> Void)?
    ) {
        self.onPoint = onPoint
        self.faults = faults
        self.entryName = entryName
        parser = SAXPushParser(events: self, reportsText: true, fileName: fileName, entryName: entryName)
    }

    package var line: Int { parser.line }
    package func stopParsing() { parser.stop() }

    /// The text in `slot`, borrowing this decoder: valid until the slot is written again.
    @inline(__always) @_lifetime(borrow self)
    package func span(_ slot: Int) -> ByteSpan {
        text.span(from: slot * Self.maxFieldLength, count: lengths[slot], heldBy: self)
    }

    /// The text of `field` when its value was read (`value` is not nil); nil otherwise.
    @inline(__always) @_lifetime(borrow self)
    func text(_ field: Field, ifRead value: Double?) -> ByteSpan? { value == nil ? nil : span(field.rawValue) }

    /// Appends bytes to a slot; false when the field would be longer than a slot.
    @inline(__always) package func append(_ slot: Int, _ bytes: ByteSpan) -> Bool {
        guard lengths[slot] + bytes.count <= Self.maxFieldLength else { return false }
        text.copy(bytes, to: slot * Self.maxFieldLength + lengths[slot])
        lengths[slot] += bytes.count
        return true
    }

    package static func field(named name: SAXName) -> Field {
        switch name.string {
        case "ele": return .ele
        case "time": return .time
        case "speed": return .speed
        case "course": return .course
        case "hAcc": return .hAcc
        case "vAcc": return .vAcc
        default: return .none
        }
    }

    package func startElement(_ name: SAXName, attributes: SAXAttributes) {
        depth += 1
        if depth > SAXPushParser.maxDepth {
            if fatal == nil { fatal = parser.depthError() }
            return parser.stop()
        }
        if trkptName.map(name.isSameInterned) ?? name.equals("trkpt") {
            trkptName = name
            inPoint = true
            lengths.fill(0, first: 8)
            attributes.forEach { key, value in
                let slot = key.equals("lat") ? Self.latSlot : key.equals("lon") ? Self.lonSlot : -1
                if slot >= 0, !append(slot, value) { fault("field_too_long", "trkpt \(slot == Self.latSlot ? "lat" : "lon") is too long") }
            }
            return
        }
        current = inPoint ? names.lookup(name) : .none
    }

    @inline(__always)
    package func characters(_ text: ByteSpan) {
        guard current != .none else { return }
        if !append(current.rawValue, text) {
            lengths[current.rawValue] = 0
            current = .none
            fault("field_too_long", "trkpt field text is longer than \(Self.maxFieldLength) bytes")
        }
    }

    @inline(__always)
    package func endElement(_ name: SAXName) {
        depth -= 1
        current = .none
        guard inPoint, let trkptName, name.isSameInterned(as: trkptName) else { return }
        inPoint = false
        emitPoint()
    }

    package func emitPoint() {
        let lat = span(Self.latSlot), lon = span(Self.lonSlot)
        guard NumberText.isNumber(lat), NumberText.isNumber(lon),
            let latitude = NumberText.fastDouble(lat), let longitude = NumberText.fastDouble(lon)
        else {
            return fault("non_numeric_value", "trkpt lat or lon is not a number")
        }
        // Distances, maps and the GeoJSON assume a point on the globe (`lat="1e300"` is not).
        guard abs(latitude) <= 90, abs(longitude) <= 180 else {
            return fault("out_of_range", "trkpt lat or lon is outside ±90/±180 degrees")
        }
        guard let time = Timestamp.parse(span(Field.time.rawValue)) else {
            return fault("bad_date", "trkpt time is missing or not a date")
        }
        pointCount += 1
        if earliestUTC == nil { earliestUTC = time.utcSeconds }
        latestUTC = time.utcSeconds
        guard let onPoint else { return }
        // The rule for numbers: a field that holds no value (`NaN`, `1e309`) is empty in every
        // output, and a counted fault; the point keeps its place and its other fields.
        func number(_ field: Field, _ name: StaticString) -> Double? { optionalValue(span(field.rawValue), "trkpt \(name)") }
        let elevation = number(.ele, "ele"), speed = number(.speed, "speed"), hAcc = number(.hAcc, "hAcc")
        let course = number(.course, "course"), vAcc = number(.vAcc, "vAcc")
        let raw = GPXRawFields(
            latitude: lat, longitude: lon, elevation: text(.ele, ifRead: elevation), speed: text(.speed, ifRead: speed),
            horizontalAccuracy: text(.hAcc, ifRead: hAcc), course: text(.course, ifRead: course),
            verticalAccuracy: text(.vAcc, ifRead: vAcc))
        let point = RoutePoint(
            time: time.utcSeconds, latitude: latitude, longitude: longitude, elevation: elevation,
            speed: speed, horizontalAccuracy: hAcc)
        onPoint(point, raw)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The text of a GPX point's numeric fields, as the file wrote them (nil where absent, not a
/// number or out of range: `NumberText.isInRange`). Nonescapable: the text is the decoder's,
/// rewritten for the next point, and the compiler refuses to keep it past the point's callback.
package struct GPXRawFields: ~Escapable {
    package var latitude: ByteSpan
    package var longitude: ByteSpan
    package var elevation: ByteSpan?
    package var speed: ByteSpan?
    package var horizontalAccuracy: ByteSpan?
    package var course: ByteSpan?
    package var verticalAccuracy: ByteSpan?
}
