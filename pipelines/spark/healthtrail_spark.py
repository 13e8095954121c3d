#!/usr/bin/env python3
"""HealthTrail cohort on Spark: one `healthtrail partial` per archive, exact merge, noise once.

Each Spark task copies one archive to its local disk, runs the shipped healthtrail binary on it
(`healthtrail partial`, the same command the single-machine cohort runs in a process per person)
and returns that person's partial aggregate: a few kilobytes of bounded, noise-free totals. The
driver writes them to <out>/partials/, merges them with `healthtrail merge` (the exact merge
lives in Swift only) and releases the merged totals once with `healthtrail release`, so the
noise is drawn once for the whole cohort and the privacy ledger is charged once.

Usage (see README.md beside this file):
  spark-submit healthtrail_spark.py --archives 's3a://bucket/study/*.zip' \\
      --pipeline cohort.yaml --binary ./healthtrail --out ./study-out

Exit codes: 0 released (failed archives, if any, are listed in spark-report.json), 1 the job
failed (--fail-fast and a failed archive, no archive succeeded, merge or release failed),
2 usage error or invalid pipeline.

Standard library and pyspark only (pyarrow too for --api dataframe, as mapInArrow needs it).
"""

import argparse
import glob as localglob
import hashlib
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

EXIT_FAILED = 1
EXIT_USAGE = 2

# Names that are not finished archives, skipped by a glob as the cohort's input.path skips them.
PARTIAL_SUFFIXES = (".part", ".tmp", ".crdownload", ".download")

# The columns a task returns, for the DataFrame variant's mapInArrow.
RESULT_SCHEMA = ("uri string, pseudonym string, status string, attempts int, seconds double, partial binary, error string, "
                 "content string")


class UsageError(Exception):
    """A mistake in the command line or the pipeline: exit 2."""


class ArchiveFailed(Exception):
    """One archive could not be made into a partial; the message names the URI, never data."""


# ---------------------------------------------------------------------------------------------
# The pipeline's files: what a task needs shipped with it.


def pipeline_path_value(pipeline, key):
    """The scalar value of `key:` in the pipeline (a cohort pipeline has key_file and releases
    once, under privacy), or None when absent or not a scalar. A line reader, not a YAML parser:
    the driver only needs these two paths, and `healthtrail validate` has checked the file."""
    pattern = re.compile(r"^\s*" + re.escape(key) + r"\s*:\s*(.*?)\s*$")
    with open(pipeline, encoding="utf-8") as f:
        for line in f:
            match = pattern.match(line)
            if not match:
                continue
            value = match.group(1)
            if value[:1] in ("'", '"'):
                end = value.find(value[0], 1)
                return value[1:end] if end > 0 else None
            value = re.sub(r"\s+#.*$", "", value).strip()
            return value or None   # empty: a block (the inline releases list) follows
    return None


def resolve_pipeline_path(value, pipeline):
    """A path as the pipeline means it: ~ is home, other relative paths are beside the file."""
    if value.startswith("~/"):
        return os.path.join(os.path.expanduser("~"), value[2:])
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(pipeline)), value))


def files_to_ship(args):
    """The pipeline, its key and (when it names one) its release file, as driver-local paths."""
    key = args.key_file
    if key is None:
        value = pipeline_path_value(args.pipeline, "key_file")
        if value is None:
            raise UsageError(f"{args.pipeline}: no privacy.key_file (a cohort pipeline names its pseudonym key)")
        key = resolve_pipeline_path(value, args.pipeline)
    if not os.path.isfile(key):
        raise UsageError(f"{key}: no such key file (the pipeline's privacy.key_file, or --key-file)")
    ship = {"pipeline": os.path.abspath(args.pipeline), "key": os.path.abspath(key)}
    releases = pipeline_path_value(args.pipeline, "releases")
    if releases is not None and not releases.startswith(("[", "{")):
        # A task reads its shipped pipeline from Spark's files folder, where only a release file
        # named without a folder is found beside it.
        if "/" in releases or releases.startswith("~"):
            raise UsageError(f"{args.pipeline}: privacy.releases names {releases}: for Spark, put the releases "
                             "inline or in a file beside the pipeline named without a folder")
        ship["releases"] = resolve_pipeline_path(releases, args.pipeline)
    names = [os.path.basename(p) for p in ship.values()] + [os.path.basename(args.binary)]
    if len(set(names)) != len(names):
        raise UsageError("the binary, pipeline, key and release file need different file names to be shipped together")
    return ship


# ---------------------------------------------------------------------------------------------
# The archives: URIs and sizes, one person each.


def is_list_file(spec):
    return os.path.isfile(spec) and not spec.lower().endswith(".zip")


def hadoop_fs(spark, uri):
    """The JVM's Hadoop FileSystem for a URI, or None on Spark Connect (no JVM in the client)."""
    try:
        sc = spark.sparkContext
        path = sc._jvm.org.apache.hadoop.fs.Path(uri)
        return path, path.getFileSystem(sc._jsc.hadoopConfiguration())
    except Exception:   # Spark Connect: sparkContext is not available
        return None


def archive_size(spark, uri):
    """The archive's size in bytes for ordering (0 when unknown: it then goes last)."""
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme in ("", "file"):
        try:
            return os.path.getsize(local_path(uri))
        except OSError:
            return 0
    found = hadoop_fs(spark, uri)
    if found is None:
        return 0
    path, fs = found
    try:
        return int(fs.getFileStatus(path).getLen())
    except Exception:   # missing: the task reports it
        return 0


def is_finished_archive(name):
    lower = name.lower()
    return not name.startswith((".", "_")) and not lower.endswith(PARTIAL_SUFFIXES)


def list_archives(spark, spec):
    """(uri, size) for each archive --archives names: the lines of a list file, or a glob
    resolved by the JVM's Hadoop FileSystem (any scheme the cluster reads: hdfs, s3a, gs, abfs,
    file). On Spark Connect, where the client has no JVM, only local globs are resolved."""
    if is_list_file(spec):
        with open(spec, encoding="utf-8") as f:
            uris = [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]
        return [(uri, archive_size(spark, uri)) for uri in uris]
    found = hadoop_fs(spark, spec)
    if found is None:
        if urllib.parse.urlparse(spec).scheme not in ("", "file"):
            raise UsageError(f"{spec}: on Spark Connect give --archives as a list file (globs need the JVM's FileSystem)")
        paths = sorted(p for p in localglob.glob(local_path(spec)) if os.path.isfile(p))
        return [(p, os.path.getsize(p)) for p in paths if is_finished_archive(os.path.basename(p))]
    path, fs = found
    statuses = fs.globStatus(path) or []
    archives = []
    for status in statuses:
        name = status.getPath().getName()
        if status.isFile() and is_finished_archive(name):
            archives.append((status.getPath().toString(), int(status.getLen())))
    return sorted(archives)


def person_name(uri):
    """The archive's name without its extension: what `healthtrail partial` pseudonymises, so
    s3://bucket/study/alice.zip is the same person as a local alice.zip."""
    return os.path.splitext(posixpath.basename(urllib.parse.urlparse(uri).path.rstrip("/")))[0]


def read_persons(path):
    """privacy.persons: {archive file name: (person, line)}, as `healthtrail` reads it (a CSV
    whose first line is archive,person; blank lines and # comments ignored)."""
    entries, header = {}, False
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            fields = [field.strip() for field in line.split(",", 1)]
            if not header:
                if fields != ["archive", "person"]:
                    raise UsageError(f"{path}:{number}: the first line must be: archive,person")
                header = True
                continue
            if len(fields) != 2 or not fields[0] or not fields[1] or "/" in fields[0] or fields[0] in entries:
                raise UsageError(f"{path}:{number}: expected an archive's file name (listed once), a comma and a person's name")
            entries[fields[0]] = (fields[1], number)
    return entries


def archive_file_name(uri):
    return posixpath.basename(urllib.parse.urlparse(uri).path.rstrip("/"))


def plan_archives(archives, persons=None):
    """Largest first (the long tasks start first, so the job does not wait on one at the end),
    and one archive per person. Without privacy.persons, a person is an archive's name: a
    second archive with the same name would be the same pseudonym twice, which the merge
    refuses; it is left out and reported, as the cohort does. With it, an archive is its listed
    person's, of a person's archives the one listed last is used and the others are superseded,
    and an archive not listed fails.
    Returns (uris, {uri: person name to pass to partial}, {uri: why it was left out})."""
    chosen, names, left_out = [], {}, {}
    if persons is None:
        seen = set()
        for uri, size in archives:   # in the list's order, a glob's sorted: the first of a name stays
            name = person_name(uri)
            if name in seen:
                left_out[uri] = ("failed", "another archive has the same person name; this one was left out")
            else:
                seen.add(name)
                chosen.append((uri, size))
    else:
        best = {}
        for uri, size in archives:
            entry = persons.get(archive_file_name(uri))
            if entry is None:
                left_out[uri] = ("failed", "not listed in privacy.persons: its person is unknown")
            elif entry[0] not in best or best[entry[0]][2] < entry[1]:
                best[entry[0]] = (uri, size, entry[1])
        winners = {uri for uri, _, _ in best.values()}
        for uri, size in archives:
            entry = persons.get(archive_file_name(uri))
            if uri in winners:
                chosen.append((uri, size))
                names[uri] = entry[0]
            elif entry is not None:
                left_out[uri] = ("superseded", "a later-listed archive of the same person is used")
    chosen.sort(key=lambda a: (-a[1], a[0]))
    return [uri for uri, _ in chosen], names, left_out


# ---------------------------------------------------------------------------------------------
# One task: one archive.


def local_path(uri):
    parsed = urllib.parse.urlparse(uri)
    return urllib.parse.unquote(parsed.path) if parsed.scheme == "file" else uri


def fetch_archive(uri, folder):
    """A local path to the archive: local paths and file:// URIs as they are (local mode, or a
    shared mount); other schemes copied into `folder` under their own file name (the name is the
    person) with `hadoop fs -copyToLocal` when `hadoop` is on PATH (YARN, EMR, Dataproc), else
    pyarrow.fs when importable (s3://, gs://, hdfs:// through libhdfs)."""
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme in ("", "file"):
        return local_path(uri)
    destination = os.path.join(folder, posixpath.basename(parsed.path))
    if shutil.which("hadoop"):
        copy = subprocess.run(["hadoop", "fs", "-copyToLocal", uri, destination],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if copy.returncode != 0:
            last = (copy.stderr.strip().splitlines() or [f"exit status {copy.returncode}"])[-1]
            raise ArchiveFailed(f"{uri}: cannot copy to local disk: {last}")
        return destination
    try:
        import pyarrow.fs as pafs
    except ImportError:
        raise ArchiveFailed(f"{uri}: cannot copy {parsed.scheme}:// archives here: no `hadoop` on PATH and no pyarrow")
    try:
        source, path = pafs.FileSystem.from_uri(uri)
        pafs.copy_files(path, destination, source_filesystem=source, destination_filesystem=pafs.LocalFileSystem())
    except Exception as error:
        raise ArchiveFailed(f"{uri}: cannot copy to local disk: {one_line(error)}")
    return destination


def shipped(name):
    """A file shipped with the job: through SparkFiles (sc.addFile), or in the worker's working
    folder (spark.addArtifacts(file=True) on Spark Connect)."""
    from pyspark import SparkFiles
    try:
        path = SparkFiles.get(name)
        if os.path.exists(path):
            return path
    except Exception:
        pass
    return os.path.abspath(name)


def scratch_folder():
    """Where a task puts its archive copy and run outputs: the executor's local disks (YARN's
    LOCAL_DIRS, spark.local.dir as SPARK_LOCAL_DIRS), else $TMPDIR."""
    for variable in ("LOCAL_DIRS", "SPARK_LOCAL_DIRS"):
        for folder in os.environ.get(variable, "").split(","):
            if folder and os.path.isdir(folder):
                return folder
    return None


def private_copy(source, folder, mode):
    """A copy with `mode` in the task's folder: the key must be owner-only (healthtrail refuses a
    key others can read), and a shipped file may have lost its mode on the way."""
    destination = os.path.join(folder, os.path.basename(source))
    shutil.copyfile(source, destination)
    os.chmod(destination, mode)
    return destination


def one_line(error):
    text = " ".join(str(error).split())
    return text or type(error).__name__


def child_error(stderr, status, local, uri):
    """The child's error: the message of its last JSON log line (healthtrail logs the error
    last), with the task's local path shown as the URI."""
    message = None
    for line in reversed(stderr.splitlines()):
        try:
            event = json.loads(line)
        except ValueError:
            if line.strip():
                message = line.strip()   # not a log line: a crash's last words
                break
            continue
        if isinstance(event, dict) and event.get("level") in ("error", "critical"):
            message = event.get("message")
        break
    if status < 0:
        message = f"the process ended on signal {-status}"
    message = one_line(message or f"exit status {status}")
    return message.replace(local, uri) if local != uri else message


def run_archive(uri, plan):
    """One task: `healthtrail partial` on one archive. Returns a record (a dict of RESULT_SCHEMA's
    columns) or raises so that Spark retries the task.

    Retries: a raising task is run again, up to spark.task.maxFailures attempts in all. A task
    raises on every attempt but the last; on the last it returns a failed record instead, so the
    job completes without the archive and the driver reports it. With fail_fast it raises on
    the last attempt too, and Spark aborts the job."""
    from pyspark import TaskContext
    context = TaskContext.get()
    attempt = context.attemptNumber() if context is not None else 0
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="healthtrail-task-", dir=scratch_folder())
    try:
        hook = plan.get("fail_once_matching")
        if hook and hook in uri and attempt == 0:
            raise ArchiveFailed(f"{uri}: test hook --fail-once-matching: the first attempt fails")
        binary = shipped(plan["binary"])
        if not os.access(binary, os.X_OK):
            binary = private_copy(binary, folder, 0o700)
        # The shipped pipeline is read where it is: a release file it names is shipped beside it.
        pipeline = shipped(plan["pipeline"])
        key = private_copy(shipped(plan["key"]), folder, 0o600)
        local = fetch_archive(uri, folder)
        out = os.path.join(folder, "person.partial")
        person = plan.get("persons", {}).get(uri)
        outputs = ["--outputs", os.path.join(folder, "run")] if plan.get("person_outputs") else []
        child = subprocess.run(
            [binary, "partial", local, "--pipeline", pipeline, "--key-file", key, "--out", out,
             "--quiet", "--log-format", "json"] + (["--person", person] if person else []) + outputs,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, TMPDIR=folder))
        if child.returncode != 0:
            message = child_error(child.stderr, child.returncode, local, uri)
            raise ArchiveFailed(message if uri in message else f"{uri}: {message}")
        with open(out, "rb") as f:
            partial = f.read()
        content = file_sha256(local) if os.path.isfile(local) else None
        persons = list(json.loads(partial)["persons"])
        if len(persons) != 1:
            raise ArchiveFailed(f"{uri}: the partial names {len(persons)} persons, not one")
        if outputs:
            keep_outputs(os.path.join(folder, "run"), plan["person_outputs"], persons[0])
        return record(uri, persons[0], "ok", attempt + 1, started, partial, None, content)
    except Exception as error:
        last = attempt + 1 >= plan["max_failures"]
        if plan.get("fail_fast") or not last:
            raise
        message = str(error) if isinstance(error, ArchiveFailed) else f"{uri}: {one_line(error)}"
        return record(uri, None, "failed", attempt + 1, started, None, one_line(message))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def keep_outputs(run, folder, pseudonym):
    """Puts a person's run outputs at <folder>/<pseudonym>/, replacing an earlier attempt's:
    copied beside it under a temporary name, then renamed into place, so a reader never sees a
    half-copied folder. Modes are kept (the files are owner-only health data)."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    target = os.path.join(folder, pseudonym)
    staging = tempfile.mkdtemp(prefix="." + pseudonym + "-", dir=folder)
    os.rmdir(staging)
    shutil.copytree(run, staging, copy_function=shutil.copy2)
    if os.path.exists(target):
        old = staging + ".old"
        os.rename(target, old)
        os.rename(staging, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(staging, target)


def record(uri, pseudonym, status, attempts, started, partial, error, content=None):
    return {"uri": uri, "pseudonym": pseudonym, "status": status, "attempts": attempts,
            "seconds": round(time.monotonic() - started, 2), "partial": partial, "error": error,
            "content": content}


def file_sha256(path):
    """The archive's SHA-256, the one `healthtrail run` records for a zip file: byte-identical
    archives are one person."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def drop_identical(results, persons):
    """Byte-identical archives are one person, whatever their names or privacy.persons say, as in
    the cohort on one machine: of the archives with one content hash, the one the persons file
    lists last is kept (without one, the one whose file name sorts last), the others are
    `identical`. Returns (kept results, {uri of a copy: (pseudonym kept, attempts, its own)})."""
    def rank(result):
        name = archive_file_name(result["uri"])
        line = persons.get(name, (None, -1))[1] if persons else -1
        return (line, name, result["uri"])
    keeper = {}
    for result in results:
        content = result.get("content")
        if result["status"] == "ok" and content and (content not in keeper or rank(result) > rank(keeper[content])):
            keeper[content] = result
    kept, copies = [], {}
    for result in results:
        winner = keeper.get(result.get("content")) if result["status"] == "ok" else None
        if winner is not None and winner is not result:
            copies[result["uri"]] = (winner["pseudonym"], result["attempts"], result["pseudonym"])
        else:
            kept.append(result)
    return kept, copies


# ---------------------------------------------------------------------------------------------
# The two ways to run the tasks.


def run_rdd(spark, uris, plan):
    """One archive per partition (numSlices = count; partition i holds uris[i], and Spark starts
    tasks in partition order, so the largest archives start first)."""
    sc = spark.sparkContext
    return sc.parallelize(uris, numSlices=len(uris)).map(lambda uri: run_archive(uri, plan)).collect()


def run_dataframe(spark, uris, plan):
    """The same tasks through the DataFrame API (mapInArrow), for Spark Connect and Databricks
    shared compute where there is no RDD API: a DataFrame of archive indices, one per partition
    (spark.range with numPartitions = count puts index i alone in partition i), each task mapping
    its index to its URI."""
    def tasks(batches):
        import pyarrow as pa
        schema = pa.schema([("uri", pa.string()), ("pseudonym", pa.string()), ("status", pa.string()),
                            ("attempts", pa.int32()), ("seconds", pa.float64()), ("partial", pa.binary()),
                            ("error", pa.string()), ("content", pa.string())])
        for batch in batches:
            rows = [run_archive(uris[i], plan) for i in batch.column("id").to_pylist()]
            yield pa.RecordBatch.from_pylist(rows, schema=schema)

    frame = spark.range(0, len(uris), 1, numPartitions=len(uris))
    return [row.asDict() for row in frame.mapInArrow(tasks, RESULT_SCHEMA).collect()]


def is_connect(spark):
    return type(spark).__module__.startswith("pyspark.sql.connect")


def ship(spark, paths):
    """Sends files to every executor: sc.addFile on a classic session, addArtifacts(file=True) on
    Spark Connect."""
    if is_connect(spark):
        spark.addArtifacts(*paths, file=True)
    else:
        for path in paths:
            spark.sparkContext.addFile(path)


def max_failures(spark, override):
    """How many attempts Spark gives a task: local[N,F] says F, local[N] gives one attempt,
    a cluster spark.task.maxFailures (default 4)."""
    if override:
        return override
    try:
        master = spark.conf.get("spark.master", "")
    except Exception:
        master = ""
    match = re.fullmatch(r"local\[(?:\d+|\*),\s*(\d+)\]", master or "")
    if match:
        return int(match.group(1))
    if master == "local" or re.fullmatch(r"local\[(?:\d+|\*)\]", master or ""):
        return 1
    try:
        return int(spark.conf.get("spark.task.maxFailures", "4"))
    except Exception:
        return 4


# ---------------------------------------------------------------------------------------------
# The driver's side: partials, merge, release, report.


def write_private(path, data):
    """Writes owner-only and atomically: partials are raw (noise-free) health data."""
    temporary = f"{path}.tmp-{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(temporary, path)


def healthtrail(binary, *arguments):
    """Runs the binary on the driver; raises with its last line of errors when it fails."""
    child = subprocess.run([binary, *arguments], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    if child.returncode != 0:
        last = (child.stderr.strip().splitlines() or [f"exit status {child.returncode}"])[-1]
        raise RuntimeError(f"healthtrail {arguments[0]}: {last}")


def finish(args, results, duplicates, report, persons=None):
    """Writes the partials, merges them, releases once, and writes spark-report.json."""
    out = args.out
    for folder in ("partials", "cohort"):
        os.makedirs(os.path.join(out, folder), mode=0o700, exist_ok=True)
    archives = {}
    good = []
    results, copies = drop_identical(results, persons)
    for uri, (pseudonym, attempts, own) in copies.items():
        archives[uri] = {"pseudonym": None, "status": "identical", "attempts": attempts, "error": None,
                         "identical_to": pseudonym}
        if args.person_outputs and own:
            # The task kept the copy's outputs under a pseudonym that is not a person's.
            shutil.rmtree(os.path.join(args.person_outputs, own), ignore_errors=True)
    report["identical"] = len(copies)
    for result in sorted(results, key=lambda r: r["uri"]):
        # No timing: a person's seconds grow with their data, and this file sits beside dp/.
        archives[result["uri"]] = {key: result[key] for key in ("pseudonym", "status", "attempts", "error")}
        if result["status"] == "ok":
            path = os.path.join(out, "partials", result["pseudonym"] + ".partial")
            write_private(path, bytes(result["partial"]))
            good.append(path)
    for uri, (status, why) in duplicates.items():
        archives[uri] = {"pseudonym": None, "status": status, "attempts": 0, "error": why}
    report["archives"] = archives
    report["failed"] = sorted(uri for uri, a in archives.items() if a["status"] == "failed")
    report["superseded"] = sum(1 for a in archives.values() if a["status"] == "superseded")
    report["merged"] = len(good)
    if good:
        merged = os.path.join(out, "cohort", "merged.partial")
        with tempfile.NamedTemporaryFile("w", dir=out, prefix=".partials-", suffix=".list", delete=False) as f:
            f.write("\n".join(good) + "\n")
        try:
            healthtrail(args.binary, "merge", "--list", f.name, "--out", merged, "--quiet")
        finally:
            os.unlink(f.name)
        # The budget is the study's, in the pipeline's budget folder: the same whichever machine
        # or output folder releases it.
        healthtrail(args.binary, "release", "--pipeline", args.pipeline, "--partial", merged,
                    "--out", os.path.join(out, "dp"), "--quiet")
        report["released"] = True
    write_private(os.path.join(out, "spark-report.json"),
                  (json.dumps(report, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return bool(good)


def abort_message(error):
    """The archive's one-line error out of Spark's job-aborted exception, or its first line."""
    text = str(error)
    match = re.search(r"ArchiveFailed: ([^\n]*)", text)
    if match:
        return match.group(1).strip()
    return (text.strip().splitlines() or [type(error).__name__])[0]


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="healthtrail_spark.py",
        description="Run a HealthTrail cohort on Spark: one archive per task, exact merge, noise once.")
    parser.add_argument("--archives", required=True,
                        help="a text file of archive URIs (one a line) or a glob on a Hadoop-compatible path")
    parser.add_argument("--pipeline", required=True, help="the cohort pipeline file (kind: cohort)")
    parser.add_argument("--binary", required=True, help="the healthtrail binary, shipped to every task")
    parser.add_argument("--out", required=True,
                        help="driver-local folder: partials/, cohort/merged.partial, dp/, spark-report.json")
    parser.add_argument("--key-file", help="the pseudonym key (default: the pipeline's privacy.key_file)")
    parser.add_argument("--person-outputs", metavar="DIR",
                        help="keep each person's run outputs (CSV, and SQLite or Parquet with the pipeline's formats) "
                             "in DIR/<pseudonym>/; DIR must be a folder every executor can write (local mode, a shared mount)")
    parser.add_argument("--api", choices=("rdd", "dataframe"), default="rdd",
                        help="rdd (classic sessions) or dataframe (mapInArrow; Spark Connect, Databricks shared compute)")
    parser.add_argument("--fail-fast", action="store_true", help="abort the job when an archive fails (after its retries)")
    parser.add_argument("--verbose", action="store_true",
                        help="print how many archives were merged and which failed (kept from the output by "
                             "default: the counts depend on who is in the cohort; spark-report.json has them)")
    parser.add_argument("--master", help="the Spark master when not set by spark-submit (e.g. local[2,3])")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting when not set by spark-submit (repeatable)")
    parser.add_argument("--remote", help="a Spark Connect URL (sc://host:port) instead of a classic session")
    parser.add_argument("--max-failures", type=int,
                        help="attempts per task when the session cannot say (Spark Connect); default: from the session")
    parser.add_argument("--measure-empty-job", action="store_true",
                        help="time an empty job before the real one (Spark's fixed cost), and record the session's, "
                             "that job's and the cohort job's seconds in spark-report.json (for benchmarks; "
                             "without it the report holds no timing)")
    parser.add_argument("--fail-once-matching", metavar="SUBSTRING",
                        help="TEST HOOK: the first attempt of each task whose URI contains SUBSTRING fails")
    return parser.parse_args(argv)


def session(args):
    from pyspark.sql import SparkSession
    # Local mode starts Python workers with PYSPARK_PYTHON: this interpreter has pyspark (and
    # pyarrow), a bare python3 on PATH may not.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("healthtrail-cohort")
    if args.remote:
        builder = builder.remote(args.remote)
    elif args.master:
        builder = builder.master(args.master)
    for setting in args.conf:
        key, _, value = setting.partition("=")
        builder = builder.config(key, value)
    return builder.getOrCreate()


def main(argv=None):
    args = parse_arguments(argv)
    os.umask(0o077)
    started = time.monotonic()
    try:
        if not os.access(args.binary, os.X_OK):
            raise UsageError(f"{args.binary}: not an executable healthtrail binary")
        check = subprocess.run([args.binary, "validate", args.pipeline], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        if check.returncode != 0:
            sys.stderr.write(check.stderr)
            return EXIT_USAGE
        files = files_to_ship(args)
        os.makedirs(args.out, mode=0o700, exist_ok=True)
    except UsageError as error:
        print(f"healthtrail-spark: {error}", file=sys.stderr)
        return EXIT_USAGE

    try:
        spark = session(args)
    except Exception as error:   # no Java, a bad master or Connect URL
        print(f"healthtrail-spark: cannot start the Spark session: {abort_message(error)}", file=sys.stderr)
        return EXIT_FAILED
    try:
        session_seconds = time.monotonic() - started
        try:
            archives = list_archives(spark, args.archives)
        except UsageError as error:
            print(f"healthtrail-spark: {error}", file=sys.stderr)
            return EXIT_USAGE
        persons_value = pipeline_path_value(args.pipeline, "persons")
        try:
            # `persons: each archive` (or none, in a cohort without dp): a person per archive name.
            each_archive = not persons_value or persons_value.strip() == "each archive"
            persons = None if each_archive else read_persons(resolve_pipeline_path(persons_value, args.pipeline))
        except (UsageError, OSError) as error:
            print(f"healthtrail-spark: {error}", file=sys.stderr)
            return EXIT_USAGE
        uris, names, duplicates = plan_archives(archives, persons)
        if not uris:
            print(f"healthtrail-spark: {args.archives}: no archives", file=sys.stderr)
            return EXIT_USAGE
        report = {"tool": "healthtrail-spark", "api": args.api, "connect": is_connect(spark)}
        if args.measure_empty_job:
            report["session_start_seconds"] = round(session_seconds, 2)
            empty = time.monotonic()
            spark.range(0, 1, 1, numPartitions=1).collect()
            report["empty_job_seconds"] = round(time.monotonic() - empty, 2)
        ship(spark, [args.binary] + list(files.values()))
        plan = {"binary": os.path.basename(args.binary),
                "pipeline": os.path.basename(files["pipeline"]),
                "key": os.path.basename(files["key"]),
                "releases": os.path.basename(files["releases"]) if "releases" in files else None,
                "max_failures": max_failures(spark, args.max_failures),
                "fail_fast": args.fail_fast,
                "fail_once_matching": args.fail_once_matching,
                "persons": names,
                "person_outputs": os.path.abspath(args.person_outputs) if args.person_outputs else None}
        report["max_failures"] = plan["max_failures"]
        job = time.monotonic()
        try:
            results = (run_dataframe if args.api == "dataframe" else run_rdd)(spark, uris, plan)
        except Exception as error:
            print(f"healthtrail-spark: job aborted: {abort_message(error)}", file=sys.stderr)
            return EXIT_FAILED
        if args.measure_empty_job:
            report["job_seconds"] = round(time.monotonic() - job, 2)
        try:
            released = finish(args, results, duplicates, report, persons)
        except RuntimeError as error:
            print(f"healthtrail-spark: {error}", file=sys.stderr)
            return EXIT_FAILED
        # The release's lines only: how many archives were merged or failed depends on who is in
        # the cohort, and a mail of this output would give it away beside dp/. The counts and
        # each archive's outcome stay in the owner-only spark-report.json (--verbose prints them).
        if args.verbose:
            failed = report["failed"]
            print(f"healthtrail-spark: {report['merged']} merged, {len(failed)} failed → {args.out}")
            for uri in failed:
                error = report["archives"][uri]["error"]
                print(f"healthtrail-spark: failed: {error if uri in error else uri + ': ' + error}", file=sys.stderr)
        elif released:
            print(f"healthtrail-spark: released → {os.path.join(args.out, 'dp')} "
                  f"(spark-report.json has each archive's outcome)")
        return 0 if released else EXIT_FAILED
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
