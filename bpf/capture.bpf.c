/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The capture engine, built once into the core: every plugin's tables run on it. */
#include "capture.bpf.h"
