// SPDX-License-Identifier: MIT
/* The command line's options, and --help printed from them. */
#include <errno.h>
#include <string.h>
#include "options.h"
#include "sinks/sink.h"


#define GROUP(title) { .heading = title }
#define FLAG(l, s, v, h) { .name = l, .short_name = s, .has_arg = no_argument, .val = v, .help = h }
#define ARG(l, s, v, a, h) { .name = l, .short_name = s, .has_arg = required_argument, .val = v, .arg = a, .help = h }

static const char synopsis[] =
	"usage: cudatracer [options] [-- COMMAND [ARGS...]]\n"
	"       cudatracer report TRACE.jsonl[.gz]|TRACE.db [-o TYPE[:FILE]]...\n"
	"       cudatracer merge TRACE.jsonl|TRACE.db... -o chrome:PATH [-o summary[:PATH]]\n"
	"       cudatracer capture -p PID --duration D -o FILE.jsonl [--stacks] (ask the daemon)\n"
	"\n"
	"Trace GPU runtime API calls with eBPF uprobes, without changing the program.\n";

const struct ct_option ct_options[] = {
	GROUP("Targets (default: every process that maps the system's runtime library)"),
	{ .arg = "-- COMMAND ARGS", .help = "run COMMAND, traced with its children; exit with its status" },
	ARG("pid", 'p', 'p', "PID", "trace a running process and its children"),
	ARG("lib", 0, OPT_LIB, "PATH", "probe this library or executable, in every process"),
	ARG("cgroup", 0, OPT_CGROUP, "PATH", "only tasks in this cgroup v2 directory or below it\n"
					   "(filtered in the kernel; with or without a target)"),
	FLAG("daemon", 0, OPT_DAEMON, "run as a service: every process until SIGTERM, SIGHUP\n"
				      "reloads the config, logs on stderr (docs/daemon.md)"),
	{ .name = "duration", .has_arg = required_argument, .val = OPT_DURATION, .arg = "D",
	  .help = "stop tracing after D (10s, 500ms, 2m), every file complete;\n"
		  "a command goes on untraced and is waited for", .key = "tracer.duration" },

	GROUP("What to trace"),
	ARG("plugin", 'P', 'P', "LIST", "runtime plugins: cudart, cuda, hip, opencl, nccl, or a .so path\n"
				    "(given again, adds: -P cudart -P cuda is -P cudart,cuda)"),
	ARG("profile", 0, OPT_PROFILE, "NAME", "default | full (full adds the very frequent getters)"),
	ARG("include", 0, OPT_INCLUDE, "GLOBS", "only these APIs (comma-separated globs; given again, adds)"),
	ARG("exclude", 0, OPT_EXCLUDE, "GLOBS", "not these APIs (given again, adds)"),
	FLAG("errors-only", 0, OPT_ERRORS_ONLY, "only calls that returned an error"),
	ARG("min-duration", 0, OPT_MIN_DUR, "D", "only calls at least this long (50us, 0.2ms, 1.5s)"),
	{ .name = "hang-timeout", .has_arg = required_argument, .val = OPT_HANG_TIMEOUT, .arg = "D",
	  .help = "report a collective or sync still in flight after D (30s, 5m)\n"
		  "while it is stuck, with its stack (docs/events.md)", .key = "tracer.hang_timeout" },
	{ .name = "stacks", .has_arg = optional_argument, .val = OPT_STACKS, .arg = "[=APIS]",
	  .help = "call stacks on allocations, frees, launches and failing calls\n"
		  "(APIS: all, or classes and globs as stacks.apis; docs/stacks.md)" },
	FLAG("gpu-activity", 0, OPT_GPU_ACTIVITY, "with a command or -p: kernels, copies and sets on the GPU too (CUPTI)"),
	{ .name = "step-range", .has_arg = required_argument, .val = OPT_STEP_RANGE, .arg = "GLOB",
	  .help = "with --gpu-activity: steps of the answer (why the GPU was idle)\n"
		  "are the NVTX ranges matching GLOB (docs/analysis.md)", .key = "analysis.step_range" },
	{ .name = "step-function", .has_arg = required_argument, .val = OPT_STEP_FUNCTION, .arg = "NAME",
	  .help = "with --gpu-activity --stacks: steps run from one entry into\n"
		  "Python function NAME to the next", .key = "analysis.step_function" },

	GROUP("Output"),
	ARG("output", 'o', 'o', "[NAME=]TYPE[:WHERE]",
	    "add a sink of a type below; WHERE is its file (- is stdout), or\n"
	    "a metric sink's address or URL. Named TYPE (TYPE2 for a second\n"
	    "one) or NAME, for -C sink.NAME.KEY=VAL. With no sink configured,\n"
	    "text goes to stdout. Tracing a command, a file format with no\n"
	    "FILE goes to a new file cudatracer-COMMAND-PID.EXT (the command\n"
	    "has stdout)"),

	GROUP("Configuration"),
	ARG("config", 'c', 'c', "FILE", "read this INI config instead of " CT_SYSTEM_CONFIG),
	FLAG("no-config", 0, OPT_NO_CONFIG, "do not read " CT_SYSTEM_CONFIG),
	ARG("set", 'C', 'C', "SEC.KEY=VAL", "set one config key, e.g. -C tracer.ringbuf_size=256M,\n"
					      "-C sink.summary.format=json, -C sink.summary.interval=10s"),
	{ .name = "ringbuf-size", .has_arg = required_argument, .val = OPT_RINGBUF, .arg = "N",
	  .help = "ring buffer size per plugin (16M)", .key = "tracer.ringbuf_size" },
	ARG("attach", 0, OPT_ATTACH, "MODE", "auto | session | multi | single (one link per symbol)"),
	ARG("engine", 0, OPT_ENGINE, "NAME", "ebpf (uprobes) | inproc (with a command: a preloaded\n"
					   "library interposes the runtime; no root; docs/engines.md)"),
	{ .name = "config-help", .has_arg = optional_argument, .val = OPT_CONFIG_HELP, .arg = "[=FORMAT]",
	  .help = "every config key with its default; FORMAT ini (the default)\n"
		  "or markdown (as docs/config.md)" },
	FLAG("check-config", 0, OPT_CHECK_CONFIG, "check the config with the options given, as a daemon's reload\n"
						  "does (plugins load, sink files could be written), and exit"),

	GROUP("Information"),
	FLAG("list-plugins", 0, OPT_LIST_PLUGINS, "list the plugins found on the plugin path"),
	FLAG("list-apis", 0, OPT_LIST_APIS, "list the APIs the plugins trace"),
	FLAG("explain", 0, OPT_EXPLAIN, "with -p PID or a command: what would be probed, and why calls\n"
					"may be missing (no runtime mapped, stripped files)"),
	FLAG("verbose", 'v', 'v', "say more (twice: debug)"),
	FLAG("quiet", 'q', 'q', "errors only"),
	FLAG("version", 'V', 'V', "print the version and the plugin ABI it loads"),
	FLAG("help", 'h', 'h', "print this help"),
	{ 0 },
};

int ct_options_getopt(struct option *longs, size_t n, char *shorts, size_t n_shorts)
{
	size_t nl = 0, ns = 0;

	if (n_shorts < 2)
		return -ENOSPC;
	shorts[ns++] = '+';
	for (const struct ct_option *o = ct_options; o->heading || o->name || o->arg; o++) {
		if (!o->name)
			continue;
		if (nl + 1 >= n || ns + 4 >= n_shorts)
			return -ENOSPC;
		longs[nl++] = (struct option){ o->name, o->has_arg, NULL, o->val };
		if (o->short_name) {
			shorts[ns++] = (char)o->short_name;
			if (o->has_arg != no_argument)
				shorts[ns++] = ':';
			if (o->has_arg == optional_argument)
				shorts[ns++] = ':';
		}
	}
	longs[nl] = (struct option){ 0 };
	shorts[ns] = 0;
	return 0;
}

const char *ct_options_how_to_set(const char *key, char *buf, size_t n)
{
	const char *dot = strchr(key, '.');
	int sec = dot ? (int)(dot - key) : 0;

	for (const struct ct_option *o = ct_options; o->heading || o->name || o->arg; o++)
		if (o->key && !strcmp(o->key, key)) {
			snprintf(buf, n, "--%s or [%.*s] %s", o->name, sec, key, dot ? dot + 1 : key);
			return buf;
		}
	snprintf(buf, n, "[%.*s] %s", sec, key, dot ? dot + 1 : key);
	return buf;
}

/* "  -p, --pid PID", help from column 25 (or two blanks past a longer spec). */
static void usage_row(FILE *out, const struct ct_option *o)
{
	enum { HELP_COLUMN = 25 };
	int len;

	if (!o->name)
		len = fprintf(out, "  %s", o->arg);
	else
		len = fprintf(out, "  %c%c%c --%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
			      o->short_name ? ',' : ' ', o->name,
			      o->arg && o->has_arg != optional_argument ? " " : "", o->arg ? o->arg : "");
	for (const char *h = o->help; h && *h;) {
		size_t line = strcspn(h, "\n");

		fprintf(out, "%*s%.*s\n", len < HELP_COLUMN - 1 ? HELP_COLUMN - len : 2, "", (int)line, h);
		h += line + (h[line] == '\n');
		len = 0;
	}
	if (!o->help)
		fputc('\n', out);
}

/* The sink types from the sink table, each with what -o TYPE:WHERE's WHERE
 * is, and for a metric sink the key it sets and that key's default. */
static void usage_sinks(FILE *out)
{
	fputs("\nSink types (-o TYPE[:WHERE]):\n", out);
	for (int i = 0; ct_sink_types[i]; i++) {
		const struct ct_sink_ops *s = ct_sink_types[i];
		const struct ct_key *k = s->where_key ? ct_key_find(s->keys, s->where_key) : NULL;
		const char *arg = s->where_arg ? s->where_arg : "FILE";
		char spec[64], help[256];

		snprintf(spec, sizeof(spec), k && !k->def ? "%s:%s" : "%s[:%s]", s->type, arg);
		if (k)
			snprintf(help, sizeof(help), "%s\n(sets %s; %s%s)", s->where_help, k->name,
				 k->def ? "default " : "required", k->def ? k->def : "");
		else
			snprintf(help, sizeof(help), "%s", s->where_help);
		usage_row(out, &(struct ct_option){ .arg = spec, .help = help });
	}
}

void ct_options_usage(FILE *out)
{
	fputs(synopsis, out);
	for (const struct ct_option *o = ct_options; o->heading || o->name || o->arg; o++) {
		if (o->heading)
			fprintf(out, "\n%s:\n", o->heading);
		else
			usage_row(out, o);
	}
	usage_sinks(out);
}
