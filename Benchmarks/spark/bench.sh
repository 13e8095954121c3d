#!/bin/sh
# Wall time of a cohort of N synthesized archives: the Spark driver on local[2] against
# `healthtrail run --pipeline` with --jobs 2, both on this machine (what `make spark-bench` runs).
#   Benchmarks/spark/bench.sh BINARY VENV WORK [N] [DAYS] [RUNS]
# Prints each run and the medians; Spark's fixed cost is shown apart: the session's start-up and
# an empty job timed in the same session (spark-report.json's session_start_seconds and
# empty_job_seconds), and the cohort job alone (job_seconds).
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
python=$2/bin/python
work=$3
n=${4:-20}
days=${5:-10}
runs=${6:-3}
driver=$(cd "$(dirname "$0")/../../pipelines/spark" && pwd)/healthtrail_spark.py
shipped=$(cd "$(dirname "$0")/../../pipelines" && pwd)/cohort.yaml
export SPARK_LOCAL_IP=127.0.0.1

mkdir -p "$work/archives"
work=$(cd "$work" && pwd)
# The archives are made once per N and DAYS (and generator binary): kept between runs.
stamp="$n-$days-$(sha1sum "$bin" | cut -c1-10)"
if [ "$(cat "$work/archives/.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$work/archives"/*.zip
    for seed in $(seq 1 "$n"); do "$bin" synth "$work/archives/p$seed.zip" --days "$days" --seed "$seed"; done
    echo "$stamp" > "$work/archives/.stamp"
fi
[ -f "$work/pseudonym.key" ] || "$bin" keygen "$work/pseudonym.key"
sed "s#~/study/#$work/#g; s#~/#$work/#g" "$shipped" > "$work/cohort.yaml"

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$work/local.times"; : > "$work/spark.times"; : > "$work/fixed.times"; : > "$work/job.times"
for run in $(seq 1 "$runs"); do
    rm -rf "$work/out-local" "$work/out-spark"
    t0=$(now)
    "$bin" run --pipeline "$work/cohort.yaml" --jobs 2 --out "$work/out-local" --quiet
    t1=$(now)
    "$python" "$driver" --archives "$work/archives/*.zip" --pipeline "$work/cohort.yaml" --binary "$bin" \
        --out "$work/out-spark" --master 'local[2]' --conf spark.ui.enabled=false --measure-empty-job \
        > /dev/null 2> "$work/spark.log"
    t2=$(now)
    cmp "$work/out-local/cohort/merged.partial" "$work/out-spark/cohort/merged.partial"
    local=$(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }"); spark=$(awk "BEGIN { printf \"%.2f\", $t2 - $t1 }")
    fixed=$("$python" -c "import json,sys; r=json.load(open(sys.argv[1])); print(round(r['session_start_seconds'] + r['empty_job_seconds'], 2))" "$work/out-spark/spark-report.json")
    job=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['job_seconds'])" "$work/out-spark/spark-report.json")
    echo "run $run: local --jobs 2 ${local}s; spark local[2] ${spark}s (start-up + empty job ${fixed}s, cohort job ${job}s)"
    echo "$local" >> "$work/local.times"; echo "$spark" >> "$work/spark.times"
    echo "$fixed" >> "$work/fixed.times"; echo "$job" >> "$work/job.times"
done
echo "medians of $runs, $n archives of $days days ($(du -ch "$work"/archives/*.zip | tail -1 | cut -f1)):"
echo "  healthtrail run --pipeline --jobs 2: $(median < "$work/local.times") s"
echo "  spark local[2], whole driver:       $(median < "$work/spark.times") s"
echo "    session start-up + empty job:     $(median < "$work/fixed.times") s"
echo "    the cohort job (tasks):           $(median < "$work/job.times") s"
