#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what cudatracer needs to build and test on Debian 12 (bookworm), as root.
# libbpf 1.4 and bpftool come from bookworm-backports: bookworm's own libbpf 1.1
# lacks uprobe_multi. man-db and groff-base render the generated man pages;
# debootstrap makes the Debian root the package test installs the .deb in;
# lintian checks the .debs (test_package_lint).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (it calls apt-get)" >&2
	exit 1
fi

backports=/etc/apt/sources.list.d/bookworm-backports.sources
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	cat >"$backports" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	build-essential cmake pkg-config clang llvm libclang-rt-14-dev libcap2-bin \
	libelf-dev libdw-dev zlib1g-dev libsqlite3-dev sqlite3 libinih-dev libcmocka-dev libiberty-dev \
	libamdhip64-dev ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd \
	python3 python3-clang python3-yaml chromium \
	man-db groff-base debootstrap lintian \
	libmicrohttpd-dev libcurl4-openssl-dev libsnappy-dev prometheus
apt-get install -y -q --no-install-recommends -t bookworm-backports \
	libbpf-dev libbpf1 bpftool

# The OTLP test's receiver decodes with OpenTelemetry's own npm packages (tests/otlp).
# Node.js may come from elsewhere (nodesource, with its own npm): Debian's only when there is none.
if ! command -v npm >/dev/null; then
	apt-get install -y -q --no-install-recommends nodejs npm
fi
(cd "$(dirname "$0")/../tests/otlp" && npm ci --no-audit --no-fund)
