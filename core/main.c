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
#include "control/client.h"
#include "daemon.h"
#include "explain.h"
#include "options.h"
#include "merge/merge.h"
#include "report/report.h"
#include "util/log.h"
#include "util/plural.h"
#include "plugin/coverage.h"
#include "plugin/loader.h"
#include "capture/target.h"
#include "session.h"

/* Command-line settings, applied over the config file in order. */
struct override {
	const char *section, *key, *val;
	const char *flag; /* the option, for messages: "-C tracer.attach=x", "--attach x" */
	char *owned; /* -C's copy, split; a list option's values joined */
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
	printf("# plugin %s (%s): %zu API%s; traced = by the current profile and filters; "
	       "entry-only = no return probe, no result or duration (tracer.timed times one); "
	       "[header] = generated from the runtime's header: arguments by their C types, no out-parameter read\n",
	       p->name, lp->path, p->n_apis, CT_S(p->n_apis));
	if (c->tracer.lib && *c->tracer.lib) {
		int err = ct_coverage_print(stdout, "# ", c->tracer.lib, c->tracer.lib, p, on);

		if (err)
			ct_err("--lib %s: cannot read its symbols: %s", c->tracer.lib, strerror(-err));
	} else {
		printf("# (--lib FILE with --list-apis counts what a library exports against this table)\n");
	}
	for (size_t i = 0; i < p->n_apis; i++) {
		const struct ct_api *a = &p->apis[i];
		enum ct_timing tm = ct_session_timing(c, a);

		printf("%-36s %-7s %s%s(", a->symbol, on[i] ? "traced" : "off",
		       tm == CT_TIMING_TIMED ? "" : ct_timing_names[tm], tm == CT_TIMING_TIMED ? "" : " ");
		for (size_t k = 0; k < a->n_args; k++)
			printf("%s%s:%s", k ? ", " : "", a->args[k].name,
			       a->args[k].kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[a->args[k].kind] : "?");
		printf(")%s%s\n", (a->flags & CT_API_HOT) ? " [hot]" : "",
		       (a->flags & CT_API_GENERATED) ? " [header]" : "");
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
	for (size_t i = 0; i < names->n && err >= 0; i++) {
		err = ct_plugin_load_once(names->v[i], dirs, lps, (int)n);
		n += err > 0;
	}
	err = err < 0 ? err : 0;
	if (!err && what == OPT_EXPLAIN) {
		if (!t->pid && !t->argv) {
			ct_err("--explain needs -p PID or a command");
			err = -EINVAL;
		} else {
			err = ct_explain(stdout, c, lps, (int)n, t->pid, t->argv ? t->argv[0] : NULL);
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

/*
 * -o [NAME=]TYPE[:WHERE]. The name, if any, ends at an = before the first
 * colon: a path may hold both (-o jsonl:/tmp/a=b:c.jsonl). WHERE is the
 * sink's path, or a metric sink's address or URL (its where_key).
 */
static int add_cli_sink(struct ct_config *c, const char *arg)
{
	const char *colon = strchr(arg, ':'), *eq = strchr(arg, '=');
	char origin[PATH_MAX + 80], *name = NULL, *type;
	int err;

	if (eq && colon && eq > colon)
		eq = NULL;
	snprintf(origin, sizeof(origin), "-o %s", arg);
	if (eq)
		name = strndup(arg, (size_t)(eq - arg));
	type = strndup(eq ? eq + 1 : arg, colon ? (size_t)(colon - (eq ? eq + 1 : arg)) : strlen(arg));
	if ((eq && !name) || !type)
		err = -ENOMEM;
	else if (!*type)
		ct_err("%s: expected [NAME=]TYPE[:WHERE]", origin), err = -EINVAL;
	else
		err = ct_config_add_sink_named(c, name, type, colon ? colon + 1 : NULL, origin);
	free(name);
	free(type);
	return err;
}

/* Where a setting came from, as the user wrote it. */
static void override_origin(const struct override *o, char *buf, size_t n)
{
	if (!strcmp(o->flag, "-C"))
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

/* What the command line gave: applied over the config file each time one is
 * read (at the start, and in daemon mode at each SIGHUP). */
struct cli {
	const char *config_file; /* NULL: none */
	struct override *ov;
	int n_ov;
	char **sinks;
	int n_sinks;
};

/*
 * A list option given again adds to the list: `-P cudart -P cuda` is
 * `-P cudart,cuda` (the last one alone was kept: cudart went untraced,
 * unsaid). Only to the key's latest setting, and only if that option made
 * it: a -C in between still replaces what came before it.
 */
static int override_list(struct cli *cli, const char *flag, const char *sec, const char *key, const char *val)
{
	for (int i = cli->n_ov - 1; i >= 0; i--) {
		struct override *o = &cli->ov[i];
		char *joined;

		if (strcmp(o->section, sec) || strcmp(o->key, key))
			continue;
		if (strcmp(o->flag, flag))
			break;
		if (asprintf(&joined, "%s,%s", o->val, val) < 0)
			return -ENOMEM;
		free(o->owned);
		o->owned = joined;
		o->val = joined;
		return 0;
	}
	cli->ov[cli->n_ov++] = (struct override){ sec, key, val, flag, NULL };
	return 0;
}

/* The config file, then the command line over it, checked whole. */
static int build_config(const struct cli *cli, struct ct_config *conf)
{
	int err = 0;

	ct_config_init(conf);
	if (cli->config_file && ct_config_load(conf, cli->config_file))
		return -EINVAL;
	/* Sinks first, so that -C sink.NAME.key=value can address an -o sink. */
	for (int i = 0; i < cli->n_sinks && !err; i++)
		err = add_cli_sink(conf, cli->sinks[i]);
	for (int i = 0; i < cli->n_ov && !err; i++) {
		char origin[512];

		override_origin(&cli->ov[i], origin, sizeof(origin));
		err = ct_config_set(conf, cli->ov[i].section, cli->ov[i].key, cli->ov[i].val, origin);
	}
	if (err)
		return err;
	/* Aggregate mode has no calls to show one by one: its counts go to a
	 * summary. A daemon has no terminal: it is told to name its sinks. */
	if (!conf->n_sinks && !conf->tracer.daemon &&
	    ct_config_add_sink(conf, ct_session_aggregate(conf) ? "summary" : "text",
			       ct_session_aggregate(conf) ? conf->tracer.aggregate_path : "-"))
		return -EINVAL;
	if (ct_config_finish(conf))
		return -EINVAL;
	if (conf->tracer.daemon && ct_daemon_check(conf, cli->config_file))
		return -EINVAL;
	ring_size_settle(conf);
	return 0;
}

/* Daemon mode, at SIGHUP: the same file and command line, read again. */
static int reload_config(void *ctx, struct ct_config *conf)
{
	int err = build_config(ctx, conf);

	if (err)
		ct_config_free(conf);
	return err;
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	struct option long_opts[CT_OPTIONS_MAX];
	char short_opts[2 * CT_OPTIONS_MAX];
	bool no_config = false;
	int info = 0, ret = 2;
	struct ct_target t = { 0 };
	struct ct_config conf;
	bool config_help = false, help_md = false, check_only = false;
	long pid;
	int opt;

	if (std_fds_open())
		return 2;
	/* Subcommands that read recordings: no tracing, no privileges. */
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return ct_merge_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return ct_report_main(argc - 1, argv + 1);
	/* A request to the daemon, which checks that it comes from root. */
	if (argc > 1 && !strcmp(argv[1], "capture"))
		return ct_capture_main(argc - 1, argv + 1);
	ct_config_init(&conf);
	/* Every option is at most one of each: no limit to drop one at. */
	cli.ov = calloc(2 * (size_t)argc, sizeof(*cli.ov)); /* --stacks=APIS sets two keys */
	cli.sinks = calloc(argc, sizeof(*cli.sinks));
	if (!cli.ov || !cli.sinks ||
	    ct_options_getopt(long_opts, CT_OPTIONS_MAX, short_opts, sizeof(short_opts)))
		goto out;
#define OV(flag, sec, k, v) (cli.ov[cli.n_ov++] = (struct override){ sec, k, v, flag, NULL })
	while ((opt = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_pid(optarg, &pid))
				goto out;
			OV("-p", "filter", "pid", optarg);
			break;
		case OPT_LIB: OV("--lib", "tracer", "lib", optarg); break;
		case OPT_CGROUP: OV("--cgroup", "filter", "cgroup", optarg); break;
		case OPT_DAEMON: OV("--daemon", "tracer", "daemon", "true"); break;
		case OPT_DURATION: OV("--duration", "tracer", "duration", optarg); break;
		case OPT_HANG_TIMEOUT: OV("--hang-timeout", "tracer", "hang_timeout", optarg); break;
		case OPT_STEP_RANGE: OV("--step-range", "analysis", "step_range", optarg); break;
		case OPT_STEP_FUNCTION: OV("--step-function", "analysis", "step_function", optarg); break;
		case 'P':
			if (override_list(&cli, "--plugin", "tracer", "plugins", optarg))
				goto out;
			break;
		case OPT_PROFILE: OV("--profile", "tracer", "profile", optarg); break;
		case OPT_INCLUDE:
			if (override_list(&cli, "--include", "filter", "include", optarg))
				goto out;
			break;
		case OPT_EXCLUDE:
			if (override_list(&cli, "--exclude", "filter", "exclude", optarg))
				goto out;
			break;
		case OPT_ERRORS_ONLY: OV("--errors-only", "filter", "errors_only", "true"); break;
		case OPT_MIN_DUR: OV("--min-duration", "filter", "min_duration", optarg); break;
		case OPT_RINGBUF: OV("--ringbuf-size", "tracer", "ringbuf_size", optarg); break;
		case OPT_ATTACH: OV("--attach", "tracer", "attach", optarg); break;
		case OPT_ENGINE: OV("--engine", "tracer", "engine", optarg); break;
		case OPT_GPU_ACTIVITY: OV("--gpu-activity", "tracer", "gpu_activity", "true"); break;
		case OPT_STACKS:
			OV("--stacks", "stacks", "enabled", "true");
			if (optarg)
				OV("--stacks", "stacks", "apis", optarg);
			break;
		case 'o': cli.sinks[cli.n_sinks++] = optarg; break;
		case 'c': cli.config_file = optarg; break;
		case OPT_NO_CONFIG: no_config = true; break;
		case 'C': {
			struct override *o = &cli.ov[cli.n_ov];
			char *sec, *key, *val;

			o->flag = "-C";
			o->owned = strdup(optarg);
			if (!o->owned)
				goto out;
			cli.n_ov++; /* freed with the others, split or not */
			if (ct_config_split_set(o->owned, &sec, &key, &val))
				goto out;
			o->section = sec;
			o->key = key;
			o->val = val;
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
		case OPT_CHECK_CONFIG: check_only = true; break;
		case OPT_LIST_PLUGINS:
		case OPT_LIST_APIS:
		case OPT_EXPLAIN: info = opt; break;
		case 'v': ct_verbosity++; break;
		case 'q': ct_verbosity = CT_LOG_ERROR; break;
		case 'V': printf("cudatracer %s (plugin ABI %d)\n", CT_VERSION, CT_ABI_VERSION); ret = 0; goto out;
		case 'h': ct_options_usage(stdout); ret = 0; goto out;
		default: ct_options_usage(stderr); goto out;
		}
	}
	if (optind < argc)
		t.argv = &argv[optind];
	if (config_help) {
		ct_config_help(stdout, help_md);
		ret = 0;
		goto out;
	}
	/* The system config applies unless -c names another or --no-config
	 * skips it; a missing one is no error: every key has a default. */
	if (!cli.config_file && !no_config && access(CT_SYSTEM_CONFIG, F_OK) == 0)
		cli.config_file = CT_SYSTEM_CONFIG;
	ct_config_free(&conf);
	if (build_config(&cli, &conf))
		goto out;
	/* -p is filter.pid: from the file, -C or -p, whichever came last. */
	t.pid = (pid_t)conf.filter.pid;
	if (conf.tracer.daemon && t.argv) {
		ct_err("--daemon (tracer.daemon) traces every process: it runs no command (%s)", t.argv[0]);
		goto out;
	}
	/* A deployment's config and arguments tried before they run: exit 0,
	 * or 2 with each refusal said at its file and line. */
	if (check_only) {
		if (!ct_daemon_precheck(&conf)) {
			ret = 0;
			ct_note("%s: the configuration is valid", cli.config_file ? cli.config_file : "the command line");
		}
		goto out;
	}
	if (t.pid && ct_target_check_pid(t.pid)) {
		ret = 1;
		goto out;
	}
	if (info) {
		ret = info_command(&conf, info, &t);
		goto out;
	}
	if (t.pid && t.argv) {
		ct_err("give either -p PID or a command, not both");
		goto out;
	}
	/* The in-process engine loads no BPF: it runs as the user who runs it. */
	if (conf.tracer.engine != CT_ENGINE_INPROC && ct_check_privileges(t.argv != NULL))
		goto out;
	if (conf.tracer.daemon)
		ret = ct_daemon_run(&conf, reload_config, &cli);
	else
		ret = ct_session_run(&conf, &t, NULL);
out:
	for (int i = 0; i < cli.n_ov; i++)
		free(cli.ov[i].owned);
	free(cli.ov);
	free(cli.sinks);
	ct_config_free(&conf);
	return ret;
}
