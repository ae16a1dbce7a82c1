// SPDX-License-Identifier: MIT
/*
 * Calls made inside a running process: remote.h says what and why. The
 * steps of one call, and what a tracer killed after each leaves behind:
 *
 *  1. pick a thread blocked in a system call of the list below (a wait:
 *     it holds no lock of the C library or the loader), seize it and
 *     interrupt it; it stops on its way out of the call, which reports
 *     -ERESTART*. Killed now: the kernel detaches it and it restarts the
 *     call, as after any stop.
 *  2. write the trampoline and its block (fn, arguments, where to resume)
 *     into the cave: bytes of an executable mapping past the end of its
 *     segment, which nothing in the process reads (the write makes the
 *     page the process's own copy; the file is untouched). Killed now:
 *     nothing runs those bytes; as after 1.
 *  3. set the thread's rip to the trampoline, with rax and the resume
 *     address as the kernel would set them to restart the call (its number
 *     and rip - 2, or restart_syscall), and orig_rax -1 so that the kernel
 *     itself does not also restart it; detach at once. From here the
 *     thread makes the call and goes back without the tracer.
 *  4. read the block until its state says the call returned.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "capture/remote.h"
#include <gelf.h>
#include "symbols/elf.h"
#include "util/log.h"
#include "util/procfs.h"

extern const unsigned char ct_remote_tramp[], ct_remote_tramp_data[], ct_remote_tramp_end[];

/* What follows the code (remote_tramp.S): the call, read only. */
struct ct_remote_args {
	uint64_t fn, arg0, arg1, resume, block;
};

/* What the thread writes: in a writable mapping. */
struct ct_remote_block {
	uint64_t magic, state, ret, owner;
};

#define BLOCK_MAGIC 0x45544f4d45525443ull /* "CTREMOTE" */
#define STATE_BUSY 1
#define STATE_DONE 2
#define STR_MAX 1024          /* a string passed (a library's path), NUL included */
#define STACK_ROOM (256u << 10) /* what dlopen and CUPTI's start may use of the thread's stack */
#define STOP_WAIT_MS 2000
#define MAPS_MAX (64u << 20)

/* -ERESTART* as the kernel leaves them in rax of a call it will restart. */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/*
 * Waits a thread may be interrupted in: none of them is made while a lock
 * of the C library or of the loader is held (pthread_cond_wait releases its
 * mutex; a futex wait for a lock is a wait for it, not a hold). Event loops
 * first, then sleeps, then futexes (most idle threads of a training job:
 * its data loaders, autograd and OpenMP workers).
 */
static const long safe_calls[] = {
	SYS_epoll_wait, SYS_epoll_pwait, SYS_poll, SYS_ppoll, SYS_select, SYS_pselect6,
#ifdef SYS_epoll_pwait2
	SYS_epoll_pwait2,
#endif
	SYS_nanosleep, SYS_clock_nanosleep, SYS_pause, SYS_wait4, SYS_futex,
	/* one of these waits, restarted after a stop (ours included) */
	SYS_restart_syscall,
};

static int safe_rank(long nr)
{
	for (size_t i = 0; i < sizeof(safe_calls) / sizeof(safe_calls[0]); i++)
		if (safe_calls[i] == nr)
			return (int)i;
	return -1;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void nap_ms(long ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
}

/* ---- the process's mappings ---- */

struct mapping {
	uint64_t start, end, off;
	char perms[5];
	const char *path; /* into the maps text */
};

struct maps {
	char *text;
	struct mapping *m;
	size_t n;
};

static void maps_free(struct maps *mp)
{
	free(mp->text);
	free(mp->m);
	*mp = (struct maps){ 0 };
}

static int maps_read(pid_t pid, struct maps *mp)
{
	size_t len, cap = 0;
	char *line, *save = NULL;

	*mp = (struct maps){ 0 };
	mp->text = ct_proc_read((uint32_t)pid, "maps", MAPS_MAX, &len);
	if (!mp->text)
		return -errno;
	for (line = strtok_r(mp->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct mapping m = { 0 };
		int path_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*s %n", &m.start, &m.end, m.perms,
			   &m.off, &path_at) < 4)
			continue;
		m.path = path_at ? line + path_at : "";
		if (mp->n == cap) {
			struct mapping *more = realloc(mp->m, (cap = cap ? 2 * cap : 256) * sizeof(*more));

			if (!more) {
				maps_free(mp);
				return -ENOMEM;
			}
			mp->m = more;
		}
		mp->m[mp->n++] = m;
	}
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* The mapped file itself, as the kernel holds it (no path lookup in the process's root). */
static void map_file(pid_t pid, const struct mapping *m, char *buf, size_t n)
{
	snprintf(buf, n, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start, m->end);
}

static int sym_in(pid_t pid, const struct maps *mp, const char *file, const char *sym, uint64_t *addr)
{
	for (size_t i = 0; i < mp->n; i++) {
		const struct mapping *m = &mp->m[i];
		char path[128];
		uint64_t off = 0;

		if (m->perms[2] != 'x' || m->path[0] != '/' || !ends_with(m->path, file))
			continue;
		map_file(pid, m, path, sizeof(path));
		if (ct_elf_resolve(path, &sym, 1, &off) != 1)
			continue;
		/* The executable mapping of this file that holds the offset. */
		for (size_t j = 0; j < mp->n; j++) {
			const struct mapping *x = &mp->m[j];

			if (x->perms[2] == 'x' && !strcmp(x->path, m->path) && off >= x->off &&
			    off < x->off + (x->end - x->start)) {
				*addr = x->start + (off - x->off);
				return 0;
			}
		}
	}
	return -ENOENT;
}

int ct_remote_sym(const struct ct_remote *r, const char *file, const char *sym, uint64_t *addr)
{
	struct maps mp;
	int err = maps_read(r->pid, &mp);

	if (err)
		return err;
	err = sym_in(r->pid, &mp, file, sym, addr);
	maps_free(&mp);
	return err;
}

/*
 * The caves. Code: from the end of an executable segment's bytes (ELF's
 * p_filesz) to the end of its last page: nothing the file holds is run or
 * read from there. The block: from the end of a writable segment's memory
 * (p_memsz: past its .bss) to the end of that page, zero and unused; not
 * ld.so's, whose early malloc hands out the rest of its last page.
 */
static bool in_mapping(const struct maps *mp, uint64_t at, size_t len, bool writable)
{
	for (size_t i = 0; i < mp->n; i++)
		if (at >= mp->m[i].start && at + len <= mp->m[i].end)
			return !writable || mp->m[i].perms[1] == 'w';
	return false;
}

static void caves_of(struct ct_remote *r, const struct maps *mp, const struct mapping *m, size_t need)
{
	struct ct_elf *e = NULL;
	char path[128];
	size_t n = 0;
	Elf *elf;
	uint64_t bias = 0;
	bool biased = false;

	map_file(r->pid, m, path, sizeof(path));
	if (ct_elf_open_path(path, &e))
		return;
	elf = elf_begin(ct_elf_fd(e), ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n))
		n = 0;
	/* The load bias, from the executable segment this mapping holds. */
	for (size_t i = 0; i < n && !biased; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		uint64_t end_off = ph.p_offset + ph.p_filesz;

		if (end_off <= m->off || end_off > m->off + (m->end - m->start))
			continue;
		bias = m->start + ph.p_offset - m->off - ph.p_vaddr;
		biased = true;
		uint64_t at = (m->start + (end_off - m->off) + 63) & ~63ull;

		if (!r->cave && at < m->end && m->end - at >= need) {
			r->cave = at;
			r->cave_len = m->end - at;
		}
	}
	for (size_t i = 0; i < n && biased && !r->block && !strstr(m->path, "/ld-linux"); i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_W))
			continue;
		uint64_t end = bias + ph.p_vaddr + ph.p_memsz, at = (end + 63) & ~63ull;
		uint64_t page_end = (end + 4095) & ~4095ull;

		if (at + sizeof(struct ct_remote_block) <= page_end &&
		    in_mapping(mp, at, sizeof(struct ct_remote_block), true))
			r->block = at;
	}
	if (elf)
		elf_end(elf);
	ct_elf_close(e);
}

static int find_caves(struct ct_remote *r, const struct maps *mp, size_t need)
{
	/* The C library first: every process that can dlopen has it. */
	for (int pass = 0; pass < 2 && (!r->cave || !r->block); pass++)
		for (size_t i = 0; i < mp->n && (!r->cave || !r->block); i++) {
			const struct mapping *m = &mp->m[i];

			if (!strcmp(m->perms, "r-xp") && m->path[0] == '/' &&
			    (pass == 1) != ends_with(m->path, "/libc.so.6"))
				caves_of(r, mp, m, need);
		}
	return r->cave && r->block ? 0 : -ENOEXEC;
}

/* ---- may the process be entered ---- */

static int check_process(pid_t pid, char *why, size_t n)
{
	char *yama = ct_file_read("/proc/sys/kernel/yama/ptrace_scope", 16, NULL);
	long tracer, seccomp;
	int err = 0;

	if (yama && atoi(yama) >= 3) {
		snprintf(why, n, "Yama forbids ptrace on this machine (kernel.yama.ptrace_scope = 3)");
		err = -EPERM;
	}
	free(yama);
	if (err)
		return err;
	tracer = ct_proc_status_field((uint32_t)pid, "TracerPid:");
	seccomp = ct_proc_status_field((uint32_t)pid, "Seccomp:");
	if (tracer < 0) {
		snprintf(why, n, "cannot read /proc/%d/status: %s", (int)pid, strerror(errno));
		return -ESRCH;
	}
	if (tracer > 0) {
		snprintf(why, n, "process %ld (a debugger or another tracer) is attached to it with ptrace", tracer);
		return -EPERM;
	}
	if (seccomp == 2) {
		snprintf(why, n, "it runs under a seccomp filter, which may kill it for a system call the library's "
				 "loading makes");
		return -EPERM;
	}
	return 0;
}

int ct_remote_open(struct ct_remote *r, pid_t pid, char *why, size_t n)
{
	struct ct_proc_stat before, after;
	struct maps mp;
	char path[64];
	int err;

	*r = (struct ct_remote){ .pid = pid, .mem = -1 };
	if ((err = check_process(pid, why, n)))
		return err;
	if (ct_proc_stat((uint32_t)pid, &before)) {
		snprintf(why, n, "process %d is gone", (int)pid);
		return -ESRCH;
	}
	if ((err = maps_read(pid, &mp))) {
		snprintf(why, n, "cannot read /proc/%d/maps: %s", (int)pid, strerror(-err));
		return -ESRCH;
	}
	/* glibc 2.34 on keeps dlopen in libc.so.6; before, in libdl.so.2. */
	if (sym_in(pid, &mp, "/libc.so.6", "dlopen", &r->dlopen_fn) &&
	    sym_in(pid, &mp, "/libdl.so.2", "dlopen", &r->dlopen_fn)) {
		snprintf(why, n, "it has no dlopen of glibc (glibc 2.34 or later, or libdl.so.2 loaded): a static "
				 "or unknown C library");
		err = -ENOEXEC;
		goto out;
	}
	if (sym_in(pid, &mp, "/libc.so.6", "dlerror", &r->dlerror_fn))
		sym_in(pid, &mp, "/libdl.so.2", "dlerror", &r->dlerror_fn);
	if (find_caves(r, &mp, (size_t)(ct_remote_tramp_end - ct_remote_tramp) + STR_MAX)) {
		snprintf(why, n, "%s", r->cave ? "no writable mapping has 32 unused bytes after its data"
					       : "no executable mapping has room after its code for the call");
		err = -ENOEXEC;
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	r->mem = open(path, O_RDWR | O_CLOEXEC);
	if (r->mem < 0) {
		err = -errno;
		snprintf(why, n, "cannot open %s: %s", path, strerror(-err));
	} else if (ct_proc_stat((uint32_t)pid, &after) || after.start != before.start) {
		/* The pid went to another process while the caves were looked for:
		 * this descriptor is that process's memory, not the one checked. */
		snprintf(why, n, "process %d ended while it was looked at", (int)pid);
		err = -ESRCH;
	}
out:
	maps_free(&mp);
	return err;
}

void ct_remote_close(struct ct_remote *r)
{
	if (r->mem >= 0)
		close(r->mem);
	r->mem = -1;
}

int ct_remote_read_str(const struct ct_remote *r, uint64_t addr, char *buf, size_t n)
{
	ssize_t got = pread(r->mem, buf, n - 1, (off_t)addr);

	if (got <= 0)
		return got < 0 ? -errno : -EIO;
	buf[got] = 0;
	return 0;
}

/* ---- one call ---- */

/*
 * The CUDA driver's own threads (named cuda-EvtHandlr, cuda0000...) are
 * never chosen: what is called (CUPTI's start) calls into the driver,
 * which may want a lock such a thread holds while it waits.
 */
static bool driver_thread(pid_t pid, const char *tid)
{
	char name[300], *comm;
	bool yes;

	snprintf(name, sizeof(name), "task/%s/comm", tid);
	comm = ct_proc_read((uint32_t)pid, name, 64, NULL);
	yes = !comm || !strncmp(comm, "cuda", 4);
	free(comm);
	return yes;
}

/* A thread at a safe point: its wait's number, and room on its stack. */
static int pick_threads(pid_t pid, const struct maps *mp, pid_t *tids, size_t max)
{
	int rank[64];
	size_t n = 0;
	char dir[64];
	struct dirent *d;
	DIR *td;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	if (!(td = opendir(dir)))
		return -errno;
	while ((d = readdir(td)) && n < max && n < 64) {
		char name[300], *text;
		long nr;
		unsigned long long a[6], sp = 0, pc;
		int k;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(name, sizeof(name), "task/%s/syscall", d->d_name);
		text = ct_proc_read((uint32_t)pid, name, 512, NULL);
		if (!text)
			continue;
		k = sscanf(text, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1], &a[2], &a[3], &a[4],
			   &a[5], &sp, &pc);
		free(text);
		if (k != 9 || (k = safe_rank(nr)) < 0 || driver_thread(pid, d->d_name))
			continue;
		/* Room below sp: its mapping's start (the main thread's [stack] grows on its own). */
		bool room = false;

		for (size_t i = 0; i < mp->n; i++)
			if (sp >= mp->m[i].start && sp < mp->m[i].end)
				room = !strcmp(mp->m[i].path, "[stack]") || sp - mp->m[i].start >= STACK_ROOM;
		if (!room)
			continue;
		/* Kept in order of the list's rank. */
		size_t at = n;

		while (at > 0 && rank[at - 1] > k) {
			tids[at] = tids[at - 1];
			rank[at] = rank[at - 1];
			at--;
		}
		tids[at] = (pid_t)atoi(d->d_name);
		rank[at] = k;
		n++;
	}
	closedir(td);
	return (int)n;
}

/* Wait, bounded, for the interrupt's stop; signals that come first are passed on. 0, -ETIME, -ESRCH. */
static int wait_interrupt_stop(pid_t tid)
{
	uint64_t until = mono_ms() + STOP_WAIT_MS;

	for (;;) {
		int st = 0;
		pid_t got = waitpid(tid, &st, __WALL | WNOHANG);

		if (got < 0)
			return -errno;
		if (got == 0) {
			if (mono_ms() > until)
				return -ETIME;
			nap_ms(1);
			continue;
		}
		if (!WIFSTOPPED(st))
			return -ESRCH; /* it ended */
		if ((st >> 16) == PTRACE_EVENT_STOP)
			return WSTOPSIG(st) == SIGTRAP ? 0 : -EAGAIN; /* a group-stop: the process is stopped */
		/* A signal on its way: deliver it as it would have been, and wait on. */
		if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)WSTOPSIG(st)))
			return -errno;
	}
}

/* Where the thread must go back to, with what in rax, for its call to go on as if never stopped. */
static bool plan_resume(const struct user_regs_struct *regs, uint64_t *rax, uint64_t *resume)
{
	long err = -(long)regs->rax;

	if (safe_rank((long)regs->orig_rax) < 0)
		return false;
	*rax = regs->rax;
	*resume = regs->rip;
	switch (err) {
	case ERESTARTSYS:
	case ERESTARTNOINTR:
	case ERESTARTNOHAND:
		*rax = regs->orig_rax;
		*resume = regs->rip - 2;
		break;
	case ERESTART_RESTARTBLOCK:
		*rax = SYS_restart_syscall;
		*resume = regs->rip - 2;
		break;
	}
	return true;
}

static int test_stage_pause(const char *stage)
{
	const char *want = getenv("CUDATRACER_TEST_REMOTE_PAUSE");

	/* A test kills the tracer here (docs/reliability.md): an hour is "forever". */
	if (want && !strcmp(want, stage)) {
		fprintf(stderr, "cudatracer: test: paused at %s\n", stage);
		sleep(3600);
	}
	return 0;
}

/* Steps 1 to 3 on one thread. 0: it is on its way; -EAGAIN: not at a safe point, try another. */
static int send_thread(struct ct_remote *r, pid_t tid, unsigned char *blob, size_t len, char *why, size_t n)
{
	struct ct_remote_args *args = (struct ct_remote_args *)(blob + (ct_remote_tramp_data - ct_remote_tramp));
	struct ct_remote_block old, block = { .magic = BLOCK_MAGIC, .state = STATE_BUSY, .owner = (uint64_t)getpid() };
	struct user_regs_struct regs;
	unsigned char insn[2];
	uint64_t rax = 0;
	int err;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL)) {
		err = -errno;
		snprintf(why, n, "ptrace(PTRACE_SEIZE) of thread %d: %s", (int)tid, strerror(-err));
		return err == -ESRCH ? -EAGAIN : err;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL)) {
		err = -errno;
		goto detach;
	}
	err = wait_interrupt_stop(tid);
	if (err) {
		snprintf(why, n, "thread %d did not stop within %d ms: %s", (int)tid, STOP_WAIT_MS,
			 err == -EAGAIN ? "the process is stopped" : strerror(-err));
		/* Not stopped: detaching needs a stop; the kernel detaches it when we exit. */
		if (err == -ETIME || err == -ESRCH)
			return err;
		goto detach;
	}
	test_stage_pause("stopped");
	/* Stopped, the thread is pinned: it must still be one of the process's (a
	 * tid listed a moment ago may since be another process's thread). */
	if (ct_proc_status_field((uint32_t)tid, "Tgid:") != r->pid) {
		err = -EAGAIN;
		goto detach;
	}
	if (ptrace(PTRACE_GETREGS, tid, NULL, &regs)) {
		err = -errno;
		goto detach;
	}
	/* Stopped in one of the waits, right after its syscall instruction. */
	if (!plan_resume(&regs, &rax, &args->resume) || pread(r->mem, insn, 2, (off_t)(regs.rip - 2)) != 2 ||
	    insn[0] != 0x0f || insn[1] != 0x05) {
		err = -EAGAIN;
		goto detach;
	}
	/* Another tracer's call still running through the caves: not now. */
	if (pread(r->mem, &old, sizeof(old), (off_t)r->block) != (ssize_t)sizeof(old)) {
		err = -errno;
		snprintf(why, n, "reading /proc/%d/mem: %s", (int)r->pid, strerror(-err));
		goto detach;
	}
	if (old.magic == BLOCK_MAGIC && old.state == STATE_BUSY && old.owner != (uint64_t)getpid() &&
	    !kill((pid_t)old.owner, 0)) {
		snprintf(why, n, "another cudatracer (pid %llu) is making a call in it", (unsigned long long)old.owner);
		err = -EBUSY;
		goto detach;
	}
	if (pwrite(r->mem, &block, sizeof(block), (off_t)r->block) != (ssize_t)sizeof(block) ||
	    pwrite(r->mem, blob, len, (off_t)r->cave) != (ssize_t)len) {
		err = -errno;
		snprintf(why, n, "writing into /proc/%d/mem: %s", (int)r->pid, strerror(-err));
		goto detach;
	}
	test_stage_pause("written");
	regs.rax = rax;
	regs.orig_rax = (unsigned long long)-1;
	regs.rip = r->cave;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &regs)) {
		err = -errno;
		goto detach;
	}
	test_stage_pause("pointed");
	err = 0;
detach:
	if (ptrace(PTRACE_DETACH, tid, NULL, NULL) && !err)
		err = -errno;
	if (err && err != -EAGAIN && err != -EBUSY && !*why)
		snprintf(why, n, "ptrace on thread %d: %s", (int)tid, strerror(-err));
	return err;
}

int ct_remote_call(struct ct_remote *r, uint64_t fn, const char *str, uint64_t arg0, uint64_t arg1,
		   int timeout_ms, uint64_t *ret, char *why, size_t n)
{
	size_t code = (size_t)(ct_remote_tramp_end - ct_remote_tramp), len = code;
	unsigned char blob[4096 + STR_MAX];
	struct ct_remote_args *args = (struct ct_remote_args *)(blob + (ct_remote_tramp_data - ct_remote_tramp));
	struct ct_remote_block done;
	uint64_t until;
	pid_t tids[16];
	struct maps mp;
	int k, err;

	why[0] = 0;
	if (code > 4096 || (str && strlen(str) >= STR_MAX))
		return -ENAMETOOLONG;
	memcpy(blob, ct_remote_tramp, code);
	*args = (struct ct_remote_args){ .fn = fn, .arg0 = arg0, .arg1 = arg1, .block = r->block };
	if (str) {
		memcpy(blob + code, str, strlen(str) + 1);
		args->arg0 = r->cave + code;
		len += strlen(str) + 1;
	}
	if ((err = maps_read(r->pid, &mp)))
		return err;
	k = pick_threads(r->pid, &mp, tids, sizeof(tids) / sizeof(tids[0]));
	maps_free(&mp);
	err = -EBUSY;
	for (int i = 0; i < k && err == -EBUSY; i++) {
		why[0] = 0;
		err = send_thread(r, tids[i], blob, len, why, n);
		if (err == -EAGAIN)
			err = -EBUSY;
	}
	if (err) {
		if (err == -EBUSY && !why[0])
			snprintf(why, n, "no thread of it was waiting in a system call with room on its stack (%d "
					 "looked at)", k < 0 ? 0 : k);
		return err;
	}
	/* Step 4: the thread is on its own now. */
	until = mono_ms() + (uint64_t)timeout_ms;
	for (;;) {
		if (pread(r->mem, &done, sizeof(done), (off_t)r->block) != (ssize_t)sizeof(done)) {
			snprintf(why, n, "the process ended during the call");
			return -ESRCH;
		}
		if (done.state == STATE_DONE)
			break;
		if (mono_ms() > until) {
			snprintf(why, n, "the call had not returned after %d ms (it goes on in the process)", timeout_ms);
			return -ETIME;
		}
		nap_ms(1);
	}
	*ret = done.ret;
	return 0;
}
