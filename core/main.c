// SPDX-License-Identifier: MIT
/* The command line: options override the config file, then one session runs. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/ring.h"
#include "config/config.h"
#include "explain.h"
#include "merge/merge.h"
#include "util/log.h"
#include "plugin/loader.h"
#include "capture/target.h"
#include "session.h"

static const char usage[] =
	"usage: cudatracer [options] [-- COMMAND [ARGS...]]\n"
	"       cudatracer merge TRACE.jsonl... -o chrome:PATH [-o summary[:PATH]]\n"
	"\n"
	"Trace GPU runtime API calls with eBPF uprobes, without changing the program.\n"
	"\n"
	"Targets (default: every process that maps the system's runtime library):\n"
	"  -- COMMAND ARGS        run COMMAND, traced with its children; exit with its status\n"
	"  -p, --pid PID          trace a running process and its children\n"
	"      --lib PATH         probe this library or executable, in every process\n"
	"\n"
	"What to trace:\n"
	"  -P, --plugin LIST      runtime plugins: cudart, cuda, hip, opencl, nccl, or a .so path\n"
	"      --profile NAME     default | full (full adds the very frequent getters)\n"
	"      --include GLOBS    only these APIs (comma-separated globs)\n"
	"      --exclude GLOBS    not these APIs\n"
	"      --errors-only      only calls that returned an error\n"
	"      --min-duration D   only calls at least this long (50us, 2ms)\n"
	"      --gpu-activity     with a command: kernels, copies and sets on the GPU too (CUPTI)\n"
	"\n"
	"Output:\n"
	"  -o, --output TYPE[:PATH]  add a sink (text, jsonl, ...); PATH - is stdout\n"
	"                         with no sink configured, text goes to stdout\n"
	"\n"
	"Configuration:\n"
	"  -c, --config FILE      read an INI config (see conf/cudatracer.ini)\n"
	"  -C, --set SEC.KEY=VAL  set one config key, e.g. -C tracer.ringbuf_size=256M\n"
	"      --ringbuf-size N   ring buffer size per plugin (16M)\n"
	"      --attach MODE      auto | multi | single (one link per symbol)\n"
	"      --config-help      every config key with its default (=markdown: as docs/config.md)\n"
	"\n"
	"Information:\n"
	"      --list-plugins     list the plugins found on the plugin path\n"
	"      --list-apis        list the APIs the plugins trace\n"
	"      --explain          with -p PID or a command: what would be probed, and why calls\n"
	"                         may be missing (no runtime mapped, stripped files)\n"
	"  -v, --verbose          say more (twice: debug)\n"
	"  -q, --quiet            errors only\n"
	"  -V, --version\n"
	"  -h, --help\n";

enum { OPT_LIB = 256, OPT_PROFILE, OPT_INCLUDE, OPT_EXCLUDE, OPT_ERRORS_ONLY, OPT_MIN_DUR,
       OPT_RINGBUF, OPT_ATTACH, OPT_CONFIG_HELP, OPT_LIST_PLUGINS, OPT_LIST_APIS, OPT_EXPLAIN,
       OPT_GPU_ACTIVITY };

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "lib", required_argument, NULL, OPT_LIB },
	{ "plugin", required_argument, NULL, 'P' },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "errors-only", no_argument, NULL, OPT_ERRORS_ONLY },
	{ "min-duration", required_argument, NULL, OPT_MIN_DUR },
	{ "output", required_argument, NULL, 'o' },
	{ "config", required_argument, NULL, 'c' },
	{ "set", required_argument, NULL, 'C' },
	{ "ringbuf-size", required_argument, NULL, OPT_RINGBUF },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "gpu-activity", no_argument, NULL, OPT_GPU_ACTIVITY },
	{ "config-help", optional_argument, NULL, OPT_CONFIG_HELP },
	{ "list-plugins", no_argument, NULL, OPT_LIST_PLUGINS },
	{ "list-apis", no_argument, NULL, OPT_LIST_APIS },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Command-line settings, applied over the config file in order. */
struct override {
	const char *section, *key, *val;
	const char *flag; /* the option, for messages: "-C tracer.attach=x", "--attach x" */
	char *owned;
};

static const char *const kind_names[] = { "", "int", "uint", "hex", "size", "ptr", "handle",
					  "enum", "dim3", "string", "float", "sizes" };

static void list_apis(const struct ct_config *c, const struct ct_loaded_plugin *lp)
{
	const struct ct_plugin *p = lp->p;
	bool *on = calloc(p->n_apis, sizeof(bool));

	if (!on)
		return;
	ct_session_select(c, p, on);
	printf("# plugin %s (%s): %zu APIs; traced = by the current profile and filters\n",
	       p->name, lp->path, p->n_apis);
	for (size_t i = 0; i < p->n_apis; i++) {
		const struct ct_api *a = &p->apis[i];

		printf("%-36s %-7s %s(", a->symbol, on[i] ? "traced" : "off",
		       (a->flags & CT_API_ENTRY_ONLY) ? "entry-only " : "");
		for (size_t k = 0; k < a->n_args; k++)
			printf("%s%s:%s", k ? ", " : "", a->args[k].name,
			       a->args[k].kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[a->args[k].kind] : "?");
		printf(")%s\n", (a->flags & CT_API_HOT) ? " [hot]" : "");
	}
	free(on);
}

static int info_command(struct ct_config *c, int what, const struct ct_target *t)
{
	struct ct_loaded_plugin lps[CT_MAX_PLUGINS];
	const struct ct_list *names = &c->tracer.plugins; /* 1 to CT_MAX_PLUGINS: checked by the config */
	char **dirs = ct_plugin_dirs(c->tracer.plugin_path);
	size_t n = 0;
	int err = 0;

	if (!dirs)
		return 1;
	if (what == OPT_LIST_PLUGINS) {
		ct_plugin_list(dirs, stdout);
		ct_plugin_dirs_free(dirs);
		return 0;
	}
	for (; n < names->n; n++) {
		err = ct_plugin_load(names->v[n], dirs, &lps[n]);
		if (err)
			break;
	}
	if (!err && what == OPT_EXPLAIN) {
		if (!t->pid && !t->argv) {
			ct_err("--explain needs -p PID or a command");
			err = -EINVAL;
		} else {
			err = ct_explain(stdout, lps, (int)n, t->pid, t->argv ? t->argv[0] : NULL);
		}
	} else if (!err) {
		for (size_t i = 0; i < n; i++)
			list_apis(c, &lps[i]);
	}
	while (n--)
		ct_plugin_unload(&lps[n]);
	ct_plugin_dirs_free(dirs);
	return err ? 1 : 0;
}

static int parse_pid(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || *end || end == s || *out <= 0 || *out > INT_MAX) {
		ct_err("-p %s: not a process id", s);
		return -EINVAL;
	}
	return 0;
}

/* Where a setting came from, as the user wrote it. */
static void override_origin(const struct override *o, char *buf, size_t n)
{
	if (o->owned) /* -C */
		snprintf(buf, n, "%s %s.%s=%s", o->flag, o->section, o->key, o->val);
	else
		snprintf(buf, n, "%s %s", o->flag, o->val);
}

/*
 * Started with fd 0, 1 or 2 closed, the first files we open would take
 * those numbers: a jsonl sink's file would be fd 1 and get the text sink's
 * lines, or our messages. They are opened on /dev/null first.
 */
static int std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		got = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (got != fd) /* the lower ones are open: it can only be fd */
			return -1;
	}
	return 0;
}

static const char *size_text(char *buf, size_t n, uint64_t v)
{
	static const char unit[] = "KMGT";
	int u = -1;

	while (u < 3 && v && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	snprintf(buf, n, "%" PRIu64 "%.*s", v, u >= 0, u >= 0 ? &unit[u] : "");
	return buf;
}

/* The kernel's ring buffers are a page or more, a power of two: a size that
 * is not is changed, and the user told so. */
static void ring_size_settle(struct ct_config *c)
{
	uint64_t want = c->tracer.ringbuf_size, got = ct_ring_size(want);
	char a[32], b[32];

	if (got == want)
		return;
	ct_warn("tracer.ringbuf_size %s is %s: using %s", size_text(a, sizeof(a), want),
		got < want ? "more than the most a ring buffer can be" :
		want < 4096 ? "less than a page" : "not a power of two", size_text(b, sizeof(b), got));
	c->tracer.ringbuf_size = got;
}

int main(int argc, char **argv)
{
	struct override *ov = NULL;
	char **sinks = NULL;
	const char *config_file = NULL;
	int n_ov = 0, info = 0, ret = 2;
	struct ct_target t = { 0 };
	struct ct_config conf;
	int n_sinks = 0;
	bool config_help = false, help_md = false;
	long pid;
	int opt;

	if (std_fds_open())
		return 2;
	/* Subcommands that read recordings: no tracing, no privileges. */
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return ct_merge_main(argc - 1, argv + 1);
	ct_config_init(&conf);
	/* Every option is at most one of each: no limit to drop one at. */
	ov = calloc(argc, sizeof(*ov));
	sinks = calloc(argc, sizeof(*sinks));
	if (!ov || !sinks)
		goto out;
#define OV(flag, sec, k, v) (ov[n_ov++] = (struct override){ sec, k, v, flag, NULL })
	while ((opt = getopt_long(argc, argv, "+p:P:o:c:C:vqVh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_pid(optarg, &pid))
				goto out;
			OV("-p", "filter", "pid", optarg);
			break;
		case OPT_LIB: OV("--lib", "tracer", "lib", optarg); break;
		case 'P': OV("--plugin", "tracer", "plugins", optarg); break;
		case OPT_PROFILE: OV("--profile", "tracer", "profile", optarg); break;
		case OPT_INCLUDE: OV("--include", "filter", "include", optarg); break;
		case OPT_EXCLUDE: OV("--exclude", "filter", "exclude", optarg); break;
		case OPT_ERRORS_ONLY: OV("--errors-only", "filter", "errors_only", "true"); break;
		case OPT_MIN_DUR: OV("--min-duration", "filter", "min_duration", optarg); break;
		case OPT_RINGBUF: OV("--ringbuf-size", "tracer", "ringbuf_size", optarg); break;
		case OPT_ATTACH: OV("--attach", "tracer", "attach", optarg); break;
		case OPT_GPU_ACTIVITY: OV("--gpu-activity", "tracer", "gpu_activity", "true"); break;
		case 'o': sinks[n_sinks++] = optarg; break;
		case 'c': config_file = optarg; break;
		case 'C': {
			char *dot = strchr(optarg, '.'), *eq = strchr(optarg, '=');

			if (!dot || !eq || eq < dot) {
				ct_err("-C %s: expected SECTION.KEY=VALUE", optarg);
				goto out;
			}
			ov[n_ov].flag = "-C";
			ov[n_ov].owned = strdup(optarg);
			if (!ov[n_ov].owned)
				goto out;
			ov[n_ov].owned[dot - optarg] = 0;
			ov[n_ov].owned[eq - optarg] = 0;
			ov[n_ov].section = ov[n_ov].owned;
			ov[n_ov].key = ov[n_ov].owned + (dot - optarg) + 1;
			ov[n_ov].val = ov[n_ov].owned + (eq - optarg) + 1;
			n_ov++;
			break;
		}
		case OPT_CONFIG_HELP:
			config_help = true;
			help_md = optarg && !strcmp(optarg, "markdown");
			if (optarg && !help_md && strcmp(optarg, "ini")) {
				ct_err("--config-help=%s: expected one of: ini, markdown", optarg);
				goto out;
			}
			break;
		case OPT_LIST_PLUGINS:
		case OPT_LIST_APIS:
		case OPT_EXPLAIN: info = opt; break;
		case 'v': ct_verbosity++; break;
		case 'q': ct_verbosity = CT_LOG_ERROR; break;
		case 'V': printf("cudatracer %s (plugin ABI %d)\n", CT_VERSION, CT_ABI_VERSION); ret = 0; goto out;
		case 'h': fputs(usage, stdout); ret = 0; goto out;
		default: fputs(usage, stderr); goto out;
		}
	}
	if (optind < argc)
		t.argv = &argv[optind];
	if (config_help) {
		ct_config_help(stdout, help_md);
		ret = 0;
		goto out;
	}
	if (config_file && ct_config_load(&conf, config_file))
		goto out;
	for (int i = 0; i < n_ov; i++) {
		char origin[512];

		override_origin(&ov[i], origin, sizeof(origin));
		if (ct_config_set(&conf, ov[i].section, ov[i].key, ov[i].val, origin))
			goto out;
	}
	/* -p is filter.pid: from the file, -C or -p, whichever came last. */
	t.pid = (pid_t)conf.filter.pid;
	for (int i = 0; i < n_sinks; i++) {
		char *colon = strchr(sinks[i], ':');

		if (colon)
			*colon = 0;
		if (ct_config_add_sink(&conf, sinks[i], colon ? colon + 1 : NULL))
			goto out;
	}
	/* Aggregate mode has no calls to show one by one: its counts go to a summary. */
	if (!conf.n_sinks && ct_config_add_sink(&conf, ct_session_aggregate(&conf) ? "summary" : "text",
						ct_session_aggregate(&conf) ? conf.tracer.aggregate_path : "-"))
		goto out;
	if (ct_config_finish(&conf))
		goto out;
	if (t.pid && ct_target_check_pid(t.pid)) {
		ret = 1;
		goto out;
	}
	ring_size_settle(&conf);
	if (info) {
		ret = info_command(&conf, info, &t);
		goto out;
	}
	if (t.pid && t.argv) {
		ct_err("give either -p PID or a command, not both");
		goto out;
	}
	if (ct_check_privileges())
		goto out;
	ret = ct_session_run(&conf, &t);
out:
	for (int i = 0; i < n_ov; i++)
		free(ov[i].owned);
	free(ov);
	free(sinks);
	ct_config_free(&conf);
	return ret;
}
