// SPDX-License-Identifier: MIT
/* The command line: options override the config file, then one session runs. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "explain.h"
#include "merge/merge.h"
#include "util/log.h"
#include "plugin/loader.h"
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
	"      --config-help      list every config key with its default\n"
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
       OPT_RINGBUF, OPT_ATTACH, OPT_CONFIG_HELP, OPT_LIST_PLUGINS, OPT_LIST_APIS, OPT_EXPLAIN };

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
	struct ct_loaded_plugin lps[8];
	int n = 0;
	char **dirs = ct_plugin_dirs(c->tracer.plugin_path);
	char *list = strdup(c->tracer.plugins), *save = NULL;
	int err = 0;

	if (what == OPT_LIST_PLUGINS) {
		ct_plugin_list(dirs, stdout);
	} else if (what == OPT_EXPLAIN) {
		for (char *tok = strtok_r(list, ", ", &save); tok && n < 8; tok = strtok_r(NULL, ", ", &save)) {
			err = ct_plugin_load(tok, dirs, &lps[n]);
			if (err)
				break;
			n++;
		}
		if (!err && !t->pid && !t->argv) {
			ct_err("--explain needs -p PID or a command");
			err = -EINVAL;
		}
		if (!err)
			err = ct_explain(stdout, lps, n, t->pid, t->argv ? t->argv[0] : NULL);
		while (n--)
			ct_plugin_unload(&lps[n]);
	} else {
		for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			struct ct_loaded_plugin lp;

			err = ct_plugin_load(tok, dirs, &lp);
			if (err)
				break;
			list_apis(c, &lp);
			ct_plugin_unload(&lp);
		}
	}
	free(list);
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

int main(int argc, char **argv)
{
	struct override ov[64];
	const char *config_file = NULL;
	int n_ov = 0, info = 0, ret = 2;
	struct ct_target t = { 0 };
	struct ct_config conf;
	char *sinks[16];
	int n_sinks = 0;
	bool config_help = false, help_md = false;
	long pid;
	int opt;

	/* Subcommands that read recordings: no tracing, no privileges. */
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return ct_merge_main(argc - 1, argv + 1);
	ct_config_init(&conf);
#define OV(sec, k, v) do { if (n_ov < 64) ov[n_ov++] = (struct override){ sec, k, v, NULL }; } while (0)
	while ((opt = getopt_long(argc, argv, "+p:P:o:c:C:vqVh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_pid(optarg, &pid))
				goto out;
			t.pid = (pid_t)pid;
			break;
		case OPT_LIB: OV("tracer", "lib", optarg); break;
		case 'P': OV("tracer", "plugins", optarg); break;
		case OPT_PROFILE: OV("tracer", "profile", optarg); break;
		case OPT_INCLUDE: OV("filter", "include", optarg); break;
		case OPT_EXCLUDE: OV("filter", "exclude", optarg); break;
		case OPT_ERRORS_ONLY: OV("filter", "errors_only", "true"); break;
		case OPT_MIN_DUR: OV("filter", "min_duration", optarg); break;
		case OPT_RINGBUF: OV("tracer", "ringbuf_size", optarg); break;
		case OPT_ATTACH: OV("tracer", "attach", optarg); break;
		case 'o':
			if (n_sinks < 16)
				sinks[n_sinks++] = optarg;
			break;
		case 'c': config_file = optarg; break;
		case 'C': {
			char *dot = strchr(optarg, '.'), *eq = strchr(optarg, '=');

			if (!dot || !eq || eq < dot || n_ov >= 64) {
				ct_err("-C %s: expected SECTION.KEY=VALUE", optarg);
				goto out;
			}
			ov[n_ov].owned = strdup(optarg);
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
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") && optind > 0 && argv[optind][0] != '-') {
			/* getopt stopped at the first non-option ("+"): a command without "--". */
		}
		t.argv = &argv[optind];
	}
	if (config_help) {
		ct_config_help(stdout, help_md);
		ret = 0;
		goto out;
	}
	if (config_file && ct_config_load(&conf, config_file))
		goto out;
	if (t.pid && !conf.filter.pid)
		conf.filter.pid = t.pid;
	else if (!t.pid && conf.filter.pid)
		t.pid = (pid_t)conf.filter.pid;
	for (int i = 0; i < n_ov; i++)
		if (ct_config_set(&conf, ov[i].section, ov[i].key, ov[i].val, "command line"))
			goto out;
	for (int i = 0; i < n_sinks; i++) {
		char *colon = strchr(sinks[i], ':');

		if (colon)
			*colon = 0;
		if (ct_config_add_sink(&conf, sinks[i], colon ? colon + 1 : NULL))
			goto out;
	}
	if (!conf.n_sinks && ct_config_add_sink(&conf, "text", "-"))
		goto out;
	if (ct_config_finish(&conf))
		goto out;
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
	ct_config_free(&conf);
	return ret;
}
