/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* OpenCL ICD loader: the generic capture engine needs nothing more. */
#include "capture.bpf.h"
