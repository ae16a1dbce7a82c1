#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a kernel launch traced in both layers costs (--plugin cudart,cuda),
# without a GPU: tests/programs/launch_layers times N runtime launches of
# the stand-in runtime, each making one driver launch of the stand-in
# driver. Modes, rotating order, ROUNDS rounds: untraced; each attach kind
# (session: the driver launch declines its return; multi: entry and return
# programs on both) with the engine's programs and with do-nothing programs
# on the same probes (CUDATRACER_BENCH_PROGRAMS=empty, the mode's floor).
# Prints ns per launch (medians) and added ns over untraced.
#   CT_BUILD=build ROUNDS=5 N=200000 bench/launch_layers.sh
set -uo pipefail
B=${CT_BUILD:-build}
ROUNDS=${ROUNDS:-5}
N=${N:-200000}
prog="$B/tests/programs/launch_layers"
fake="$B/tests/programs/fakegpu"
out=$(mktemp -d)
. "$(dirname "$0")/rotate.sh"
run_mode() {
	case $1 in
	untraced) "$prog" "$fake" "$N" ;;
	*-floor) CUDATRACER_BENCH_PROGRAMS=empty "$B/cudatracer" -q --plugin cudart,cuda \
		-C tracer.attach="${1%-floor}" -o jsonl:/dev/null -- "$prog" "$fake" "$N" 2>>"$out/log" ;;
	*) "$B/cudatracer" -q --plugin cudart,cuda -C tracer.attach="$1" -o jsonl:"$out/t.jsonl" \
		-- "$prog" "$fake" "$N" 2>>"$out/log" ;;
	esac
}
rotate "$ROUNDS" "untraced session multi session-floor multi-floor" run_mode "$out/runs"
python3 "$(dirname "$0")/floor_table.py" "$out/runs" ns_per_launch untraced session-floor session multi-floor multi
rm -rf "$out"
