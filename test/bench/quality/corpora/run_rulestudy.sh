#!/bin/bash
# The decision-rule study of docs/reports/quality.md ("Other decision rules"), with one command:
#
#   test/bench/quality/corpora/run_rulestudy.sh [CACHE_DIR]      (default /work/cache/corpora)
#
# Needs the labelled corpora of build.sh in CACHE_DIR/labelled/ and /work/shared/data/neardup-dev.tsv.gz;
# writes CACHE_DIR/rules/<corpus>.pairs.npz (exact pair features, kept: delete one to redo it) and
# CACHE_DIR/rules/rulestudy.md (the tables) and rulestudy.json.  Needs python3-numpy, python3-scipy.
# One core; about 10 minutes on the shared 2-core VM.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
C=${1:-/work/cache/corpora}
PY=${PYTHON:-/usr/bin/python3}
DEV=${NEARDUP_DEV:-/work/shared/data/neardup-dev.tsv.gz}
R=$C/rules
mkdir -p "$R"
CORPORA="man man-d30 html html-d30 ko ru ja tmpl-ja tmpl-en"
for c in $CORPORA; do
    "$PY" "$HERE/rulestudy.py" pairs "$C/labelled/$c.tsv.gz" --cache "$R"
done
"$PY" "$HERE/rulestudy.py" pairs "$DEV" --cache "$R"
NPZ=""
for c in $CORPORA neardup-dev; do NPZ="$NPZ $R/$c.pairs.npz"; done
"$PY" "$HERE/rulestudy.py" eval $NPZ --md "$R/rulestudy.md" --json "$R/rulestudy.json"
