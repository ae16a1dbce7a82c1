#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh FUZZER SECONDS CORPUS [SEED...] [-- LIBFUZZER-ARGS...]
#
# One libFuzzer run, as ctest runs it: the SEED files are copied into the
# CORPUS folder (which keeps what earlier runs found), the fuzzer runs for
# SECONDS, and an input that crashes, leaks or hangs is kept in
# CORPUS-findings/ and makes the run fail. fuzz_decode also writes
# one seed per plugin API into CORPUS (CT_FUZZ_WRITE_SEEDS).
set -eu
fuzzer=$1 secs=$2 corpus=$3
shift 3
mkdir -p "$corpus"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	if [ -f "$1" ]; then
		cp "$1" "$corpus/seed-$(basename "$1")"
	fi
	shift
done
if [ $# -gt 0 ]; then
	shift
fi
findings=$corpus-findings
mkdir -p "$findings"
export CT_FUZZ_WRITE_SEEDS="$corpus"
status=0
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$findings/" "$@" "$corpus" || status=$?
if [ "$status" -ne 0 ]; then
	echo "run.sh: $(basename "$fuzzer") failed ($status); the input is in $findings:" >&2
	ls -l "$findings" >&2
fi
exit "$status"
