#!/bin/bash
# Reference numbers for every corpus that build.sh made (one process at a time, one core):
#
#   test/bench/quality/corpora/run_reference.sh [CACHE_DIR]      (default /work/cache/corpora)
#
# writes CACHE_DIR/ref/<corpus>.ref.json (+ .nn.npz, .table.md, .log), then
#   ref/summary.md     unfiltered ceilings, F1 at 0.3 by df cut-off, the rule search (summary.py)
#   ref/rules.md       candidate rules side by side, incl. stress corpora (rules.py)
#   ref/thresholds.md  threshold recommenders against the labels (thresholds.py)
#   ref/short.stats.md exact Jaccard over all pairs of the short synopses (shortstats.py)
# Existing results are kept (delete a .ref.json to redo it).  Needs python3-numpy, python3-scipy.
# Times on the shared 2-core VM (load 5-10): 20 s (ru) to 8 min (man) per corpus, ~1 h in all.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
C=${1:-/work/cache/corpora}
PY=${PYTHON:-/usr/bin/python3}
R=$C/ref
mkdir -p "$R"
cd "$R"

run() {  # run NAME INPUT [reference.py options]
    local c=$1 in=$2; shift 2
    [ -s "$c.ref.json" ] && return 0
    echo "== reference.py $in $* -> $c.ref.json" >&2
    "$PY" "$HERE/reference.py" "$in" --out "$c.ref.json" "$@" > "$c.table.md" 2> "$c.log"
}
# main corpora: both tokenizers, every cut-off, q and adaptive variant
for c in man man-d30 html html-d30 ko ru ja tmpl-ja tmpl-en; do run "$c" "$C/labelled/$c.tsv.gz"; done
[ -f /work/shared/data/neardup-dev.tsv.gz ] && run neardup-dev /work/shared/data/neardup-dev.tsv.gz
# stress corpora: '_' split only, fewer cut-offs
S="--tok split --abs 10,20,30,50,100,200,1000 --frac 0.002,0.005,0.01,0.02"
for c in ko-site ru-site ko-big man-big; do run "$c" "$C/stress/$c.tsv.gz" $S; done
# df counted over groups of near-identical documents (full-set J >= 0.5)
G="--tok split --abs 10,20,30,50,100 --frac= --adapt-c= --group-jaccard 0.5"
for c in man-big ko-big ko-site man ko ja html; do
    in=$C/labelled/$c.tsv.gz; [ -f "$in" ] || in=$C/stress/$c.tsv.gz
    run "g0.5-$c" "$in" $G
done
[ -s short.stats.md ] || "$PY" "$HERE/shortstats.py" "$C/short.tsv.gz" --out "$C/short.pairs.tsv.gz" > short.stats.md

MAIN="man.ref.json man-d30.ref.json html.ref.json html-d30.ref.json ko.ref.json ru.ref.json ja.ref.json tmpl-ja.ref.json tmpl-en.ref.json"
[ -s neardup-dev.ref.json ] && MAIN="$MAIN neardup-dev.ref.json"
STRESS="ko-site.ref.json ru-site.ref.json ko-big.ref.json man-big.ref.json"
"$PY" "$HERE/summary.py" $MAIN --top 30 > summary.md
{
    "$PY" "$HERE/rules.py" $MAIN $STRESS
    echo
    echo "df over groups of near-identical documents (full-set J >= 0.5):"
    "$PY" "$HERE/rules.py" g0.5-*.ref.json --rules 'none;10;20;30;50;100;half:20'
    echo
    "$PY" "$HERE/rules.py" $MAIN --tok keep
} > rules.md
{
    for cut in none 20; do "$PY" "$HERE/thresholds.py" $MAIN $STRESS --cut "$cut"; echo; done
    "$PY" "$HERE/thresholds.py" $MAIN $STRESS --cut 20 --sample 1000
} > thresholds.md
echo "results in $R" >&2
