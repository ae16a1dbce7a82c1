#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Pack a built tree for the GPU machine, whose image lacks libbpf, libdw,
# libinih and sqlite: DEST/ct holds cudatracer, the injection and in-process
# libraries and plugins/ (stripped), and lib/ the shared libraries the
# binary needs that are not glibc's; cudatracer's rpath is $ORIGIN/lib, so
# they stay away from the traced program.
#   tests/gpu/pack.sh [BUILD] [DEST]      (default build .carry)
set -euo pipefail
B=${1:-build}
D=${2:-.carry}/ct
rm -rf "$D"
mkdir -p "$D/plugins" "$D/lib"
cp "$B/cudatracer" "$B"/libcudatracer-*.so "$D/"
cp "$B"/plugins/*.so "$D/plugins/"
ldd "$B/cudatracer" | awk '$3 ~ /^\// { print $3 }' | grep -Ev '/lib(c|m|pthread|dl|rt)\.so' |
	while read -r l; do cp -L "$l" "$D/lib/"; done
strip --strip-unneeded "$D/cudatracer" "$D"/*.so "$D"/plugins/*.so "$D"/lib/*
patchelf --set-rpath '$ORIGIN/lib' "$D/cudatracer"
du -sh "$D"
