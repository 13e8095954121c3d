#!/bin/sh
# The Spark driver in local mode on synthesized archives, checked against the single-machine
# cohort run (what `make spark-test` runs):
#   pipelines/spark/try-local.sh BINARY VENV WORK
# WORK gets archives p1…p4 (10 days each, seeds 1–4), broken.zip (a truncated copy of p1), a
# key and the cohort pipeline; then `healthtrail run --pipeline` (two jobs) into WORK/local, and
# the driver on local[2,3] with each API (rdd, dataframe, and dataframe through a local Spark
# Connect server) into WORK/spark-API, where p3's task fails its first attempt (the test hook). Each Spark merge must equal the local one
# byte for byte; broken.zip must be the one failed archive; p3 must have taken two attempts.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
python=$2/bin/python
work=$3
here=$(cd "$(dirname "$0")" && pwd)
export SPARK_LOCAL_IP=127.0.0.1   # loopback only

rm -rf "$work"
mkdir -p "$work/study/archives"
for seed in 1 2 3 4; do
    "$bin" synth "$work/study/archives/p$seed.zip" --days 10 --seed "$seed"
done
head -c 4096 "$work/study/archives/p1.zip" > "$work/study/archives/broken.zip"
"$bin" keygen "$work/study/pseudonym.key"
work=$(cd "$work" && pwd)
sed "s#~/#$work/#g" "$here/../cohort.yaml" > "$work/cohort.yaml"

"$bin" run --pipeline "$work/cohort.yaml" --jobs 2 --out "$work/local" --quiet 2> "$work/local.log"
for api in rdd dataframe connect; do
    echo "== spark ($api, local[2,3])"
    case $api in
        connect) session="--api dataframe --remote local[2,3]" ;;   # a local Spark Connect server
        *) session="--api $api --master local[2,3]" ;;
    esac
    # shellcheck disable=SC2086   # $session is words
    "$python" "$here/healthtrail_spark.py" $session --archives "$work/study/archives/*.zip" \
        --pipeline "$work/cohort.yaml" --binary "$bin" --out "$work/spark-$api" \
        --conf spark.ui.enabled=false --fail-once-matching p3.zip 2> "$work/spark-$api.log"
    cmp "$work/local/cohort/merged.partial" "$work/spark-$api/cohort/merged.partial"
    "$python" - "$work/spark-$api/spark-report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
attempts = {uri.rsplit("/", 1)[-1]: (a["status"], a["attempts"]) for uri, a in report["archives"].items()}
print("   ", ", ".join(f"{name}: {status} after {n}" for name, (status, n) in sorted(attempts.items())))
assert attempts["broken.zip"] == ("failed", 3), attempts
assert attempts["p3.zip"] == ("ok", 2), attempts
assert report["merged"] == 4 and len(report["failed"]) == 1, report
PY
    echo "   merged.partial identical to the local run's; dp/: $(ls "$work/spark-$api/dp" | tr '\n' ' ')"
done
