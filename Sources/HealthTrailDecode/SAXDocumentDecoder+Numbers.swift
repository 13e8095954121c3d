import HealthTrailBase
import HealthTrailXML

extension SAXDocumentDecoder {
    /// The value of an optional number field by the rule for numbers: nil and no fault when the
    /// field is absent or empty; nil and a counted fault (`Reading.faultKind`) when its text is no
    /// number or its number is out of range. `what` names the field (`trkpt ele`), never its text.
    @inline(__always)
    package func optionalValue(_ text: ByteSpan?, _ what: @autoclosure () -> String) -> Double? {
        guard let text, text.count > 0 else { return nil }
        let reading = NumberText.reading(text)
        if case .value(let v) = reading { return v }
        fault(reading.faultKind!, reading == .notANumber ? "\(what()) is not a number" : "\(what()) is out of range")
        return nil
    }
}
