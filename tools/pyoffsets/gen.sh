#!/bin/sh
# SPDX-License-Identifier: MIT
# Print core/symbols/pyoffsets.c's row for each CPython whose internal
# headers are installed (python3.X-dev: /usr/include/python3.X/internal), or
# for the include folders given: compiled against the interpreter's own
# structure definitions (gen_pyoffsets.c), so the offsets are the compiler's.
#   tools/pyoffsets/gen.sh [INCLUDE_DIR...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- /usr/include/python3.*
for inc in "$@"; do
	[ -d "$inc/internal" ] || { echo "gen.sh: $inc has no internal headers (python3.X-dev)" >&2; continue; }
	${CC:-cc} -DPy_BUILD_CORE -I"$inc" -I"$inc/internal" "$here/gen_pyoffsets.c" -o "$tmp/gen"
	"$tmp/gen"
done
