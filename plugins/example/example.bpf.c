/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* toyrt needs nothing beyond cudatracer's generic capture engine. */
#include <cudatracer/capture.bpf.h>
