/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* CUDA driver API: the generic capture engine needs nothing more. */
#include "capture.bpf.h"
