/* SPDX-License-Identifier: MIT */
/*
 * What a traced call means for the GPU's time: it waits for the GPU (a
 * sync, or a synchronous copy), queues work on it (a launch, an async copy
 * or set), or waits for other ranks (a collective). One row per API name,
 * of every plugin (apiclass.c); a variant suffix (_ptsz, _ptds, _v2) is the
 * API it varies.
 */
#ifndef CT_ANALYSIS_APICLASS_H
#define CT_ANALYSIS_APICLASS_H

#include <stddef.h>

enum ct_api_class {
	CT_CLASS_OTHER,
	CT_CLASS_SYNC,       /* blocks the host until the GPU (or a stream, an event) is done */
	CT_CLASS_SYNC_COPY,  /* a synchronous copy: queues a copy and waits for it */
	CT_CLASS_LAUNCH,     /* queues a kernel or a graph */
	CT_CLASS_ASYNC_COPY, /* queues a copy or a set */
	CT_CLASS_COLLECTIVE, /* NCCL: waits for, or queues work with, other ranks */
};

enum ct_api_class ct_api_class_of(const char *api, size_t len);

#endif
