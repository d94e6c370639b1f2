#!/usr/bin/env bash
# The measurements behind the design of the hamming access method
# (docs/indexes.md, "Why this design"): passes over packed keys with each
# popcount kernel, multi-index hashing over 4, 5 and 6 in-memory tables at
# radius 3..15, and the layouts within 40 bytes a row (table 0 whole keys,
# the other tables packed entries) at radius 12, outside the server
# (test/bench/hamming_design_bench.c).
#   test/bench/hamming_design_bench.sh [N ...]     (default 1000000 10000000)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
W=$(mktemp -d /tmp/nddup-hamming-design.XXXXXX)
trap 'rm -rf "$W"' EXIT
cc -O2 -std=c11 -Wall -Wextra -I"$ROOT/src/core" -o "$W/bench" \
	"$ROOT/test/bench/hamming_design_bench.c" "$ROOT/src/core/hamming_kernel.c"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000000 10000000)
for n in "${SIZES[@]}"; do
	"$W/bench" "$n" 20
done
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
