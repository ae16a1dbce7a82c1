/* SPDX-License-Identifier: MIT */
/* Events from the watcher (bpf/watch.bpf.c) to user space. */
#ifndef CT_WATCH_H
#define CT_WATCH_H

#define CT_WATCH_PATTERNS 16
#define CT_WATCH_PATTERN_LEN 32
#define CT_WATCH_PATH 256

enum ct_watch_kind {
	CT_WATCH_OPEN = 1, /* a library the plugins want was opened; task stopped */
	CT_WATCH_EXEC,     /* a traced process called exec; task stopped */
	CT_WATCH_EXIT,     /* a traced process exited */
	CT_WATCH_MAP,      /* a traced process mapped code (a library): its maps changed */
};

struct ct_watch_event {
	ct_u32 kind;
	ct_u32 pid;
	ct_u32 tid;
	ct_u32 pattern;    /* CT_WATCH_OPEN: index of the matched pattern */
	ct_u64 fd;         /* CT_WATCH_OPEN: the fd openat returned */
	ct_u32 exit_code;  /* CT_WATCH_EXIT */
	ct_u32 stopped;    /* 1: the task was sent SIGSTOP and waits for SIGCONT */
	char path[CT_WATCH_PATH];
	/* CT_WATCH_EXEC, system-wide: the new executable's key in the watcher's
	 * exe_seen map (the kernel's dev_t, not stat's), to mark it checked */
	ct_u64 exe_dev, exe_ino;
	ct_u64 stop_ns;    /* stopped: when (CLOCK_MONOTONIC), to time the tracer's seize */
};

/* exe_seen's key and values (system-wide exec checks, see watch.bpf.c). */
struct ct_exe_key {
	ct_u64 dev, ino;
};
#define CT_EXE_PENDING 1 /* its first process is stopped and being checked */
#define CT_EXE_CHECKED 2 /* probed if it has a runtime: later processes run on */
#define CT_EXE_SEEN_MAX 8192

/* held's values: the task is held; and a SIGSTOP was sent to stop it again
 * after another process continued it, which may land late (ct_signal); and
 * the tracer holds it under ptrace, where another's SIGCONT does not wake it
 * (core/capture/hold.c): no stop is sent again. */
#define CT_HOLD_HELD 1
#define CT_HOLD_RESTOP_SENT 2
#define CT_HOLD_TRACED 3

/* The watcher's hold_state slots (watch.bpf.c, ct_signal). */
enum ct_hold_slot {
	CT_HOLD_GUARD,     /* the guard's tgid: it may continue held tasks */
	CT_HOLD_RESTOPPED, /* held tasks another process continued, stopped again */
	CT_HOLD_LOST,      /* ... that could not be stopped again */
	CT_HOLD_UNSENT,    /* events the ring had no room for (their tasks were not held) */
	CT_HOLD_KEPT,      /* held tasks another process continued, kept stopped by ptrace */
	CT_HOLD_MAX,
};

#endif
