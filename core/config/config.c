// SPDX-License-Identifier: MIT
/*
 * The INI config. One table per section ({name, type, default, offset,
 * help}) drives the parser, the defaults and --config-help; sinks bring
 * their own key tables. Unknown sections and keys are errors with file:line.
 */
#include <errno.h>
#include <limits.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config/config.h"
#include "util/log.h"
#include "plugin/trust.h"
#include "record.h" /* CT_USTACK_* */

#define CT_STRINGIFY_(x) #x
#define CT_STRINGIFY(x) CT_STRINGIFY_(x)
#define TK(name, type, def, field, help) \
	{ name, type, def, offsetof(struct ct_tracer_conf, field), help, NULL, NULL }
/* A choice key: `words` are indexed by the enum of `field` (choices.h). */
#define TC(name, def, field, words, help) \
	{ name, CT_KEY_CHOICE, def, offsetof(struct ct_tracer_conf, field), help, words, NULL }
#define FK(name, type, def, field, help) \
	{ name, type, def, offsetof(struct ct_filter_conf, field), help, NULL, NULL }

static const char *const profile_words[] = {
	[CT_PROFILE_DEFAULT] = "default", [CT_PROFILE_FULL] = "full", NULL };
static const char *const reader_priority_words[] = {
	[CT_READER_HIGH] = "high", [CT_READER_NORMAL] = "normal", NULL };
static const char *const attach_words[] = {
	[CT_ATTACH_AUTO] = "auto", [CT_ATTACH_MULTI] = "multi", [CT_ATTACH_SINGLE] = "single",
	[CT_ATTACH_SESSION] = "session", NULL };
static const char *const engine_words[] = {
	[CT_ENGINE_EBPF] = "ebpf", [CT_ENGINE_INPROC] = "inproc", NULL };
static const char *const stack_method_words[] = {
	[CT_STACK_FP] = "fp", [CT_STACK_DWARF] = "dwarf", NULL };
static const char *const inproc_clock_words[] = {
	[CT_INPROC_CLOCK_AUTO] = "auto", [CT_INPROC_CLOCK_MONOTONIC] = "monotonic", NULL };
static const char *const rotate_compress_words[] = {
	[CT_ROTATE_NONE] = "none", [CT_ROTATE_GZIP] = "gzip", NULL };
static const char *const mode_words[] = {
	[CT_MODE_EVENTS] = "events", [CT_MODE_AGGREGATE] = "aggregate", NULL };

/* Every user of the list (the session, --list-apis, --explain) can take it
 * as it is: a plugin named twice is loaded once (ct_plugin_load_once). */
static int check_plugins(const void *dst, char *why, size_t n)
{
	const struct ct_list *l = dst;

	if (!l->n) {
		snprintf(why, n, "expected at least one plugin");
		return -EINVAL;
	}
	if (l->n > CT_MAX_PLUGINS) {
		snprintf(why, n, "at most %d plugins at once", CT_MAX_PLUGINS);
		return -EINVAL;
	}
	return 0;
}

static int check_pid(const void *dst, char *why, size_t n)
{
	if (*(const uint64_t *)dst <= INT_MAX)
		return 0;
	snprintf(why, n, "expected a process id (at most %d), or 0 for every process", INT_MAX);
	return -EINVAL;
}

/*
 * API globs (entry_only, timed): symbol characters and fnmatch's * ? [...]
 * only, brackets closed, so that a typo such as "cudaEventRecord;" or a
 * stray quote is refused where it was written instead of matching nothing.
 */
static int check_api_globs(const void *dst, char *why, size_t n)
{
	const struct ct_list *l = dst;

	for (size_t i = 0; i < l->n; i++) {
		const char *g = l->v[i], *p;
		bool open = false;

		for (p = g; *p; p++) {
			if (*p == '[')
				open = true;
			else if (*p == ']')
				open = false;
			else if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
				 *p != '_' && *p != '*' && *p != '?' && !(open && (*p == '!' || *p == '^' || *p == '-')))
				break;
		}
		if (*p || open) {
			snprintf(why, n, "'%s' is not an API glob (letters, digits, _ and the wildcards * ? [...], "
				 "comma-separated)", g);
			return -EINVAL;
		}
	}
	return 0;
}

/* A bare number is microseconds: "--duration 10" meant as seconds would
 * stop at once. Below a millisecond, no window is meant. */
static int check_duration(const void *dst, char *why, size_t n)
{
	uint64_t v = *(const uint64_t *)dst;

	if (!v || v >= 1000000)
		return 0;
	snprintf(why, n, "expected 0 (no limit) or at least 1ms, with its unit (10s, 500ms, 2m; a bare number is us)");
	return -EINVAL;
}

/* tracer.hang_timeout: auto, off, or a duration of at least 1ms. */
static int hang_timeout_parse(const char *v, uint64_t *ns, char *why, size_t n)
{
	static const struct ct_key dur = { "hang_timeout", CT_KEY_DUR, NULL, 0, NULL, NULL, NULL };

	*ns = 0;
	if (!v || !strcmp(v, "auto") || !strcmp(v, "off"))
		return 0;
	if (!ct_key_set(&dur, ns, v, why, n) && *ns >= 1000000)
		return 0;
	snprintf(why, n, "expected auto, off, or a duration of at least 1ms with its unit (30s, 5m)");
	return -EINVAL;
}

static int check_hang_timeout(const void *dst, char *why, size_t n)
{
	uint64_t ns;

	return hang_timeout_parse(*(char *const *)dst, &ns, why, n);
}

uint64_t ct_config_hang_timeout(const struct ct_config *c)
{
	const char *v = c->tracer.hang_timeout;
	char why[128];
	uint64_t ns;

	if ((!v || !strcmp(v, "auto")) && c->tracer.daemon)
		v = CT_HANG_TIMEOUT_DAEMON;
	return hang_timeout_parse(v, &ns, why, sizeof(why)) ? 0 : ns;
}

static const struct ct_key tracer_keys[] = {
	{ "plugins", CT_KEY_LIST, "cudart", offsetof(struct ct_tracer_conf, plugins),
	  "Runtime plugins to load, at most " CT_STRINGIFY(CT_MAX_PLUGINS) ": names (cudart, cuda, hip, "
	  "opencl) or paths to .so files; one named twice is loaded once", NULL, check_plugins },
	TC("profile", "default", profile, profile_words,
	   "default leaves out getters that frameworks call thousands of times a second; full traces them too, "
	   "at two uprobe traps per call (about 1.5 us on a VM, for getters that take 60 ns: said at start)"),
	TK("ringbuf_size", CT_KEY_SIZE, "16M", ringbuf_size,
	   "Ring buffer per plugin, a power of two (rounded up); records that do not fit are counted as lost"),
	TK("wakeup_bytes", CT_KEY_SIZE, "256K", wakeup_bytes,
	   "Each CPU wakes the reader when it has sent this much since its last wake-up (0: on every record), "
	   "at most a quarter of the ring shared among the CPUs; the reader also polls every 100 ms"),
	TC("reader_priority", "high", reader_priority, reader_priority_words,
	   "high runs the reader at nice -10 (the traced program keeps its own), so that it keeps up "
	   "when the program keeps every core busy; normal leaves it as started"),
	TK("plugin_path", CT_KEY_STR, NULL, plugin_path,
	   "Colon-separated folders searched for plugins before the built-in ones"),
	TC("attach", "auto", attach, attach_words,
	   "auto uses uprobe session programs where the kernel has them (6.13+: one program for entry and "
	   "return, no return trap where none is needed: an entry-only API's, an untraced process's, a "
	   "driver launch inside a runtime launch's), else uprobe_multi (entry and return programs), else "
	   "one link per symbol; session, multi and single force one of them"),
	TK("lib", CT_KEY_STR, NULL, lib,
	   "Probe this library or executable for every process that maps it"),
	TC("mode", "events", mode, mode_words,
	   "events sends every call to the sinks; aggregate only counts calls, errors, time and bytes "
	   "per process and API in the kernel (no per-call records at all) for the summary sink"),
	TC("engine", "ebpf", engine, engine_words,
	   "ebpf traces with uprobes, any process; inproc (a command only) preloads a library into the "
	   "command that interposes the runtime's functions and writes the same records into a shared "
	   "ring: no BPF, no root, less per call; it cannot see a runtime linked into the executable "
	   "(docs/engines.md). --engine sets it"),
	TC("inproc_clock", "auto", inproc_clock, inproc_clock_words,
	   "--engine inproc: auto times calls by the TSC where it is invariant and the kernel's clocksource "
	   "(the tracer converts to CLOCK_MONOTONIC), else by clock_gettime; monotonic always by clock_gettime"),
	TK("inproc_ring_size", CT_KEY_SIZE, "64M", inproc_ring_size,
	   "--engine inproc: the ring every process of the command writes its records into, a power of two "
	   "(rounded up). The program writes as fast as it calls (millions of records a second in a tight "
	   "loop), faster than the reader turns them into output: a burst the ring cannot hold is counted as "
	   "lost. Its pages are allocated at start"),
	{ "entry_only", CT_KEY_LIST, NULL, offsetof(struct ct_tracer_conf, entry_only),
	  "API globs recorded at entry only: no exit probe, no result or duration, less overhead; added to "
	  "the plugins' own entry-only APIs (cudaEventRecord, cudaStreamWaitEvent, cuEventRecord, ...: "
	  "--list-apis marks them). An out-parameter the call writes is unknown (null)",
	  NULL, check_api_globs },
	{ "timed", CT_KEY_LIST, NULL, offsetof(struct ct_tracer_conf, timed),
	  "API globs recorded at entry and return (result and duration) even where the plugin or "
	  "entry_only makes them entry-only; * times every API",
	  NULL, check_api_globs },
	TK("scan_libraries", CT_KEY_BOOL, "false", scan_libraries,
	   "With a command or -p: check every library the process loads for a runtime linked into it "
	   "(a static libcudart inside a .so); each load pauses the process while its symbols are read"),
	TK("scan_execs", CT_KEY_BOOL, "true", scan_execs,
	   "System-wide (no command, -p or lib): check each executable that starts for a runtime linked "
	   "into it (nvcc's default) and probe it before it runs. Its first process waits while its symbols "
	   "are read (once per file); later ones cost a hash lookup in the kernel"),
	TK("gpu_activity", CT_KEY_BOOL, "false", gpu_activity,
	   "With a command or -p: also record the kernels, copies and sets the GPU executed (CUPTI, through "
	   "an injection library the CUDA driver loads at cuInit, or that the tracer brings into a running "
	   "process and turns off again when it stops), each with the call that launched it; "
	   "--gpu-activity sets it"),
	TK("inject_library", CT_KEY_STR, NULL, inject_library,
	   "gpu_activity: the injection library (default: libcudatracer-inject.so beside the binary or "
	   "in the install folder)"),
	TK("cupti_path", CT_KEY_STR, NULL, cupti_path,
	   "gpu_activity: the libcupti a traced command opens (default, and always with -p: the copy it maps, pip's "
	   "nvidia-cuda-cupti beside its libcudart, /usr/local/cuda, the loader's path)"),
	TK("nvtx", CT_KEY_BOOL, "true", nvtx,
	   "With a command: record its NVTX ranges and marks, and give each call and kernel the ranges it ran "
	   "in (the tracer's NVTX injection, through NVTX_INJECTION64_PATH; docs/nvtx.md); false leaves "
	   "NVTX alone"),
	TK("aggregate_path", CT_KEY_STR, "-", aggregate_path,
	   "mode = aggregate without -o: file for the summary; - is standard output"),
	TK("daemon", CT_KEY_BOOL, "false", daemon,
	   "Run as a service (--daemon sets it): every process, until SIGTERM; SIGHUP reloads the "
	   "config file (a bad one is refused and the running one kept); every sink needs a path "
	   "or a listener, nothing goes to standard output (docs/daemon.md)"),
	{ "duration", CT_KEY_DUR, "0", offsetof(struct ct_tracer_conf, duration),
	  "Stop tracing after this long (10s, 500ms, 2m; 0: until the target ends or a signal), counted from "
	  "when the probes went live, a pause included; every file is closed complete and the reason said. A "
	  "command goes on untraced and is waited for (its exit status is the tracer's); -p and system-wide, "
	  "the tracer exits. Not with daemon (a daemon takes capture requests instead); --duration sets it",
	  NULL, check_duration },
	TK("control_socket", CT_KEY_STR, CT_CONTROL_SOCKET, control_socket,
	   "daemon: the socket that takes capture requests (cudatracer capture), root only, in a folder of "
	   "root's that no one else may enter (made 0700 if missing); empty: none (docs/daemon.md)"),
	{ "hang_timeout", CT_KEY_STR, "auto", offsetof(struct ct_tracer_conf, hang_timeout),
	  "Report a collective or synchronization still in flight after this long (30s, 5m), while it is "
	  "stuck: on stderr and to the sinks that show hangs (jsonl, the metric sinks, otlp spans); again once it ends. "
	  "auto: off, or " CT_HANG_TIMEOUT_DAEMON " with daemon; off: never; --hang-timeout sets it "
	  "(docs/events.md)", NULL, check_hang_timeout },
	TK("start_paused", CT_KEY_BOOL, "false", start_paused,
	   "Start attached (probes in place, the in-process engine preloaded) but record nothing until "
	   "SIGUSR2 resumes; SIGUSR1 pauses again, at any time and in any mode. Calls in flight at a pause "
	   "are still recorded; a daemon's reload keeps the pause as it was"),
	{ 0 },
};

static const struct ct_key filter_keys[] = {
	{ "pid", CT_KEY_U64, "0", offsetof(struct ct_filter_conf, pid),
	  "Trace only this process and its children (0: all); -p PID sets it", NULL, check_pid },
	FK("comm", CT_KEY_STR, NULL, comm, "Keep only calls from threads of this command name"),
	FK("cgroup", CT_KEY_STR, NULL, cgroup,
	   "Trace only tasks in this cgroup v2 directory or below it (a path on the cgroup2 mount, "
	   "e.g. /sys/fs/cgroup/unified/system.slice/docker-ID.scope), filtered in the kernel; "
	   "--cgroup PATH sets it"),
	FK("include", CT_KEY_LIST, NULL, include,
	   "Comma-separated globs of API names to trace (default: the profile's APIs)"),
	FK("exclude", CT_KEY_LIST, NULL, exclude, "Comma-separated globs of API names not to trace"),
	FK("min_duration", CT_KEY_DUR, "0", min_duration,
	   "Keep only calls that took at least this long (50us, 2ms; bare number: us); an entry-only call, "
	   "whose time is not known, is not kept"),
	FK("errors_only", CT_KEY_BOOL, "false", errors_only, "Keep only calls that returned an error"),
	{ 0 },
};

#define SK(name, type, def, field, help) \
	{ name, type, def, offsetof(struct ct_stacks_conf, field), help, NULL, NULL }

static int check_stack_depth(const void *dst, char *why, size_t n)
{
	uint64_t v = *(const uint64_t *)dst;

	if (v >= 1 && v <= CT_USTACK_DEPTH_MAX)
		return 0;
	snprintf(why, n, "expected 1 to %d frames (the kernel's perf_event_max_stack)", CT_USTACK_DEPTH_MAX);
	return -EINVAL;
}

static int check_stack_entries(const void *dst, char *why, size_t n)
{
	uint64_t v = *(const uint64_t *)dst;

	if (v >= 16 && v <= (1u << 20))
		return 0;
	snprintf(why, n, "expected 16 to 1048576 stacks");
	return -EINVAL;
}

static int check_dwarf_bytes(const void *dst, char *why, size_t n)
{
	uint64_t v = *(const uint64_t *)dst;

	if (v >= 4096 && v <= CT_USTACK_SLICE_MAX && v % 4096 == 0)
		return 0;
	snprintf(why, n, "expected whole pages: 4K, 8K ... up to %uK", CT_USTACK_SLICE_MAX >> 10);
	return -EINVAL;
}

static const struct ct_key stacks_keys[] = {
	SK("enabled", CT_KEY_BOOL, "false", enabled,
	   "Give the events of the APIs below their call stack (innermost first); --stacks sets it"),
	SK("apis", CT_KEY_LIST, "alloc,free,launch,errors", apis,
	   "Which calls carry a stack: alloc, free, launch, copy, set, sync (by the API's kind), errors "
	   "(every call that fails), all (every call), or API globs"),
	{ "method", CT_KEY_CHOICE, "fp", offsetof(struct ct_stacks_conf, method),
	  "fp: the kernel follows frame pointers (cheap: each distinct stack is sent once); dwarf: a "
	  "copy of the top of the stack is unwound from .eh_frame in user space (code built without "
	  "frame pointers; costs dwarf_bytes of ring per call)", stack_method_words, NULL },
	{ "depth", CT_KEY_U64, "64", offsetof(struct ct_stacks_conf, depth),
	  "Frames kept per stack; deeper stacks end in [truncated]", NULL, check_stack_depth },
	{ "map_entries", CT_KEY_U64, "16384", offsetof(struct ct_stacks_conf, map_entries),
	  "method fp: distinct stacks the kernel keeps; calls from stacks past them are counted and "
	  "carry none", NULL, check_stack_entries },
	{ "dwarf_bytes", CT_KEY_SIZE, "16K", offsetof(struct ct_stacks_conf, dwarf_bytes),
	  "method dwarf: bytes of the stack copied per call, whole pages from the one the stack pointer is in, "
	  "so that dwarf_bytes - 4K to dwarf_bytes of them hold frames, as the pointer falls in its page "
	  "(frames above them are lost: [truncated])",
	  NULL, check_dwarf_bytes },
	SK("python", CT_KEY_BOOL, "true", python,
	   "With stacks: the Python functions, files and lines of a CPython 3.10 to 3.13 process's calls "
	   "(py_stack; docs/stacks-python.md)"),
	{ 0 },
};

static int check_link_gbps(const void *dst, char *why, size_t n)
{
	const char *v = *(char *const *)dst;
	char *end;
	double x;

	if (!v)
		return 0;
	errno = 0;
	x = strtod(v, &end);
	if (!errno && end != v && !*end && x > 0 && x < 1e6)
		return 0;
	snprintf(why, n, "expected GB/s, a number above 0 (25 for PCIe 4.0 x16)");
	return -EINVAL;
}

double ct_config_link_gbps(const struct ct_config *c)
{
	return c->analysis.link_gbps ? strtod(c->analysis.link_gbps, NULL) : 25.0;
}

#define AK(k, t, def, field, help) { k, t, def, offsetof(struct ct_analysis_conf, field), help, NULL, NULL }
static const struct ct_key analysis_keys[] = {
	AK("step_range", CT_KEY_STR, NULL, step_range,
	   "With gpu_activity: steps are the NVTX ranges whose name matches this glob (step*); "
	   "--step-range sets it. Neither this nor step_function: steps from the launch sequence's period"),
	AK("step_function", CT_KEY_STR, NULL, step_function,
	   "With gpu_activity and Python frames (stacks): steps run from one entry into this Python "
	   "function to the next; --step-function sets it"),
	AK("host_gap", CT_KEY_DUR, "50us", host_gap_ns,
	   "A pause at least this long before a launch is host work, a shorter one launch-bound"),
	{ "link_gbps", CT_KEY_STR, "25", offsetof(struct ct_analysis_conf, link_gbps),
	  "The host link's bandwidth in GB/s, against which pageable copies are measured", NULL,
	  check_link_gbps },
	{ 0 },
};

static const struct ct_key sink_common_keys[] = {
	{ "type", CT_KEY_STR, NULL, offsetof(struct ct_sink_common, type),
	  "Sink type: text, jsonl, ... (see the list below)", NULL, NULL },
	{ "path", CT_KEY_STR, NULL, offsetof(struct ct_sink_common, path),
	  "Output file; - is standard output. Unset: standard output, except for a file format "
	  "(jsonl, csv, chrome, html) when tracing a command, which shares that output: then a new "
	  "file cudatracer-COMMAND-PID.EXT in the current folder", NULL, NULL },
	{ 0 },
};

/* Rotation (core/sinks/rotate.h): keys of the sinks whose ops say rotatable. */
static const struct ct_key sink_rotate_keys[] = {
	{ "rotate_size", CT_KEY_SIZE, "0", offsetof(struct ct_sink_common, rot.size),
	  "Once the file holds this many bytes (K, M, G), it is renamed "
	  "NAME.YYYYmmddTHHMMSSZ-NNN.EXT beside itself, finished, and a new file begun at path. "
	  "0: never by size", NULL, NULL },
	{ "rotate_interval", CT_KEY_DUR, "0", offsetof(struct ct_sink_common, rot.interval_ns),
	  "The same once the file is this old (1h, 30m), if it holds a record. 0: never by age", NULL, NULL },
	{ "rotate_keep", CT_KEY_U64, "0", offsetof(struct ct_sink_common, rot.keep),
	  "Rotated files kept, the newest; older ones are removed (only files of the rotation's "
	  "names, plain, owned by the user cudatracer runs as). 0: all", NULL, NULL },
	{ "rotate_keep_bytes", CT_KEY_SIZE, "0", offsetof(struct ct_sink_common, rot.keep_bytes),
	  "Bytes of rotated files kept, the newest (the same files as rotate_keep). 0: no cap", NULL, NULL },
	{ "rotate_compress", CT_KEY_CHOICE, "none", offsetof(struct ct_sink_common, rot.compress),
	  "none, or gzip: each rotated file compressed to NAME...EXT.gz beside the reader, "
	  "the plain one then removed", rotate_compress_words, NULL },
	{ 0 },
};

static const struct {
	const char *name;
	const struct ct_key *keys;
	size_t off;
	const char *help;
} sections[] = {
	{ "tracer", tracer_keys, offsetof(struct ct_config, tracer), "What to trace and how" },
	{ "filter", filter_keys, offsetof(struct ct_config, filter), "Which calls to keep" },
	{ "stacks", stacks_keys, offsetof(struct ct_config, stacks), "Call stacks (docs/stacks.md)" },
	{ "analysis", analysis_keys, offsetof(struct ct_config, analysis),
	  "Why the GPU was idle, in a live run's sinks (docs/analysis.md)" },
};

void ct_config_init(struct ct_config *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		ct_keys_defaults(sections[i].keys, (char *)c + sections[i].off);
}

void ct_config_free(struct ct_config *c)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		ct_keys_free(sections[i].keys, (char *)c + sections[i].off);
	for (int i = 0; i < c->n_sinks; i++) {
		struct ct_sink_conf *s = &c->sinks[i];

		for (int j = 0; j < s->n_kv; j++) {
			free(s->kv[j].key);
			free(s->kv[j].val);
			free(s->kv[j].from);
		}
		free(s->kv);
		if (s->ctx) {
			if (s->ops)
				ct_keys_free(s->ops->keys, s->ctx);
			ct_keys_free(sink_common_keys, s->ctx);
			ct_keys_free(sink_rotate_keys, s->ctx);
			free(s->ctx);
		}
		free(s->name);
		free(s->file);
	}
	free(c->sinks);
	memset(c, 0, sizeof(*c));
}

struct parse_state {
	struct ct_config *c;
	const char *file;
	bool failed; /* a handler already said what is wrong */
	int fail_line; /* ... about this line */
	int line; /* inih's running line count is not passed to handlers */
};

static struct ct_sink_conf *sink_find(struct ct_config *c, const char *name);

static struct ct_sink_conf *sink_section(struct ct_config *c, const char *name, const char *file)
{
	struct ct_sink_conf *s = sink_find(c, name);

	if (s)
		return s;
	s = realloc(c->sinks, (c->n_sinks + 1) * sizeof(*s));
	if (!s)
		return NULL;
	c->sinks = s;
	s = &c->sinks[c->n_sinks++];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	s->file = strdup(file);
	return s;
}

static struct ct_sink_conf *sink_find(struct ct_config *c, const char *name)
{
	for (int i = 0; i < c->n_sinks; i++)
		if (!strcmp(c->sinks[i].name, name))
			return &c->sinks[i];
	return NULL;
}

/* A key of a sink: at `line` of its file, or set by the option `from`. */
static int sink_kv(struct ct_sink_conf *s, const char *key, const char *val, int line, const char *from)
{
	void *kv = realloc(s->kv, (s->n_kv + 1) * sizeof(*s->kv));

	if (!kv)
		return -ENOMEM;
	s->kv = kv;
	s->kv[s->n_kv].key = strdup(key);
	s->kv[s->n_kv].val = strdup(val);
	s->kv[s->n_kv].from = from ? strdup(from) : NULL;
	s->kv[s->n_kv].line = line;
	if (!s->kv[s->n_kv].key || !s->kv[s->n_kv].val || (from && !s->kv[s->n_kv].from)) {
		free(s->kv[s->n_kv].key);
		free(s->kv[s->n_kv].val);
		free(s->kv[s->n_kv].from);
		return -ENOMEM;
	}
	s->n_kv++;
	return 0;
}

/* A sink's name is the NAME of -C sink.NAME.key: no dots, nothing a shell quotes. */
static bool sink_name_ok(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
		    *p != '_' && *p != '-')
			return false;
	return true;
}

int ct_config_set(struct ct_config *c, const char *section, const char *key,
		  const char *val, const char *origin)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const struct ct_key *k;
		char why[256];
		int err;

		if (strcmp(section, sections[i].name))
			continue;
		k = ct_key_find(sections[i].keys, key);
		if (!k) {
			ct_err("%s: unknown key '%s' in [%s] (cudatracer --config-help lists the keys)",
			       origin, key, section);
			return -EINVAL;
		}
		err = ct_key_set(k, (char *)c + sections[i].off, val, why, sizeof(why));
		if (err)
			ct_err("%s: bad value '%s' for %s.%s: %s", origin, val, section, key, why);
		return err;
	}
	if (!strncmp(section, "sink.", 5) && section[5]) {
		struct ct_sink_conf *s;

		if (!sink_name_ok(section + 5)) {
			ct_err("%s: '%s' is not a sink name (letters, digits, _ and -)", origin, section + 5);
			return -EINVAL;
		}
		s = sink_section(c, section + 5, origin);
		if (!s || !s->name || !s->file || sink_kv(s, key, val, 0, origin))
			return -ENOMEM;
		return 0;
	}
	ct_err("%s: unknown section [%s] (known: [tracer], [filter], [sink.NAME])", origin, section);
	return -EINVAL;
}

/* A [sink.NAME] header, seen by the line reader (inih as built may not
 * call a handler at a header): a second one of a name would merge into the
 * first without a word (two sinks meant, one made). */
static int on_section(struct parse_state *ps, const char *line)
{
	const char *p = line + strspn(line, " \t"), *end = strchr(p, ']');
	char section[256];
	struct ct_sink_conf *s;

	if (*p != '[' || !end || (size_t)(end - p) >= sizeof(section))
		return 1; /* not a header; inih says what is wrong with a broken one */
	snprintf(section, sizeof(section), "%.*s", (int)(end - p - 1), p + 1);
	if (strncmp(section, "sink.", 5) || !section[5] || !sink_name_ok(section + 5))
		return 1;
	s = sink_find(ps->c, section + 5);
	if (s) {
		ct_err("%s:%d: [%s] again: it is at line %d already (one section per sink; give this one "
		       "another name)", ps->file, ps->line, section, s->line);
		ps->failed = true;
		return 0;
	}
	s = sink_section(ps->c, section + 5, ps->file);
	if (!s || !s->name || !s->file) {
		ct_err("%s:%d: out of memory", ps->file, ps->line);
		ps->failed = true;
		return 0;
	}
	s->line = ps->line;
	return 1;
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *ps = user;
	char origin[512];

	if (!name) /* a new section (INI_CALL_HANDLER_ON_NEW_SECTION) */
		return 1;
	snprintf(origin, sizeof(origin), "%s:%d", ps->file, ps->line);
	if (!ps->failed)
		ps->fail_line = ps->line; /* frozen at the first failure */
	if (!*section) {
		ct_err("%s: key '%s' is not in a [section]", origin, name);
		ps->failed = true;
		return 0;
	}
	if (!strncmp(section, "sink.", 5) && section[5]) {
		struct ct_sink_conf *s = sink_section(ps->c, section + 5, ps->file);

		if (!s || sink_kv(s, name, value, ps->line, NULL)) {
			ct_err("%s: out of memory", origin);
			ps->failed = true;
			return 0;
		}
		if (!s->line)
			s->line = ps->line;
		return 1;
	}
	if (ct_config_set(ps->c, section, name, value, origin)) {
		ps->failed = true;
		return 0;
	}
	return 1;
}

/* inih reads lines through this, so that messages can name the line, and
 * so that a line longer than inih's buffer is an error: inih would take its
 * tail as a line of its own (a comment's tail as a key). */
struct line_reader {
	FILE *f;
	struct parse_state *ps;
	int long_line; /* the first line too long, or 0 */
	int limit;     /* bytes a line may have, its line break not counted */
};

/* inih ends a value at " ;" (an inline comment); " #" would stay in the
 * value (a plugin named "cudart # the runtime"): it is made a " ;" too. A
 * line that begins with # is a comment of its own, left as it is. */
static void inline_hash_comment(char *line)
{
	char *p = line + strspn(line, " \t");

	if (*p == '#' || *p == ';')
		return;
	for (; *p; p++)
		if (*p == '#' && (p[-1] == ' ' || p[-1] == '\t')) {
			*p = ';';
			return;
		}
}

static char *counting_reader(char *str, int num, void *stream)
{
	struct line_reader *rd = stream;
	char *r = fgets(str, num, rd->f);
	size_t len;

	if (!r)
		return NULL;
	rd->ps->line++;
	len = strlen(str);
	inline_hash_comment(str);
	if (!on_section(rd->ps, str))
		return NULL; /* ends the parse here; the error is said */
	if (str[len ? len - 1 : 0] != '\n' && !feof(rd->f)) {
		rd->long_line = rd->ps->line;
		rd->limit = num - 2;
		return NULL; /* ends the parse here, as if the file ended */
	}
	return r;
}

int ct_config_load(struct ct_config *c, const char *path)
{
	struct parse_state ps = { .c = c, .file = path };
	struct line_reader rd = { .ps = &ps };
	char why[PATH_MAX + 128];
	int line, fd;

	/* A config names plugins and plugin folders: as root, it is code.
	 * (Under setcap the plugins themselves are checked, not the config.)
	 * What is parsed is the file that was checked: the same descriptor. */
	fd = ct_trusted_open(path, geteuid() == 0, why, sizeof(why));
	if (fd == -EPERM) {
		ct_err("refusing config file %s while running privileged: %s", path, why);
		return fd;
	}
	if (fd < 0) {
		ct_err("cannot read config file %s: %s", path, fd == -EINVAL ? why : strerror(-fd));
		return fd;
	}
	rd.f = fdopen(fd, "r");
	if (!rd.f) {
		ct_err("cannot read config file %s: %s", path, strerror(errno));
		close(fd);
		return -ENOMEM;
	}
	line = ini_parse_stream(counting_reader, &rd, on_ini, &ps);
	fclose(rd.f);
	/* Handlers print their own errors; the rest are syntax errors,
	 * such as a broken [section line before the key it made fail. */
	if (line > 0 && (!ps.failed || line < ps.fail_line))
		ct_err("%s:%d: syntax error (expected [section] or key = value)", path, line);
	if (rd.long_line)
		ct_err("%s:%d: line longer than %d bytes", path, rd.long_line, rd.limit);
	if (line > 0 || rd.long_line || ps.failed)
		return -EINVAL;
	if (line < 0) {
		ct_err("cannot parse config file %s", path);
		return -EIO;
	}
	return 0;
}

int ct_config_add_sink_named(struct ct_config *c, const char *name, const char *type, const char *path,
			     const char *origin)
{
	const struct ct_sink_ops *ops = ct_sink_find(type);
	/* WHERE is a file, or for a metric sink its address or URL: an unknown
	 * type's is kept as path, for finish_sink to name the type. */
	const char *where_key = ops && ops->where_key ? ops->where_key : "path";
	char auto_name[80];
	struct ct_sink_conf *s;

	if (name && !sink_name_ok(name)) {
		ct_err("%s: '%s' is not a sink name (letters, digits, _ and -)", origin, name);
		return -EINVAL;
	}
	if (name && sink_find(c, name)) {
		ct_err("%s: there is already a sink named '%s' (from %s): give another name", origin, name,
		       sink_find(c, name)->file);
		return -EINVAL;
	}
	if (!name) {
		/* The type's name, then type2, type3 ...: what a user would guess. */
		snprintf(auto_name, sizeof(auto_name), "%.60s", sink_name_ok(type) ? type : "sink");
		for (int i = 2; sink_find(c, auto_name); i++)
			snprintf(auto_name, sizeof(auto_name), "%.60s%d", sink_name_ok(type) ? type : "sink", i);
		name = auto_name;
	}
	s = sink_section(c, name, origin);
	if (!s || !s->name || !s->file || sink_kv(s, "type", type, 0, NULL) ||
	    (path && sink_kv(s, where_key, path, 0, NULL)))
		return -ENOMEM;
	return 0;
}

int ct_config_add_sink(struct ct_config *c, const char *type, const char *path)
{
	char origin[PATH_MAX + 80];

	snprintf(origin, sizeof(origin), "-o %s%s%s", type, path ? ":" : "", path ? path : "");
	return ct_config_add_sink_named(c, NULL, type, path, origin);
}

/* Where a sink's setting came from: "file:line", the -C that set it, or the -o option (line 0). */
static const char *sink_where(const struct ct_sink_conf *s, int kv, char *buf, size_t n)
{
	int line = kv < 0 ? s->line : s->kv[kv].line;

	if (kv >= 0 && s->kv[kv].from)
		snprintf(buf, n, "%s", s->kv[kv].from);
	else if (line)
		snprintf(buf, n, "%s:%d", s->file, line);
	else
		snprintf(buf, n, "%s", s->file);
	return buf;
}

/* The sink types, comma-separated: for messages. */
static void sink_types_why(char *why, size_t n)
{
	size_t len = 0;

	why[0] = 0;
	for (int i = 0; ct_sink_types[i] && len < n; i++)
		len += (size_t)snprintf(why + len, n - len, "%s%s", i ? ", " : "", ct_sink_types[i]->type);
}

/* Caps or compression with nothing that rotates: a mistake, not a no-op. */
static int check_rotate(struct ct_sink_conf *s, char *at, size_t at_len)
{
	const struct ct_rotate_conf *rc = &((struct ct_sink_common *)s->ctx)->rot;

	if (ct_rotate_on(rc) || (!rc->keep && !rc->keep_bytes && rc->compress == CT_ROTATE_NONE))
		return 0;
	for (int i = 0; i < s->n_kv; i++)
		if (!strncmp(s->kv[i].key, "rotate_", 7)) {
			ct_err("%s: sink '%s': %s does nothing without rotate_size or rotate_interval",
			       sink_where(s, i, at, at_len), s->name, s->kv[i].key);
			return -EINVAL;
		}
	return 0;
}

static int finish_sink(struct ct_sink_conf *s)
{
	const char *type = NULL;
	char why[256], at[PATH_MAX + 80];
	int type_kv = -1, err;

	for (int i = 0; i < s->n_kv; i++)
		if (!strcmp(s->kv[i].key, "type"))
			type = s->kv[type_kv = i].val;
	if (!type) {
		sink_types_why(why, sizeof(why));
		ct_err("%s: sink '%s' has no type (set sink.%s.type to one of: %s)",
		       sink_where(s, -1, at, sizeof(at)), s->name, s->name, why);
		return -EINVAL;
	}
	s->ops = ct_sink_find(type);
	if (!s->ops) {
		sink_types_why(why, sizeof(why));
		/* A -o sink is named by the option itself; a section by its name. */
		if (s->kv[type_kv].line || s->kv[type_kv].from)
			ct_err("%s: sink '%s': unknown sink type '%s' (one of: %s)", sink_where(s, type_kv, at, sizeof(at)),
			       s->name, type, why);
		else
			ct_err("%s: unknown sink type '%s' (one of: %s)", sink_where(s, type_kv, at, sizeof(at)), type, why);
		return -EINVAL;
	}
	s->ctx = calloc(1, s->ops->ctx_size);
	if (!s->ctx)
		return -ENOMEM;
	if ((err = ct_keys_defaults(sink_common_keys, s->ctx)) || (err = ct_keys_defaults(sink_rotate_keys, s->ctx)) ||
	    (err = ct_keys_defaults(s->ops->keys, s->ctx)))
		return err;
	((struct ct_sink_common *)s->ctx)->name = s->name;
	for (int i = 0; i < s->n_kv; i++) {
		const struct ct_key *k = ct_key_find(sink_common_keys, s->kv[i].key);

		if (!k)
			k = ct_key_find(s->ops->keys, s->kv[i].key);
		if (!k && ct_key_find(sink_rotate_keys, s->kv[i].key)) {
			if (!s->ops->rotatable) {
				ct_err("%s: sink '%s' (%s) has no rotation: %s is a key of jsonl, csv and chrome sinks",
				       sink_where(s, i, at, sizeof(at)), s->name, type, s->kv[i].key);
				return -EINVAL;
			}
			k = ct_key_find(sink_rotate_keys, s->kv[i].key);
		}
		if (!k) {
			size_t len = 0;

			for (const struct ct_key *kk = sink_common_keys; kk->name && len < sizeof(why); kk++)
				len += (size_t)snprintf(why + len, sizeof(why) - len, "%s%s", len ? ", " : "", kk->name);
			for (const struct ct_key *kk = s->ops->keys; kk && kk->name && len < sizeof(why); kk++)
				len += (size_t)snprintf(why + len, sizeof(why) - len, ", %s", kk->name);
			for (const struct ct_key *kk = sink_rotate_keys; s->ops->rotatable && kk->name && len < sizeof(why);
			     kk++)
				len += (size_t)snprintf(why + len, sizeof(why) - len, ", %s", kk->name);
			ct_err("%s: unknown key '%s' for a sink of type %s (its keys: %s)",
			       sink_where(s, i, at, sizeof(at)), s->kv[i].key, type, why);
			return -EINVAL;
		}
		err = ct_key_set(k, s->ctx, s->kv[i].val, why, sizeof(why));
		if (err) {
			ct_err("%s: bad value '%s' for sink.%s.%s: %s", sink_where(s, i, at, sizeof(at)),
			       s->kv[i].val, s->name, s->kv[i].key, why);
			return err;
		}
	}
	err = check_rotate(s, at, sizeof(at));
	if (err)
		return err;
	for (const struct ct_key *k = s->ops->keys; k && k->name; k++) {
		if (k->required && !*(char **)((char *)s->ctx + k->off)) {
			ct_err("%s: sink '%s' (%s) needs %s: %s", sink_where(s, -1, at, sizeof(at)), s->name, type,
			       k->name, k->help);
			return -EINVAL;
		}
	}
	return 0;
}

int ct_config_finish(struct ct_config *c)
{
	/* Each sink holds a file and buffers: past this, a mistake. */
	if (c->n_sinks > CT_MAX_SINKS) {
		ct_err("%d sinks configured ([sink.NAME] sections and -o): at most %d are supported",
		       c->n_sinks, CT_MAX_SINKS);
		return -E2BIG;
	}
	for (int i = 0; i < c->n_sinks; i++) {
		int err = finish_sink(&c->sinks[i]);

		if (err)
			return err;
	}
	return 0;
}

static const char *type_name(const struct ct_key *k)
{
	static const char *const names[] = { "", "string", "bool", "integer", "size", "duration", "list", "choice" };

	return names[k->type < 8 ? k->type : 0];
}

/* A key's type, with its choices: "choice: auto, multi, single". */
static void put_type(FILE *out, const struct ct_key *k)
{
	fputs(type_name(k), out);
	for (int i = 0; k->type == CT_KEY_CHOICE && k->choices[i]; i++)
		fprintf(out, "%s%s", i ? ", " : ": ", k->choices[i]);
}

/* Comment text in lines of at most CT_HELP_WIDTH columns: inih reads a
 * line in pieces of INI_MAX_LINE (200) bytes, and a longer comment's
 * second piece would be read as a key. */
#define CT_HELP_WIDTH 78

static void help_comment(FILE *out, const char *lead, const char *text)
{
	size_t width = CT_HELP_WIDTH - strlen(lead), len = strlen(text);

	while (len) {
		size_t cut = len;

		if (cut > width) {
			cut = width;
			while (cut && text[cut] != ' ')
				cut--;
			if (!cut)
				cut = width; /* one word longer than a line */
		}
		fprintf(out, "%s%.*s\n", lead, (int)cut, text);
		text += cut;
		len -= cut;
		while (*text == ' ') {
			text++;
			len--;
		}
		lead = strlen(lead) > 2 ? lead : "#   ";
		width = CT_HELP_WIDTH - strlen(lead);
	}
}

/* off: every key line commented out (the example section of a sink type). */
static void help_keys(FILE *out, const struct ct_key *keys, bool md, bool off)
{
	for (const struct ct_key *k = keys; k && k->name; k++) {
		char head[512];
		size_t len;

		if (md) {
			fprintf(out, "| `%s` | ", k->name);
			put_type(out, k);
			fprintf(out, " | %s | %s |\n", k->def ? k->def : "(unset)", k->help);
			continue;
		}
		len = (size_t)snprintf(head, sizeof(head), "%s (%s", k->name, type_name(k));
		for (int i = 0; k->type == CT_KEY_CHOICE && k->choices[i] && len < sizeof(head); i++)
			len += (size_t)snprintf(head + len, sizeof(head) - len, "%s%s", i ? ", " : ": ", k->choices[i]);
		if (len < sizeof(head))
			snprintf(head + len, sizeof(head) - len, "): %s", k->help);
		help_comment(out, "# ", head);
		/* A key without a default is shown commented out: an empty value
		 * is not the same as unset for every key (a required one, with an
		 * example: the example section, switched on, loads). */
		fprintf(out, "%s%s = %s\n", off || !k->def ? ";" : "", k->name,
			k->def ? k->def : k->example ? k->example : "");
	}
}

void ct_config_help(FILE *out, bool md)
{
	const char *head = md ? "| key | type | default | meaning |\n|---|---|---|---|\n" : "";
	static const char sinks_md[] =
		"\n## [sink.NAME]\n\nOne section per output; several at once. `-o TYPE[:WHERE]` adds a sink named "
		"after its type (a second one of a type: TYPE2, ...), `-o NAME=TYPE[:WHERE]` one with the name "
		"given (WHERE: the path, or a metric sink's listen, url or endpoint); "
		"`-C sink.NAME.key=value` sets a key of either kind. Keys of every sink:\n\n%s";

	if (md)
		fputs("# Configuration reference\n\nGenerated by `cudatracer --config-help=markdown` from the key "
		      "tables in the code; a test fails when this file is out of date. Command-line options "
		      "override the file; `-C section.key=value` sets any key. Durations take a unit (ns, us, ms, s) "
		      "and decimals (`0.2ms`); sizes a K, M or G suffix. In a file, a line that begins with `;` or `#` "
		      "is a comment, and so is the rest of a line from ` ;` or ` #` (a blank before it): "
		      "`plugins = cudart # the runtime` is `cudart`. One `[sink.NAME]` section per sink: a second "
		      "with the same NAME is refused.\n", out);
	else
		help_comment(out, "# ", "cudatracer config (cudatracer --config-help): every key at its default. "
			     "Read with -c FILE; -C section.key=value sets one key on the command line.");

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (md)
			fprintf(out, "\n## [%s]\n\n%s.\n\n%s", sections[i].name, sections[i].help, head);
		else
			fprintf(out, "\n# %s\n[%s]\n", sections[i].help, sections[i].name);
		help_keys(out, sections[i].keys, md, false);
	}
	if (md) {
		fprintf(out, sinks_md, head);
		help_keys(out, sink_common_keys, md, false);
		fprintf(out, "\nRotation, keys of the jsonl, csv and chrome sinks (docs/daemon.md):\n\n%s", head);
		help_keys(out, sink_rotate_keys, md, false);
	} else {
		fputs("\n", out);
		help_comment(out, "# ", "Outputs: one [sink.NAME] section each, several at once; with none, "
			     "calls go to standard output as text. Below, one example section per sink type, "
			     "commented out: remove the ; to use one. -o TYPE[:WHERE] adds a sink named TYPE "
			     "(TYPE2 for a second one), -o NAME=TYPE[:WHERE] one named NAME (WHERE: the path, "
			     "or a metric sink's listen, url or endpoint); "
			     "-C sink.NAME.key=value sets a key of either. Keys of every sink:");
		for (const struct ct_key *k = sink_common_keys; k->name; k++) {
			char line[512];

			snprintf(line, sizeof(line), "%s (%s): %s", k->name, type_name(k), k->help);
			help_comment(out, "#   ", line);
		}
	}
	for (int i = 0; ct_sink_types[i]; i++) {
		const struct ct_sink_ops *o = ct_sink_types[i];

		if (md) {
			fprintf(out, "\n### type = %s\n\n%s.\n\n", o->type, o->help);
			if (o->keys && o->keys->name) {
				fputs(head, out);
				help_keys(out, o->keys, md, false);
			}
			continue;
		}
		char line[512];

		snprintf(line, sizeof(line), "type = %s: %s", o->type, o->help);
		fputs("\n", out);
		help_comment(out, "# ", line);
		fprintf(out, ";[sink.%s]\n;type = %s\n;path =\n", o->type, o->type);
		help_keys(out, o->keys, md, true);
		if (o->rotatable)
			help_keys(out, sink_rotate_keys, md, true);
	}
}

int ct_config_split_set(char *arg, char **section, char **key, char **val)
{
	char *eq = strchr(arg, '='), *dot = strchr(arg, '.');

	/* sink.NAME.key: the section is sink.NAME (a name has no dot). */
	if (dot && eq && dot < eq && !strncmp(arg, "sink.", 5))
		dot = strchr(arg + 5, '.');
	if (!dot || !eq || eq < dot || dot == arg || dot + 1 == eq) {
		ct_err("-C %s: expected SECTION.KEY=VALUE (or sink.NAME.KEY=VALUE)", arg);
		return -EINVAL;
	}
	*dot = 0;
	*eq = 0;
	*section = arg;
	*key = dot + 1;
	*val = eq + 1;
	return 0;
}
