#!/usr/bin/env bash
# Every text function of nddup on 100 MB documents: each call must return a
# result or a clean error (SQLSTATE 54000 for results over a limit), never
# crash the server.  Not part of CI (minutes, several GB of memory).
#   test/bench/reliability/big_document.sh            (MB=100 by default)
# Documents, built in SQL from the sample corpus shipped in data/:
#   prose   the Debian descriptions of data/debian-sample.tsv.gz repeated
#   token   one token repeated ("spam ")
#   html    markup, entities and mixed scripts repeated
# For each (document, function): elapsed time, the size of the result or the
# error's SQLSTATE and message, and the backend's peak RSS (VmHWM) after it.
# Finally a 100 MB document is inserted into a table with the dedup trigger.

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
MB=${MB:-100}

ensure_packages
build_and_install
make_workdir
start_instance
echo "== $(date -u +'%F %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(psql --version | head -1), ${MB} MB documents"
pg_sql -q <<SQL
CREATE EXTENSION nddup;
CREATE TABLE sample (id int, package text, body text);
\copy sample FROM PROGRAM 'zcat $NDDUP_ROOT/data/debian-sample.tsv.gz | tail -n +2'
CREATE TABLE doc (name text PRIMARY KEY, body text);
ALTER TABLE doc ALTER body SET STORAGE EXTERNAL;
INSERT INTO doc
SELECT 'prose', left(repeat(string_agg(body, ' ' ORDER BY id), ($MB * 1048576 / sum(octet_length(body) + 1))::int + 1), $MB * 1048576)
FROM sample;
INSERT INTO doc VALUES ('token', repeat('spam ', $MB * 1048576 / 5));
INSERT INTO doc SELECT 'html', repeat(s, $MB * 1048576 / octet_length(s))
FROM (VALUES ('<p class="x">Stra&szlig;e &#x41;&amp;B Ωμέγα 東京タワー 서울 مرحبا</p><script>var x = 1;</script> ')) v(s);
SELECT name, pg_size_pretty(octet_length(body)::bigint) AS size FROM doc ORDER BY name;
CREATE TABLE lex AS SELECT imatch_lexicon_agg(body) AS lexicon FROM sample;
SQL

# run one call in its own session; print time, result size or error, peak RSS
call() {
	local name=$1 expr=$2
	local out
	out=$(pg_sql -At -v ON_ERROR_STOP=0 -F ' | ' 2>&1 <<SQL
\\set VERBOSITY sqlstate
SELECT pg_backend_pid() AS pid \\gset
\\timing on
SELECT pg_column_size(r) FROM (SELECT $expr AS r FROM doc WHERE name = '$name') s;
\\timing off
SELECT 'hwm ' || (regexp_match(pg_read_file('/proc/' || :pid || '/status'), 'VmHWM:\\s+(\\d+)'))[1]::bigint / 1024 || ' MB';
SQL
)
	local t res hwm
	t=$(grep -o 'Time: [0-9.]* ms' <<<"$out" | head -1 | awk '{printf "%.1f s", $2/1000}')
	hwm=$(grep -o 'hwm [0-9]* MB' <<<"$out" | sed 's/hwm //')
	if grep -q '^ERROR' <<<"$out"; then
		res="error $(grep '^ERROR' <<<"$out" | head -1 | sed 's/^ERROR: *//')"
		[[ -z $t ]] && t=$(grep -o 'Time: [0-9.]* ms' <<<"$out" | head -1)
	else
		res=$(sed -n '1p' <<<"$out" | grep -o '^[0-9]*')
		res=${res:+result $res bytes}
		res=${res:-result NULL}
	fi
	printf '| %s | `%s` | %s | %s | %s |\n' "$name" "$expr" "${t:-?}" "$res" "${hwm:-?}"
}

echo
echo "| document | call | time | outcome | backend peak RSS |"
echo "|---|---|---|---|---|"
for name in prose token html; do
	for expr in "md5(body)" "normalize_text(body)" "tokens(body)" "shingles(body)" \
		"simhash(body)" "simhash(body, 5, 'char')" "simhash(body, 3, 'word', 'set')" \
		"shingle_set(body)" "minhash(body)" "minhash(body, 256, 'kperm')" \
		"imatch(body, (SELECT lexicon FROM lex))"; do
		call "$name" "$expr"
	done
done

echo
echo "== the dedup trigger on a 100 MB insert"
pg_sql -v ON_ERROR_STOP=0 <<'SQL' 2>&1 | sed 's/^/    /'
\timing on
CREATE TABLE posts (id bigserial PRIMARY KEY, body text, fp simhash64, duplicate_of bigint);
CREATE INDEX ON posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'fingerprint=fp', 'radius=3');
INSERT INTO posts (body) SELECT body FROM doc WHERE name = 'prose';
INSERT INTO posts (body) SELECT body || ' one more word' FROM doc WHERE name = 'prose';
SELECT id, duplicate_of, fp FROM posts ORDER BY id;
SQL
echo "== server log: crashes"
grep -E "terminated by signal|PANIC|TRAP" "$WORKDIR/server.log" 2>/dev/null | head || true
echo "(none above means no crash)"
stop_instance
