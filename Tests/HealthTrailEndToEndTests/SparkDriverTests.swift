import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailSynth

/// pipelines/spark/healthtrail_spark.py in Spark's local mode (`local[2,3]`: two threads, three
/// attempts a task) through the RDD API, the DataFrame API and a local Spark Connect server,
/// against the single-machine cohort (`healthtrail run --pipeline`, two jobs) on the same
/// archives: four people, one truncated archive, one task that fails its first attempt.
/// Spark must give the same merged partial, byte for byte, and a release of the same shape.
///
/// The driver runs in a Python environment under .build/spark-venv (pyspark from PyPI, made by
/// pipelines/spark/setup-venv.sh the first time, a few minutes). Skipped only without Java.
@Suite(.serialized) struct SparkDriverTests {
    /// The `java` Spark would start: $JAVA_HOME/bin/java, or the first on PATH.
    static let java: String? = {
        let environment = ProcessInfo.processInfo.environment
        let candidates =
            [environment["JAVA_HOME"].map { $0 + "/bin/java" }].compactMap { $0 }
            + (environment["PATH"] ?? "").split(separator: ":").map { $0 + "/java" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let venv = Support.packageRoot.path + "/.build/spark-venv"
    static let driver = Support.packageRoot.path + "/pipelines/spark/healthtrail_spark.py"

    /// A study folder like CohortRunTests' (archives p1…p4 from the generator, broken.zip cut
    /// short, a key, the shipped cohort pipeline pointed here), run once by `healthtrail run`.
    static let study: Result<(root: String, pipeline: String), any Error> = Result {
        let root = Support.temporaryDirectory("spark")
        let archives = root + "/study/archives"
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        for seed in 1...4 {
            _ = try ExportSynthesizer.write(to: archives + "/p\(seed).zip", options: SynthOptions(days: 10, seed: UInt64(seed)))
        }
        let good = try Data(contentsOf: URL(fileURLWithPath: archives + "/p1.zip"))
        try good.prefix(4096).write(to: URL(fileURLWithPath: archives + "/broken.zip"))
        // An earlier export of p1, which the later one listed after it supersedes.
        _ = try ExportSynthesizer.write(to: archives + "/p1-old.zip", options: SynthOptions(days: 10, seed: 9))
        // p2's export again, listed as another person's: byte-identical, so one person, the one
        // listed last (p5), on Spark as on one machine.
        try FileManager.default.copyItem(atPath: archives + "/p2.zip", toPath: archives + "/p2-copy.zip")
        try "archive,person\np1-old.zip,p1\np1.zip,p1\np2.zip,p2\np3.zip,p3\np4.zip,p4\nbroken.zip,broken\np2-copy.zip,p5\n".write(
            toFile: root + "/study/persons.csv", atomically: true, encoding: .utf8)
        guard try Support.runCLI(["keygen", root + "/study/pseudonym.key"]).status == 0 else {
            throw InputError(file: root, "keygen failed")
        }
        let shipped = try String(contentsOfFile: Support.packageRoot.path + "/pipelines/cohort.yaml", encoding: .utf8)
        let pipeline = root + "/cohort.yaml"
        try shipped.replacingOccurrences(of: "~/", with: root + "/")
            .replacingOccurrences(of: "  persons: each archive\n", with: "  persons: \(root)/study/persons.csv\n")
            .replacingOccurrences(of: "\noutputs: [csv, dp]", with: "\noutputs: [csv, dp]\nformats: [csv, parquet]")
            .write(toFile: pipeline, atomically: true, encoding: .utf8)
        let local = try Support.runCLI(["run", "--pipeline", pipeline, "--jobs", "2", "--quiet"])
        guard local.status == 0 else { throw InputError(file: pipeline, "the local cohort run failed: \(local.stderr)") }
        return (root, pipeline)
    }

    /// Runs a program with its output in files (Spark's log outgrows a pipe's buffer); returns
    /// the exit status, the output and the log.
    static func run(_ executable: String, _ arguments: [String], log: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Spark binds to loopback only, and quietly: no hostname lookups, no web UI.
        process.environment = ProcessInfo.processInfo.environment.merging(["SPARK_LOCAL_IP": "127.0.0.1"]) { $1 }
        FileManager.default.createFile(atPath: log + ".out", contents: nil)
        FileManager.default.createFile(atPath: log + ".err", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: log + ".out")
        process.standardError = FileHandle(forWritingAtPath: log + ".err")
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOfFile: log + ".out", encoding: .utf8),
            try String(contentsOfFile: log + ".err", encoding: .utf8)
        )
    }

    /// The driver's Python environment, made when missing (the time it took is in the test log).
    static func python() throws -> String {
        let started = Date()
        let setup = try run(
            "/bin/sh", [Support.packageRoot.path + "/pipelines/spark/setup-venv.sh", venv],
            log: Support.temporaryDirectory("venv") + "/setup")
        guard setup.status == 0 else { throw InputError(file: venv, "cannot set up the Spark environment: \(setup.stderr)") }
        if !setup.stderr.isEmpty { print("spark venv: \(setup.stderr) (\(Int(Date().timeIntervalSince(started))) s)") }
        return venv + "/bin/python"
    }

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The lines of the study's one budget ledger (in the pipeline's budget folder).
    static func ledgerLines(_ root: String) throws -> [Substring] {
        let folder = root + "/study/budget/ledgers"
        let ledgers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jsonl") }
        #expect(ledgers.count == 1)
        return try String(contentsOfFile: folder + "/" + (ledgers.first ?? ""), encoding: .utf8).split(separator: "\n")
    }

    @Test(
        .enabled(if: java != nil, "no Java (JAVA_HOME or java on PATH): Spark needs a JVM; `make test-deps` installs one"),
        arguments: ["rdd", "dataframe", "connect"])
    func sparkGivesTheLocalCohortsMergedPartialAndReleaseShape(api: String) throws {
        let (root, pipeline) = try Self.study.get()
        let local = root + "/study/out", spark = root + "/spark-" + api
        // connect: the DataFrame variant as a Spark Connect client, on a local Connect server.
        let session = api == "connect" ? ["--api", "dataframe", "--remote", "local[2,3]"] : ["--api", api, "--master", "local[2,3]"]
        let run = try Self.run(
            try Self.python(),
            [Self.driver] + session + [
                "--archives", root + "/study/archives/*.zip", "--pipeline", pipeline, "--binary", Support.binary,
                "--out", spark, "--conf", "spark.ui.enabled=false", "--fail-once-matching", "p3.zip",
            ] + (api == "rdd" ? ["--person-outputs", spark + "/persons"] : []), log: root + "/spark-" + api)
        #expect(run.status == 0, "\(run.stderr.suffix(3000))")
        // Who was merged or failed stays in spark-report.json unless asked (--verbose).
        #expect(run.stdout.contains("released → \(spark)/dp") && !run.stdout.contains("merged"), "\(run.stdout)")
        let report = try #require(Self.json(spark + "/spark-report.json") as? [String: Any])
        #expect(report["connect"] as? Bool == (api == "connect"))
        #expect(report["max_failures"] as? Int == 3)

        // The exact merge: the same bytes as one machine's, every person once (p3 ran twice).
        let merged = FileManager.default.contents(atPath: spark + "/cohort/merged.partial")
        #expect(merged != nil && merged == FileManager.default.contents(atPath: local + "/cohort/merged.partial"))
        let persons = try #require(Self.json(spark + "/cohort/merged.partial") as? [String: Any])["persons"] as? [String]
        #expect(persons?.count == 4)
        let partials = try FileManager.default.contentsOfDirectory(atPath: local + "/partials").sorted()
        #expect(try FileManager.default.contentsOfDirectory(atPath: spark + "/partials").sorted() == partials)
        for name in partials {
            #expect(
                FileManager.default.contents(atPath: spark + "/partials/" + name)
                    == FileManager.default.contents(atPath: local + "/partials/" + name), "\(name)")
        }

        // The report: the truncated archive failed on all three attempts and is listed; the
        // flaky one took two; the others one; pseudonyms are the local run's.
        let archives = try #require(report["archives"] as? [String: [String: Any]])
        #expect(archives.count == 7)
        func entry(_ name: String) -> [String: Any] { archives.first { $0.key.hasSuffix("/" + name) }?.value ?? [:] }
        #expect(entry("broken.zip")["status"] as? String == "failed")
        #expect(entry("broken.zip")["attempts"] as? Int == 3)
        #expect((entry("broken.zip")["error"] as? String ?? "").contains("not a complete zip archive"))
        #expect((report["failed"] as? [String])?.count == 1 && (report["failed"] as? [String])?.first?.hasSuffix("/broken.zip") == true)
        #expect(entry("p3.zip")["status"] as? String == "ok")
        #expect(entry("p3.zip")["attempts"] as? Int == 2)
        for name in ["p1.zip", "p2.zip", "p2-copy.zip", "p4.zip"] { #expect(entry(name)["attempts"] as? Int == 1, "\(name)") }
        // privacy.persons: p1's earlier export is superseded on Spark as on one machine.
        #expect(entry("p1-old.zip")["status"] as? String == "superseded" && report["superseded"] as? Int == 1)
        #expect((try Self.json(local + "/cohort.json") as? [String: Any])?["superseded"] as? Int == 1)
        let pseudonyms = ["p1.zip", "p2-copy.zip", "p3.zip", "p4.zip"].compactMap { entry($0)["pseudonym"] as? String }
        #expect(entry("p2.zip")["status"] as? String == "identical" && report["identical"] as? Int == 1)
        #expect(entry("p2.zip")["identical_to"] as? String == entry("p2-copy.zip")["pseudonym"] as? String)
        #expect(pseudonyms.map { $0 + ".partial" }.sorted() == partials)

        if api == "rdd" {
            // --person-outputs: each person's outputs with the pipeline's formats, the Parquet
            // files of all read as one DataFrame (the README's example) with every heart-rate row
            // of the local cohort's CSV files.
            let folders = try FileManager.default.contentsOfDirectory(atPath: spark + "/persons").sorted()
            #expect(folders == pseudonyms.sorted())
            var csvRows = 0
            for name in folders {
                #expect(FileManager.default.fileExists(atPath: local + "/persons/\(name)/parquet/heart_rate.parquet"), "\(name)")
                csvRows += try Support.readCSV(local + "/persons/\(name)/heart_rate.csv").rows.count
            }
            let script = """
                import sys
                from pyspark.sql import SparkSession, functions as F
                spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
                hr = (spark.read.parquet(sys.argv[1] + "/*/parquet/heart_rate.parquet")
                      .withColumn("person", F.regexp_extract(F.input_file_name(), r"/([^/]+)/parquet/", 1)))
                print(hr.count(), hr.select("person").distinct().count(), dict(hr.dtypes)["time_utc"])
                """
            let read = try Self.run(try Self.python(), ["-c", script, spark + "/persons"], log: root + "/spark-read")
            #expect(read.status == 0, "\(read.stderr.suffix(2000))")
            #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(csvRows) 4 timestamp", "\(read.stdout)")
        }

        // The release: the study's budget is the same one whichever machine releases it, and its
        // periods were published by the local run, so Spark publishes the same files again,
        // byte for byte, and spends nothing.
        let files = try FileManager.default.contentsOfDirectory(atPath: local + "/dp").sorted()
        #expect(try FileManager.default.contentsOfDirectory(atPath: spark + "/dp").sorted() == files)
        #expect(files.contains("route_density.svg") && files.filter { $0.hasSuffix(".csv") }.count == 4)
        for name in files {
            #expect(
                FileManager.default.contents(atPath: spark + "/dp/" + name) == FileManager.default.contents(atPath: local + "/dp/" + name), "\(name)")
        }
        // The opening line, then a reservation and its publication for each of the 4 releases.
        #expect(try Self.ledgerLines(root).count == 9)
    }
}
