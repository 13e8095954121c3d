import CLibXML2

/// Decodes one GPX route file into `route_points.csv` rows for one workout id.
///
/// Apple's route files carry one `trkpt` per second: `lat`/`lon` attributes and `ele`, `time`,
/// and `extensions/{speed,course,hAcc,vAcc}` children whose text is captured into a small
/// fixed buffer (a field longer than that is a fault, not an allocation).
public final class GPXDecoder {
    enum Field: Int { case ele = 0, time, speed, course, hAcc, vAcc, none }

    public private(set) var points = 0
    public private(set) var firstUTC: Int64?
    public private(set) var lastUTC: Int64?
    /// Set to stop after the first point (used to find an unreferenced route's time).
    var stopAfterFirstPoint = false

    let writer: CSVWriter?
    let workoutID: [UInt8]
    let faults: FaultLog
    let entryName: String
    var parser: SAXPushParser!
    var fatal: InputError?

    var names = InternedNames<Field> { GPXDecoder.field(named: $0) }
    var trkptName: UnsafePointer<UInt8>?
    var inPoint = false
    var lat: [UInt8] = [], lon: [UInt8] = []
    var current = Field.none
    /// Text of each field of the current point.
    var texts = [[UInt8]](repeating: [], count: 6)
    static let maxFieldLength = 64

    public init(writer: CSVWriter?, workoutID: String, faults: FaultLog, fileName: String, entryName: String) {
        self.writer = writer
        self.workoutID = Array(workoutID.utf8)
        self.faults = faults
        self.entryName = entryName
        for i in 0..<6 { texts[i].reserveCapacity(Self.maxFieldLength) }
        var sax = xmlSAXHandler()
        sax.startElementNs = { ctx, name, _, _, _, _, count, _, attrs in
            guard let ctx, let name else { return }
            Unmanaged<GPXDecoder>.fromOpaque(ctx).takeUnretainedValue().start(name, count, attrs)
        }
        sax.endElementNs = { ctx, name, _, _ in
            guard let ctx, let name else { return }
            Unmanaged<GPXDecoder>.fromOpaque(ctx).takeUnretainedValue().end(name)
        }
        sax.characters = { ctx, text, length in
            guard let ctx, let text else { return }
            Unmanaged<GPXDecoder>.fromOpaque(ctx).takeUnretainedValue().characters(text, Int(length))
        }
        parser = SAXPushParser(handler: sax, userData: Unmanaged.passUnretained(self).toOpaque(),
                               fileName: fileName, entryName: entryName)
    }

    static func field(named name: UnsafePointer<UInt8>) -> Field {
        switch String(cString: name) {
        case "ele": return .ele
        case "time": return .time
        case "speed": return .speed
        case "course": return .course
        case "hAcc": return .hAcc
        case "vAcc": return .vAcc
        default: return .none
        }
    }

    public func feed(_ chunk: UnsafeRawBufferPointer) throws {
        do { try parser.feed(chunk) } catch { throw fatal ?? error }
        if let fatal { throw fatal }
    }

    public func finish() throws {
        do { try parser.finish() } catch { throw fatal ?? error }
        if let fatal { throw fatal }
    }

    func start(_ name: UnsafePointer<UInt8>, _ count: Int32, _ attrs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        if name == trkptName || (trkptName == nil && strcmp(name, "trkpt") == 0) {
            trkptName = name
            inPoint = true
            lat.removeAll(keepingCapacity: true)
            lon.removeAll(keepingCapacity: true)
            for i in 0..<6 { texts[i].removeAll(keepingCapacity: true) }
            guard let attrs else { return }
            for i in 0..<Int(count) {
                let base = attrs + i * 5
                guard let n = base[0], let v = base[3], let e = base[4] else { continue }
                if strcmp(n, "lat") == 0 { lat.append(contentsOf: UnsafeBufferPointer(start: v, count: e - v)) }
                else if strcmp(n, "lon") == 0 { lon.append(contentsOf: UnsafeBufferPointer(start: v, count: e - v)) }
            }
            return
        }
        current = inPoint ? names.lookup(name) : .none
    }

    func characters(_ text: UnsafePointer<UInt8>, _ length: Int) {
        guard current != .none else { return }
        let i = current.rawValue
        if texts[i].count + length > Self.maxFieldLength {
            current = .none
            texts[i].removeAll(keepingCapacity: true)
            fault("field_too_long", "trkpt field text is longer than \(Self.maxFieldLength) bytes")
            return
        }
        texts[i].append(contentsOf: UnsafeBufferPointer(start: text, count: length))
    }

    func end(_ name: UnsafePointer<UInt8>) {
        current = .none
        guard name == trkptName, inPoint else { return }
        inPoint = false
        emitPoint()
    }

    func emitPoint() {
        let ok = lat.withUnsafeBufferPointer { la in lon.withUnsafeBufferPointer { lo in
            NumberText.isNumber(ByteSpan(start: la.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: la.count))
                && NumberText.isNumber(ByteSpan(start: lo.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: lo.count))
        } }
        guard ok else { return fault("non_numeric_value", "trkpt lat or lon is not a number") }
        guard let time = texts[Field.time.rawValue].withUnsafeBufferPointer({ b in
            b.count > 0 ? Timestamp.parse(b.baseAddress!, b.count) : nil
        }) else { return fault("bad_date", "trkpt time is missing or not a date") }
        points += 1
        if firstUTC == nil { firstUTC = time.utcSeconds }
        lastUTC = time.utcSeconds
        if stopAfterFirstPoint { parser.stop(); return }
        guard let w = writer else { return }
        workoutID.withUnsafeBufferPointer { w.field(ByteSpan(start: $0.baseAddress!, count: $0.count)) }
        w.comma()
        w.utc(time.utcSeconds); w.comma()
        lat.withUnsafeBufferPointer { w.raw($0.baseAddress!, $0.count) }; w.comma()
        lon.withUnsafeBufferPointer { w.raw($0.baseAddress!, $0.count) }
        for field in [Field.ele, .speed, .hAcc, .course, .vAcc] {
            w.comma()
            texts[field.rawValue].withUnsafeBufferPointer { b in
                guard b.count > 0 else { return }
                let span = ByteSpan(start: b.baseAddress!, count: b.count)
                if NumberText.isNumber(span) { w.raw(span) }
            }
        }
        w.endRow()
    }

    func fault(_ kind: String, _ message: String) {
        if let error = faults.record(entry: entryName, line: parser.line, kind: kind, message) {
            if fatal == nil { fatal = error }
            parser.stop()
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
