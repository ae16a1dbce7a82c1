// SPDX-License-Identifier: MIT
/*
 * The NVTX plugin: its "runtime" is the tracer's own NVTX injection,
 * libcudatracer-nvtx.so (nvtx/inject.c), whose empty exported functions
 * (nvtx/ct_nvtx.h) each stand for one NVTX event. Every row is entry-only:
 * an event is a point in time, and no return probe is paid for. The core
 * turns these calls into ranges and marks (core/decode/nvtx.c); sinks
 * never see them as calls. The argument order is the decoder's too
 * (enum ct_nvtx_arg there).
 */
#include <cudatracer/plugin.h>
#include "ct_nvtx.h"

#define DOMAIN CT_ARG("domain", CT_ARG_HANDLE, CT_SLOT(0), 8, CT_ROLE_NONE)
#define NAME CT_ARG("name", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE)
#define FLAGS(s) CT_ARG("flags", CT_ARG_HEX, CT_SLOT(s), 4, CT_ROLE_NONE)
#define ID(s) CT_ARG("id", CT_ARG_UINT, CT_SLOT(s), 8, CT_ROLE_NONE)
#define EVENT(sym, ...) CT_API(sym, CT_API_ENTRY_ONLY, CT_RETURNS_VOID, __VA_ARGS__)

static const struct ct_api nvtx_apis[] = {
	EVENT("ct_nvtx_domain", CT_STR(1), CT_ARGS(DOMAIN, NAME, FLAGS(2))),
	EVENT("ct_nvtx_push", CT_STR(1), CT_ARGS(DOMAIN, NAME, FLAGS(2))),
	EVENT("ct_nvtx_pop", CT_ARGS(DOMAIN)),
	EVENT("ct_nvtx_start", CT_STR(1), CT_ARGS(DOMAIN, NAME, FLAGS(2), ID(3))),
	EVENT("ct_nvtx_end", CT_ARGS(DOMAIN, ID(1))),
	EVENT("ct_nvtx_mark", CT_STR(1), CT_ARGS(DOMAIN, NAME, FLAGS(2))),
};

static const struct ct_enum_entry no_errors_v[] = { { 0, "ok" } };
static const struct ct_enum no_errors = { no_errors_v, 1 };

static const struct ct_plugin nvtx_plugin = {
	CT_PLUGIN_HEAD,
	.name = "nvtx",
	.version = CT_PLUGIN_VERSION,
	.description = "NVTX ranges and marks, through the tracer's NVTX injection (docs/nvtx.md)",
	CT_LIBRARIES(CT_NVTX_LIBRARY),
	CT_APIS(nvtx_apis),
	.errors = &no_errors,
	.success_name = "ok",
};

CT_PLUGIN_DEFINE(nvtx_plugin)
