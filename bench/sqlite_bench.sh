#!/bin/bash
# SPDX-License-Identifier: MIT
# The sqlite sink's speed and size (docs/performance.md, "The sqlite sink").
#  1. Rows per second on one core: ct-sink-rows feeds 1,000,000 events decoded
#     once to the sqlite sink and to the jsonl sink, ROUNDS rounds, the order
#     rotated; each line is one run (rows_per_s_per_core while rows come,
#     close_s the sink's close: the sqlite sink builds its indexes there); then
#     ct-sqlite-floor, SQLite alone inserting such rows: schema version 2's
#     narrow row (the sink's) and version 1's wide one.
#  2. Size against jsonl and jsonl.gz (gzip -6) of the same run: those files,
#     and a real traced run (tests/programs/cudart_calls_shared with --stacks,
#     and cudart_loop_shared's 200,000 cudaMemset calls) written by both sinks at once.
#   bench/sqlite_bench.sh [BUILD] [ROUNDS]      (as root for the traced runs)
set -euo pipefail
B=${1:-build}
ROUNDS=${2:-3}
T=$(mktemp -d /tmp/ct-sqlite-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/rotate.sh"

one() {
	rm -f "$T/rows.$1"
	"$B/bench/ct-sink-rows" "$B/plugins/libct-cudart.so" 1000000 "$1" "$T/rows.$1"
}
rotate "$ROUNDS" "sqlite jsonl" one "$T/runs"
cat "$T/runs"
# SQLite alone on such rows, version 2's and version 1's: the floor under the sink.
floor() { "$B/bench/ct-sqlite-floor" "$1" "$T/floor.db"; }
rm -f "$T/runs"
rotate "$ROUNDS" "v2 v1" floor "$T/runs"
cat "$T/runs"

size() { stat -c %s "$1"; }
sizes() { # NAME DB JSONL
	gzip -6 -k -c "$3" >"$3.gz"
	printf '%s: calls %s, sqlite %s bytes, jsonl %s, jsonl.gz %s\n' "$1" \
		"$(sqlite3 "$2" 'SELECT count(*) FROM calls')" "$(size "$2")" "$(size "$3")" "$(size "$3.gz")"
}
sizes "ct-sink-rows, 1M synthetic calls" "$T/rows.sqlite" "$T/rows.jsonl"
if [ "$(id -u)" = 0 ]; then
	"$B/cudatracer" -q --plugin cudart -o jsonl:"$T/loop.jsonl" -o sqlite:"$T/loop.db" -- \
		"$B/tests/programs/cudart_loop_shared" 200000 >/dev/null
	sizes "cudart_loop_shared 200000 (traced)" "$T/loop.db" "$T/loop.jsonl"
	"$B/cudatracer" -q --plugin cudart --stacks -o jsonl:"$T/calls.jsonl" -o sqlite:"$T/calls.db" -- \
		"$B/tests/programs/cudart_calls_shared" >/dev/null
	sizes "cudart_calls_shared --stacks (traced)" "$T/calls.db" "$T/calls.jsonl"
fi
