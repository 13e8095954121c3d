#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The small entries that sit beside export.xml: the clinical document and ECG recordings.
package enum SynthSidecars {
    /// A short CDA document. It starts with `<?xml …?>` then `<ClinicalDocument`, so a reader that
    /// looks for the main file by its `<HealthData` root must not pick it.
    package static func clinicalDocument(schedule: SynthSchedule, offsetMinutes: Int) -> [UInt8] {
        let buf = SynthBuffer()
        buf.lit(
            "<?xml version=\"1.0\"?>\n<ClinicalDocument xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"urn:hl7-org:v3 ../../../CDA%20R2/cda-schemas-and-samples/infrastructure/cda/CDA.xsd\" xmlns=\"urn:hl7-org:v3\" xmlns:cda=\"urn:hl7-org:v3\" xmlns:sdtc=\"urn:l7-org:sdtc\" xmlns:fhir=\"http://hl7.org/fhir/v3\">\n <realmCode code=\"US\"/>\n <typeId root=\"2.16.840.1.113883.1.3\" extension=\"POCD_HD000040\"/>\n <templateId root=\"2.16.840.1.113883.10.20.22.1.2\"/>\n <id extension=\"Health Export CDA\" root=\"1.1.1.1.1.1.1.1.1\"/>\n <code codeSystem=\"2.16.840.1.113883.6.1\" codeSystemName=\"LOINC\" code=\"34109-9\" displayName=\"Note\"/>\n <title>Health Data Export</title>\n <effectiveTime value=\""
        )
        let local = schedule.exportInstant + offsetMinutes * 60
        let day = SynthCalendar.floorDiv(local, 86_400)
        let c = SynthCalendar.civil(day)
        let s = local - day * 86_400
        buf.padded(c.year, 4); buf.two(c.month); buf.two(c.day)
        buf.two(s / 3_600); buf.two((s / 60) % 60); buf.two(s % 60)
        let o = abs(offsetMinutes)
        buf.byte(offsetMinutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        buf.two(o / 60); buf.two(o % 60)
        buf.lit(
            "\"/>\n <confidentialityCode code=\"N\" codeSystem=\"2.16.840.1.113883.5.25\"/>\n <recordTarget>\n  <patientRole>\n   <id root=\"2.16.840.1.113883.4.6\" nullFlavor=\"NA\"/>\n   <patient>\n    <administrativeGenderCode code=\"F\" codeSystem=\"2.16.840.1.113883.5.1\" displayName=\"Female\"/>\n    <birthTime value=\"19881029\"/>\n   </patient>\n  </patientRole>\n </recordTarget>\n</ClinicalDocument>\n"
        )
        return buf.buffered
    }

    /// The days that get an ECG recording: the second day, and the last when there are three or more.
    package static func ecgDays(_ schedule: SynthSchedule) -> [SynthDayPlan] {
        let days = schedule.days
        guard !days.isEmpty else { return [] }
        var picked = [days[min(1, days.count - 1)]]
        if days.count >= 3 { picked.append(days[days.count - 1]) }
        return picked
    }

    /// The name and date of birth every ECG header states, as written: no output may hold either.
    package static let ecgName = "Alex Martin", ecgDateOfBirth = "Oct 29, 1988"

    /// A 30 s, 512 Hz Lead I recording in µV with Apple's header, from a simple synthetic beat,
    /// and what it holds. `file`: its path relative to the export folder. `felt`: the person
    /// noted a symptom (a quoted value with commas in it) and the app found it inconclusive.
    package static func ecg(_ plan: SynthDayPlan, seed: UInt64, file: String, felt: Bool = false) -> (bytes: [UInt8], truth: ECGTruth) {
        var r = SynthRandom(seed: seed, stream: SynthSchedule.Stream.sidecar.rawValue, index: UInt64(plan.index))
        let buf = SynthBuffer()
        let t = plan.bed - r.int(3_600, 7_200)
        let classification = felt ? "Inconclusive" : "Sinus Rhythm"
        let symptoms = felt ? "Rapid, pounding, or fluttering heartbeat" : ""
        buf.bytes(Array("Name,\(ecgName)\nDate of Birth,\"\(ecgDateOfBirth)\"\nRecorded Date,".utf8))
        buf.healthDate(t, offset: plan.zone.offset(utc: t))
        buf.bytes(Array("\nClassification,\(classification)\nSymptoms,\(felt ? "\"\(symptoms)\"" : "")\n".utf8))
        buf.lit("Software Version,2\nDevice,\"Watch6,1\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n")
        let beat = 512.0 * 60 / Double(r.int(58, 76))
        var wander = 0.0
        var truth = ECGTruth(
            file: file, recordedUTC: SynthCalendar.isoUTC(t), offsetMinutes: plan.zone.offset(utc: t) / 60,
            classification: classification, symptoms: symptoms, softwareVersion: "2", device: "Watch6,1", sampleRateHz: 512,
            lead: "Lead I", unit: "µV", samples: 512 * 30, microvoltSum: 0, firstMicrovolts: 0, lastMicrovolts: 0)
        for i in 0..<(512 * 30) {
            let phase = Double(i).truncatingRemainder(dividingBy: beat) / beat
            // P wave, QRS spike and T wave as narrow bumps over a wandering baseline.
            func bump(_ centre: Double, _ width: Double, _ height: Double) -> Double {
                let x = (phase - centre) / width
                return x * x > 40 ? 0 : height * exp2(-x * x * 1.4427)
            }
            wander = wander * 0.999 + r.gauss() * 0.6
            let v =
                bump(0.15, 0.025, 120) + bump(0.30, 0.008, 1_100) - bump(0.32, 0.01, 250)
                + bump(0.55, 0.05, 280) + wander + r.gauss() * 6
            buf.fixed(v, 3)
            buf.byte(10)
            let written = SynthBuffer.asWritten(v, 3)
            truth.microvoltSum += written
            if i == 0 { truth.firstMicrovolts = written }
            truth.lastMicrovolts = written
        }
        return (buf.buffered, truth)
    }
}
