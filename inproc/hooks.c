// SPDX-License-Identifier: MIT
/*
 * The in-process engine's entry and exit hooks, called by tramp.S: the
 * same record for the same call as bpf/capture.bpf.c writes (arguments,
 * stack words, memory at entry and at exit, a string, depth and parent,
 * duration and result), by the same spec, into the shared ring.
 *
 * The hot path takes no lock and allocates nothing: a thread's calls in
 * flight are kept in its own storage (initial-exec TLS, reached with one
 * %fs load), a record is reserved in the ring with one compare-and-swap,
 * and a full ring counts a lost record. errno is saved and restored around
 * the few library and system calls the hooks make (most calls make none:
 * errno itself is a call into libc). A signal handler that makes a traced
 * call while the thread is inside a hook has its call go through untraced,
 * never into a half-updated frame.
 *
 * Memory the spec asks for is read without ever faulting: from the live
 * part of the thread's stack directly (where out-parameters usually are),
 * anywhere else through process_vm_readv on ourselves, which fails where
 * bpf_probe_read_user would.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include "inproc.h"

/* Bytes past a record's end whose lines emit() takes ahead (a few records). */
#define PREFETCH_AHEAD 1024

struct frame {
	uint64_t ret;     /* the caller's return address, replaced by the trampoline's */
	uint64_t sp;      /* the stack pointer at entry (where that address is) */
	uint32_t str_len; /* bytes of rec.str with its NUL; 0: no string */
	uint32_t row1;    /* its row in the spec table + 1 */
	struct ct_record rec;
};

struct thread {
	uint32_t busy;  /* in a hook: a nested traced call (a signal handler's) goes through untraced */
	uint32_t depth; /* frames in use, innermost last */
	uint32_t tid;
	uint32_t pad;
	uint64_t stack_lo, stack_hi; /* the thread's stack, for reads without a system call */
	uint64_t cons_seen; /* the reader's position when last read: it only grows */
	/* Who its records are from, as the record's words hold them: pid and
	 * tid, then comm. Written into each record from here, as words. */
	uint64_t who[1 + CT_COMM_LEN / 8];
	struct frame f[CT_MAX_DEPTH];
	struct frame eo; /* where entry-only records are built */
};

static __thread struct thread thr __attribute__((tls_model("initial-exec")));


/*
 * At the process's first traced call: the page tables of the ring, all at
 * once (the tracer allocated its pages), rather than a fault on each page
 * on the first lap, inside the calls traced (4096 of them for 16 MiB:
 * ~50 ns a record). Not at start: a process that traces no call (a shell
 * the command runs) pays nothing. Older kernels (before 5.14) refuse it and
 * fault as before.
 */
static void map_ring_pages(void)
{
	int saved = errno;

	if (!__atomic_exchange_n(&ct_g.mapped, 1, __ATOMIC_RELAXED))
		madvise(ct_g.data, ct_g.mask + 1, MADV_POPULATE_WRITE);
	errno = saved;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A record's time in the ring's clock: TSC cycles, which the tracer turns
 * into CLOCK_MONOTONIC ns (rdtsc is not ordered with the code around it,
 * which moves a stamp by a few cycles at most), or CLOCK_MONOTONIC ns. */
static inline uint64_t stamp(void)
{
	return ct_g.tsc ? __rdtsc() : now_ns();
}

/* Who the thread's records are from, once, not at each call. */
static void who(struct thread *t)
{
	t->who[0] = ct_g.pid | (uint64_t)t->tid << 32;
}

/* The forking thread, in the child: its own ids in its frames (a call in
 * flight across the fork returns in both). */
void ct_hooks_fork_child(void)
{
	int saved = errno;

	if (thr.tid) {
		thr.tid = (uint32_t)gettid();
		who(&thr);
	}
	ct_g.mapped = 0; /* a child's shared mappings start without page tables */
	errno = saved;
}

/* Once per thread: who it is, and where its stack is. */
static void thread_init(struct thread *t)
{
	char comm[CT_COMM_LEN] = "";
	int saved = errno;
	pthread_attr_t a;
	void *lo;
	size_t sz;

	t->tid = (uint32_t)gettid();
	if (prctl(PR_GET_NAME, comm))
		comm[0] = 0;
	comm[CT_COMM_LEN - 1] = 0;
	memcpy(&t->who[1], comm, CT_COMM_LEN);
	who(t);
	if (!t->stack_hi && !pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &lo, &sz)) {
			t->stack_lo = (uint64_t)lo;
			t->stack_hi = (uint64_t)lo + sz;
		}
		pthread_attr_destroy(&a);
	}
	errno = saved;
}

/* process_vm_readv on ourselves: fails where bpf_probe_read_user would;
 * the bytes read, or -1. */
static ssize_t self_readv(const struct iovec *l, const struct iovec *r, unsigned long n)
{
	int saved = errno;
	ssize_t got = process_vm_readv((pid_t)ct_g.pid, l, n, r, n, 0);

	errno = saved;
	return got;
}

/* A few words, as moves: a copy of unknown size would be a memcpy call or,
 * inlined, a rep movsq, which takes 50-200 ns for one word on some VMs. */
static inline void copy_words(void *dst, const void *src, size_t words)
{
	for (size_t i = 0; i < words; i++)
		memcpy((char *)dst + 8 * i, (const char *)src + 8 * i, 8); /* one mov each, any alignment */
}

/*
 * Copy n bytes at src, or fail where the memory is not readable. `sp`: the
 * stack pointer now; the stack above it is in use, so mapped. `written`:
 * the call that just returned succeeded and src is one of its
 * out-parameters, which it wrote: src's page is mapped (and writable, so
 * readable), and a read that stays in that page cannot fault. (Unless
 * another thread unmaps the object the call has just filled in, before
 * its caller has looked at it: a race of the program's own.) Anything
 * else goes through the kernel, as bpf_probe_read_user would.
 */
static bool read_mem(const struct thread *t, void *dst, uint64_t src, size_t n, uint64_t sp, bool written)
{
	struct iovec l = { dst, n }, r = { (void *)src, n };

	if ((src >= sp && src >= t->stack_lo && src + n <= t->stack_hi && src + n > src) ||
	    (written && (src >> 12) == ((src + n - 1) >> 12))) {
		copy_words(dst, (const void *)src, n / 8);
		return true;
	}
	if (self_readv(&l, &r, 1) == (ssize_t)n)
		return true;
	/* As bpf_probe_read_user leaves it: zeroes, not the part read before a page that is not mapped. */
	for (size_t i = 0; i < n / 8; i++)
		((uint64_t *)dst)[i] = 0;
	return false;
}

static uint32_t do_reads(const struct thread *t, const struct ct_spec *s, uint8_t phase,
			 const uint64_t *args, uint64_t *mem, uint64_t sp, bool written)
{
	uint32_t flags = 0;

	for (int i = 0; i < CT_SPEC_READS; i++) {
		uint32_t slot = s->reads[i].slot, dst = s->reads[i].dst, words = s->reads[i].words;
		uint64_t ptr;

		if (s->reads[i].phase != phase || !words || slot >= CT_REC_ARGS || dst >= CT_REC_MEM)
			continue;
		ptr = args[slot];
		if (words > CT_REC_MEM - dst)
			words = CT_REC_MEM - dst;
		if (!ptr) {
			flags |= CT_REC_READ_FAIL;
			continue;
		}
		/* A short array at the end of a page: the first word alone. */
		if (!read_mem(t, &mem[dst], ptr, words * 8, sp, written) &&
		    !read_mem(t, &mem[dst], ptr, 8, sp, written))
			flags |= CT_REC_READ_FAIL;
	}
	return flags;
}

/* A C string of at most CT_REC_STR bytes with its NUL, as bpf_probe_read_user_str reads it. */
static void read_str(const struct thread *t, const struct ct_spec *s, struct frame *f, uint64_t sp)
{
	uint64_t ptr, page_left;
	struct iovec l[2], r[2];
	ssize_t got;
	char *nul;

	f->str_len = 0;
	if (s->str_slot >= CT_REC_ARGS || !(ptr = f->rec.args[s->str_slot]))
		return;
	if (ptr >= sp && ptr >= t->stack_lo && ptr + CT_REC_STR <= t->stack_hi) {
		memcpy(f->rec.str, (const void *)ptr, CT_REC_STR);
		got = CT_REC_STR;
	} else {
		/* Page by page: the string may end just before an unmapped one. */
		page_left = 4096 - (ptr & 4095);
		if (page_left > CT_REC_STR)
			page_left = CT_REC_STR;
		l[0] = (struct iovec){ f->rec.str, page_left };
		r[0] = (struct iovec){ (void *)ptr, page_left };
		l[1] = (struct iovec){ f->rec.str + page_left, CT_REC_STR - page_left };
		r[1] = (struct iovec){ (void *)(ptr + page_left), CT_REC_STR - page_left };
		got = self_readv(l, r, page_left < CT_REC_STR ? 2 : 1);
	}
	if (got <= 0)
		return;
	nul = memchr(f->rec.str, 0, (size_t)got);
	if (!nul && got < CT_REC_STR)
		return;
	if (!nul) {
		f->rec.str[CT_REC_STR - 1] = 0;
		nul = &f->rec.str[CT_REC_STR - 1];
	}
	f->str_len = (uint32_t)(nul - f->rec.str) + 1;
	f->rec.flags |= CT_REC_HAS_STR;
}

static void parent(const struct thread *t, uint32_t d, struct ct_record *r)
{
	uint32_t mine = CT_CALL_PLUGIN(r->call);

	if (!ct_g.parents)
		return;
	for (int i = (int)d - 1; i >= 0; i--) {
		uint32_t id = t->f[i].rec.call;

		if (CT_CALL_PLUGIN(id) == mine)
			continue;
		r->parent = id;
		r->flags |= CT_REC_HAS_PARENT;
		return;
	}
}

/*
 * The record, packed (shm.h), into the ring: its fixed words composed here
 * from what the call's end set (duration, depth, result) and who the
 * thread is, then the argument, memory and string words the frame holds,
 * each as one 8-byte move: a memcpy of the frame's record read its 4-byte
 * fields just stored by wider loads, which wait for those stores to reach
 * the cache. Returns the ring position after it, or 0 if it did not fit.
 */
static uint64_t emit(struct thread *t, const struct frame *f, const struct ct_spec *s, uint32_t n_args,
		     uint64_t dur, uint32_t depth, uint64_t ret)
{
	const unsigned mem_at = offsetof(struct ct_record, mem) / 8;
	const uint64_t *args = f->rec.args, *mem = f->rec.mem, *str = (const uint64_t *)f->rec.str;
	struct ct_shm_head *h = ct_g.head;
	uint32_t n_mem = s->rec_words > mem_at ? s->rec_words - mem_at : 0, str_words, len;
	uint64_t total, pos, *w;

	if (n_mem > CT_REC_MEM)
		n_mem = CT_REC_MEM;
	if (n_args > CT_REC_ARGS)
		n_args = CT_REC_ARGS;
	str_words = (uint32_t)CT_SHM_ALIGN(f->str_len) / 8;
	len = (CT_SHM_FIXED + n_args + n_mem) * 8 + f->str_len;
	total = CT_SHM_REC_HDR + CT_SHM_ALIGN(len);
	pos = __atomic_load_n(&h->prod_pos, __ATOMIC_RELAXED);
	do {
		/* The reader's line is read only when the ring looks full by the
		 * position last seen, which can only be behind the real one. */
		if (pos + total - t->cons_seen > ct_g.mask + 1 &&
		    pos + total - (t->cons_seen = __atomic_load_n(&h->cons_pos, __ATOMIC_ACQUIRE)) > ct_g.mask + 1) {
			__atomic_fetch_add(&h->stat[CT_SHM_LOST], 1, __ATOMIC_RELAXED);
			return 0;
		}
	} while (!__atomic_compare_exchange_n(&h->prod_pos, &pos, pos + total, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	len |= n_args << CT_SHM_ARGS_SHIFT | n_mem << CT_SHM_MEM_SHIFT;
	w = (uint64_t *)(ct_g.data + (pos & ct_g.mask));
	__atomic_store_n(w, CT_SHM_HDR(pos, len | CT_SHM_BUSY), __ATOMIC_RELAXED);
	w++;
	w[CT_SHM_W_TS] = f->rec.ts_ns;
	w[CT_SHM_W_DUR] = dur;
	w[CT_SHM_W_WHO] = t->who[0];
	w[CT_SHM_W_CALL] = f->rec.call | (uint64_t)f->rec.flags << 32;
	w[CT_SHM_W_DEPTH] = depth | (uint64_t)f->rec.parent << 32;
	w[CT_SHM_W_RET] = ret;
	w[CT_SHM_W_COMM] = t->who[1];
	w[CT_SHM_W_COMM + 1] = t->who[2];
	w += CT_SHM_FIXED;
	for (uint32_t i = 0; i < n_args; i++)
		*w++ = args[i];
	for (uint32_t i = 0; i < n_mem; i++)
		*w++ = mem[i];
	for (uint32_t i = 0; i < str_words; i++)
		w[i] = str[i];
	__atomic_store_n((uint64_t *)(ct_g.data + (pos & ct_g.mask)), CT_SHM_HDR(pos, len), __ATOMIC_RELEASE);
	/* The lines a record or two ahead, taken for writing now: else each
	 * record's first store to a line the reader has read (or that left the
	 * cache a lap ago) waits for it (-20 ns a call on the 2-core VM). Only
	 * a hint: the line may be another thread's next record, or unread
	 * records where the ring is full; neither is changed by it. */
	if (ct_g.prefetchw) {
		const unsigned char *ahead = ct_g.data + ((pos + total + PREFETCH_AHEAD) & ct_g.mask);

		__asm__ volatile("prefetchw %0" ::"m"(ahead[0]));
		__asm__ volatile("prefetchw %0" ::"m"(ahead[64]));
		__asm__ volatile("prefetchw %0" ::"m"(ahead[128]));
	}
	return pos + total;
}

void ct_hooks_started(pid_t tracer)
{
	struct frame *f = &thr.eo;
	struct ct_spec s = { .rec_words = CT_REC_HEAD_SIZE / 8 };
	uint64_t end, t0;

	thread_init(&thr);
	memset(&f->rec, 0, CT_REC_HEAD_SIZE);
	f->str_len = 0;
	f->rec.call = CT_SHM_CALL_START;
	f->rec.ts_ns = stamp();
	t0 = now_ns();
	end = emit(&thr, f, &s, 0, 0, 0, 0);
	while (end && __atomic_load_n(&ct_g.head->cons_pos, __ATOMIC_ACQUIRE) < end &&
	       (__atomic_load_n(&ct_g.head->on, __ATOMIC_RELAXED) ||
		__atomic_load_n(&ct_g.head->paused, __ATOMIC_RELAXED)) && /* paused: the tracer still reads */
	       now_ns() - t0 < CT_SHM_START_WAIT_NS &&
	       (tracer <= 0 || !kill(tracer, 0) || errno != ESRCH))
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
}

/* The memory words the record sends, zeroed as moves: the reads fill some. */
static inline void clear_mem(const struct ct_spec *s, struct ct_record *r)
{
	const int mem_at = offsetof(struct ct_record, mem) / 8;

	for (int i = 0; i < s->rec_words - mem_at && i < CT_REC_MEM; i++)
		r->mem[i] = 0;
}

static void read_args(struct ct_record *r, const uint64_t *regs, const uint64_t *sp, uint8_t stack_words)
{
	/* As words: tramp.S has just stored them so, and a wider load of two
	 * waits for both stores to reach the cache. */
	copy_words(r->args, regs, CT_REC_REGS);
	if (stack_words > CT_STACK_WORDS)
		stack_words = CT_STACK_WORDS;
	/* Past the return address: the caller's stack, readable. */
	copy_words(&r->args[CT_REC_REGS], sp + 1, stack_words);
}

/* A function no loaded library defines (its stub was found by name, but
 * the runtime is not there): fail the call as the runtimes do. */
static long ct_unresolved(void)
{
	return 999; /* cudaErrorUnknown, CUDA_ERROR_UNKNOWN, hipErrorUnknown */
}

/* What tramp.S does next (rax, rdx): jump to fn, or, where exit is set,
 * call it in the caller's place and come back to the exit hook. */
struct entry_next {
	uint64_t fn;
	uint64_t exit;
};

CT_HIDDEN struct entry_next ct_inproc_entry(const uint64_t *regs, struct ct_slot *slot, uint64_t *sp)
{
	uint64_t real = __atomic_load_n(&slot->real, __ATOMIC_ACQUIRE);
	struct thread *t = &thr;
	const struct ct_shm_spec *row;
	const struct ct_spec *s;
	struct frame *f;
	uint32_t d;

	if (!real) {
		int saved = errno;

		real = ct_inproc_resolve(slot);
		errno = saved;
		if (!real)
			return (struct entry_next){ (uint64_t)ct_unresolved, 0 };
	}
	if (!slot->call1 || !ct_g.head || !__atomic_load_n(&ct_g.head->on, __ATOMIC_RELAXED) || t->busy)
		goto out;
	t->busy = 1;
	if (!t->tid)
		thread_init(t);
	if (!ct_g.mapped)
		map_ring_pages();
	row = &ct_g.specs[slot->call1 - 1];
	s = &row->spec;
	d = t->depth;
	if (s->flags & CT_SPEC_ENTRY_ONLY) {
		f = &t->eo;
		f->rec.call = row->call;
		f->rec.flags = CT_REC_ENTRY_ONLY;
		f->rec.parent = 0;
		read_args(&f->rec, regs, sp, s->stack_words);
		parent(t, d, &f->rec);
		clear_mem(s, &f->rec);
		f->rec.flags |= do_reads(t, s, CT_READ_ENTRY, f->rec.args, f->rec.mem, (uint64_t)sp, false);
		f->str_len = 0;
		if (s->str_slot != CT_NO_SLOT)
			read_str(t, s, f, (uint64_t)sp);
		f->rec.ts_ns = stamp();
		emit(t, f, s, row->arg_words, 0, d, 0);
		goto done;
	}
	if (d >= CT_MAX_DEPTH) {
		__atomic_fetch_add(&ct_g.head->stat[CT_SHM_DEEP], 1, __ATOMIC_RELAXED);
		goto done;
	}
	f = &t->f[d];
	f->row1 = slot->call1;
	f->rec.call = row->call;
	f->rec.flags = 0;
	f->rec.parent = 0;
	parent(t, d, &f->rec);
	read_args(&f->rec, regs, sp, s->stack_words);
	clear_mem(s, &f->rec);
	if (s->flags & CT_SPEC_READS_ENTRY)
		f->rec.flags |= do_reads(t, s, CT_READ_ENTRY, f->rec.args, f->rec.mem, (uint64_t)sp, false);
	f->str_len = 0;
	if (s->str_slot != CT_NO_SLOT)
		read_str(t, s, f, (uint64_t)sp);
	/* tramp.S calls the function with the caller's return address (kept
	 * here) taken off the stack: the function sees its caller's stack as it
	 * was, its return address in that slot is the trampoline's. */
	f->sp = (uint64_t)sp;
	f->ret = *sp;
	t->depth = d + 1;
	f->rec.ts_ns = stamp();
	t->busy = 0;
	return (struct entry_next){ real, 1 };
done:
	t->busy = 0;
out:
	return (struct entry_next){ real, 0 };
}

CT_HIDDEN uint64_t ct_inproc_exit(uint64_t rax, uint64_t sp_after)
{
	uint64_t now = stamp(), at = sp_after - 8, ret;
	struct thread *t = &thr;
	struct frame *f;
	int k;

	/* Innermost first; frames above the one returning were left by a
	 * longjmp, and are dropped with it. */
	for (k = (int)t->depth - 1; k >= 0 && t->f[k].sp != at; k--)
		;
	if (k < 0) {
		/* Never: only our stub's callers come here, each with its frame. */
		static const char msg[] = "cudatracer-inproc: a return with no frame: aborting\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	f = &t->f[k];
	ret = f->ret;
	t->depth = (uint32_t)k;
	if (!t->busy && ct_g.head) {
		const struct ct_shm_spec *row = &ct_g.specs[f->row1 - 1];
		const struct ct_spec *s = &row->spec;

		t->busy = 1;
		/* An out-parameter read at return: written by a call that succeeded. */
		if (s->flags & CT_SPEC_READS_EXIT)
			f->rec.flags |= do_reads(t, s, CT_READ_EXIT, f->rec.args, f->rec.mem, sp_after,
						 (s->flags & CT_SPEC_RET_IS_ERROR) && !(uint32_t)rax);
		/* A string whose page was not in memory at entry: the call has touched it by now. */
		if (s->str_slot != CT_NO_SLOT && !f->str_len)
			read_str(t, s, f, sp_after);
		emit(t, f, s, row->arg_words, now - f->rec.ts_ns, (uint32_t)k, rax);
		t->busy = 0;
	}
	return ret;
}
