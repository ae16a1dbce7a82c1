// SPDX-License-Identifier: MIT
/*
 * The device side without a device. gpu_activity DIR [PHASE...] loads the
 * stand-in runtime and driver from DIR (libcudart.so.98, libcuda.so.1) and
 * runs each phase:
 *
 *   devices  cudaSetDevice, primary contexts, a context stack pushed and
 *            popped, a thread that never set a device;
 *   names    cuLibraryGetKernel with its name in a page not yet in memory
 *            that the call itself fills (read at return), and one never
 *            filled (unread), then a launch of each kernel;
 *   gpu      what the CUDA driver does at cuInit with CUDA_INJECTION64_PATH:
 *            dlopen it and call InitializeInjection(); then activity records
 *            built with cupti_activity.h's structs go through the stand-in
 *            libcupti (CUDATRACER_CUPTI) into the injection library's
 *            buffer callbacks: a kernel and its launching call, a copy
 *            joined by its runtime call, a set whose call never comes, a
 *            kernel that comes before its call, an unnamed kernel;
 *   attach   waits in poll() for "go" on stdin while cudatracer
 *            --gpu-activity -p brings the injection library in, hands
 *            over the same records, waits for "again" (the tracer has
 *            stopped), hands over another set, says whether the library
 *            is mapped;
 *   graphs   a CUDA graph captured from a stream (each launch and set makes
 *            a node inside the call, through the stand-in libcupti's
 *            resource callback), a node made in no traced call, the graph
 *            instantiated (every node cloned inside cudaGraphInstantiate)
 *            and launched GRAPH_REPLAYS times, with a kernel or set record
 *            per node and replay naming the clone;
 *   seccomp  the phases after it run under a seccomp filter;
 *   nvtx     an NVTX range pushed and left open, so that what the later
 *            phases launch runs in it (test_nvtx.py);
 *   steps    (after gpu) 4 NVTX ranges "step": in each a launch, its
 *            kernel of 2 ms on the GPU 100 us after it, and 5 ms of sleep
 *            (test_analysis_live.py);
 *   flood    (after gpu) what the injection library costs per record
 *            (bench/gpu_records.sh): FLOOD_BUFFERS (default 200) buffers of
 *            a launch's records, its API record and its kernel, as full as
 *            CUPTI fills them, handed over; prints ns of CPU per record.
 *
 * It prints one JSON object: what the test must find (tids, times).
 */
#include <dlfcn.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>

static void *need(void *lib, const char *sym)
{
	void *f = dlsym(lib, sym);

	if (!f) {
		fprintf(stderr, "gpu_activity: %s: %s\n", sym, dlerror());
		exit(2);
	}
	return f;
}

static void *open_lib(const char *dir, const char *name)
{
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "gpu_activity: %s\n", dlerror());
		exit(2);
	}
	return h;
}

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned tid(void)
{
	return (unsigned)syscall(SYS_gettid);
}

static int (*set_device)(int);
static int (*memset_async)(void *, int, size_t, void *);

static void *other_thread(void *arg)
{
	memset_async((void *)0x1000, 0, 16, NULL); /* no call of this thread said its device */
	*(unsigned *)arg = tid();
	return NULL;
}

static void phase_devices(void *rt, void *drv)
{
	int (*retain)(void **, int) = need(drv, "cuDevicePrimaryCtxRetain");
	int (*set_ctx)(void *) = need(drv, "cuCtxSetCurrent");
	int (*push)(void *) = need(drv, "cuCtxPushCurrent_v2");
	int (*pop)(void **) = need(drv, "cuCtxPopCurrent_v2");
	void *ctx, *popped;
	pthread_t t;
	unsigned other;

	set_device(1);
	memset_async((void *)0x1000, 1, 16, NULL);     /* device 1 */
	retain(&ctx, 2);
	set_ctx(ctx);
	memset_async((void *)0x1000, 2, 16, NULL);     /* device 2: its context's */
	push((void *)0xbad);
	memset_async((void *)0x1000, 3, 16, NULL);     /* unknown: a context never seen made */
	pop(&popped);
	memset_async((void *)0x1000, 4, 16, NULL);     /* device 2 again */
	pthread_create(&t, NULL, other_thread, &other);
	pthread_join(t, NULL);
	set_device(0);
	memset_async((void *)0x1000, 5, 16, NULL);     /* device 0 */
	printf("\"devices\":{\"tid\":%u,\"other_tid\":%u},", tid(), other);
}

static void phase_names(void *drv)
{
	int (*get_kernel)(void **, void *, const char *) = need(drv, "cuLibraryGetKernel");
	int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
		      void **, void **) = need(drv, "cuLaunchKernel");
	/* Fresh pages: nothing is mapped in until the first write. */
	char *late = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *never = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *k1, *k2;

	get_kernel(&k1, (void *)0x5157, late);
	get_kernel(&k2, (void *)0x1, never);
	launch(k1, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
	launch(k2, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
	printf("\"names\":{\"late\":\"%s\"},", late);
}

/* ---- gpu ---- */

static uint8_t buf[1 << 16];
static size_t used;

static void *add(size_t size)
{
	void *r = buf + used;

	memset(r, 0, size);
	used += size;
	return r;
}

static void api(CUpti_ActivityKind kind, uint32_t cbid, uint32_t corr, uint64_t start, uint64_t end)
{
	CUpti_ActivityAPI *a = add(sizeof(*a));

	a->kind = kind;
	a->cbid = cbid;
	a->start = start;
	a->end = end;
	a->processId = (uint32_t)getpid();
	a->threadId = tid();
	a->correlationId = corr;
}

static void kernel(uint32_t corr, const char *name, uint64_t start, uint64_t dur, uint32_t stream)
{
	CUpti_ActivityKernel10 *k = add(sizeof(*k));

	k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k->start = start;
	k->end = start + dur;
	k->deviceId = 1;
	k->contextId = 1;
	k->streamId = stream;
	k->correlationId = corr;
	k->name = name;
	k->gridX = 4, k->gridY = 2, k->gridZ = 1;
	k->blockX = 256, k->blockY = 1, k->blockZ = 1;
	k->staticSharedMemory = 1024;
	k->dynamicSharedMemory = 512;
}

static void emit_records(void *rt, const char *key);

/* What the driver does at cuInit (once: the library starts once); false without CUDA_INJECTION64_PATH. */
static bool inject_start(void)
{
	const char *inject = getenv("CUDA_INJECTION64_PATH");
	void *lib;

	if (!inject)
		return false;
	lib = dlopen(inject, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "gpu_activity: %s\n", dlerror());
		exit(2);
	}
	((int (*)(void))need(lib, "InitializeInjection"))();
	return true;
}

static void phase_gpu(void *rt)
{
	if (!inject_start()) {
		printf("\"gpu\":null,");
		return;
	}
	emit_records(rt, "gpu");
}

/* ---- graphs ---- */

#define GRAPH_REPLAYS 5
#define GRAPH_NODES 5    /* four captured, one made in no traced call */
#define NODE_MADE 21     /* the nodes as made: 21..25, in graph 5 */
#define NODE_EXEC 121    /* their clones at instantiate: 121..125, in graph 6 */

static void (*graph_node)(uint64_t node, uint64_t original, uint32_t graph);
static uint64_t next_node = NODE_MADE;

static void on_capture(void)
{
	graph_node(next_node++, 0, 5);
}

static void on_instantiate(void)
{
	for (uint64_t i = 0; i < GRAPH_NODES; i++)
		graph_node(NODE_EXEC + i, NODE_MADE + i, 6);
}

static void phase_graphs(void *rt)
{
	int (*launch)(const void *, unsigned long, unsigned, unsigned long, unsigned, void **, size_t, void *) =
		need(rt, "cudaLaunchKernel");
	int (*instantiate)(void **, void *, unsigned long long) = need(rt, "cudaGraphInstantiate");
	int (*graph_launch)(void *, void *) = need(rt, "cudaGraphLaunch");
	void (*capture)(void (*)(void), void (*)(void)) = need(rt, "fake_cudart_capture");
	const char *cupti = getenv("CUDATRACER_CUPTI");
	void *fake, *exec;
	int (*emit)(const void *, size_t);
	uint64_t t;

	if (!inject_start() || !cupti || !(fake = dlopen(cupti, RTLD_NOW | RTLD_NOLOAD))) {
		printf("\"graphs\":null,");
		return;
	}
	graph_node = need(fake, "fake_cupti_graph_node");
	emit = need(fake, "fake_cupti_emit");
	/* Captured: each call makes its node inside itself (grid x tells the launches apart). */
	capture(on_capture, on_instantiate);
	launch((void *)0x401000, 1 | 1ul << 32, 1, 128, 1, NULL, 0, NULL);
	launch((void *)0x402000, 2 | 1ul << 32, 1, 128, 1, NULL, 0, NULL);
	memset_async((void *)0x2000, 7, 4096, NULL);
	launch((void *)0x401000, 3 | 1ul << 32, 1, 128, 1, NULL, 0, NULL);
	graph_node(next_node++, 0, 5); /* an empty node added by a call not traced */
	instantiate(&exec, (void *)5, 0);
	capture(NULL, NULL);
	for (int r = 0; r < GRAPH_REPLAYS; r++)
		graph_launch(exec, NULL);
	/* The device side of the replays: one record per node and replay, named by the clone. */
	t = mono() + 100000;
	for (uint32_t r = 0; r < GRAPH_REPLAYS; r++) {
		api(CUPTI_ACTIVITY_KIND_RUNTIME, 6, 500 + r, t, t + 100);
		for (uint32_t i = 0; i < GRAPH_NODES; i++) {
			uint64_t dur = 1000 * (i + 1) + 10 * r;

			if (i == 2) {
				CUpti_ActivityMemset4 *m = add(sizeof(*m));

				m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
				m->value = 7;
				m->bytes = 4096;
				m->start = t + 1000;
				m->end = t + 1000 + dur;
				m->deviceId = 1;
				m->contextId = 1;
				m->streamId = 9;
				m->correlationId = 500 + r;
				m->graphId = 6;
				m->graphNodeId = NODE_EXEC + i;
			} else {
				CUpti_ActivityKernel10 *k;

				kernel(500 + r, i == 1 ? "_Z3bwdv" : "_Z3fwdv", t + 1000, dur, 9);
				k = (CUpti_ActivityKernel10 *)(buf + used - sizeof(*k));
				k->graphId = 6;
				k->graphNodeId = NODE_EXEC + i;
			}
			t += dur + 1000;
		}
	}
	emit(buf, used);
	used = 0;
	printf("\"graphs\":{\"tid\":%u,\"replays\":%d,\"nodes\":%d,\"made\":%d,\"exec\":%d},", tid(),
	       GRAPH_REPLAYS, GRAPH_NODES, NODE_MADE, NODE_EXEC);
}

/*
 * The records of one launch's worth of device work, as CUPTI would hand
 * them over, then the line that says what the test must find under `key`.
 */
static void emit_records(void *rt, const char *key)
{
	int (*launch)(const void *, unsigned long, unsigned, unsigned long, unsigned, void **, size_t, void *) =
		need(rt, "cudaLaunchKernel");
	const char *cupti = getenv("CUDATRACER_CUPTI");
	int (*emit)(const void *, size_t);
	void (*enabled)(unsigned *, unsigned *, unsigned *);
	unsigned kinds, runtime_calls, driver_calls;
	void *fake;
	uint64_t t0, t1, t;

	/* Traced whatever the library made of CUPTI. */
	t0 = mono();
	launch((void *)0x401000, 4 | 2ul << 32, 1, 256, 1, NULL, 0, NULL);
	t1 = mono();
	fake = cupti ? dlopen(cupti, RTLD_NOW | RTLD_NOLOAD) : NULL;
	if (!fake || !dlsym(fake, "fake_cupti_emit")) {
		printf("\"%s\":\"real\",", key);
		return;
	}
	emit = need(fake, "fake_cupti_emit");
	enabled = need(fake, "fake_cupti_enabled");
	enabled(&kinds, &runtime_calls, &driver_calls);
	t = t1 + 100000;
	/* Buffer 1: the launch and its kernel; a copy (joined by its runtime call);
	 * a set whose call never comes; a kernel whose call comes in buffer 2. */
	api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 7, t0, t1);
	kernel(7, "_Z6vecAddPfPKfi", t, 3000, 7);
	api(CUPTI_ACTIVITY_KIND_RUNTIME, 2, 9, t0 + 1, t1);
	{
		CUpti_ActivityMemcpy6 *m = add(sizeof(*m));

		m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		m->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
		m->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
		m->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		m->bytes = 1 << 20;
		m->start = t + 10000;
		m->end = t + 10000 + 50000;
		m->deviceId = 1;
		m->contextId = 1;
		m->streamId = 7;
		m->correlationId = 8;        /* the driver call's, never sent */
		m->runtimeCorrelationId = 9; /* the runtime call's */
	}
	{
		CUpti_ActivityMemset4 *m = add(sizeof(*m));

		m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
		m->value = 0xab;
		m->bytes = 4096;
		m->start = t + 70000;
		m->end = t + 71000;
		m->deviceId = 1;
		m->contextId = 1;
		m->streamId = 13;
		m->correlationId = 10;
	}
	kernel(11, "_ZN2ct5scaleIfEEvPT_S1_i", t + 80000, 2000, 13);
	kernel(12, NULL, t + 90000, 1000, 13);
	emit(buf, used);
	used = 0;
	api(CUPTI_ACTIVITY_KIND_DRIVER, 1, 11, t0 + 2, t1);
	api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 12, t0 + 3, t1);
	emit(buf, used);
	used = 0;
	printf("\"%s\":{\"tid\":%u,\"t0\":%llu,\"t\":%llu,\"kinds\":%u,\"runtime_calls\":%u,\"driver_calls\":%u},",
	       key, tid(), (unsigned long long)t0, (unsigned long long)t, kinds, runtime_calls, driver_calls);
}

static void phase_steps(void *rt)
{
	int (*launch)(const void *, unsigned long, unsigned, unsigned long, unsigned, void **, size_t, void *) =
		need(rt, "cudaLaunchKernel");
	const char *cupti = getenv("CUDATRACER_CUPTI");
	void *fake = cupti ? dlopen(cupti, RTLD_NOW | RTLD_NOLOAD) : NULL;
	int (*emit)(const void *, size_t) = fake ? dlsym(fake, "fake_cupti_emit") : NULL;

	for (uint32_t i = 0; i < 4; i++) {
		struct timespec pause = { 0, 5000000 };
		uint64_t t0, t1;

		nvtxRangePushA("step");
		t0 = mono();
		launch((void *)0x401000, 4 | 2ul << 32, 1, 256, 1, NULL, 0, NULL);
		t1 = mono();
		if (emit) {
			api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 100 + i, t0, t1);
			kernel(100 + i, "_Z4stepv", t1 + 100000, 2000000, 7);
			emit(buf, used);
			used = 0;
		}
		nanosleep(&pause, NULL);
		nvtxRangePop();
	}
	printf("\"steps\":4,");
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void phase_flood(void)
{
	const char *cupti = getenv("CUDATRACER_CUPTI"), *nb = getenv("FLOOD_BUFFERS");
	void *fake = cupti ? dlopen(cupti, RTLD_NOW | RTLD_NOLOAD) : NULL;
	int (*emit)(const void *, size_t) = fake ? dlsym(fake, "fake_cupti_emit") : NULL;
	long buffers = nb ? atol(nb) : 200;
	uint64_t t = mono(), cpu = 0, records = 0;
	uint32_t corr = 1000;

	if (!emit) {
		printf("\"flood\":null,");
		return;
	}
	for (long b = 0; b < buffers; b++) {
		uint64_t c0;

		/* A buffer as full as this one holds: a launch's API record and kernel each. */
		while (used + sizeof(CUpti_ActivityAPI) + sizeof(CUpti_ActivityKernel10) <= sizeof(buf)) {
			api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, corr, t, t + 2000);
			kernel(corr, "_Z6vecAddPfPKfi", t + 3000, 5000, 7);
			corr++, t += 10000, records += 2;
		}
		c0 = cpu_ns();
		emit(buf, used);
		cpu += cpu_ns() - c0;
		used = 0;
	}
	printf("\"flood\":{\"records\":%llu,\"cpu_ns\":%llu,\"ns_per_record\":%.1f},", (unsigned long long)records,
	       (unsigned long long)cpu, records ? (double)cpu / (double)records : 0.0);
}

/* One line from the test on stdin, waited for in poll(): the wait a tracer's call comes in through. */
static void wait_line(const char *want)
{
	char line[64];
	struct pollfd p = { .fd = 0, .events = POLLIN };

	fprintf(stderr, "gpu_activity: waiting for %s\n", want);
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR) {
			perror("poll");
			exit(2);
		}
	if (!fgets(line, sizeof(line), stdin) || strncmp(line, want, strlen(want))) {
		fprintf(stderr, "gpu_activity: wanted %s\n", want);
		exit(2);
	}
}

/*
 * attach: cudatracer --gpu-activity -p brings the injection library in
 * while the program waits in poll(); then records of a launch ("attached"),
 * and after the tracer has stopped, another set ("after") that nobody
 * should see. Whether the library is in the process is said too.
 */
static void phase_attach(void *rt)
{
	char line[4096];
	bool loaded = false;
	FILE *maps;

	wait_line("go");
	emit_records(rt, "attached");
	wait_line("again");
	emit_records(rt, "after");
	maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof(line), maps))
		loaded |= strstr(line, "/libcudatracer-inject.so") != NULL;
	if (maps)
		fclose(maps);
	printf("\"library_loaded\":%s,", loaded ? "true" : "false");
}

/* seccomp: the rest runs under a filter (one that allows every call, as a tracer cannot know). */
static void phase_seccomp(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	void *rt, *drv;

	if (argc < 2) {
		fprintf(stderr, "usage: gpu_activity DIR [devices] [names] [gpu] [nvtx] [steps]\n");
		return 2;
	}
	rt = open_lib(argv[1], "libcudart.so.98");
	drv = open_lib(argv[1], "libcuda.so.1");
	set_device = need(rt, "cudaSetDevice");
	memset_async = need(rt, "cudaMemsetAsync");
	printf("{");
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "devices"))
			phase_devices(rt, drv);
		else if (!strcmp(argv[i], "names"))
			phase_names(drv);
		else if (!strcmp(argv[i], "gpu"))
			phase_gpu(rt);
		else if (!strcmp(argv[i], "graphs"))
			phase_graphs(rt);
		else if (!strcmp(argv[i], "attach"))
			phase_attach(rt);
		else if (!strcmp(argv[i], "seccomp"))
			phase_seccomp();
		else if (!strcmp(argv[i], "nvtx"))
			nvtxRangePushA("gpu-phase");
		else if (!strcmp(argv[i], "steps"))
			phase_steps(rt);
		else if (!strcmp(argv[i], "flood"))
			phase_flood();
	}
	printf("\"pid\":%d}\n", getpid());
	return 0;
}
