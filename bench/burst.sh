#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Loss in a burst: THREADS threads each make CALLS cudaMemset calls at full
# speed (more threads than cores), traced to a jsonl file with a RING-byte
# ring, with the reader at high priority (the default) and at normal.
# Usage: CT_BUILD=build [THREADS=64 CALLS=10000 RING=16M ROUNDS=2] bench/burst.sh
set -euo pipefail
B=${CT_BUILD:-build}
THREADS=${THREADS:-64}; CALLS=${CALLS:-10000}; RING=${RING:-16M}; ROUNDS=${ROUNDS:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "$THREADS threads x $CALLS calls, ring $RING, $(nproc) cores"
for r in $(seq "$ROUNDS"); do
	for prio in high normal; do
		echo -n "reader_priority=$prio: "
		"$B/cudatracer" -q --plugin cudart --ringbuf-size "$RING" -C tracer.reader_priority=$prio \
			-o jsonl:"$out/events.jsonl" -- "$B/tests/programs/cudart_threads_shared" "$THREADS" "$CALLS" \
			2>&1 >/dev/null | tail -1
	done
done
