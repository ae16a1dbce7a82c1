# SPDX-License-Identifier: MIT
# Sourced by bench scripts: run each mode once a round, ROUNDS rounds, the
# order rotated each round so that no mode always runs first or after the
# same one; each run's last line of output goes to RUNS as "MODE OUTPUT".
#   rotate ROUNDS "MODE..." RUN_FUNCTION RUNS
rotate() {
	local rounds=$1 modes=$2 fn=$3 runs=$4 r m
	for r in $(seq "$rounds"); do
		for m in $modes; do
			echo "$m $("$fn" "$m" | tail -1)" >>"$runs"
		done
		modes="$(echo "$modes" | cut -d' ' -f2-) $(echo "$modes" | cut -d' ' -f1)"
	done
}
