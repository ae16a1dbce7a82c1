/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* HIP runtime: the generic capture engine needs nothing more. */
#include "capture.bpf.h"
