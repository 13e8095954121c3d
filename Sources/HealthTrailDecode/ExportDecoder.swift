import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// Decodes export.xml from SAX2 events into typed records for its `ExportRecordSink`.
///
/// Records stream straight to the sink (nothing per record is kept); workouts, which are few,
/// are collected whole because their routes are linked after export.xml is read.
/// Records nested in a `<Correlation>` are skipped: Apple writes them at the top level too.
public final class ExportDecoder: SAXDocumentDecoder, SAXEventHandler {
    // MARK: Results
    package private(set) var locale: String?
    package private(set) var exportDate: Timestamp?
    package private(set) var me: Me?
    package private(set) var workouts: [Workout] = []
    package private(set) var recordTypes: [RecordType] = []
    /// Every source's name, numbered as first met: a record's `sourceIndex` is its number. The
    /// only copy of the names; `String`s are made where one is written (`sourceName(_:)`).
    package let sourceNames = NameBytes()
    /// Distinct sources met.
    package var sourceCount: Int { sourceNames.count }
    /// Source `index`'s name.
    package func sourceName(_ index: Int) -> String { sourceNames.string(index) }
    /// Records per source, by index.
    package var sourceRecordCounts: [Int] {
        var counts = sourceCounts.map { Int($0) }
        for (index, extra) in sourceCountOverflow { counts[index] += extra }
        for k in 0..<recentSourceCount { counts[recentSourceIndices[k]] += recentSourceHits[k] }
        return counts
    }
    package var heartRateSamples: Int { heartRateCount }
    package internal(set) var correlations = 0
    package internal(set) var activitySummaries = 0
    package var hrvBeats: Int { hrvBeatCount }
    // Counted per record and per beat in internal properties: a public stored one would be
    // checked for exclusive access at run time on every `+= 1`.
    var heartRateCount = 0
    var hrvBeatCount = 0
    package internal(set) var inlineRoutePoints = 0

    // MARK: Configuration
    /// Where records go; nil to only count (`healthtrail inspect`).
    package let sink: ExportRecordSink?
    /// `sink` for the per-record path, without reference counting. SAFETY: `sink`, a constant
    /// of this decoder, keeps the object alive as long as this is used.
    package let unretainedSink: Unretained<ExportRecordSink>?
    package let faults: FaultLog
    package let entryName: String
    package private(set) var parser: SAXPushParser!
    /// A fatal error raised inside a callback (a write failure, a fault under `--strict`).
    package var fatal: InputError? {
        get { raisedError }
        set { raisedError = newValue }
    }
    /// `fatal`'s storage. Internal: the decoding thread reads it after every tag, and a stored
    /// property other modules may reach is checked for exclusive access at run time on each read.
    var raisedError: InputError?
    /// Set by `decodeOnOwnThread()`: the parse only captures elements, another thread decodes.
    var capture: SAXEventCapture?
    var decodingDone: DispatchSemaphore?
    /// The line of the element being decoded on the decoding thread.
    var capturedLine = 0

    // MARK: Decoding state
    package let attributes = AttributeSlots()
    package let elements = InternedNames<ExportElement> { ExportElement(name: $0) }
    /// Kinds of the open elements (deeper nesting than this is not decoded, only counted).
    package let stack = FixedSlots<ExportElement>(repeating: .other, count: 256)
    var depth = 0
    var typesByBytes: [[UInt8]: RecordType] = [:]
    /// The previous record's type (most records follow one of their type). Unretained, so that
    /// checking it costs no reference counting per record. SAFETY: `recordTypes` keeps every
    /// type this decoder made, and never drops one.
    var lastType: Unretained<RecordType>?
    var sourceIndexByBytes = SourceNameTable()
    /// The last few sources seen, checked before the table, newest last: their indices (their
    /// names are compared in `sourceNames`).
    package let recentSourceIndices = FixedSlots<Int>(repeating: 0, count: ExportDecoder.recentSourceCapacity)
    /// Records of each recent source since it became one, added to `sourceCounts` when it drops
    /// out: counting a record costs no array update (an exclusivity check and a uniqueness check).
    package let recentSourceHits = FixedSlots<Int>(repeating: 0, count: ExportDecoder.recentSourceCapacity)
    var recentSourceCount = 0
    /// Records per source, but for the recent sources' `recentSourceHits` and the counts past
    /// 32 bits in `sourceCountOverflow` (4 bytes a source, where nearly every count is small).
    var sourceCounts: [UInt32] = []
    var sourceCountOverflow: [Int: Int] = [:]
    package static let recentSourceCapacity = 4
    /// The top-level record being decoded (for its children).
    var recordOpen = false
    var recordStart = Timestamp(utcSeconds: 0)
    var recordEnd = Timestamp(utcSeconds: 0)
    var recordSource = 0
    var heartRateRowOpen = false
    var motionContext: UInt8 = 0
    var workout: Workout?
    var workoutActivity: WorkoutActivity?
    var workoutIDs: Set<String> = []
    /// The next suffix to try for a workout id already taken (`…-running-2`, `-3`, …).
    var nextWorkoutSuffix: [String: Int] = [:]
    /// Old exports' inline route points, per workout, in file order.
    package internal(set) var inlineRoutes: [(workout: Workout, points: [InlineLocation])] = []
    var inlinePoints: [InlineLocation] = []
    /// Units no conversion knows, with how many records used them.
    package internal(set) var unknownUnits: [String: Int] = [:]

    /// - Parameters:
    ///   - sink: where records go; nil to only count (`healthtrail inspect`).
    ///   - fileName, entryName: named in faults and errors.
    package init(sink: ExportRecordSink?, faults: FaultLog, fileName: String, entryName: String) {
        self.sink = sink
        unretainedSink = sink.map(Unretained.init)
        self.faults = faults
        self.entryName = entryName
        parser = SAXPushParser(events: self, reportsText: false, fileName: fileName, entryName: entryName)
    }

    // MARK: Element dispatch

    /// A start tag decoded where libxml2 reports it (no decoding thread: the parser hands its
    /// tags to `capture` once there is one).
    @inline(__always)
    @usableFromInline package func startElement(_ name: SAXName, attributes tag: SAXAttributes) {
        let element = elements.lookup(name)
        if element.readsAttributes { attributes.load(tag) }
        start(element)
    }

    /// An end tag decoded where libxml2 reports it.
    @inline(__always)
    @usableFromInline package func endElement(_ name: SAXName) { end() }

    /// A start tag whose attributes are in `attributes` already.
    @inline(__always)
    package func start(_ element: ExportElement) {
        let parent = depth > 0 ? stack[min(depth - 1, 255)] : .other
        if depth < 256 { stack[depth] = element }
        depth += 1
        if depth > SAXPushParser.maxDepth { return nestedTooDeep() }
        switch element {
        case .record:
            // Records inside a Correlation duplicate top-level ones.
            guard parent == .healthData else { return }
            startRecord()
        case .metadataEntry:
            metadataEntry(parent: parent)
        case .beat:
            guard parent == .hrvList, recordOpen else { return }
            beat()
        case .workout:
            startWorkout()
        case .workoutEvent, .workoutStatistics, .workoutActivity, .fileReference, .location:
            workoutChild(element, parent: parent)
        case .activitySummary:
            activitySummary()
        case .correlation:
            if parent == .healthData { correlations += 1 }
        case .healthData:
            locale = attributes.string(.locale)
        case .exportDate:
            exportDate = attributes.timestamp(.value)
        case .me:
            me = Me(
                dateOfBirth: attributes.string(.dateOfBirth), biologicalSex: attributes.string(.biologicalSex),
                bloodType: attributes.string(.bloodType))
        case .hrvList, .workoutRoute, .other:
            break
        }
    }

    @inline(__always)
    package func end() {
        depth -= 1
        let element = depth < 256 ? stack[depth] : .other
        switch element {
        case .record:
            if depth == 1 { endRecord() }
        case .workoutActivity:
            if let part = workoutActivity { workout?.activities.append(part) }
            workoutActivity = nil
        case .workout:
            if let w = workout {
                workouts.append(w)
                if !inlinePoints.isEmpty { inlineRoutes.append((w, inlinePoints)) }
            }
            inlinePoints.removeAll()
            workout = nil
        default:
            break
        }
    }

    /// Stops at the first element deeper than `SAXPushParser.maxDepth`: a fatal error, as
    /// libxml2's own depth check would be.
    package func nestedTooDeep() {
        if fatal == nil { fatal = parser.depthError(line: line) }
        stopParsing()
    }

    /// The line of the element being decoded.
    package var line: Int { capture == nil ? parser.line : capturedLine }

    /// Stops the parse: from a callback at once, from the decoding thread at its next block.
    package func stopParsing() {
        if let capture { capture.requestStop() } else { parser.stop() }
    }

    // MARK: Sources (faults: `SAXDocumentDecoder.fault`)

    /// The index of a source name, recognised by its bytes; a handful of recent ones are checked
    /// first. Nil, for a name that is not yet a source, once `sourceNames` is full (4 GiB).
    @inline(__always)
    package func sourceIndex(_ span: ByteSpan) -> Int? {
        var k = recentSourceCount
        while k > 0 {
            k -= 1
            if sourceNames.equals(recentSourceIndices[k], span) {
                recentSourceHits[k] += 1
                return recentSourceIndices[k]
            }
        }
        let hash = SourceNameTable.hash(span)
        let index: Int
        if let known = sourceIndexByBytes.index(of: span, hash: hash, names: sourceNames) {
            index = known
        } else {
            guard sourceNames.count < Int(UInt32.max) - 1, let added = sourceNames.append(span) else { return nil }
            index = added
            sourceCounts.append(0)
            sourceIndexByBytes.insert(index, hash: hash)
        }
        countRecords(1, of: index)
        rememberRecentSource(index)
        return index
    }

    private func countRecords(_ n: Int, of index: Int) {
        let (sum, overflow) = sourceCounts[index].addingReportingOverflow(UInt32(truncatingIfNeeded: n))
        if overflow || n > Int(UInt32.max) {
            sourceCountOverflow[index, default: 0] += n
        } else {
            sourceCounts[index] = sum
        }
    }

    /// Puts a source last in the recent ones, dropping the oldest when they are full.
    private func rememberRecentSource(_ index: Int) {
        if recentSourceCount == Self.recentSourceCapacity {
            countRecords(recentSourceHits[0], of: recentSourceIndices[0])
            for k in 1..<recentSourceCount {
                recentSourceIndices[k - 1] = recentSourceIndices[k]
                recentSourceHits[k - 1] = recentSourceHits[k]
            }
            recentSourceCount -= 1
        }
        recentSourceIndices[recentSourceCount] = index
        recentSourceHits[recentSourceCount] = 0
        recentSourceCount += 1
    }

    /// Distinct record types kept; records of further types are skipped as faults. HealthKit
    /// defines about 200, and each type costs an open CSV file and its 64 KiB buffer, so a
    /// hostile file naming a new type per record must not get one each.
    package static let maxRecordTypes = 1000
    /// Longest type identifier accepted (HealthKit's are under 70 bytes; the name becomes a file
    /// name, shortened past `DataFileName.maxBytes`).
    package static let maxTypeLength = 200

    /// The record type named by `span`, unretained (`recordTypes` keeps it); nil past
    /// `maxRecordTypes` or `maxTypeLength`, or for a name that cannot name a file
    /// (`RecordType.fileName(for:)`).
    @inline(__always)
    package func type(_ span: ByteSpan) -> Unretained<RecordType>? {
        if let last = lastType, last.with({ $0.isNamed(span) }) { return last }
        guard span.count <= Self.maxTypeLength else { return nil }
        let bytes = span.bytes
        let t: RecordType
        if let known = typesByBytes[bytes] {
            t = known
        } else {
            let identifier = span.string
            guard let fileName = RecordType.fileName(for: identifier) else { return nil }
            guard recordTypes.count < Self.maxRecordTypes else { return nil }
            t = RecordType(identifier: identifier, fileName: fileName)
            typesByBytes[bytes] = t
            recordTypes.append(t)
        }
        lastType = Unretained(t)
        return lastType
    }
}
