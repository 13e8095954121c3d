#!/bin/sh
# Makes the Python environment the Spark driver runs in (pyspark, pyarrow and the Spark Connect
# client from PyPI, about 900 MB), once: when VENV already imports them, nothing is done.
#   pipelines/spark/setup-venv.sh .build/spark-venv
# `make spark-test` and the Swift tests (SparkDriverTests) both call it; a lock keeps two of
# them from installing into the same folder at once.
set -eu
venv=${1:?usage: setup-venv.sh VENV_FOLDER}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if "$venv/bin/python" -c "import pyspark, pyarrow, grpc" 2>/dev/null; then
    exit 0
fi
echo "setting up $venv: pyspark from PyPI (~900 MB, once)" >&2
started=$(date +%s)
rm -rf "$venv"
python3 -m venv "$venv" || { echo "$venv: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
echo "set up $venv in $(( $(date +%s) - started )) s" >&2
