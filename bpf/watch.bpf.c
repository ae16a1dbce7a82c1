/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The watcher: keeps the set of traced processes (following forks) and
 * catches runtimes that are loaded after tracing starts. When a traced
 * process opens a file whose name starts with one of the plugins' library
 * names, or calls exec, the task is stopped (SIGSTOP, delivered before it
 * returns to user space) and user space is told; user space attaches the
 * probes to that file, then sends SIGCONT. No call is lost to the race
 * between a dlopen and the attach.
 *
 * System-wide (no pid filter), with ct_stop_on_exec, every exec is checked
 * for a runtime linked into the new executable (nvcc links libcudart
 * statically by default, and such a program maps no library to be seen by):
 * the first process of each executable file (by device and inode, in
 * exe_seen) is stopped and reported; user space reads its symbols, probes it
 * if it defines a plugin's, marks it checked and continues it. Every later
 * exec of a checked file costs one hash lookup here and nothing in user
 * space: uprobes are set on the file, so they reach each new process of it.
 * A job of an interactive shell (a process group of its own on a terminal)
 * is reported but not stopped: the shell waits with WUNTRACED, would say
 * "Stopped" and take the terminal back. It is probed as soon as user space
 * has read the file, so calls of its first milliseconds can be missed.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.h"
#include "watch_event.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define SIGSTOP_NR 19
#define SIGCONT_NR 18
#define NR_open 2
#define NR_openat 257
#define NR_openat2 437
#define NR_mmap 9
#define PROT_EXEC_BIT 4
#define O_ACCMODE_BITS 3 /* O_WRONLY, O_RDWR */

const volatile bool ct_filter_pids = false;
const volatile bool ct_stop_on_exec = false;
/* Stop a process that opened a runtime, until it is probed: only for processes
 * we were asked to trace. System-wide, a process is never stopped. */
const volatile bool ct_stop_opens = false;
const volatile __u32 ct_n_patterns = 0;
const volatile __u32 ct_self_tgid = 0; /* the tracer reads these libraries too: never stop it */

#include "pids.bpf.h" /* created here, shared with the capture engine */

/* System-wide: executables checked for a runtime, or being checked. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CT_EXE_SEEN_MAX);
	__type(key, struct ct_exe_key);
	__type(value, __u8);
} exe_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CT_WATCH_PATTERNS);
	__type(key, __u32);
	__type(value, char[CT_WATCH_PATTERN_LEN]);
} patterns SEC(".maps");

/* 1 MiB: some 3,400 events, for a job that starts hundreds of processes at once. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} watch_events SEC(".maps");

/*
 * Tasks stopped for this tracer, by tgid, until it continues them. A
 * SIGSTOP is anyone's to end: another tracer that stopped the same exec
 * (a system-wide one: it checks every new executable), a daemon, a user's
 * `kill -CONT` would release the task before its probes are live, and its
 * first calls would go untraced although the tracer said "probed before its
 * first call". ct_signal stops a held task again when anyone but this
 * tracer or its guard continues it; each tracer that holds a task does, so
 * the last one to finish attaching continues it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} held SEC(".maps");

/* CT_HOLD_*: the guard's tgid (it may continue held tasks), and counts. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CT_HOLD_MAX);
	__type(key, __u32);
	__type(value, __u64);
} hold_state SEC(".maps");

/* Opens that matched at syscall entry, by thread, until the syscall returns. */
struct pending {
	__u32 pattern;
	char path[CT_WATCH_PATH];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct pending);
} opens SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending);
} scratch SEC(".maps");

/* Threads of traced processes inside an mmap of code (PROT_EXEC). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} code_maps SEC(".maps");

static __always_inline bool traced(__u32 tgid)
{
	return !ct_filter_pids || bpf_map_lookup_elem(&pids, &tgid);
}

/* Stop the current task for the tracer: held before the signal is sent, so
 * that no SIGCONT can come between. */
static __always_inline bool hold(__u32 tgid)
{
	__u32 v = CT_HOLD_HELD;

	bpf_map_update_elem(&held, &tgid, &v, BPF_ANY);
	if (bpf_send_signal(SIGSTOP_NR) == 0)
		return true;
	bpf_map_delete_elem(&held, &tgid);
	return false;
}

static __always_inline void hold_count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&hold_state, &which);

	if (c)
		__sync_fetch_and_add(c, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ct_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 one = 1;

	if (ct_filter_pids && ptgid != ctgid && bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ct_exit, struct task_struct *p)
{
	__u32 pid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);
	struct ct_watch_event *e;

	if (pid == tgid)
		bpf_map_delete_elem(&held, &tgid);
	/* System-wide, pids holds the processes that user space asked to hear
	 * of (those that made a traced call), and nothing else looks at it. */
	if (pid != tgid || !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	e = bpf_ringbuf_reserve(&watch_events, sizeof(*e), 0);
	if (!e) {
		hold_count(CT_HOLD_UNSENT);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = CT_WATCH_EXIT;
	e->pid = tgid;
	e->tid = pid;
	e->exit_code = BPF_CORE_READ(p, exit_code);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ct_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct ct_exe_key key = { 0 };
	struct ct_watch_event *e;
	bool job = false; /* a job of a shell with job control: never stopped */

	if (!ct_stop_on_exec)
		return 0;
	if (ct_filter_pids) {
		if (!bpf_map_lookup_elem(&pids, &tgid))
			return 0;
	} else {
		/* The file the process now runs (/proc/PID/exe): a script's interpreter. */
		struct inode *ino = BPF_CORE_READ(p, mm, exe_file, f_inode);
		__u8 *seen, pending = CT_EXE_PENDING;

		if (tgid == ct_self_tgid || !ino)
			return 0;
		key.dev = BPF_CORE_READ(ino, i_sb, s_dev);
		key.ino = BPF_CORE_READ(ino, i_ino);
		seen = bpf_map_lookup_elem(&exe_seen, &key);
		if (seen && *seen == CT_EXE_CHECKED)
			return 0;
		/* Pending: another process of it is being checked; this one waits
		 * too, and is continued once that check is done. */
		if (!seen)
			bpf_map_update_elem(&exe_seen, &key, &pending, BPF_NOEXIST);
		job = BPF_CORE_READ(p, signal, tty) &&
		      BPF_CORE_READ(p, signal, pids[PIDTYPE_PGID]) !=
		      BPF_CORE_READ(p, real_parent, signal, pids[PIDTYPE_PGID]);
	}
	e = bpf_ringbuf_reserve(&watch_events, sizeof(*e), 0);
	if (!e) {
		hold_count(CT_HOLD_UNSENT);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->exe_dev = key.dev;
	e->exe_ino = key.ino;
	e->kind = CT_WATCH_EXEC;
	e->pid = tgid;
	e->tid = BPF_CORE_READ(p, pid);
	bpf_probe_read_kernel_str(e->path, sizeof(e->path), BPF_CORE_READ(bprm, filename));
	e->stopped = !job && hold(tgid);
	e->stop_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, e->stopped ? BPF_RB_FORCE_WAKEUP : 0);
	return 0;
}

struct base_ctx {
	const char *path;
	int len;
	int base;
};

static long find_base(__u64 i, void *data)
{
	struct base_ctx *c = data;
	char ch;

	if ((int)i >= c->len)
		return 1;
	bpf_probe_read_kernel(&ch, 1, c->path + (i & (CT_WATCH_PATH - 1)));
	if (ch == '/')
		c->base = i + 1;
	return 0;
}

/* Does the basename of `path` start with one of the patterns? */
static __always_inline int match_pattern(struct pending *pd, int len)
{
	struct base_ctx c = { pd->path, len, 0 };
	char name[CT_WATCH_PATTERN_LEN];

	bpf_loop(CT_WATCH_PATH, find_base, &c, 0);
	__builtin_memset(name, 0, sizeof(name));
	bpf_probe_read_kernel_str(name, sizeof(name), pd->path + (c.base & (CT_WATCH_PATH - 1)));
	/* p is a register and key its stack copy: a loop counter whose address
	 * is taken is spilled as 32 bits, which the verifier does not track, and
	 * it then rejects the loop as infinite (seen with four plugins). */
	for (int p = 0; p < CT_WATCH_PATTERNS; p++) {
		__u32 key = p;
		const char *pat;
		bool ok = true;

		if (p >= ct_n_patterns)
			break;
		pat = bpf_map_lookup_elem(&patterns, &key);
		if (!pat || !pat[0])
			continue;
		for (int j = 0; j < CT_WATCH_PATTERN_LEN; j++) {
			if (!pat[j])
				break;
			if (name[j] != pat[j]) {
				ok = false;
				break;
			}
		}
		if (ok)
			return p;
	}
	return -1;
}

/*
 * Syscalls. The watcher wants three opens and mmap; the per-syscall
 * tracepoints run it for those only. A traced call makes syscalls of its
 * own (uprobes and uretprobes enter the kernel through one on recent x86-64
 * kernels), and a program on every syscall would cost each of them two
 * runs. The all-syscalls raw tracepoint is the fallback for kernels built
 * without syscall tracepoints.
 */
static __always_inline int on_mmap(__u64 prot)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt, one = 1;

	/* Code being mapped by a traced process: said when the mmap returns. */
	if (ct_filter_pids && (prot & PROT_EXEC_BIT) && bpf_map_lookup_elem(&pids, &(__u32){ pt >> 32 }))
		bpf_map_update_elem(&code_maps, &tid, &one, BPF_ANY);
	return 0;
}

/*
 * ld.so opens a library read-only. A file opened for writing is not being
 * loaded but written (a linker's output, pip installing a wheel): read now
 * it is half a file, and its inode would be taken as probed.
 */
static __always_inline int on_open(const char *name, __u64 flags)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt, zero = 0;
	struct pending *pd;
	int len, m;

	if (!ct_n_patterns || (flags & O_ACCMODE_BITS) || (pt >> 32) == ct_self_tgid || !traced(pt >> 32))
		return 0;
	pd = bpf_map_lookup_elem(&scratch, &zero);
	if (!pd)
		return 0;
	len = bpf_probe_read_user_str(pd->path, sizeof(pd->path), name);
	if (len <= 0)
		return 0;
	/* A runtime opened through /proc (another tracer probing a process's
	 * copy through /proc/PID/root, an inspector) is being read, not loaded:
	 * ld.so opens libraries by their paths. Followed, two tracers would
	 * stop each other and open each other's /proc paths without end. */
	if (len > 6 && pd->path[0] == '/' && pd->path[1] == 'p' && pd->path[2] == 'r' && pd->path[3] == 'o' &&
	    pd->path[4] == 'c' && pd->path[5] == '/')
		return 0;
	m = match_pattern(pd, len);
	if (m < 0)
		return 0;
	pd->pattern = m;
	bpf_map_update_elem(&opens, &tid, pd, BPF_ANY);
	return 0;
}

static __always_inline int on_sys_exit(long ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt;
	struct ct_watch_event *e;
	struct pending *pd;

	if (ct_filter_pids && bpf_map_lookup_elem(&code_maps, &tid)) {
		/* Code was mapped: user space reads the maps again while the process
		 * runs, so kernel names resolve even after it has exited. The task
		 * is not stopped. */
		bpf_map_delete_elem(&code_maps, &tid);
		if (ret >= 0 || ret < -4095) {
			e = bpf_ringbuf_reserve(&watch_events, sizeof(*e), 0);
			if (!e)
				hold_count(CT_HOLD_UNSENT);
			if (e) {
				__builtin_memset(e, 0, sizeof(*e));
				e->kind = CT_WATCH_MAP;
				e->pid = pt >> 32;
				e->tid = tid;
				bpf_ringbuf_submit(e, 0);
			}
		}
		return 0;
	}
	if (!ct_n_patterns)
		return 0;
	pd = bpf_map_lookup_elem(&opens, &tid);
	if (!pd)
		return 0;
	if (ret >= 0) {
		e = bpf_ringbuf_reserve(&watch_events, sizeof(*e), 0);
		if (!e)
			hold_count(CT_HOLD_UNSENT);
		if (e) {
			e->kind = CT_WATCH_OPEN;
			e->pid = pt >> 32;
			e->tid = tid;
			e->pattern = pd->pattern;
			e->fd = ret;
			e->exit_code = 0;
			__builtin_memcpy(e->path, pd->path, sizeof(e->path));
			e->stopped = ct_stop_opens && hold(pt >> 32);
			e->stop_ns = bpf_ktime_get_ns();
			/* Woken at once: until it reads this, the task is held by
			 * the SIGSTOP alone (see ct_signal). */
			bpf_ringbuf_submit(e, e->stopped ? BPF_RB_FORCE_WAKEUP : 0);
		}
	}
	bpf_map_delete_elem(&opens, &tid);
	return 0;
}

/* The syscalls the watcher wants, by number, whichever hook saw them. */
static __always_inline int on_sys_enter(long id, __u64 a0, __u64 a1, __u64 a2)
{
	switch (id) {
	case NR_mmap:
		return on_mmap(a2);
	case NR_openat:
		return on_open((const char *)a1, a2);
	case NR_openat2: {
		__u64 flags = 0; /* struct open_how begins with its flags */

		bpf_probe_read_user(&flags, sizeof(flags), (const void *)a2);
		return on_open((const char *)a1, flags);
	}
	case NR_open:
		return on_open((const char *)a0, a1);
	}
	return 0;
}

/*
 * Attached by user space to the entry and exit tracepoints of each of those
 * syscalls (core/watch.c lists them); the record says which syscall it is.
 */
SEC("tracepoint")
int ct_sc_enter(struct trace_event_raw_sys_enter *ctx)
{
	return on_sys_enter((int)ctx->id, ctx->args[0], ctx->args[1], ctx->args[2]);
}

SEC("tracepoint")
int ct_sc_exit(struct trace_event_raw_sys_exit *ctx)
{
	return on_sys_exit(ctx->ret);
}

/* The fallback: every syscall. */
SEC("tp_btf/sys_enter")
int BPF_PROG(ct_sys_enter, struct pt_regs *regs, long id)
{
	return on_sys_enter(id, BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), BPF_CORE_READ(regs, dx));
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ct_sys_exit, struct pt_regs *regs, long ret)
{
	long id = BPF_CORE_READ(regs, orig_ax);

	if (id != NR_mmap && id != NR_openat && id != NR_openat2 && id != NR_open)
		return 0;
	return on_sys_exit(ret);
}

/*
 * A SIGCONT to a task held for this tracer, from anyone but the tracer or
 * its guard, ends the stop (the kernel has woken the task by the time this
 * tracepoint runs, with the target's siglock held), unless the tracer has
 * seized it (core/capture/hold.c: from its read of the event on; it is
 * then only counted). Before that the task is stopped again at once. The
 * SIGSTOP goes through irq_work (interrupts are off here), sent as soon as the sender drops the lock; the task takes it on its way
 * back to user space, or at the latest when its next syscall returns: before
 * ld.so can map the library just opened, or reach main after an exec. So the
 * last holder's SIGCONT is the one that lets it run.
 */
SEC("tp_btf/signal_generate")
int BPF_PROG(ct_signal, int sig, struct kernel_siginfo *info, struct task_struct *task, int group,
	     int result)
{
	__u32 me, tgid, key = CT_HOLD_GUARD, *hold;
	__u64 *guard;

	if (sig != SIGCONT_NR || !task)
		return 0;
	tgid = task->tgid;
	hold = bpf_map_lookup_elem(&held, &tgid);
	if (!hold)
		return 0;
	me = bpf_get_current_pid_tgid() >> 32;
	guard = bpf_map_lookup_elem(&hold_state, &key);
	if (me == ct_self_tgid || (guard && *guard == me))
		return 0;
	/* Under the tracer's ptrace the SIGCONT did not wake it: nothing to do. */
	if (*hold == CT_HOLD_TRACED) {
		hold_count(CT_HOLD_KEPT);
		return 0;
	}
	/* Marked before the stop is sent: the tracer releasing the task now
	 * reads the mark, and looks again for a stop that lands after its own
	 * SIGCONT (ct_watcher_release). */
	*hold = CT_HOLD_RESTOP_SENT;
	if (bpf_ksym_exists(bpf_send_signal_task) &&
	    bpf_send_signal_task(task, SIGSTOP_NR, PIDTYPE_TGID, 0) == 0)
		hold_count(CT_HOLD_RESTOPPED);
	else
		hold_count(CT_HOLD_LOST);
	return 0;
}
