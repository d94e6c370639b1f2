#!/usr/bin/env bash
# Throughput of the pure-C text pipeline outside the server (no PostgreSQL):
# simhash of text with the SQL defaults and other settings, normalization.
#   test/bench/core_bench.sh [DATA_DIR]          (default ../shared/data)
# Environment:
#   PASSES=5        passes over each corpus; the best is kept
#   MODES="..."     simhash word1 word3set char5 normalize (default: all)
#   BASE=<git ref>  also build src/ of that commit and run it in the same
#                   run, alternating with the working tree, for a ratio
#   CALLGRIND=1     count instructions per input byte with valgrind instead
#                   of timing (stable on a loaded machine; one pass)
# DATA_DIR holds debian-descriptions-en.tsv.gz and pydocs-sections.tsv.gz
# (extra corpora: any *.tsv.gz whose last column is the text, in EXTRA).

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA=$(cd "${1:-$ROOT/../shared/data}" && pwd)
PASSES=${PASSES:-5}
MODES=${MODES:-simhash word1 word3set char5 normalize}
W=$(mktemp -d /tmp/nddup-core-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

CORPORA=("$DATA/debian-descriptions-en.tsv.gz" "$DATA/pydocs-sections.tsv.gz")
for e in ${EXTRA:-}; do CORPORA+=("$e"); done

# documents as length-prefixed bytes: the last TSV column, unescaped (\t \n \\)
for c in "${CORPORA[@]}"; do
	python3 - "$c" "$W/$(basename "$c" .tsv.gz).bin" <<'PY'
import gzip, struct, sys
esc = {'t': '\t', 'n': '\n', '\\': '\\', 'r': '\r'}
def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s):
            out.append(esc.get(s[i + 1], s[i + 1])); i += 2
        else:
            out.append(s[i]); i += 1
    return ''.join(out)
with gzip.open(sys.argv[1], 'rt', encoding='utf-8') as f, open(sys.argv[2], 'wb') as o:
    next(f)
    for line in f:
        body = unescape(line.rstrip('\n').split('\t')[-1]).encode('utf-8')
        o.write(struct.pack('<I', len(body)) + body)
PY
done

# the core's sources of a src/ directory, as the unit target lists them
core_sources() {
	for f in buffers normalize tokenize simhash minhash; do echo "$1/$f.c"; done
}
build() {	# build SRC_DIR OUT
	# shellcheck disable=SC2046
	gcc -O2 -fno-strict-aliasing -fwrapv -I"$1" -o "$2" \
		"$ROOT/test/bench/core_bench.c" $(core_sources "$1") -lm
}
build "$ROOT/src" "$W/new_exe"
bins=(new)
if [ -n "${BASE:-}" ]; then
	mkdir -p "$W/base"
	git -C "$ROOT" archive "$BASE" src | tar -x -C "$W/base"
	build "$W/base/src" "$W/base_exe"
	bins=(base new)
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), gcc $(gcc -dumpversion)"
cd "$W"
for c in "${CORPORA[@]}"; do
	bin="$(basename "$c" .tsv.gz).bin"
	for m in $MODES; do
		for b in "${bins[@]}"; do
			exe="$W/${b}_exe"
			if [ -n "${CALLGRIND:-}" ]; then
				bytes=$("$exe" "$bin" "$m" 1 | awk '{print $5 * 1e6}')
				ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$exe" "$bin" "$m" 1 2>&1 |
					sed -n 's/.*refs: *//p' | tr -d ',')
				printf '%-5s %-10s %-28s %6.1f instructions per byte\n' "$b" "$m" \
					"$(basename "$c")" "$(echo "$ir / $bytes" | bc -l)"
			else
				printf '%-5s ' "$b"
				"$exe" "$bin" "$m" "$PASSES"
			fi
		done
	done
done
