// SPDX-License-Identifier: MIT
/*
 * `cudatracer report`: a recorded jsonl trace replayed into sinks, as a
 * live run would have fed them: its calls in their order, then each
 * process's end (by the order of their last calls: a trace does not record
 * exits), then the sinks' final output. No tracing, no privileges.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "config/config.h"
#include "report/gpuline.h"
#include "report/replay.h"
#include "report/report.h"
#include "report/tracefile.h"
#include "sinks/output.h"
#include "sinks/sink.h"
#include "util/log.h"
#include "util/plural.h"
#include "util/u64map.h"

static const char usage[] =
	"usage: cudatracer report TRACE.jsonl[.gz]|TRACE.db [-o TYPE[:PATH]]... [options]\n"
	"\n"
	"Read a trace the jsonl sink recorded (gzip-compressed or not), or a database the\n"
	"sqlite sink wrote, into any sink, as a live run would have: summary, html, chrome,\n"
	"csv, memory, text (docs/sinks.md).\n"
	"\n"
	"  -o, --output TYPE[:PATH]  add a sink; PATH - is stdout (default: -o summary)\n"
	"  -c, --config FILE      [sink.NAME] sections for sinks with their keys\n"
	"  -P, --plugin LIST      load these plugins first (names or .so paths); the\n"
	"                         others the trace names are found on the plugin path\n"
	"      --plugin-path DIRS where to look for plugins (colon-separated)\n"
	"  -C, --set SEC.KEY=VAL  set one config key, e.g. -C sink.summary.format=json\n"
	"\n"
	"Why the GPU was idle (docs/analysis.md): with no -o, the summary and then the\n"
	"answer (for a trace with GPU activity); --answer alone gives the answer only.\n"
	"      --answer FORMAT    text, json or none\n"
	"      --step-range GLOB  steps are the NVTX ranges whose name matches\n"
	"      --step-function F  steps run from one entry into Python function F to the next\n"
	"                         (neither: steps from the period of the launch sequence)\n"
	"      --host-gap-us N    a pause of N us or more before a launch is host work (50)\n"
	"      --link-gbps X      the host link's bandwidth in GB/s, for pageable copies (25)\n"
	"  -v, --verbose          say more (twice: debug)\n"
	"  -q, --quiet            errors only\n"
	"  -h, --help\n";

/* Processes by the time of their last call, for their ends. */
struct proc_end {
	uint32_t pid;
	uint64_t last_ns;
};

static int note_proc(struct ct_u64map *m, const struct ct_event *ev)
{
	struct proc_end *p = ct_u64map_get(m, ev->pid);
	uint64_t end = ev->ts_ns + (ev->entry_only ? 0 : ev->dur_ns);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || ct_u64map_put(m, ev->pid, p)) {
			free(p);
			return -ENOMEM;
		}
		p->pid = ev->pid;
	}
	if (end > p->last_ns)
		p->last_ns = end;
	return 0;
}

static int cmp_end(const void *a, const void *b)
{
	const struct proc_end *x = *(struct proc_end *const *)a, *y = *(struct proc_end *const *)b;

	if (x->last_ns != y->last_ns)
		return x->last_ns < y->last_ns ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int procs_end(struct ct_output *o, struct ct_u64map *m)
{
	struct proc_end **v = calloc(m->n ? m->n : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; ct_u64map_next(m, &i, NULL, (void **)&v[n]);)
		n++;
	qsort(v, n, sizeof(*v), cmp_end);
	for (size_t i = 0; i < n; i++)
		ct_output_proc_exit(o, v[i]->pid, v[i]->last_ns);
	free(v);
	return 0;
}

static void say_skips(const struct ct_replay *r, const char *path)
{
	if (r->skipped) {
		ct_warn("report: %" PRIu64 " call%s of %s %s skipped: APIs the loaded plugins do not "
			"have (a trace of another version?):", r->skipped, CT_S(r->skipped), path,
			ct_plural(r->skipped, "was", "were"));
		for (size_t i = 0; i < r->n_skips; i++)
			ct_warn("  %s %s: %" PRIu64 " call%s", r->skips[i].plugin, r->skips[i].api, r->skips[i].n,
				CT_S(r->skips[i].n));
	}
	if (r->other_kinds)
		ct_info("report: %" PRIu64 " %s not calls %s skipped", r->other_kinds,
			ct_plural(r->other_kinds, "line that is", "lines that are"),
			ct_plural(r->other_kinds, "was", "were"));
}

/* Every call of the trace to the sinks. */
static int replay(struct ct_replay *r, struct ct_tracefile *tf, struct ct_output *o,
		  struct ct_run_stats *st, struct ct_an *an)
{
	struct ct_u64map procs = { 0 };
	static struct ct_gpuline gpuline;
	static struct ct_rangeline range;
	struct ct_gpuline *gl = &gpuline;
	const char *line;
	size_t len;
	int more, err = 0;

	st->start_ns = tf->wall_ns;
	while (!err && (more = ct_tracefile_next(tf, &line, &len)) > 0) {
		if (an && ct_an_line(an, line, len, tf->path, tf->lineno) == -ENOMEM) {
			err = -ENOMEM;
			break;
		}
		if (!o)
			continue;
		err = ct_replay_line(r, line, len, tf->path, tf->lineno);
		if (err == CT_REPLAY_NVTX) {
			const struct ct_nvtx_event *n = &r->nvtx_ev;

			/* A range is a step's candidate for the sinks' analysis too. */
			err = n->mark ? 0 : ct_an_sinks_range(n->pid, n->ts_ns, n->end_ns, n->name);
			if (err == -ENOMEM)
				break;
			err = 0;
			ct_output_nvtx(o, n);
			continue;
		}
		if (err == 1) {
			/* Not a call: GPU activity goes to the sinks as it did live. */
			err = ct_gpuline_read(gl, line, len, r->wall_offset_ns);
			if (err < 0) {
				ct_err("report: %s:%ld: a GPU activity line that does not read (docs/events.md)", tf->path,
				       tf->lineno);
				break;
			}
			if (err == 1) {
				r->other_kinds--; /* counted as not a call; it is read after all */
				st->gpu_events++;
				if (gl->gpu.uuid[0])
					gl->ev.gpu = ct_replay_gpu(r, &gl->gpu);
				ct_output_gpu(o, &gl->ev);
			} else if ((err = ct_rangeline_read(&range, line, len)) == 1) {
				r->other_kinds--;
				if (ct_an_sinks_range(range.pid, range.start, range.end, range.name) == -ENOMEM) {
					err = -ENOMEM;
					break;
				}
			} else if (err < 0) {
				ct_err("report: %s:%ld: an NVTX range line that does not read (docs/events.md)",
				       tf->path, tf->lineno);
				break;
			}
			err = 0;
			continue;
		}
		if (!err)
			err = note_proc(&procs, &r->ev);
		if (err)
			break;
		st->events++;
		if (r->ev.ts_ns + r->ev.dur_ns > st->end_ns)
			st->end_ns = r->ev.ts_ns + r->ev.dur_ns;
		ct_output_event(o, &r->ev);
	}
	if (!err && more < 0)
		err = more;
	if (!err && o)
		err = procs_end(o, &procs);
	for (size_t i = 0; ct_u64map_next(&procs, &i, NULL, (void **)&line);)
		free((void *)line);
	ct_u64map_free(&procs);
	return err;
}

static int answer_format(const char *s)
{
	static const char *const names[] = { "none", "text", "json" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	ct_err("report: --answer %s: not text, json or none", s);
	return -1;
}

static int parse_num(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !(*v > 0) || *v > 1e12) {
		ct_err("report: %s %s: not a positive number", opt, s);
		return -EINVAL;
	}
	return 0;
}

/* No sink may write over the trace it reads. */
static int refuse_own_trace(const struct ct_config *conf, char *const *trace)
{
	const char *paths[CT_MAX_SINKS];
	size_t n = 0;

	for (int i = 0; i < conf->n_sinks && n < CT_MAX_SINKS; i++)
		paths[n++] = ((const struct ct_sink_common *)conf->sinks[i].ctx)->path;
	return ct_tracefile_refuse_outputs("report", trace, 1, paths, n);
}

int ct_report_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "config", required_argument, NULL, 'c' },
		{ "plugin", required_argument, NULL, 'P' },
		{ "plugin-path", required_argument, NULL, 'L' },
		{ "set", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "answer", required_argument, NULL, 'A' },
		{ "step-range", required_argument, NULL, 'R' },
		{ "step-function", required_argument, NULL, 'F' },
		{ "host-gap-us", required_argument, NULL, 'G' },
		{ "link-gbps", required_argument, NULL, 'B' },
		{ 0 },
	};
	struct ct_config conf;
	struct ct_tracefile tf = { 0 };
	struct ct_replay r = { 0 };
	struct ct_output out = { 0 };
	struct ct_run_stats st = { 0 };
	struct ct_an_opts ao = CT_AN_OPTS_DEFAULT;
	struct ct_an an;
	bool an_on = false;
	int answer = -1;
	double num;
	const char *config = NULL, *plugins = NULL, *plugin_path = NULL;
	char **sinks = calloc(argc, sizeof(*sinks)), **sets = calloc(argc, sizeof(*sets));
	int n_sinks = 0, n_sets = 0, opt, ret = 2, err;

	ct_config_init(&conf);
	if (!sinks || !sets)
		goto out;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:c:P:C:vqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': sinks[n_sinks++] = optarg; break;
		case 'C': sets[n_sets++] = optarg; break;
		case 'v': ct_verbosity++; break;
		case 'c': config = optarg; break;
		case 'P': plugins = optarg; break;
		case 'L': plugin_path = optarg; break;
		case 'q': ct_verbosity = CT_LOG_ERROR; break;
		case 'h': fputs(usage, stdout); ret = 0; goto out;
		case 'A': if ((answer = answer_format(optarg)) < 0) goto out; break;
		case 'R': ao.range_pattern = optarg; break;
		case 'F': ao.py_function = optarg; break;
		case 'G': if (parse_num("--host-gap-us", optarg, &num)) goto out; ao.host_gap_ns = (uint64_t)(num * 1000); break;
		case 'B': if (parse_num("--link-gbps", optarg, &num)) goto out; ao.link_gbps = num; break;
		default: fputs(usage, stderr); goto out;
		}
	}
	if (optind + 1 != argc) {
		if (optind < argc)
			ct_err("report: one trace at a time (cudatracer merge puts several on one timeline)");
		fputs(usage, stderr);
		goto out;
	}
	if (config && ct_config_load(&conf, config))
		goto out;
	if (plugins && ct_config_set(&conf, "tracer", "plugins", plugins, "-P"))
		goto out;
	if (plugin_path && ct_config_set(&conf, "tracer", "plugin_path", plugin_path, "--plugin-path"))
		goto out;
	for (int i = 0; i < n_sinks; i++) {
		char *colon = strchr(sinks[i], ':');

		if (colon)
			*colon = 0;
		if (ct_config_add_sink(&conf, sinks[i], colon ? colon + 1 : NULL))
			goto out;
	}
	if (ao.range_pattern && ao.py_function) {
		ct_err("report: --step-range or --step-function, not both");
		goto out;
	}
	/* No sink: the summary, which ends with the answer for a trace with GPU
	 * activity (its analysis takes report's options); --answer alone: the
	 * answer only. */
	if (!conf.n_sinks && answer <= 0 && ct_config_add_sink(&conf, "summary", "-"))
		goto out;
	if (answer < 0)
		answer = 0;
	if (ct_an_sink_configure(&ao, true))
		goto out;
	/* After the sinks, as the tracer does: -C sink.NAME.KEY=VAL addresses an -o sink. */
	for (int i = 0; i < n_sets; i++) {
		char origin[512], *sec, *key, *val;

		snprintf(origin, sizeof(origin), "-C %s", sets[i]);
		if (ct_config_split_set(sets[i], &sec, &key, &val) || ct_config_set(&conf, sec, key, val, origin))
			goto out;
	}
	if (ct_config_finish(&conf))
		goto out;
	if (refuse_own_trace(&conf, argv + optind))
		goto out;
	ret = 1;
	if (answer) {
		if (ct_an_init(&an, &ao))
			goto out;
		an_on = true;
	}
	/* The answer alone reads traces from before the meta line too. */
	if ((conf.n_sinks ? ct_tracefile_open : ct_tracefile_open_old)(&tf, argv[optind], "report"))
		goto out;
	if (an_on) {
		an.seen.meta = tf.has_meta;
		an.seen.version = tf.version;
	}
	if (conf.n_sinks) {
		/* Only -P's plugins are loaded first: the config's default list would
		 * load plugins the trace may not name. */
		if (ct_replay_init(&r, conf.tracer.plugin_path, plugins ? &conf.tracer.plugins : NULL,
				   tf.wall_offset_ns))
			goto out;
		ct_an_sinks_trace(tf.has_meta, tf.version);
		err = ct_output_open(&out, &conf);
		if (!err)
			err = replay(&r, &tf, &out, &st, an_on ? &an : NULL);
	} else {
		err = replay(&r, &tf, NULL, &st, &an);
	}
	if (err == -ENOMEM)
		ct_err("report: out of memory");
	if (err) {
		if (conf.n_sinks)
			ct_output_abandon(&out);
		goto out;
	}
	if (conf.n_sinks && ct_output_close(&out, &st))
		goto out;
	if (an_on) {
		ct_an_finish(&an);
		fflush(stdout);
		if (answer == 2)
			ct_an_write_json(&an, stdout);
		else
			ct_an_write_text(&an, stdout);
		if (fflush(stdout)) {
			ct_err("report: writing the answer: %s", strerror(errno));
			goto out;
		}
	}
	say_skips(&r, tf.path);
	if (ct_verbosity >= CT_LOG_WARN && conf.n_sinks)
		fprintf(stderr, "cudatracer report: %" PRIu64 " event%s from %s\n", st.events, CT_S(st.events), tf.path);
	ret = 0;
out:
	if (an_on)
		ct_an_free(&an);
	ct_replay_free(&r);
	ct_tracefile_close(&tf);
	ct_config_free(&conf);
	free(sinks);
	free(sets);
	return ret;
}
