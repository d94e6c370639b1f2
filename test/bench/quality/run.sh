#!/usr/bin/env bash
# Detection quality of every nddup method on a labelled corpus (issue "Detection quality").
#
#   test/bench/quality/run.sh CORPUS.tsv.gz [--out docs/reports/quality] [--report docs/reports/quality.md]
#                       [--langs "data/quality/*.tsv.gz" | --no-langs] [--debian FILE | --no-debian]
#
# CORPUS: gzip TSV with a header, columns doc_id, cluster_id, kind, edits, text (COPY text escapes),
# as made by gen_neardup.py.  Starts a private temporary PostgreSQL instance (scripts/lib.sh), loads
# the corpus, computes every method through the extension in SQL (test/bench/quality/harness.sql,
# methods.sql), scores pairwise P/R/F1, ARI of the induced clusters and containment recall, and
# scores every method against exact word 3-shingle Jaccard >= t.  Then the same for each labelled
# language set (data/quality/<lang>.tsv.gz), and pair counts of the defaults on the 64K Debian
# descriptions (debian_full.sql) with an exact-truth check on a 5,000-document sample.
# Writes the plots (gnuplot) into --out and the generated tables into --report between its
# "<!-- generated:NAME -->" markers (tables also go to stdout).  Needs Python 3 and gnuplot.

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
HERE=$NDDUP_ROOT/test/bench/quality
ARGS="$*"

CORPUS=
OUT=$NDDUP_ROOT/docs/quality
REPORT=
LANGS="$NDDUP_ROOT/data/quality/*.tsv.gz"
DEBIAN=$NDDUP_ROOT/../shared/data/debian-descriptions-en.tsv.gz
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift 2 ;;
	--report) REPORT=$2; shift 2 ;;
	--langs) LANGS=$2; shift 2 ;;
	--no-langs) LANGS=; shift ;;
	--debian) DEBIAN=$2; shift 2 ;;
	--no-debian) DEBIAN=; shift ;;
	-h|--help) sed -n '2,17p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) CORPUS=$1; shift ;;
	esac
done
[ -n "$CORPUS" ] || { echo "usage: $0 CORPUS.tsv.gz [--out DIR] [--report FILE] [--no-langs] [--no-debian]" >&2; exit 2; }
CORPUS=$(readlink -f "$CORPUS")
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
[ -n "$REPORT" ] || REPORT=$OUT.md
[ -z "$DEBIAN" ] || [ -f "$DEBIAN" ] || { echo "no $DEBIAN: skipping the Debian section" >&2; DEBIAN=; }
command -v gnuplot >/dev/null || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null

T_START=$(date +%s)
ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "ALTER SYSTEM SET work_mem = '256MB'" -c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" >/dev/null
pg_sql -c "CREATE EXTENSION nddup"
pg_sql -f "$HERE/harness.sql"

now_ms() { date +%s%3N; }

# load_ds NAME FILE: a labelled TSV into corpus
load_ds() {
	pg_sql -c "TRUNCATE stage" \
		-c "\\copy stage FROM PROGRAM 'zcat $2 | tail -n +2'" \
		-c "INSERT INTO corpus SELECT '$1', * FROM stage"
}

# run_ds NAME: exact overlaps (two sessions), every method, the scores
run_ds() {
	local ds=$1 t0 t1 t2 t3
	echo "== $ds: $(pg_sql -At -c "SELECT count(*) FROM corpus WHERE ds = '$ds'") documents"
	t0=$(now_ms)
	pg_sql -c "INSERT INTO sets SELECT ds, doc_id, cardinality(s), s
		FROM (SELECT ds, doc_id, shingle_set(body) AS s FROM corpus WHERE ds = '$ds') q"
	t1=$(now_ms)
	pg_sql -c "SELECT q_exact('$ds', 0, 2)" & local p0=$!
	pg_sql -c "SELECT q_exact('$ds', 1, 2)" & local p1=$!
	wait $p0; wait $p1
	t2=$(now_ms)
	echo "   exact overlaps of all pairs: $(( (t2 - t1) / 1000 )) s (two sessions)"
	pg_sql -v ds="$ds" -f "$HERE/methods.sql" >/dev/null
	pg_sql -c "UPDATE methods SET build_ms = $((t1 - t0)), pairs_ms = $((t2 - t1)),
		note = 'pairs: all-pairs overlap in 2 sessions, shared by the two exact methods'
		WHERE ds = '$ds' AND family = 'exact'"
	t3=$(now_ms)
	echo "   methods and scores: $(( (t3 - t2) / 1000 )) s"
}

MAIN=$(basename "$CORPUS" .tsv.gz)
load_ds "$MAIN" "$CORPUS"
run_ds "$MAIN"

LANG_DS=()
for f in $LANGS; do
	[ -f "$f" ] || continue
	ds=lang-$(basename "$f" .tsv.gz)
	load_ds "$ds" "$(readlink -f "$f")"
	run_ds "$ds"
	LANG_DS+=("$ds")
done

if [ -n "$DEBIAN" ]; then
	DEBIAN=$(readlink -f "$DEBIAN")
	echo "== Debian descriptions: $DEBIAN"
	pg_sql -c "CREATE TABLE deb (id integer PRIMARY KEY, package text, body text)" \
		-c "\\copy deb FROM PROGRAM 'zcat $DEBIAN | tail -n +2'"
	# a fixed sample of 5,000 (no labels: each document its own cluster) for the exact-truth mode
	pg_sql -c "INSERT INTO corpus SELECT 'debian-sample', id, -id, 'original', '', body
		FROM deb ORDER BY md5(id::text) LIMIT 5000"
	run_ds debian-sample
	pg_sql -f "$HERE/debian_full.sql"
fi

echo "== exporting"
for t in methods results results_exact deb_full; do
	pg_sql -c "\\copy (SELECT * FROM $t) TO '$WORKDIR/$t.csv' CSV HEADER" 2>/dev/null || true
done
pg_sql -At -c "SELECT ds, count(*) FILTER (WHERE kind IN ('original','near','templated')),
	(SELECT count(*) FROM positives p WHERE p.ds = c.ds), count(*) FROM corpus c GROUP BY ds" >"$WORKDIR/datasets.txt"
T_END=$(date +%s)
python3 "$HERE/report.py" --work "$WORKDIR" --out "$OUT" --report "$REPORT" --main "$MAIN" \
	--seconds $((T_END - T_START)) --command "test/bench/quality/run.sh $ARGS"
echo "== done in $((T_END - T_START)) s"
