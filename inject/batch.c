// SPDX-License-Identifier: MIT
/*
 * Batches for the tracer. One batch at a time under a mutex: CUPTI hands
 * over completed buffers one after the other (its worker thread, or the
 * thread that flushes), so the lock is never contended for long; the API
 * thread that launches kernels takes it only when it makes a CUDA graph
 * node (ct_batch_send: once per node, at capture and at instantiate).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(8) uint8_t batch[CT_GPU_BATCH_MAX];
static size_t used;
static uint64_t names_cut;

/* Interned names: open addressing by address, grown at half full. */
struct name_slot {
	const char *p;
	uint32_t id;
};
static struct name_slot *names;
static size_t names_cap, names_n;
static uint32_t next_id = 1;

__attribute__((visibility("default"), noinline, used)) void ct_gpu_batch(const void *buf, size_t len)
{
	/* The probe reads the arguments at entry: keep the call and them. The
	 * first instruction is a 5-byte nop, which the kernel's uprobes emulate
	 * (no single step) and, from Linux 6.17, turn into a call (no trap). */
	__asm__ volatile(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00" : : "r"(buf), "r"(len) : "memory");
}

static void flush_locked(void)
{
	if (used)
		ct_gpu_batch(batch, used);
	used = 0;
}

static int put_locked(uint16_t type, uint32_t aux, void *item, size_t len)
{
	size_t n = CT_W_ALIGN(len);
	struct ct_w_head *h = item;

	if (n > CT_GPU_BATCH_MAX)
		return -1;
	h->type = type;
	h->len = (uint16_t)n;
	h->aux = aux;
	if (used + n > CT_GPU_BATCH_MAX)
		flush_locked();
	memcpy(batch + used, item, len);
	memset(batch + used + len, 0, n - len);
	used += n;
	return 0;
}

int ct_batch_put(uint16_t type, uint32_t aux, void *item, size_t len)
{
	int err;

	pthread_mutex_lock(&lock);
	err = put_locked(type, aux, item, len);
	pthread_mutex_unlock(&lock);
	return err;
}

int ct_batch_send(uint16_t type, uint32_t aux, void *item, size_t len)
{
	int err;

	pthread_mutex_lock(&lock);
	err = put_locked(type, aux, item, len);
	flush_locked(); /* under the lock: in the ring before the caller goes on */
	pthread_mutex_unlock(&lock);
	return err;
}

static int names_grow(void)
{
	size_t cap = names_cap ? names_cap * 2 : 1024;
	struct name_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < names_cap; i++) {
		size_t h;

		if (!names[i].p)
			continue;
		for (h = ((uintptr_t)names[i].p >> 3) % cap; v[h].p; h = (h + 1) % cap)
			;
		v[h] = names[i];
	}
	free(names);
	names = v;
	names_cap = cap;
	return 0;
}

uint32_t ct_batch_name(const char *name)
{
	struct {
		struct ct_w_head h;
		char text[CT_GPU_NAME_MAX];
	} item;
	uint32_t id = 0;
	size_t h, n;

	if (!name)
		return 0;
	pthread_mutex_lock(&lock);
	if (names_n * 2 >= names_cap && names_grow())
		goto out;
	for (h = ((uintptr_t)name >> 3) % names_cap; names[h].p; h = (h + 1) % names_cap) {
		if (names[h].p == name) {
			id = names[h].id;
			goto out;
		}
	}
	n = strnlen(name, CT_GPU_NAME_MAX);
	if (n == CT_GPU_NAME_MAX) {
		n = CT_GPU_NAME_MAX - 1;
		names_cut++;
	}
	memcpy(item.text, name, n);
	item.text[n] = 0;
	id = next_id++;
	if (put_locked(CT_W_NAME, id, &item, sizeof(item.h) + n + 1)) {
		id = 0;
		goto out;
	}
	names[h] = (struct name_slot){ name, id };
	names_n++;
out:
	pthread_mutex_unlock(&lock);
	return id;
}

void ct_batch_msg(enum ct_wire_level level, const char *fmt, ...)
{
	struct {
		struct ct_w_head h;
		char text[512];
	} item;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(item.text, sizeof(item.text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(item.text))
		n = sizeof(item.text) - 1;
	pthread_mutex_lock(&lock);
	put_locked(CT_W_MSG, level, &item, sizeof(item.h) + (size_t)n + 1);
	flush_locked(); /* said now: the process may not live to flush */
	pthread_mutex_unlock(&lock);
}

void ct_batch_flush(void)
{
	pthread_mutex_lock(&lock);
	flush_locked();
	pthread_mutex_unlock(&lock);
}

uint64_t ct_batch_names_cut(void)
{
	uint64_t n;

	pthread_mutex_lock(&lock);
	n = names_cut;
	pthread_mutex_unlock(&lock);
	return n;
}
