// SPDX-License-Identifier: MIT
/*
 * One tracing run: load the plugins, start the watcher and the capture
 * engine that serves them all, find the targets, attach, release a held
 * command, then poll the ring buffers until the end (in aggregate mode,
 * read the kernel's totals into the sinks instead); drain, close every sink
 * and report what was lost. Resources are released in reverse order.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util/procfs.h"
#include "record.h"
#include "watch_event.h"
#include "analysis/analysis.h"
#include "decode/decode.h"
#include "decode/device.h"
#include "decode/gpu.h"
#include "decode/nvtx.h"
#include "ct_nvtx.h"
#include "decode/graphs.h"
#include "capture/ownlib.h"
#include "capture/gpu.h"
#include "capture/guard.h"
#include "symbols/demangle.h"
#include "symbols/symbolizer.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/plural.h"
#include "util/u64map.h"
#include "decode/comms.h"
#include "decode/hangs.h"
#include "decode/names.h"
#include "sinks/hist.h"
#include "decode/cgroup.h"
#include "decode/procenv.h"
#include "decode/procgpu.h"
#include "symbols/python.h"
#include "sinks/output.h"
#include "sinks/hangtext.h"
#include "sinks/sinkio.h"
#include "plugin/loader.h"
#include "capture/engine.h"
#include "capture/inproc.h"
#include "capture/shmring.h"
#include "capture/probe.h"
#include "capture/ring.h"
#include "daemon.h"
#include "capture/stacks.h"
#include "session.h"
#include "options.h"
#include "capture/target.h"
#include "capture/watcher.h"

/* What to raise when a ring was full: the option a user may have typed and
 * the INI key ("--ringbuf-size or [tracer] ringbuf_size"), from the option
 * table. Each use has its own buffer, alive for the call it is in. */
#define RINGBUF_ADVICE ct_options_how_to_set("tracer.ringbuf_size", (char[80]){ 0 }, 80)
#define INPROC_RING_ADVICE ct_options_how_to_set("tracer.inproc_ring_size", (char[80]){ 0 }, 80)

struct session {
	struct ct_config *conf;
	const struct ct_target *target;
	int n_plugins;
	struct ct_loaded_plugin plugins[CT_MAX_PLUGINS];
	struct ct_probe probes[CT_MAX_PLUGINS];
	bool *enabled[CT_MAX_PLUGINS];
	bool *entry_only[CT_MAX_PLUGINS];
	bool aggregate;
	struct ct_engine engine;
	struct ct_watcher watcher;
	struct ct_guard guard; /* continues stopped tasks if we die: see guard.c */
	const char *patterns[CT_WATCH_PATTERNS];
	int pattern_plugin[CT_WATCH_PATTERNS];
	int n_patterns;
	struct ct_rings rings; /* the engine's, then the watcher's */
	struct ct_output out;
	struct ct_run_stats stats;
	int64_t wall_offset;
	pid_t child;
	int child_status;
	bool child_done;
	bool target_gone;
	bool traced; /* the probes were live: the run has totals to tell */
	unsigned late_ended;   /* runtimes opened by processes that ended before they were probed */
	unsigned late_unfound; /* ... by processes that no longer had them open or mapped */
	int release_fd; /* write end of the pipe that holds the command */
	struct ct_event ev;
	struct ct_record full;
	bool gpu;              /* --gpu-activity: the command's driver loads the injection library */
	uint64_t gpu_messages; /* what the injection libraries said */
	struct ct_gpu_source gpu_src;
	struct ct_gpu_sink gpu_sink;
	/* NVTX (docs/nvtx.md): the injection given to a command, the nvtx
	 * plugin's index (-1: none), the ranges of its processes. */
	char nvtx_path[PATH_MAX];
	int nvtx_plugin;
	struct ct_nvtx nvtx;
	bool inproc;           /* --engine inproc: the command's preload library writes s->shm */
	struct ct_shmring shm;
	/* System-wide: the processes whose exit the watcher is to tell (with
	 * a command or -p, every traced pid is in its map already). */
	struct ct_u64map followed;
	struct ct_u64map tree; /* --engine inproc: pid -> TREE_OURS or TREE_NOT (inproc_believed) */
	uint32_t believed_last;
	uint64_t untrusted;    /* --engine inproc: records that named a process outside the command's tree */
	uint32_t last_followed;
	uint32_t *gone;        /* ended before the watcher knew them: their exit, once the batch is read */
	size_t n_gone, cap_gone;
	uint64_t unfollowed;   /* could not be added (the map is full): their state stays */
	uint64_t exits_swept;  /* ended unheard, found by sweep_followed */
	struct ct_stacks stacks;  /* --stacks: the engine's stacks, by process */
	struct ct_hangs hangs;    /* tracer.hang_timeout: calls in flight that can hang */
	bool hang_watch;
	uint64_t hangs_checked; /* CLOCK_MONOTONIC */
	/* From SIGUSR1 to SIGUSR2 recording is paused (pause_apply). */
	bool paused;
	unsigned pauses;
	uint64_t lost_said, lost_said_at; /* the live word on loss: the count said last, when */
	uint64_t paused_at, paused_ns; /* CLOCK_MONOTONIC: since when, and in all before it */
	uint64_t events_at_pause;
	uint64_t traced_at, stopped_at; /* CLOCK_MONOTONIC: the probes live, and tracing stopped */
};

static volatile sig_atomic_t stop_signal;
/* Daemon mode: SIGHUP asks for a reload, it does not stop the run. */
static volatile sig_atomic_t hup_reloads, hup_pending;
/* SIGUSR1: recording paused; SIGUSR2: resumed. The run's loop acts on it.
 * Kept from one session to the next: a daemon's reload keeps the pause. */
static volatile sig_atomic_t pause_wanted;
static bool sessions_begun; /* tracer.start_paused is the first session's */

/* libbpf's own messages (the verifier's log among them) only with -v. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG ? ct_verbosity < CT_LOG_DEBUG : ct_verbosity < CT_LOG_INFO)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1 || sig == SIGUSR2)
		pause_wanted = sig == SIGUSR1;
	else if (sig == SIGHUP && hup_reloads)
		hup_pending = 1;
	else
		stop_signal = sig;
}

/* Each ends the run the same way: drain, close every sink, report (SIGHUP
 * in daemon mode: a reload, which ends the run that way too once the new
 * config is accepted). SIGUSR1 and SIGUSR2 pause and resume recording. */
static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught_signals) / sizeof(caught_signals[0]); i++)
		sigaction(caught_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * A stop that came before the probes were live: the held command must not
 * run untraced, so it is never released (it ends without calling exec).
 */
static bool stopped_before_tracing(const struct session *s)
{
	if (!stop_signal)
		return false;
	if (s->target->argv)
		ct_err("stopped by SIG%s before tracing began: %s not run", sigabbrev_np(stop_signal),
		       s->target->argv[0]);
	else
		ct_err("stopped by SIG%s before tracing began", sigabbrev_np(stop_signal));
	return true;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int ct_check_privileges(bool command)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		ct_err("this kernel exposes no BTF (/sys/kernel/btf/vmlinux: %s): cudatracer's programs need a "
		       "kernel built with CONFIG_DEBUG_INFO_BTF=y (most distribution kernels since 5.x)",
		       strerror(errno));
		return -ENOTSUP;
	}
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	bool bpf, perfmon, admin;

	if (geteuid() == 0)
		return 0;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -errno;
#define HAS(cap) ((d[(cap) / 32].effective >> ((cap) % 32)) & 1)
	bpf = HAS(CAP_BPF);
	perfmon = HAS(CAP_PERFMON);
	admin = HAS(CAP_SYS_ADMIN);
#undef HAS
	if (admin || (bpf && perfmon))
		return 0;
	ct_err("cudatracer's eBPF engine loads BPF programs and uprobes: it needs root, or CAP_BPF and "
	       "CAP_PERFMON (missing: %s%s%s)", bpf ? "" : "CAP_BPF", !bpf && !perfmon ? ", " : "",
	       perfmon ? "" : "CAP_PERFMON");
	/* A command of one's own is traced without privileges by the in-process
	 * engine: offered first, before changing the binary for every user. */
	if (command)
		ct_err("trace the command in-process instead, with no privileges: cudatracer --engine inproc "
		       "-- COMMAND (docs/engines.md)");
	ct_err("%s: sudo setcap cap_bpf,cap_perfmon+ep $(command -v cudatracer)",
	       command ? "or give the binary the capabilities" : "for example");
	return -EPERM;
}

static bool glob_list_matches(const struct ct_list *globs, const char *name)
{
	for (size_t i = 0; i < globs->n; i++)
		if (fnmatch(globs->v[i], name, 0) == 0)
			return true;
	return false;
}

void ct_session_select(const struct ct_config *conf, const struct ct_plugin *p, bool *enabled)
{
	bool full = conf->tracer.profile == CT_PROFILE_FULL;
	const struct ct_list *inc = &conf->filter.include;

	for (size_t i = 0; i < p->n_apis; i++) {
		const char *sym = p->apis[i].symbol;

		if (inc->n)
			enabled[i] = glob_list_matches(inc, sym);
		else
			enabled[i] = full || !(p->apis[i].flags & CT_API_HOT);
		if (glob_list_matches(&conf->filter.exclude, sym))
			enabled[i] = false;
	}
}

const char *const ct_timing_names[] = {
	[CT_TIMING_TIMED] = "timed",
	[CT_TIMING_ENTRY_PLUGIN] = "entry-only (plugin default)",
	[CT_TIMING_ENTRY_CONFIG] = "entry-only (tracer.entry_only)",
	[CT_TIMING_TIMED_CONFIG] = "timed (tracer.timed)",
};

/* tracer.timed wins over tracer.entry_only, which adds to the plugin's rows. */
enum ct_timing ct_session_timing(const struct ct_config *conf, const struct ct_api *a)
{
	bool plugin = (a->flags & CT_API_ENTRY_ONLY) != 0;
	bool config = glob_list_matches(&conf->tracer.entry_only, a->symbol);

	if ((plugin || config) && glob_list_matches(&conf->tracer.timed, a->symbol))
		return CT_TIMING_TIMED_CONFIG;
	return plugin ? CT_TIMING_ENTRY_PLUGIN : config ? CT_TIMING_ENTRY_CONFIG : CT_TIMING_TIMED;
}

/* Whether a glob or name matches an API of the loaded plugins. */
static bool glob_names_api(const char *glob, const struct ct_loaded_plugin *lp, int n)
{
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < lp[i].p->n_apis; k++)
			if (fnmatch(glob, lp[i].p->apis[k].symbol, 0) == 0)
				return true;
	return false;
}

/* A glob or name that matches no API of the plugins is a typo (--include
 * cudaMaloc): said at `level`, by the key and the option that set it.
 * Returns how many matched none. */
static int say_unmatched(int level, const char *key, const struct ct_list *globs,
			 const struct ct_loaded_plugin *lp, int n)
{
	int missed = 0;

	for (size_t g = 0; g < globs->n; g++) {
		if (glob_names_api(globs->v[g], lp, n))
			continue;
		missed++;
		ct_log(level, "%s: '%s' matches no API of the loaded plugins (--list-apis lists them)", key,
		       globs->v[g]);
	}
	return missed;
}

/* The plugins the user named: all but NVTX's, which tracer.nvtx adds last. */
static int named_plugins(const struct session *s)
{
	return s->n_plugins - (s->nvtx_path[0] && s->nvtx_plugin == s->n_plugins - 1);
}

/* Every pattern of the config checked against the plugins' APIs: one that
 * leaves nothing traced, or a stack word that means nothing, is an error;
 * one beside patterns that match, a warning. */
static int check_patterns(const struct session *s)
{
	const struct ct_config *c = s->conf;
	const struct ct_loaded_plugin *lp = s->plugins;
	char words[128];
	size_t on = 0;

	say_unmatched(CT_LOG_WARN, "tracer.entry_only", &c->tracer.entry_only, lp, s->n_plugins);
	say_unmatched(CT_LOG_WARN, "tracer.timed", &c->tracer.timed, lp, s->n_plugins);
	for (int i = 0; i < named_plugins(s); i++) /* NVTX's are always on */
		for (size_t k = 0; k < lp[i].p->n_apis; k++)
			on += s->enabled[i][k];
	if (!on) {
		say_unmatched(CT_LOG_ERROR, "filter.include (--include)", &c->filter.include, lp, s->n_plugins);
		ct_err("filter.include (--include) and filter.exclude (--exclude) leave no API of the loaded "
		       "plugins to trace: nothing would be traced");
		return -EINVAL;
	}
	say_unmatched(CT_LOG_WARN, "filter.include (--include)", &c->filter.include, lp, s->n_plugins);
	say_unmatched(CT_LOG_WARN, "filter.exclude (--exclude)", &c->filter.exclude, lp, s->n_plugins);
	for (size_t g = 0; c->stacks.enabled && g < c->stacks.apis.n; g++) {
		const char *w = c->stacks.apis.v[g];

		if (ct_stacks_word_known(w) || glob_names_api(w, lp, s->n_plugins))
			continue;
		ct_stacks_words(words, sizeof(words));
		ct_err("stacks.apis (--stacks=APIS): '%s' is neither a kind of call (%s) nor a glob that "
		       "matches an API of the loaded plugins (--list-apis lists them)", w, words);
		return -EINVAL;
	}
	return 0;
}

static bool keep(const struct session *s, const struct ct_event *ev)
{
	const struct ct_filter_conf *f = &s->conf->filter;

	if (f->comm && *f->comm && strcmp(f->comm, ev->comm))
		return false;
	/* An entry-only call's time is unknown: were it kept, every cudaEventRecord
	 * (entry-only by default) would pass a filter meant to show slow calls. */
	if (f->min_duration && (ev->entry_only || ev->dur_ns < f->min_duration))
		return false;
	if (f->errors_only && !ev->is_error)
		return false;
	return true;
}

static void on_gpu_event(void *ctx, const struct ct_gpu_event *g)
{
	struct session *s = ctx;
	struct ct_gpu_event e = *g;

	s->stats.gpu_events++;
	ct_nvtx_note_gpu(&s->nvtx, &e);
	ct_output_gpu(&s->out, &e);
}

static void on_nvtx(void *ctx, const struct ct_nvtx_event *r)
{
	struct session *s = ctx;

	if (r->mark)
		s->stats.nvtx_marks++;
	else
		s->stats.nvtx_ranges++;
	ct_output_nvtx(&s->out, r);
	/* Steps of the sinks' answer, with --step-range (ranges end after their calls, as in a trace). */
	if (!r->mark && ct_an_sinks_range(r->pid, r->ts_ns, r->end_ns, r->name) == -ENOMEM)
		s->nvtx.st.no_memory++;
}

/* The sinks' answer (core/analysis/live.c) as [analysis] asks, from the run's first GPU record. */
static void analysis_configure(const struct ct_config *conf)
{
	struct ct_an_opts o = CT_AN_OPTS_DEFAULT;

	o.range_pattern = conf->analysis.step_range;
	o.py_function = conf->analysis.step_function;
	o.host_gap_ns = conf->analysis.host_gap_ns;
	o.link_gbps = ct_config_link_gbps(conf);
	if (ct_an_sink_configure(&o, false))
		ct_warn("analysis: out of memory: [analysis] options not taken");
	ct_an_sinks_trace(true, CT_TRACE_VERSION); /* a live run lacks nothing a trace's version may */
}

/* What the injection library in a traced process had to say (CUPTI missing, refused ...). */
static void on_gpu_message(void *ctx, uint32_t pid, enum ct_wire_level level, const char *text)
{
	struct session *s = ctx;
	char esc[1024];

	/* The process's text (a libcupti's error string, a path): escaped, or
	 * a line break in it forges a line of ours and ESC drives the terminal. */
	ct_text_esc(esc, sizeof(esc), text);
	s->gpu_messages++;
	if (level == CT_W_INFO)
		ct_info("pid %u: GPU activity: %s", pid, esc);
	else
		ct_warn("pid %u: GPU activity: %s", pid, esc);
}

/*
 * --engine inproc: a record names its process itself, and the command (any
 * user's) can write anything into the ring. A pid is believed only for a
 * process of the command's tree, by its parent links, looked at when the
 * process says it has started (it waits then, alive: a pid taken again is
 * looked at again) or at its first record; what is read for a process (its
 * environment, cgroup, maps) is read only for those. Processes outside the
 * tree are remembered up to TREE_STRANGERS, then looked at each time.
 */
#define TREE_OURS ((void *)1)
#define TREE_NOT ((void *)2)
#define TREE_STRANGERS 4096

/* The command, or a process already found in its tree (its parent may have
 * ended since: a shell that started it in the background). */
static bool tree_known(void *ctx, uint32_t pid)
{
	struct session *s = ctx;

	return pid == (uint32_t)s->child || ct_u64map_get(&s->tree, pid) == TREE_OURS;
}

static bool inproc_believed(struct session *s, uint32_t pid, bool start)
{
	void *v;

	if (pid == s->believed_last && !start)
		return true;
	v = start ? NULL : ct_u64map_get(&s->tree, pid);
	if (!v) {
		if (start)
			ct_u64map_del(&s->tree, pid); /* a pid taken again: looked at anew */
		v = s->child && ct_inproc_in_tree(pid, tree_known, s) ? TREE_OURS : TREE_NOT;
		if (v == TREE_OURS || s->tree.n < TREE_STRANGERS)
			ct_u64map_put(&s->tree, pid, v);
	}
	if (v != TREE_OURS)
		return false;
	s->believed_last = pid;
	return true;
}

/* --engine inproc: a process of the command has started (shm.h); it waits
 * until this is done. What the watcher does at an exec. */
static void inproc_started(uint32_t pid)
{
	ct_sym_forget(pid);
	ct_procenv_forget(pid);
	ct_procenv_get(pid);
	ct_procgpu_forget(pid);
	ct_cgroup_of_pid(pid); /* its records carry no cgroup id: read while it lives */
	ct_sym_refresh(pid);
}

static void proc_exit(struct session *s, uint32_t pid);
static void pause_apply(struct session *s);

/* /proc/PID/stat says it has ended, or is ending (PF_EXITING, past the
 * point where the watcher's exit tracepoint ran); else *start is when the
 * process that has the pid now started. */
static bool proc_gone(uint32_t pid, unsigned long long *start)
{
	struct ct_proc_stat st;
	int err = ct_proc_stat(pid, &st);

	*start = st.start;
	if (err)
		return err == -ENOENT || err == -ESRCH;
	return st.state == 'Z' || st.state == 'X' || (st.flags & CT_PF_EXITING);
}

/* What s->followed keeps of a pid: when its process started (never NULL). */
#define FOLLOWED(start) ((void *)(uintptr_t)((start) + 1))

/* Not here: the ring is being read. As many as a batch brings (a job that
 * starts hundreds of short processes at once): one left out would keep its
 * state, its series and its place in the watcher's map for good. */
static void gone_later(struct session *s, uint32_t pid)
{
	if (s->n_gone == s->cap_gone) {
		size_t cap = s->cap_gone ? 2 * s->cap_gone : 64;
		uint32_t *g = realloc(s->gone, cap * sizeof(*g));

		if (!g) {
			s->unfollowed++;
			return;
		}
		s->gone = g;
		s->cap_gone = cap;
	}
	s->gone[s->n_gone++] = pid;
}

/*
 * System-wide, the watcher knows no process until it is told of one: each
 * that makes a traced call is named to it, so that its exit is heard and
 * what is kept for it (the sinks' per-process series, the decoders' maps)
 * goes with it. One that ended before it was named is taken as ended now.
 * Its first record woke the reader (ct_emit): its maps are read now, while
 * it lives, since a job of a few milliseconds is gone by its first launch's
 * decoding and its kernels' names with it (--lib).
 */
static void follow_exit(struct session *s, uint32_t pid)
{
	unsigned long long start;

	if (pid == s->last_followed || s->target->pid || s->target->argv || !pid)
		return;
	s->last_followed = pid;
	if (ct_u64map_get(&s->followed, pid))
		return;
	if (ct_u64map_put(&s->followed, pid, FOLLOWED(0)))
		return;
	if (ct_watcher_add_pid(&s->watcher, (pid_t)pid)) {
		s->unfollowed++;
		ct_u64map_del(&s->followed, pid);
		return;
	}
	ct_sym_refresh(pid);
	if (!proc_gone(pid, &start)) {
		ct_u64map_put(&s->followed, pid, FOLLOWED(start));
		return;
	}
	gone_later(s, pid);
}

static void follow_gone(struct session *s)
{
	while (s->n_gone)
		proc_exit(s, s->gone[--s->n_gone]);
}

/*
 * The pids of s->followed whose process has ended unheard: an exit the
 * watcher could not send (its ring full: counted), or one whose pid another
 * process has taken since (it started later). Every 2 s, from the main
 * loop (one read of /proc/PID/stat a pid: some microseconds each); without
 * it, such a process's state and series would be kept for good.
 */
static void sweep_followed(struct session *s)
{
	uint64_t pid;
	void *v;

	for (size_t it = 0; ct_u64map_next(&s->followed, &it, &pid, &v);) {
		unsigned long long start;

		if (proc_gone((uint32_t)pid, &start) || (v != FOLLOWED(0) && v != FOLLOWED(start))) {
			s->exits_swept++;
			gone_later(s, (uint32_t)pid);
		}
	}
	follow_gone(s);
}

static void deliver(struct session *s);

/* A call past tracer.hang_timeout, or its end: said on stderr, and to the sinks. */
static void on_hang(void *ctx, const struct ct_hang *h)
{
	struct session *s = ctx;

	ct_hang_say(h);
	ct_output_hang(&s->out, h);
}

/* The ring's records: every plugin's, in the order each thread made its calls;
 * and the injection library's batches of GPU activity. */
static int on_record(void *ctx, void *data, size_t len)
{
	struct session *s = ctx;
	const struct ct_gpu_chunk *c = data;
	const struct ct_record *r;
	uint32_t plugin;

	if (s->inproc && len >= CT_REC_HEAD_SIZE) {
		uint32_t pid = ((const struct ct_record *)data)->pid;

		if (!inproc_believed(s, pid, c->call == CT_SHM_CALL_START)) {
			s->untrusted++;
			return 0;
		}
		if (c->call == CT_SHM_CALL_START) {
			inproc_started(pid);
			return 0;
		}
	}

	if (ct_stacks_take(&s->stacks, data, len))
		return 0;
	if (len >= CT_GPU_CHUNK_HEAD && c->call == CT_CALL_GPU) {
		if (c->len <= len - CT_GPU_CHUNK_HEAD)
			ct_gpu_decode(&s->gpu_sink, c->pid, c->tid, c->data, c->len);
		return 0;
	}
	r = ct_record_whole(data, len, &s->full);
	plugin = r ? CT_CALL_PLUGIN(r->call) : 0;
	if (r) /* before it is decoded: its maps name its kernels */
		follow_exit(s, r->pid);

	if (!r || plugin >= (uint32_t)s->n_plugins ||
	    ct_decode(s->plugins[plugin].p, r, s->wall_offset, &s->ev)) {
		s->stats.filtered++;
		return 0;
	}
	if ((int)plugin == s->nvtx_plugin) { /* ranges and marks, not calls */
		ct_nvtx_take(&s->nvtx, &s->ev);
		return 0;
	}
	if (r->flags & CT_REC_HAS_PARENT) {
		uint32_t pl = CT_CALL_PLUGIN(r->parent), api = CT_CALL_API(r->parent);

		if (pl < (uint32_t)s->n_plugins && api < s->plugins[pl].p->n_apis) {
			s->ev.parent_plugin = s->plugins[pl].p->name;
			s->ev.parent_api = s->plugins[pl].p->apis[api].symbol;
		}
	}
	if (s->hang_watch && (r->flags & CT_REC_BEGIN)) { /* held until its return, not an event of its own */
		struct ct_hang_pcs st = { 0 };

		st.n = ct_stacks_raw(&s->stacks, r, &st.pcs, &st.hash, &st.end);
		ct_hangs_note(&s->hangs, &s->ev, &st);
		return 0;
	}
	s->ev.stack = ct_stacks_of(&s->stacks, r);
	deliver(s);
	/* After the sinks had it: a hang's report decodes its call again. */
	if (s->hang_watch)
		ct_hangs_note(&s->hangs, &s->ev, NULL);
	return 0;
}

/* A decoded call to the sinks, past the filters. */
static void deliver(struct session *s)
{
	ct_device_note(&s->ev); /* before the filters: a filtered call still sets the device */
	ct_gpu_note_call(&s->gpu_sink, &s->ev); /* and still made the graph nodes made inside it */
	if (s->ev.api->flags & CT_API_LAUNCH)
		ct_names_from_parent(&s->ev); /* a handle made before attach, named from its parent */
	if (!keep(s, &s->ev)) {
		s->stats.filtered++;
		return;
	}
	s->stats.events++;
	if (s->ev.api->flags & CT_API_LAUNCH) {
		const struct ct_field *k = ct_event_role(&s->ev, CT_ROLE_KERNEL);

		if (k && k->valid && k->str)
			s->stats.launches_named++;
		else if (k && k->valid)
			s->stats.launches_unnamed++;
	}
	ct_nvtx_note(&s->nvtx, &s->ev);
	ct_output_event(&s->out, &s->ev);
}

/* A file a process opened or executed, for the plugins that want it. */
struct late_file {
	struct session *s;
	const struct ct_watch_event *e;
	int owner; /* the plugin whose library name it matched; -1: any that finds its symbols */
};

static int attach_late_file(const char *open_path, const char *display, void *ctx)
{
	struct late_file *l = ctx;
	struct session *s = l->s;

	for (int i = 0; i < s->n_plugins; i++) {
		/* A plugin's own library, or (exec, scan_libraries) any file that
		 * defines its symbols: a runtime linked into it. */
		if (l->owner >= 0 && l->owner != i)
			continue;
		if (l->owner < 0 && !ct_probe_file_has_symbols(&s->probes[i], open_path))
			continue;
		if (ct_probe_attach_found(&s->probes[i], open_path, display) > 0)
			ct_info("pid %u loaded %s: probed %s", l->e->pid, display,
				l->e->stopped ? "before its first call" : "(it was not stopped: its first calls may be missed)");
	}
	return 0;
}

/*
 * A runtime appeared in a process: probe it, then (the caller) let the task
 * go on. System-wide the task is not stopped, and may have closed the file,
 * or ended, by now: the file is found by a way that outlives the descriptor,
 * and a process that ended first is counted, not an error.
 */
static void attach_late(struct session *s, const struct ct_watch_event *e)
{
	struct late_file l = { s, e, -1 };
	char path[CT_WATCH_PATH];
	size_t len = strnlen(e->path, sizeof(e->path));
	int err;

	/* A path cut at the watcher's limit names nothing. */
	snprintf(path, sizeof(path), "%.*s", (int)len, e->path);
	if (e->kind == CT_WATCH_OPEN) {
		if (e->pattern >= (uint32_t)s->n_patterns)
			return;
		l.owner = s->pattern_plugin[e->pattern];
		err = ct_target_opened(e->pid, (int)e->fd, len < sizeof(path) - 1 ? path : NULL, e->stopped,
				       s->patterns[e->pattern], attach_late_file, &l);
	} else {
		err = ct_target_exe(e->pid, attach_late_file, &l);
	}
	if (err == -ESRCH) {
		s->late_ended++;
		ct_dbg("pid %u ended before %s could be probed", e->pid, path);
	} else if (err < 0) {
		s->late_unfound++;
		ct_info("pid %u opened %s, which it no longer has open or mapped: not probed", e->pid, path);
	}
}

/*
 * A test hook (docs/reliability.md): CUDATRACER_TEST_HOLD_MS=N waits N ms
 * before probing a task the watcher stopped, as a loaded machine would, so
 * that a test can continue it from outside meanwhile (fault_foreign_cont).
 */
static void test_hold_delay(void)
{
	const char *v = getenv("CUDATRACER_TEST_HOLD_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;

	if (ms > 0)
		nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
}

/*
 * A test hook (docs/reliability.md): CUDATRACER_TEST_DROP_EXITS=1 ignores
 * the watcher's exit events, as if its ring had been full when each process
 * ended, so that a test can see sweep_followed find them (exits_unheard).
 */
static bool test_drop_exits(void)
{
	const char *v = getenv("CUDATRACER_TEST_DROP_EXITS");

	return v && !strcmp(v, "1");
}

static int on_watch(void *ctx, void *data, size_t len)
{
	struct session *s = ctx;
	const struct ct_watch_event *e = data;

	if (len < sizeof(*e))
		return 0;
	switch (e->kind) {
	case CT_WATCH_OPEN:
	case CT_WATCH_EXEC:
		/* Held under ptrace before anything else: until then another's
		 * SIGCONT can let it run (hold.c). */
		if (e->stopped) {
			ct_watcher_take(&s->watcher, e->pid, e->stop_ns);
			test_hold_delay();
		}
		attach_late(s, e);
		/* Stopped, with the executable and the libraries loaded so far mapped:
		 * keep its maps, for names decoded after it has exited. */
		if (e->kind == CT_WATCH_EXEC) {
			ct_sym_forget(e->pid);
			/* Read now, while it is stopped: a short job may be gone
			 * before its first record is decoded. */
			ct_procenv_forget(e->pid);
			ct_procenv_get(e->pid);
			ct_procgpu_forget(e->pid); /* its descriptors looked at anew */
			/* A static interpreter (Debian's python3.X) is in the executable. */
			ct_py_forget(e->pid);
			ct_py_scan(e->pid);
		}
		ct_sym_refresh(e->pid);
		/* System-wide: this file is done with (probed, or has no runtime). */
		if (e->kind == CT_WATCH_EXEC && !s->target->pid && !s->target->argv)
			ct_watcher_exe_checked(&s->watcher, e->exe_dev, e->exe_ino);
		if (e->stopped) {
			ct_watcher_release(&s->watcher, e->pid);
		}
		break;
	case CT_WATCH_MAP:
		ct_sym_refresh(e->pid);
		ct_py_scan(e->pid); /* a libpython3.X.so loaded late */
		break;
	case CT_WATCH_EXIT:
		if (!test_drop_exits())
			proc_exit(s, e->pid);
		break;
	}
	return 0;
}

static void proc_exit(struct session *s, uint32_t pid)
{
	/* The process's records were all written before it exited: deliver
	 * them first, then tell the sinks it is gone. */
	ct_rings_consume(&s->rings, 0);
	ct_gpu_forget(&s->gpu_sink, pid);
	if (s->hang_watch) /* its stuck calls are gone before the sinks forget it */
		ct_hangs_proc_exit(&s->hangs, pid, now_ns(CLOCK_MONOTONIC));
	ct_nvtx_proc_exit(&s->nvtx, pid, now_ns(CLOCK_MONOTONIC));
	ct_output_proc_exit(&s->out, pid, now_ns(CLOCK_REALTIME));
	if (s->aggregate) /* its totals are read later, its GPU with them */
		ct_procgpu_exited(pid);
	else
		ct_device_forget(pid);
	ct_sym_forget(pid);
	ct_names_forget(pid);
	ct_comms_forget(pid);
	ct_procenv_forget(pid);
	ct_py_forget(pid);
	if (ct_u64map_del(&s->followed, pid))
		ct_watcher_forget_pid(&s->watcher, (pid_t)pid);
	if (s->last_followed == pid)
		s->last_followed = 0;
	if (s->target->pid && (pid_t)pid == s->target->pid)
		s->target_gone = true;
}

static int attach_cb(const char *open_path, const char *display, void *ctx)
{
	struct session *s = ctx;

	for (int i = 0; i < s->n_plugins; i++) {
		const struct ct_plugin *p = s->plugins[i].p;

		if (ct_target_name_matches(display, p->libraries, p->n_libraries) ||
		    (s->conf->tracer.scan_libraries && ct_probe_file_has_symbols(&s->probes[i], open_path)))
			ct_probe_attach_found(&s->probes[i], open_path, display);
	}
	return 0;
}

/* A runtime linked into the executable (nvcc's default). */
static int attach_exe_cb(const char *open_path, const char *display, void *ctx)
{
	struct session *s = ctx;

	for (int i = 0; i < s->n_plugins; i++)
		if (ct_probe_file_has_symbols(&s->probes[i], open_path))
			ct_probe_attach_found(&s->probes[i], open_path, display);
	return 0;
}

static int attach_pid(struct session *s, pid_t pid)
{
	int before = 0, after = 0, err;

	for (int i = 0; i < s->n_plugins; i++)
		before += s->probes[i].n_files;
	err = ct_target_pid_files(pid, attach_cb, s);
	if (err)
		return err;
	if (ct_target_exe(pid, attach_exe_cb, s) == -ESRCH) {
		ct_err("process %d ended before it could be probed", pid);
		return -ESRCH;
	}
	for (int i = 0; i < s->n_plugins; i++)
		after += s->probes[i].n_files;
	ct_py_scan((uint32_t)pid);
	if (after == before)
		ct_warn("process %d maps no runtime of the loaded plugins yet; its calls will be traced "
			"once it loads one", pid);
	return 0;
}

static int attach_system(struct session *s)
{
	char searched[2048];
	int total = 0;

	for (int i = 0; i < s->n_plugins; i++) {
		const struct ct_plugin *p = s->plugins[i].p;
		int found = ct_target_system_libs(p->libraries, p->n_libraries, attach_cb, s,
						  searched, sizeof(searched));

		if (!found)
			ct_warn("plugin %s: no %s* found in %s; processes that load one from elsewhere "
				"are still traced when they open it (or name it: --lib PATH, -p PID)",
				s->plugins[i].p->name, s->plugins[i].p->libraries[0], searched);
		total += found;
	}
	return total;
}

/* The one file named, opened once: every plugin probes that same file. */
static int attach_lib(struct session *s, const char *path)
{
	int attached = 0, err = 0, fd = open(path, O_PATH | O_CLOEXEC);
	char self[32];

	if (fd < 0) {
		err = -errno;
		ct_err("--lib %s: %s", path, strerror(errno));
		return err;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	for (int i = 0; i < s->n_plugins && !err; i++) {
		int n = ct_probe_attach_file(&s->probes[i], self, path);

		if (n < 0)
			err = n;
		else
			attached += n;
	}
	close(fd);
	if (!err && !attached) {
		ct_err("--lib %s defines none of the symbols of the loaded plugins", path);
		err = -ENOENT;
	}
	return err;
}

/*
 * --engine inproc, in the held child before its exec: the ring's memfd
 * stays open across it, and the preload libraries (named by the tracer in
 * the shared header once it found them) go first in LD_PRELOAD.
 */
static int inproc_env(const struct session *s)
{
	const char *pre = (const char *)s->shm.head + CT_SHM_PRELOAD_OFF, *old = getenv("LD_PRELOAD");
	char num[16], env[CT_SHM_PRELOAD_MAX + PATH_MAX];

	if (!pre[0] || fcntl(s->shm.fd, F_SETFD, 0))
		return -1;
	snprintf(num, sizeof(num), "%d", s->shm.fd);
	snprintf(env, sizeof(env), "%.*s%s%s", CT_SHM_PRELOAD_MAX - 1, pre, old && *old ? ":" : "", old ? old : "");
	if (setenv(CT_SHM_ENV_FD, num, 1) || setenv("LD_PRELOAD", env, 1))
		return -1;
	snprintf(num, sizeof(num), "%d", (int)getppid());
	return setenv(CT_SHM_ENV_TRACER, num, 1);
}

/* Fork the command, held on a pipe until the probes are in place. */
static int spawn_held(struct session *s)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* "g", then for --gpu-activity the injection library's path and the
		 * libcupti to open, each NUL-ended: known only once setup is done. */
		char go[2 * PATH_MAX + 3];
		size_t got = 0;
		ssize_t n;

		close(fds[1]);
		signal(SIGPIPE, SIG_DFL);
		while (got < sizeof(go) - 2 && (n = read(fds[0], go + got, sizeof(go) - 2 - got)) > 0)
			got += (size_t)n;
		if (!got || go[0] != 'g')
			_exit(127); /* the tracer gave up */
		go[got] = go[got + 1] = 0;
		/* The driver loads the library at cuInit (the only thread here is this one). */
		if (got > 1 && setenv("CUDA_INJECTION64_PATH", go + 1, 1))
			_exit(127);
		if (got > 1 && go[1 + strlen(go + 1) + 1] &&
		    setenv("CUDATRACER_CUPTI", go + 1 + strlen(go + 1) + 1, 1))
			_exit(127);
		if (s->nvtx_path[0] && setenv("NVTX_INJECTION64_PATH", s->nvtx_path, 1))
			_exit(127);
		if (s->inproc && inproc_env(s))
			_exit(127);
		execvp(s->target->argv[0], s->target->argv);
		fprintf(stderr, "cudatracer: cannot run %s: %s\n", s->target->argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	s->child = pid;
	s->release_fd = fds[1];
	return 0;
}

/*
 * The guard killed (kill -9 of ct-guard, an OOM kill) while the tracer goes
 * on: a task held at the tracer's own later SIGKILL would stay stopped. A
 * new guard takes its place, reading the same ring; the loop looks at least
 * every 100 ms. If none can be started, holding goes on unguarded, said.
 */
static void guard_check(struct session *s)
{
	pid_t old = s->guard.pid;
	int err;

	if (old <= 0 || waitpid(old, NULL, WNOHANG) != old)
		return;
	ct_guard_stop(&s->guard);
	err = ct_guard_start(&s->guard, ct_watcher_events_fd(&s->watcher));
	if (!err)
		err = ct_watcher_set_guard(&s->watcher, s->guard.pid);
	if (!err) {
		ct_warn("the guard process (pid %d) has died: a new one (pid %d) continues the tasks held "
			"for probing if cudatracer is killed", (int)old, (int)s->guard.pid);
		return;
	}
	ct_warn("the guard process (pid %d) has died and no new one could be started (%s): if cudatracer is "
		"killed, a process it stopped may stay stopped", (int)old, strerror(-err));
	ct_guard_stop(&s->guard);
	s->guard.pid = 0;
}

static void reap_child(struct session *s)
{
	int status;

	if (!s->child || s->child_done)
		return;
	/* A stop is the watcher's hold under ptrace (capture/hold.c), not an end. */
	if (waitpid(s->child, &status, WNOHANG) == s->child && !WIFSTOPPED(status)) {
		s->child_done = true;
		s->child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
}

/* Each plugin as the engines serve it. */
static void engine_plugins(const struct session *s, struct ct_engine_plugin *pl)
{
	for (int i = 0; i < s->n_plugins; i++) {
		const struct ct_plugin *p = s->plugins[i].p;
		/* The hook fields are read only where the plugin's descriptor has them. */
		bool has_hook = p->sz >= offsetof(struct ct_plugin, bpf_hook_sz) + sizeof(p->bpf_hook_sz) &&
				p->bpf_hook && p->bpf_hook_sz;

		pl[i] = (struct ct_engine_plugin){ p, s->enabled[i], s->entry_only[i],
						   has_hook ? p->bpf_hook : NULL, has_hook ? p->bpf_hook_sz : 0 };
	}
}

/*
 * --engine inproc: no BPF at all. The spec table goes into the shared
 * ring, the preload libraries' paths beside it for the held child; a
 * runtime linked into the executable, which no preload can interpose, is
 * refused with the reason.
 */
static int setup_inproc(struct session *s)
{
	struct ct_engine_plugin pl[CT_MAX_PLUGINS];
	struct ct_shm_spec *specs = NULL;
	uint32_t n = 0;
	int err;

	engine_plugins(s, pl);
	err = ct_inproc_check_program(pl, s->n_plugins, s->target->argv[0]);
	if (!err)
		err = ct_inproc_preload(pl, s->n_plugins, (char *)s->shm.head + CT_SHM_PRELOAD_OFF, CT_SHM_PRELOAD_MAX);
	if (!err)
		err = ct_inproc_specs(pl, s->n_plugins, &specs, &n);
	if (!err)
		err = ct_shmring_set_specs(&s->shm, specs, n, named_plugins(s) > 1);
	free(specs);
	return err;
}

/* What --engine inproc can do, said before anything starts. */
static int check_inproc(struct session *s)
{
	const struct ct_config *c = s->conf;
	uint64_t size;
	int err;

	if (s->target->pid)
		return ct_inproc_refuse_pid(s->target->pid);
	if (!s->target->argv) {
		ct_err("--engine inproc traces a command it starts (its library must be in the process from the "
		       "first instruction): for %s use --engine ebpf", s->target->pid ? "-p PID" : "system-wide tracing");
		return -EINVAL;
	}
	if (s->aggregate || c->tracer.gpu_activity || c->tracer.lib) {
		ct_err("--engine inproc records calls one by one into its own ring: %s needs --engine ebpf",
		       s->aggregate ? "tracer.mode = aggregate" : c->tracer.gpu_activity ? "--gpu-activity" : "--lib");
		return -EINVAL;
	}
	size = ct_ring_size(c->tracer.inproc_ring_size);
	if (size != c->tracer.inproc_ring_size)
		ct_warn("tracer.inproc_ring_size %llu is not a power of two from a page to the most a ring can be: "
			"using %llu", (unsigned long long)c->tracer.inproc_ring_size, (unsigned long long)size);
	err = ct_shmring_create(&s->shm, size, c->tracer.inproc_clock == CT_INPROC_CLOCK_AUTO, on_record, s);
	if (err)
		ct_err("--engine inproc: cannot make its shared ring (%llu bytes): %s", (unsigned long long)size,
		       strerror(-err));
	return err;
}

/*
 * One link per symbol (a kernel without uprobe_multi) costs about a quarter
 * second a symbol to attach to a mapped library (docs/performance.md,
 * Attaching): the hundreds of rows generated from the runtimes' headers would
 * take minutes. Those are left out unless an include glob names what to trace.
 */
static void single_links_trim(struct session *s)
{
	int n = 0;

	for (int i = 0; i < s->n_plugins; i++)
		for (size_t k = 0; k < s->plugins[i].p->n_apis; k++)
			if (s->enabled[i][k] && (s->plugins[i].p->apis[k].flags & CT_API_GENERATED)) {
				s->enabled[i][k] = false;
				n++;
			}
	if (n)
		ct_warn("one link per symbol (this kernel has no uprobe_multi): the %d API%s generated from the "
			"runtimes' headers %s left out, as each costs about a quarter second to attach; "
			"--include names the APIs to trace", n, CT_S(n), n > 1 ? "are" : "is");
}

/* The engine for every plugin, its ring, and each plugin's probes into it. */
static int open_engine(struct session *s, bool filter, enum ct_attach_mode mode)
{
	const struct ct_config *c = s->conf;
	struct ct_engine_plugin pl[CT_MAX_PLUGINS];
	struct ct_engine_opts eo = {
		.ringbuf_size = c->tracer.ringbuf_size,
		.wakeup_bytes = c->tracer.wakeup_bytes,
		.filter_pids = filter,
		.pids_fd = ct_watcher_pids_fd(&s->watcher),
		.mode = mode,
		.aggregate = s->aggregate,
		.filter_cgroup = c->filter.cgroup != NULL,
		.cgroup_fd = -1,
		.stacks = &c->stacks,
		.hang = s->hang_watch,
		.runtimes = named_plugins(s),
	};
	int err;

	if (eo.filter_cgroup && (eo.cgroup_fd = ct_cgroup_dir_open(c->filter.cgroup)) < 0)
		return eo.cgroup_fd;

	engine_plugins(s, pl);
	err = ct_engine_open(&s->engine, pl, s->n_plugins, &eo);
	if (eo.cgroup_fd >= 0)
		close(eo.cgroup_fd);
	if (err)
		return err;
	if (s->engine.links == CT_LINK_SINGLE && !c->filter.include.n)
		single_links_trim(s);
	if (c->stacks.enabled && c->stacks.python && !s->aggregate) {
		int procs, stacks, codes;

		ct_engine_py_fds(&s->engine, &procs, &stacks, &codes);
		ct_py_init(procs, stacks, codes);
	}
	for (int i = 0; i < s->n_plugins; i++) {
		err = ct_probe_open(&s->probes[i], &s->plugins[i], i, &s->engine, s->enabled[i],
				    s->entry_only[i]);
		if (err)
			return err;
	}
	err = ct_rings_add(&s->rings, ct_engine_ring_fd(&s->engine), on_record, s);
	if (err < 0) {
		ct_err("cannot map the capture engine's ring buffer: %s", strerror(-err));
		return err;
	}
	if (s->gpu) {
		uint64_t wakeup;
		int wake_fd = ct_engine_wake(&s->engine, &wakeup);

		return ct_gpu_source_open(&s->gpu_src, ct_engine_ring_fd(&s->engine), wake_fd, wakeup, eo.pids_fd,
					  filter);
	}
	return 0;
}

/*
 * --gpu-activity: a command's driver loads the injection library at its
 * cuInit (CUDA_INJECTION64_PATH); a running process (-p) has initialised
 * CUDA already, so the library is brought into it (capture/remote.c) once
 * the probes are live, and turned off again when tracing stops. A variable
 * that is set already belongs to another tool (nsys, a profiler): it is
 * kept, and GPU activity is off.
 */
static int gpu_setup(struct session *s)
{
	const char *other = getenv("CUDA_INJECTION64_PATH");

	if (!s->conf->tracer.gpu_activity)
		return 0;
	if (s->aggregate) {
		ct_err("--gpu-activity sends every kernel to the sinks, and tracer.mode = aggregate records "
		       "no events: use tracer.mode = events");
		return -EINVAL;
	}
	if (!s->target->argv && !s->target->pid) {
		ct_err("--gpu-activity needs a command or a process (-p): system-wide, every process would have "
		       "the library loaded into it");
		return -EINVAL;
	}
	if (s->target->pid) {
		/* A running process: the library is brought in once tracing is live (gpu_enter). */
		if (ct_gpu_find_library(&s->gpu_src, s->conf->tracer.inject_library) ||
		    ct_gpu_attach_check(&s->gpu_src, s->target->pid))
			return -EINVAL;
		goto on;
	}
	if (other && *other) {
		ct_warn("CUDA_INJECTION64_PATH is already set (%s): another tool injects into CUDA; "
			"--gpu-activity is off, API calls are traced as before", other);
		return 0;
	}
	if (ct_gpu_find_library(&s->gpu_src, s->conf->tracer.inject_library))
		return -ENOENT;
on:
	s->gpu = true;
	s->gpu_sink = (struct ct_gpu_sink){ .event = on_gpu_event, .message = on_gpu_message, .ctx = s,
					    .wall_offset_ns = s->wall_offset };
	return 0;
}

/* One plugin of the session, its APIs chosen and its libraries watched
 * for; one named twice is loaded once. */
static int load_plugin(struct session *s, const char *name, char **dirs)
{
	const struct ct_config *c = s->conf;
	int i = s->n_plugins, err;
	struct ct_loaded_plugin *lp = &s->plugins[i];

	err = ct_plugin_load_once(name, dirs, s->plugins, i);
	if (err <= 0)
		return err; /* 0: named twice */
	s->n_plugins++; /* the cleanup unloads it from here on */
	s->enabled[i] = calloc(lp->p->n_apis, sizeof(bool));
	s->entry_only[i] = calloc(lp->p->n_apis, sizeof(bool));
	if (!s->enabled[i] || !s->entry_only[i])
		return -ENOMEM;
	if (!strcmp(lp->p->name, "nvtx") && lp->p->n_apis == CT_NVTX_N) {
		/* Every NVTX event, whatever the profile: a range is its push and its pop. */
		s->nvtx_plugin = i;
		memset(s->enabled[i], 1, CT_NVTX_N * sizeof(bool));
	} else {
		ct_session_select(c, lp->p, s->enabled[i]);
	}
	for (size_t k = 0; k < lp->p->n_apis; k++) {
		enum ct_timing tm = ct_session_timing(c, &lp->p->apis[k]);

		s->entry_only[i][k] = ct_timing_entry_only(tm);
		if (s->enabled[i][k] && tm != CT_TIMING_TIMED)
			ct_info("plugin %s: %s is %s", lp->p->name, lp->p->apis[k].symbol, ct_timing_names[tm]);
	}
	for (size_t k = 0; k < lp->p->n_libraries && s->n_patterns < CT_WATCH_PATTERNS; k++) {
		s->patterns[s->n_patterns] = lp->p->libraries[k];
		s->pattern_plugin[s->n_patterns++] = i;
	}
	return 0;
}

/*
 * tracer.nvtx, a command only: NVTX loads NVTX_INJECTION64_PATH at a
 * process's first NVTX call, which a running process has made already. A
 * variable already set belongs to another tool (nsys): it is kept, and
 * NVTX is left to it. The library runs in the command as the GPU
 * activity's does: trusted as it is (ct_gpu_trust_library).
 */
static int nvtx_setup(struct session *s)
{
	const char *other = getenv("NVTX_INJECTION64_PATH");

	if (!s->conf->tracer.nvtx || !s->target->argv || s->aggregate)
		return 0;
	if (other && *other) {
		ct_warn("NVTX_INJECTION64_PATH is already set (%s): another tool takes the NVTX ranges; "
			"they are not traced", other);
		return 0;
	}
	if (ct_ownlib_find(CT_NVTX_LIBRARY, s->nvtx_path)) {
		s->nvtx_path[0] = 0;
		ct_info("no " CT_NVTX_LIBRARY " beside the tracer: NVTX ranges are not traced");
		return 0;
	}
	if (ct_gpu_trust_library(s->nvtx_path, "tracer.nvtx")) {
		s->nvtx_path[0] = 0;
		return -EPERM;
	}
	return 0;
}

/* --gpu-activity -p: the library into the running process, now that its batches are read. */
static void gpu_enter(struct session *s)
{
	char why[512] = "";
	int err = ct_gpu_attach(&s->gpu_src, why, sizeof(why));

	/* Its messages (CUPTI found, started or not) come through the ring. */
	ct_rings_consume(&s->rings, -1);
	if (err) {
		ct_warn("--gpu-activity: GPU activity is off in process %d: %s; API calls are traced as before",
			(int)s->target->pid, why);
		return;
	}
	ct_info("GPU activity: %s brought into process %d, CUPTI started there", s->gpu_src.path,
		(int)s->target->pid);
}

static int setup(struct session *s)
{
	const struct ct_config *c = s->conf;
	bool filter = s->target->pid || s->target->argv;
	char **dirs = ct_plugin_dirs(c->tracer.plugin_path);
	int err = 0;

	if (!dirs) {
		err = -ENOMEM;
		goto out;
	}
	err = gpu_setup(s);
	if (err)
		goto out;
	/* The config checked the list: 1 to CT_MAX_PLUGINS names. */
	for (size_t n = 0; n < c->tracer.plugins.n && !err; n++)
		err = load_plugin(s, c->tracer.plugins.v[n], dirs);
	if (!err && s->nvtx_path[0] && s->n_plugins < CT_MAX_PLUGINS)
		err = load_plugin(s, "nvtx", dirs);
	if (err)
		goto out;
	err = check_patterns(s);
	if (err)
		goto out;

	if (s->inproc) {
		err = setup_inproc(s);
		if (!err)
			pause_apply(s); /* before the command runs: tracer.start_paused records nothing */
		goto out;
	}
	/* Last, so that a plugin's own library matches its own pattern first:
	 * every other library is checked for a runtime linked into it. */
	if (c->tracer.scan_libraries && filter && s->n_patterns < CT_WATCH_PATTERNS) {
		s->patterns[s->n_patterns] = "lib";
		s->pattern_plugin[s->n_patterns++] = -1;
	}
	/* --lib names the one file to probe: uprobes on it reach every process
	 * that maps it, later ones too, so nothing needs watching for. */
	/* A command's processes are stopped at each exec; system-wide, the first
	 * process of each executable, for a runtime linked into it (nvcc's default). */
	err = ct_watcher_open(&s->watcher, s->patterns, c->tracer.lib && !filter ? 0 : s->n_patterns,
			      filter, s->target->argv != NULL || (!filter && !c->tracer.lib && c->tracer.scan_execs));
	if (err)
		goto out;
	if (ct_guard_start(&s->guard, ct_watcher_events_fd(&s->watcher)))
		ct_warn("cannot start the guard process: if cudatracer is killed, a process it stopped may stay stopped");
	else
		ct_watcher_set_guard(&s->watcher, s->guard.pid);
	err = open_engine(s, filter, c->tracer.attach);
	if (err)
		goto out;
	pause_apply(s); /* before any probe is live */
	err = ct_rings_add(&s->rings, ct_watcher_events_fd(&s->watcher), on_watch, s);
	if (err < 0) {
		ct_err("cannot map the watcher's ring buffer: %s", strerror(-err));
		goto out;
	}
	err = 0;

	if (s->target->pid) {
		err = ct_watcher_add_pid(&s->watcher, s->target->pid);
		if (!err)
			err = attach_pid(s, s->target->pid);
	} else if (s->target->argv) {
		err = ct_watcher_add_pid(&s->watcher, s->child); /* forked, held, before the sinks opened */
	}
	if (err)
		goto out;
	if (c->tracer.lib) {
		err = attach_lib(s, c->tracer.lib);
		if (err)
			goto out;
	} else if (!filter) {
		attach_system(s);
	}
out:
	ct_plugin_dirs_free(dirs);
	return err;
}

/* The engine's counters and the probes in place, into s->stats; false if unread. */
static bool refresh_stats(struct session *s, uint64_t st[CT_STAT_MAX])
{
	s->stats.probes = 0;
	for (int i = 0; i < s->n_plugins; i++)
		for (int j = 0; j < s->probes[i].n_files; j++)
			s->stats.probes += s->probes[i].files[j].n_syms;
	if (s->inproc) {
		uint64_t sh[CT_SHM_STAT_MAX];

		ct_shmring_stats(&s->shm, sh);
		s->stats.probes = sh[CT_SHM_BOUND];
		s->stats.lost = sh[CT_SHM_LOST];
		s->stats.too_deep = sh[CT_SHM_DEEP];
		memset(st, 0, CT_STAT_MAX * sizeof(*st));
		return true;
	}
	if (!s->engine.skel || ct_engine_stats(&s->engine, st))
		return false;
	s->stats.lost = st[CT_STAT_LOST];
	s->stats.unpaired = st[CT_STAT_UNPAIRED];
	s->stats.too_deep = st[CT_STAT_DEEP];
	return true;
}

static void report(struct session *s)
{
	uint64_t st[CT_STAT_MAX] = { 0 };

	if (!refresh_stats(s, st))
		return;
	if (s->gpu && s->gpu_src.skel) {
		uint64_t g[CT_GPU_STAT_MAX] = { 0 };

		if (!ct_gpu_source_stats(&s->gpu_src, g))
			s->stats.gpu_lost = g[CT_GPU_STAT_LOST] + g[CT_GPU_STAT_UNREAD] + g[CT_GPU_STAT_TOO_LONG];
	}
	if (st[CT_STAT_AGG_FULL])
		ct_warn("%llu call%s not counted: the kernel's table of (process, API) pairs is full "
			"(%u pair%s)", (unsigned long long)st[CT_STAT_AGG_FULL], CT_S(st[CT_STAT_AGG_FULL]),
			s->engine.agg_pool, CT_S(s->engine.agg_pool));
	if (st[CT_STAT_NOSTACK] || s->stacks.unmatched)
		ct_warn("%llu call%s with no stack: %llu could not be taken or sent (ring full: raise %s), "
			"%llu named a stack that never arrived",
			(unsigned long long)(st[CT_STAT_NOSTACK] + s->stacks.unmatched),
			CT_S(st[CT_STAT_NOSTACK] + s->stacks.unmatched), (unsigned long long)st[CT_STAT_NOSTACK],
			RINGBUF_ADVICE, (unsigned long long)s->stacks.unmatched);
	if (ct_names_dropped())
		ct_warn("%llu kernel handles' names were not kept: their process had %d already (their launches are unnamed)",
			(unsigned long long)ct_names_dropped(), CT_NAMES_PER_PROC);
}

/* On the closing line: runtimes whose calls were not traced, and why. */
/* What attaching missed, appended to the totals line. */
static size_t report_attach(const struct session *s, char *buf, size_t n)
{
	size_t len = 0;
	int failed = 0;

#define ADD(...) (len += len < n ? (size_t)snprintf(buf + len, n - len, __VA_ARGS__) : 0)
	for (int i = 0; i < s->n_plugins; i++)
		failed += s->probes[i].n_failed;
	if (failed)
		ADD(", %d librar%s could not be probed", failed, ct_plural(failed, "y", "ies"));
	/* Opens looked at too late: the file may have been probed already. */
	if (s->late_ended)
		ADD(", %u runtime open%s not followed (the process had ended)", s->late_ended, CT_S(s->late_ended));
	if (s->late_unfound)
		ADD(", %u runtime open%s not followed (the file no longer open or mapped)", s->late_unfound,
		    CT_S(s->late_unfound));
#undef ADD
	return len < n ? len : n;
}

_Static_assert(CT_AGG_SUB_BITS == CT_HIST_SUB_BITS && CT_AGG_BUCKETS <= CT_HIST_BUCKETS,
	       "the engine counts durations in the summary's histogram buckets");

/* Aggregate mode: one (process, API) the kernel counted, to the sinks. */
static int on_totals(void *ctx, const struct ct_agg_key *k, const struct ct_agg *a)
{
	struct session *s = ctx;
	uint32_t pl = CT_CALL_PLUGIN(k->call), api = CT_CALL_API(k->call);
	const struct ct_filter_conf *f = &s->conf->filter;
	struct ct_totals t;

	if (pl >= (uint32_t)s->n_plugins || api >= s->plugins[pl].p->n_apis)
		return 0;
	if (f->comm && *f->comm && strncmp(f->comm, a->h.comm, sizeof(a->h.comm)))
		return 0;
	t = (struct ct_totals){
		.pid = k->tgid, .comm = a->h.comm, .plugin = s->plugins[pl].p, .api_idx = api,
		.timed = !s->entry_only[pl][api], .calls = a->t.calls, .errors = a->t.errors,
		.total_ns = a->t.total_ns, .min_ns = a->t.min_ns, .max_ns = a->t.max_ns, .bytes = a->t.bytes,
		.hist = a->h.hist, .n_hist = CT_AGG_BUCKETS,
		.env = ct_procenv_get(k->tgid), .cgroup = ct_cgroup_of_pid(k->tgid), .device = -1,
	};
	ct_procgpu_say(k->tgid, &t.device, &t.device_from, &t.gpu);
	s->stats.events += a->t.calls;
	ct_output_totals(&s->out, &t);
	return 0;
}

static void feed_totals(struct session *s)
{
	uint64_t events = s->stats.events;

	s->stats.events = 0;
	if (ct_engine_totals(&s->engine, on_totals, s)) {
		s->stats.events = events;
		ct_warn("cannot read the kernel's totals");
	}
}

/*
 * SIGUSR1 and SIGUSR2, acted on here: the handler only sets pause_wanted.
 * Paused, the engine takes no call that begins (the eBPF engine's stop
 * flag, the shared ring's `on`), so nothing is lost or unpaired for it;
 * the probes and the interposer stay, so that a resume is one store, and a
 * call in flight at the pause is recorded at its return. The ring is read
 * all the while.
 */
static void pause_apply(struct session *s)
{
	bool want = pause_wanted;
	uint64_t now;

	if (want == s->paused)
		return;
	now = now_ns(CLOCK_MONOTONIC);
	if (s->inproc)
		ct_shmring_pause(&s->shm, want);
	else
		ct_engine_pause(&s->engine, want);
	s->paused = want;
	/* At a pause, what was recorded before it is read first: the note's
	 * count is then every call that began before the pause (and ended). */
	if (want && s->traced && s->inproc)
		ct_shmring_consume(&s->shm);
	else if (want && s->traced)
		ct_rings_consume(&s->rings, -1);
	if (s->aggregate && s->traced)
		feed_totals(s);
	if (want) {
		s->pauses++;
		s->paused_at = now;
		s->events_at_pause = s->stats.events;
		if (!s->traced)
			ct_info("recording starts paused (%s): nothing is recorded until SIGUSR2",
				s->conf->tracer.start_paused ? "tracer.start_paused" : "SIGUSR1");
		else if (ct_verbosity < CT_LOG_INFO)
			ct_note("paused: calls are not recorded until SIGUSR2");
		else
			ct_info("paused (SIGUSR1): calls that begin from now on are not recorded; %llu event%s so "
				"far; SIGUSR2 resumes", (unsigned long long)s->stats.events, CT_S(s->stats.events));
		return;
	}
	s->paused_ns += now - s->paused_at;
	/* One line each way: a signal that changes what is recorded is never
	 * silent; -v adds the counts. */
	if (ct_verbosity < CT_LOG_INFO)
		ct_note("resumed");
	else
		ct_info("resumed (SIGUSR2) after %.3f s paused: recording again; %llu event%s so far, %llu of "
			"them read while paused (calls in flight or in the ring at the pause)",
			(double)(now - s->paused_at) / 1e9, (unsigned long long)s->stats.events,
			CT_S(s->stats.events), (unsigned long long)(s->stats.events - s->events_at_pause));
}

/*
 * Records lost, said while it happens and not only at the end: once when
 * loss begins, with the count, then at most every LOSS_REPEAT_NS while it
 * goes on. A run that loses nothing says nothing.
 */
#define LOSS_REPEAT_NS 5000000000ull

static void say_loss_live(struct session *s, uint64_t now)
{
	uint64_t lost = s->stats.lost;

	if (lost <= s->lost_said || (s->lost_said && now - s->lost_said_at < LOSS_REPEAT_NS))
		return;
	if (!s->lost_said)
		ct_warn("records are being lost: %llu so far did not fit in the ring buffer (raise %s)",
			(unsigned long long)lost, s->inproc ? INPROC_RING_ADVICE : RINGBUF_ADVICE);
	else
		ct_warn("records still being lost: %llu so far, %llu in the last %.0f s",
			(unsigned long long)lost, (unsigned long long)(lost - s->lost_said),
			(double)(now - s->lost_said_at) / 1e9);
	s->lost_said = lost;
	s->lost_said_at = now;
}

/* The closing report's line on pauses, if there were any. */
static void say_paused(const struct session *s)
{
	uint64_t end = s->stopped_at, paused = s->paused_ns + (s->paused ? end - s->paused_at : 0);

	if (!s->pauses)
		return;
	ct_note("recording was paused for %.3f s of the %.3f s traced (%u pause%s%s)", (double)paused / 1e9,
		(double)(end - s->traced_at) / 1e9, s->pauses, CT_S(s->pauses),
		s->paused ? "; still paused at the end" : "");
}

/*
 * Aggregate mode makes no per-call records: a sink that writes every call,
 * or a filter on single calls, has nothing to work with. Said before
 * anything is loaded.
 */
static int check_aggregate(const struct ct_config *c)
{
	const char *what = c->filter.errors_only ? "--errors-only (filter.errors_only)" :
			   c->filter.min_duration ? "--min-duration (filter.min_duration)" : NULL;

	if (what) {
		ct_err("%s filters single calls, and tracer.mode = aggregate records none "
		       "(it counts in the kernel): drop the filter or use tracer.mode = events", what);
		return -EINVAL;
	}
	for (int i = 0; i < c->n_sinks; i++) {
		if (c->sinks[i].ops->totals)
			continue;
		ct_err("sink '%s' (%s) writes every call, and tracer.mode = aggregate records none "
		       "(it counts in the kernel): use -o summary, or tracer.mode = events",
		       c->sinks[i].name, c->sinks[i].ops->type);
		return -EINVAL;
	}
	return 0;
}

/* What GPU activity came, and what of it was lost or unnamed. */
/* NVTX's counts, when the command made NVTX calls; what went wrong, when something did. */
static void nvtx_report(const struct session *s)
{
	const struct ct_nvtx_stats *n = &s->nvtx.st;
	char what[320];
	int len = 0;

	if (!s->stats.nvtx_ranges && !s->stats.nvtx_marks && !n->pops_unmatched && !n->ends_unmatched)
		return;
	fprintf(stderr, "cudatracer: NVTX: %llu range%s (%llu still open at the end), %llu mark%s\n",
		(unsigned long long)s->stats.nvtx_ranges, CT_S(s->stats.nvtx_ranges),
		(unsigned long long)n->left_open, (unsigned long long)s->stats.nvtx_marks, CT_S(s->stats.nvtx_marks));
#define NVTX_SAY(v, text) \
	if (v && len < (int)sizeof(what)) \
		len += snprintf(what + len, sizeof(what) - (size_t)len, "%s%llu " text, len ? ", " : "", \
				(unsigned long long)(v))
	NVTX_SAY(n->pops_unmatched, "pops without their push");
	NVTX_SAY(n->ends_unmatched, "ends of ranges not started");
	NVTX_SAY(n->names_cut, "names cut to 255 bytes");
	NVTX_SAY(n->too_deep, "pushes past 64 open on a thread, not kept");
	NVTX_SAY(n->too_many, "ranges or domains past the limit of a process, not kept");
	NVTX_SAY(n->threads_dropped, "events of threads not followed (8192 threads with ranges open)");
	NVTX_SAY(n->no_memory, "lost for want of memory");
#undef NVTX_SAY
	if (len)
		ct_warn("NVTX: %s", what);
}

static void gpu_report(struct session *s)
{
	const struct ct_gpu_stats *g = &s->gpu_sink.stats;

	if (!s->gpu)
		return;
	if (!g->processes && !s->gpu_messages) {
		ct_warn("--gpu-activity: no process of the command started CUDA with the injection library "
			"(the driver loads it at cuInit; without a CUDA driver, or without a CUDA call, nothing does)");
		return;
	}
	if (!g->processes)
		return; /* the library said why it could not */
	fprintf(stderr, "cudatracer: GPU activity: %llu kernel%s (%llu unnamed), %llu %s, %llu set%s, "
		"%llu without their launching call\n", (unsigned long long)g->kernels, CT_S(g->kernels),
		(unsigned long long)g->unnamed, (unsigned long long)g->copies, ct_plural(g->copies, "copy", "copies"),
		(unsigned long long)g->sets, CT_S(g->sets), (unsigned long long)g->uncorrelated);
	if (s->stats.gpu_lost)
		ct_warn("%llu %s of GPU activity did not fit in the ring buffer: raise %s",
			(unsigned long long)s->stats.gpu_lost, ct_plural(s->stats.gpu_lost, "batch", "batches"),
			RINGBUF_ADVICE);
	if (g->cupti_dropped)
		ct_warn("CUPTI dropped %llu activity records (its buffers were full)",
			(unsigned long long)g->cupti_dropped);
	if (g->malformed)
		ct_warn("%llu GPU activity items were malformed and skipped", (unsigned long long)g->malformed);
	if (g->names_dropped)
		ct_warn("%llu GPU activity names were not kept: their process had %d already (their kernels are unnamed)",
			(unsigned long long)g->names_dropped, CT_NAMES_PER_PROC);
	if (g->graph_records)
		fprintf(stderr, "cudatracer: CUDA graphs: %llu graph node%s made or cloned, %llu device record%s run "
			"from graph nodes, %llu without the call that captured their node\n",
			(unsigned long long)g->graph_nodes, CT_S(g->graph_nodes), (unsigned long long)g->graph_records,
			CT_S(g->graph_records), (unsigned long long)g->graph_uncaptured);
	if (g->graph_nodes_dropped)
		ct_warn("%llu CUDA graph nodes were not kept: their process had %u already (their records name no capture call)",
			(unsigned long long)g->graph_nodes_dropped, CT_GRAPH_NODES_MAX);
}

static void teardown(struct session *s)
{
	ct_sym_reset();
	ct_device_reset();
	ct_names_reset();
	ct_comms_reset();
	ct_procenv_reset();
	ct_cgroup_reset();
	ct_u64map_free(&s->followed);
	ct_u64map_free(&s->tree);
	free(s->gone);
	s->gone = NULL;
	s->n_gone = s->cap_gone = 0;
	ct_py_reset();
	ct_rings_free(&s->rings);
	ct_shmring_close(&s->shm);
	ct_stacks_free(&s->stacks);
	ct_hangs_free(&s->hangs);
	ct_nvtx_free(&s->nvtx);
	for (int i = s->n_plugins - 1; i >= 0; i--)
		if (s->probes[i].lp)
			ct_probe_close(&s->probes[i]);
	if (s->gpu_src.skel)
		ct_gpu_source_close(&s->gpu_src);
	if (s->engine.skel)
		ct_engine_close(&s->engine);
	for (int i = s->n_plugins - 1; i >= 0; i--) {
		ct_plugin_unload(&s->plugins[i]);
		free(s->enabled[i]);
		free(s->entry_only[i]);
	}
	if (s->watcher.obj)
		ct_watcher_close(&s->watcher);
}

/*
 * The reader above the programs it traces. A program that keeps every core
 * busy (64 threads on 2 cores) would leave it 1/65 of the CPU, and the ring
 * would fill; at nice -10 it drains the ring as fast as it fills (auditd
 * boosts itself for the same reason). Done after the command is forked, so
 * the command keeps its own priority.
 */
#define READER_NICE -10

static void boost_reader(const struct session *s)
{
	int cur;

	if (s->aggregate || s->conf->tracer.reader_priority != CT_READER_HIGH)
		return;
	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (errno || cur <= READER_NICE)
		return;
	if (setpriority(PRIO_PROCESS, 0, READER_NICE))
		ct_info("reader priority left at nice %d: %s (raising it needs CAP_SYS_NICE)", cur, strerror(errno));
	else
		ct_dbg("reader at nice %d", READER_NICE);
}

bool ct_session_aggregate(const struct ct_config *conf)
{
	return conf->tracer.mode == CT_MODE_AGGREGATE;
}

/*
 * --profile full traces the getters frameworks call thousands of times a
 * second: what that costs is said, from docs/performance.md's figures.
 */
static void say_profile_cost(const struct session *s)
{
	size_t hot = 0;

	if (s->conf->tracer.profile != CT_PROFILE_FULL)
		return;
	for (int i = 0; i < s->n_plugins; i++)
		for (size_t k = 0; k < s->plugins[i].p->n_apis; k++)
			hot += s->enabled[i][k] && (s->plugins[i].p->apis[k].flags & CT_API_HOT);
	if (hot)
		ct_note("--profile full: %zu hot getter%s traced too; each of their calls costs two uprobe traps, "
			"about 1.5 us (H200 VM: cudaGetDevice 60 ns untraced, 1.6 us traced; docs/performance.md)",
			hot, CT_S(hot));
}

/* "Tracing 57 APIs of cudart in PID 4242 (app). Ctrl-C to end." (not with -q) */
static void say_tracing(const struct session *s)
{
	char what[512], where[PATH_MAX + 64], lasts[64];
	size_t len = 0;
	/* NVTX's own plugin is not a runtime the user named: -v says it. */
	int last = named_plugins(s) - 1;

	for (int i = 0; i <= last && len < sizeof(what); i++) {
		const struct ct_plugin *p = s->plugins[i].p;
		size_t on = 0;

		for (size_t k = 0; k < p->n_apis; k++)
			on += s->enabled[i][k];
		if (!i)
			len += (size_t)snprintf(what, sizeof(what), "%zu API%s of %s", on, on == 1 ? "" : "s", p->name);
		else
			len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%zu of %s",
						i < last ? ", " : " and ", on, p->name);
	}
	if (last < s->n_plugins - 1)
		ct_info("NVTX: %s is NVTX_INJECTION64_PATH: ranges and marks are traced (tracer.nvtx)", s->nvtx_path);
	if (s->target->argv)
		snprintf(where, sizeof(where), "%s (PID %d)", s->target->argv[0], (int)s->child);
	else if (s->target->pid)
		snprintf(where, sizeof(where), "PID %d", (int)s->target->pid);
	else if (s->conf->tracer.lib)
		snprintf(where, sizeof(where), "every process that maps %s", s->conf->tracer.lib);
	else
		snprintf(where, sizeof(where), "every process");
	ct_note("Tracing %s in %s%s. %s%s%s", what, where,
		s->aggregate ? ", counting in the kernel (tracer.mode = aggregate)" :
		s->inproc ? ", in-process (--engine inproc)" : "",
		s->conf->tracer.daemon ? "SIGHUP reloads the config, SIGTERM stops." : "Ctrl-C to end.",
		s->paused ? " Paused: nothing is recorded until SIGUSR2." : "",
		s->conf->tracer.duration ? (snprintf(lasts, sizeof(lasts), " Stops after %g s (--duration).",
						     (double)s->conf->tracer.duration / 1e9), lasts) : "");
	say_profile_cost(s);
}

/* A plugin that probed no file: no process loaded its runtime, the usual
 * reason for "0 events" (a command that does not use it, -P hip on a CUDA
 * program). The in-process engine interposes instead of probing files. */
static void say_unprobed(const struct session *s)
{
	int none = 0, named = named_plugins(s);

	if (s->inproc)
		return;
	for (int i = 0; i < named; i++)
		none += !s->probes[i].n_files;
	for (int i = 0; i < named; i++) {
		const struct ct_plugin *p = s->plugins[i].p;
		char libs[256];
		size_t len = 0;

		if (s->probes[i].n_files)
			continue;
		libs[0] = 0;
		for (size_t k = 0; k < p->n_libraries && len < sizeof(libs); k++)
			len += (size_t)snprintf(libs + len, sizeof(libs) - len, "%s%s", k ? ", " : "", p->libraries[k]);
		if (none == named && !s->stats.events)
			ct_warn("no process loaded a library of plugin %s (%s): nothing to trace", p->name, libs);
		else
			ct_note("no process loaded a library of plugin %s (%s): none of its calls traced", p->name, libs);
	}
}

static void say_totals(const struct session *s)
{
	char more[512] = "";
	size_t len = 0;
	uint64_t unnamed, unnamed_procs;

	if (s->stats.unpaired || s->stats.too_deep)
		len += (size_t)snprintf(more, sizeof(more), ", %llu return%s without their call, %llu call%s nested "
					"too deep to capture", (unsigned long long)s->stats.unpaired,
					CT_S(s->stats.unpaired), (unsigned long long)s->stats.too_deep,
					CT_S(s->stats.too_deep));
	if (s->stats.filtered && len < sizeof(more))
		len += (size_t)snprintf(more + len, sizeof(more) - len, ", %llu filtered out",
					(unsigned long long)s->stats.filtered);
	if (len < sizeof(more))
		report_attach(s, more + len, sizeof(more) - len);
	ct_note("%llu event%s, %llu record%s lost%s", (unsigned long long)s->stats.events, CT_S(s->stats.events),
		(unsigned long long)s->stats.lost, CT_S(s->stats.lost), more);
	ct_sym_unnamed(&unnamed, &unnamed_procs);
	if (unnamed)
		ct_warn("%llu address%s in %llu process%s left unnamed: the process ended before the tracer "
			"could read its maps (a short job on a busy machine; kernel names show as addresses)",
			(unsigned long long)unnamed, unnamed == 1 ? "" : "es", (unsigned long long)unnamed_procs,
			unnamed_procs == 1 ? "" : "es");
	if (s->exits_swept || s->unfollowed)
		ct_info("system-wide: %llu process%s ended unheard (found gone by /proc, or its pid taken by another), "
			"%llu could not be followed", (unsigned long long)s->exits_swept,
			s->exits_swept == 1 ? "" : "es", (unsigned long long)s->unfollowed);
}

/*
 * --duration (tracer.duration): how long the loop may wait for records
 * before it looks again (at most 100 ms: records below the wake-up
 * threshold are read that often), or -1 once the window is over.
 */
static int window_wait_ms(const struct session *s)
{
	uint64_t d = s->conf->tracer.duration, now, left;

	if (!d)
		return 100;
	now = now_ns(CLOCK_MONOTONIC);
	if (now - s->traced_at >= d)
		return -1;
	left = (d - (now - s->traced_at) + 999999) / 1000000;
	return left < 100 ? (int)left : 100;
}

static void say_window_over(const struct session *s)
{
	char who[PATH_MAX + 64] = "";

	if (s->child && !s->child_done)
		snprintf(who, sizeof(who), "; %s (PID %d) goes on untraced, and is waited for", s->target->argv[0],
			 (int)s->child);
	else if (s->target->pid && !s->target_gone)
		snprintf(who, sizeof(who), "; PID %d goes on untraced", (int)s->target->pid);
	ct_note("tracing stopped: --duration (tracer.duration) of %g s is over%s",
		(double)s->conf->tracer.duration / 1e9, who);
}

/*
 * After a window: every probe is gone and every file closed; the command
 * runs on, and the tracer ends with it, with its status, as a run that
 * traced it to the end would. A signal meanwhile ends the wait (the
 * command had it too if it came from the terminal).
 */
static int wait_untraced(struct session *s)
{
	int status;

	while (waitpid(s->child, &status, 0) < 0) {
		if (errno != EINTR)
			return 1;
		if (stop_signal) {
			ct_note("SIG%s: no longer waiting for %s (PID %d)", sigabbrev_np(stop_signal),
				s->target->argv[0], (int)s->child);
			return 128 + (int)stop_signal;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int ct_session_run(struct ct_config *conf, const struct ct_target *t, struct ct_session_daemon *d)
{
	struct session *s = calloc(1, sizeof(*s));
	uint64_t last_tick, ticks = 0;
	int err, ret = 1, outerr;
	bool failed = false, stopped, reload = false, sinks_gone = false, window_over = false;

	if (!s)
		return 1;
	s->conf = conf;
	s->target = t;
	s->aggregate = ct_session_aggregate(conf);
	libbpf_set_print(libbpf_print);
	s->release_fd = -1;
	ct_rings_init(&s->rings);
	s->guard.fd = -1;
	s->shm.fd = -1;
	s->inproc = conf->tracer.engine == CT_ENGINE_INPROC;
	hup_reloads = d != NULL;
	if (!sessions_begun && conf->tracer.start_paused)
		pause_wanted = 1;
	sessions_begun = true;
	catch_signals(); /* before anything is forked */
	s->wall_offset = (int64_t)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC));
	ct_hangs_init(&s->hangs, ct_config_hang_timeout(conf), s->wall_offset, on_hang, s);
	s->hang_watch = s->hangs.timeout_ns && !s->aggregate && !s->inproc;
	if (s->hangs.timeout_ns && !s->hang_watch && conf->tracer.hang_timeout &&
	    strcmp(conf->tracer.hang_timeout, "auto")) /* set, not a daemon's default */
		ct_warn("tracer.hang_timeout: hangs are watched in events mode with the eBPF engine only, "
			"not %s: none will be reported", s->aggregate ? "in aggregate mode" : "with --engine inproc");
	s->nvtx_plugin = -1;
	ct_nvtx_init(&s->nvtx, s->wall_offset, on_nvtx, s);
	analysis_configure(conf);
	s->stats.start_ns = now_ns(CLOCK_REALTIME);

	stopped = stopped_before_tracing(s);
	err = stopped ? -EINTR : s->aggregate ? check_aggregate(conf) : 0;
	if (!err && s->inproc)
		err = check_inproc(s);
	/* The command first, held: the sinks' default file names carry its pid. */
	if (!err && t->argv)
		err = nvtx_setup(s);
	if (!err && t->argv)
		err = spawn_held(s);
	if (!err) {
		struct ct_output_cmd cmd = { t->argv ? t->argv[0] : NULL, s->child };

		err = ct_output_open_cmd(&s->out, conf, t->argv ? &cmd : NULL);
	}
	if (!err)
		err = setup(s);
	if (!stopped && stopped_before_tracing(s))
		err = -EINTR;
	if (err) {
		if (s->child) {
			kill(s->child, SIGKILL);
			waitpid(s->child, NULL, 0);
			s->child = 0;
		}
		if (s->release_fd >= 0)
			close(s->release_fd);
		s->release_fd = -1;
		failed = true;
		goto out;
	}
	boost_reader(s);
	if (s->gpu && s->target->pid)
		gpu_enter(s);
	s->traced = true;
	s->traced_at = now_ns(CLOCK_MONOTONIC);
	if (s->paused)
		s->paused_at = s->traced_at; /* paused from the start: counted from there */
	if (s->release_fd >= 0) {
		char go[2 * PATH_MAX + 3] = "g";
		size_t len = 1;

		if (s->gpu) {
			const char *cupti = s->conf->tracer.cupti_path ? s->conf->tracer.cupti_path : "";

			len += (size_t)snprintf(go + 1, sizeof(go) - 1, "%s%c%s", s->gpu_src.path, 0, cupti) + 1;
			if (len > sizeof(go))
				len = sizeof(go);
		}
		if (write(s->release_fd, go, len) != (ssize_t)len)
			ct_warn("could not release the command: %s", strerror(errno));
		close(s->release_fd);
		s->release_fd = -1;
	}
	say_tracing(s);
	if (d) {
		d->started = true;
		ct_notify("READY=1");
	}

	last_tick = now_ns(CLOCK_MONOTONIC);
	while (!stop_signal) {
		int wait_ms = window_wait_ms(s);

		if (wait_ms < 0) {
			window_over = true;
			break;
		}
		if (s->inproc) {
			/* No wake-ups from a process's hot path: read, and nap while it is idle. */
			err = ct_shmring_consume(&s->shm);
			if (err == 0)
				nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
		} else {
			err = ct_rings_poll(&s->rings, wait_ms);
			if (err == 0) /* records below the wake-up threshold are read at least every 100 ms */
				err = ct_rings_consume(&s->rings, -1);
		}
		follow_gone(s);
		if (s->hang_watch && now_ns(CLOCK_MONOTONIC) - s->hangs_checked >= 100000000ull) {
			s->hangs_checked = now_ns(CLOCK_MONOTONIC); /* a busy ring wakes the loop far more often */
			ct_hangs_check(&s->hangs, s->hangs_checked);
		}
		ct_watcher_recheck(&s->watcher, false);
		ct_output_flush_live(&s->out);
		/* `cudatracer -- ./app | head -1`: with every sink's reader gone,
		 * tracing on would only slow the command. Stopped as a signal
		 * stops it: the command goes on, untraced. */
		if (ct_output_all_dead(&s->out)) {
			ct_err("every sink failed (a reader that went away, a full disk): tracing stops%s",
			       s->child ? "; the command goes on untraced" : "");
			sinks_gone = true;
			break;
		}
		if (err < 0 && err != -EINTR) {
			ct_err("reading the ring buffer failed: %s", strerror(-err));
			failed = true;
			break;
		}
		reap_child(s);
		guard_check(s);
		if (s->child_done || s->target_gone)
			break;
		pause_apply(s);
		if (d && d->serve)
			d->serve(d->ctx);
		if (hup_pending) {
			hup_pending = 0;
			if (d->reload(d->ctx) > 0) {
				reload = true;
				break;
			}
		}
		if (now_ns(CLOCK_MONOTONIC) - last_tick >= 1000000000ull) {
			uint64_t st[CT_STAT_MAX];

			last_tick = now_ns(CLOCK_MONOTONIC);
			if (s->aggregate)
				feed_totals(s);
			if (refresh_stats(s, st))
				say_loss_live(s, last_tick);
			ct_output_stats(&s->out, &s->stats);
			if (++ticks % 2 == 0)
				sweep_followed(s);
			ct_output_tick(&s->out, now_ns(CLOCK_REALTIME));
		}
	}
	if (window_over)
		say_window_over(s);
	if (stop_signal)
		ct_info("stopping on signal %d", (int)stop_signal);
	if (stop_signal && d) {
		ct_notify("STOPPING=1");
		ct_note("SIG%s: stopping", sigabbrev_np(stop_signal));
	}
	ret = failed ? 1 : reload ? CT_SESSION_RELOAD : 0;
	if (s->child) {
		if (window_over) {
			ret = 0; /* the command's own status, once it ends (wait_untraced) */
		} else if (!s->child_done) {
			/* Stopped by a signal: the command goes on untraced unless it got it too. */
			waitpid(s->child, NULL, WNOHANG);
			ret = sinks_gone ? 1 : 128 + (int)stop_signal;
		} else {
			ret = s->child_status;
		}
	}
out:
	/*
	 * Whatever the reason for stopping: every record that reached the ring
	 * is written. The engine first stops taking new calls: detaching the
	 * watcher and the probes takes a while (hundreds of ms), and a program
	 * that keeps calling would fill the ring meanwhile, every record past
	 * it lost. The watcher goes next, so that no process can be stopped
	 * after its last event is read: every task it stopped gets its SIGCONT.
	 * The ring is read between the steps, and again after.
	 */
	s->stopped_at = now_ns(CLOCK_MONOTONIC);
	/* Its last records while the probe still reads them. */
	if (s->gpu_src.entered && !s->target_gone) {
		ct_gpu_detach(&s->gpu_src);
		ct_rings_consume(&s->rings, -1);
	}
	ct_engine_stop(&s->engine);
	if (s->shm.head)
		ct_shmring_stop(&s->shm);
	ct_rings_consume(&s->rings, -1);
	if (s->watcher.obj)
		ct_watcher_detach(&s->watcher);
	ct_rings_consume(&s->rings, -1);
	for (int i = 0; i < s->n_plugins; i++) {
		ct_probe_detach(&s->probes[i]);
		ct_rings_consume(&s->rings, -1);
	}
	ct_rings_consume(&s->rings, -1);
	if (s->shm.head)
		ct_shmring_consume(&s->shm);
	ct_gpu_finish(&s->gpu_sink);
	ct_nvtx_finish(&s->nvtx, s->stopped_at);
	report(s);
	if (s->aggregate && s->engine.skel)
		feed_totals(s);
	s->stats.end_ns = now_ns(CLOCK_REALTIME);
	outerr = ct_output_close(&s->out, &s->stats);
	/* After an error that kept tracing from starting, a count of nothing
	 * would only bury the message that said why. */
	if (s->traced && !failed) {
		say_totals(s);
		say_unprobed(s);
		say_paused(s);
		/* Said only when some kernel went unnamed: "N named, 0 unnamed" on every run is noise. */
		if (s->stats.launches_unnamed || ct_decode_strings_unread())
			ct_note("launches: %llu with their kernel named, %llu unnamed (handles made before "
				"tracing, or whose name could not be read); %llu name%s unread at entry and at return",
				(unsigned long long)s->stats.launches_named,
				(unsigned long long)s->stats.launches_unnamed,
				(unsigned long long)ct_decode_strings_unread(), CT_S(ct_decode_strings_unread()));
		gpu_report(s);
		nvtx_report(s);
	}
	if (s->untrusted)
		ct_warn("%llu records of the in-process ring named a process outside the command's tree: not "
			"believed, dropped", (unsigned long long)s->untrusted);
	if (s->stats.lost)
		ct_warn("%llu record%s did not fit in the ring buffer: raise %s", (unsigned long long)s->stats.lost,
			CT_S(s->stats.lost), s->inproc ? INPROC_RING_ADVICE : RINGBUF_ADVICE);
	teardown(s);
	ct_guard_stop(&s->guard);
	if (window_over && s->child && !s->child_done)
		ret = wait_untraced(s);
	if (failed && !s->child)
		ret = err == -EINTR && stop_signal ? 128 + (int)stop_signal : 1;
	if (outerr && !ret)
		ret = 1;
	if (d)
		d->stop_signal = stop_signal;
	free(s);
	return ret;
}
