// SPDX-License-Identifier: MIT
/* --explain: what would be probed, and why calls may be missing. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/elf.h"
#include "symbols/ldso.h"
#include "explain.h"
#include "plugin/coverage.h"
#include "capture/target.h"
#include "capture/tsc.h"
#include "session.h"
#include "util/plural.h"

struct explain {
	FILE *out;
	struct ct_loaded_plugin *plugins;
	int n;
	const char *exe; /* the process's executable, as it sees it */
	int runtimes;    /* files where some plugin found its symbols */
	int suspects;    /* files named like a runtime, without its symbols */
	bool inproc;     /* --engine inproc */
	int exe_static;  /* plugins whose runtime is linked into the executable */
	const struct ct_config *c;
};

/* How much of what the file exports the plugin's table has, and the profile traces. */
static void coverage(struct explain *x, const struct ct_plugin *p, const char *path, const char *display)
{
	bool *on = calloc(p->n_apis, sizeof(bool));

	if (!on)
		return;
	ct_session_select(x->c, p, on);
	(void)ct_coverage_print(x->out, "    ", path, display, p, on);
	free(on);
}

static int explain_file(const char *open_path, const char *display, void *ctx)
{
	struct explain *x = ctx;
	bool is_exe = x->exe && !strcmp(display, x->exe);

	for (int i = 0; i < x->n; i++) {
		const struct ct_plugin *p = x->plugins[i].p;
		bool named = ct_target_name_matches(display, p->libraries, p->n_libraries);
		bool symtab = false;
		int found;

		if (!named && !is_exe)
			continue;
		found = ct_target_count_symbols(p, open_path);
		ct_elf_info(open_path, &symtab);
		if (found > 0 && is_exe && !named && x->inproc) {
			x->exe_static++;
			fprintf(x->out, "  %s: %s defines %d of %zu %s APIs (the runtime is linked into the executable): "
				"NOT interposable in-process; --engine inproc refuses it, --engine ebpf traces it\n",
				p->name, display, found, p->n_apis, p->name);
		} else if (found > 0) {
			x->runtimes++;
			fprintf(x->out, "  %s: %s defines %d of %zu %s APIs: traced%s\n", p->name, display, found,
				p->n_apis, p->name, is_exe && !named ? " (the runtime is linked into the executable)" : "");
			coverage(x, p, open_path, display);
		} else if (named) {
			x->suspects++;
			fprintf(x->out, "  %s: %s is named like the runtime but defines none of its symbols%s: "
				"its calls cannot be seen\n", p->name, display,
				symtab ? "" : " (stripped)");
		} else {
			fprintf(x->out, "  %s: the executable %s does not link the runtime statically%s\n", p->name,
				display, symtab ? "" : " (or is stripped: a runtime linked into it could not be found)");
		}
	}
	return 0;
}

/* A library that does not carry a runtime's name but defines its symbols. */
static void explain_linked_in(struct explain *x, const char *path)
{
	for (int i = 0; i < x->n; i++) {
		const struct ct_plugin *p = x->plugins[i].p;
		int found;

		if (ct_target_name_matches(path, p->libraries, p->n_libraries))
			continue;
		found = ct_target_count_symbols(p, path);
		if (found > 0)
			fprintf(x->out, "  %s: %s links the runtime in, defining %d of %zu %s APIs: traced only with "
				"-C tracer.scan_libraries=true\n", p->name, path, found, p->n_apis, p->name);
	}
}

/* "DT_RUNPATH of app" */
static const char *via_text(const struct ct_ld_set *ld, const struct ct_ld_lib *l, char *buf, size_t n)
{
	const char *of = l->via_of >= 0 ? ld->v[l->via_of].path : NULL;
	const char *base = of && strrchr(of, '/') ? strrchr(of, '/') + 1 : of;

	if ((l->via == CT_LD_RPATH || l->via == CT_LD_RUNPATH) && base)
		snprintf(buf, n, "%s of %s", ct_ld_via_names[l->via], base);
	else
		snprintf(buf, n, "%s", ct_ld_via_names[l->via]);
	return buf;
}

/*
 * A command not yet run: the libraries ld.so will load for it, found the
 * way ld.so finds them (symbols/ldso.c), then what each plugin will probe.
 */
static int explain_program(struct explain *x, const char *program)
{
	struct ct_ld_set ld;
	const char *llp = getenv("LD_LIBRARY_PATH");
	int err, missing = 0;

	x->exe = program;
	fprintf(x->out, "program %s:\n", program);
	err = ct_ld_resolve(program, &ld);
	if (err) {
		fprintf(x->out, "  cannot read its libraries: %s\n", strerror(-err));
		explain_file(program, program, x);
		return 0;
	}
	if (!ld.dynamic) {
		fprintf(x->out, "  linked statically: it loads no library at start\n");
	} else {
		fprintf(x->out, "  loads at start (as ld.so finds them%s%s%s):\n", llp && *llp ? "; LD_LIBRARY_PATH=" : "",
			llp && *llp ? llp : "", ld.secure ? "; set-ID: LD_LIBRARY_PATH ignored" : "");
		for (size_t i = 1; i < ld.n; i++) {
			char via[PATH_MAX + 64];

			if (ld.v[i].path)
				fprintf(x->out, "    %s => %s (%s)\n", ld.v[i].name, ld.v[i].path,
					via_text(&ld, &ld.v[i], via, sizeof(via)));
			else
				fprintf(x->out, "    %s => not found: ld.so will not start the program\n", ld.v[i].name),
					missing++;
		}
	}
	/* The executable, then each library a plugin's runtime is named like. */
	explain_file(program, program, x);
	for (size_t i = 1; i < ld.n; i++)
		if (ld.v[i].path)
			explain_file(ld.v[i].path, ld.v[i].path, x);
	for (size_t i = 1; i < ld.n; i++)
		if (ld.v[i].path)
			explain_linked_in(x, ld.v[i].path);
	if (!x->runtimes)
		fprintf(x->out, "  no runtime of the loaded plugins is linked in or loaded at start%s\n",
			missing ? " (or it is among the libraries not found)" : "");
	fprintf(x->out, "  a runtime the program opens later with dlopen (PyTorch, JAX and CuPy do) cannot be known "
		"before it runs: it is probed when the program opens it, before its first call "
		"(cudatracer -v -- %s names each file it probes)\n", program);
	ct_ld_free(&ld);
	return 0;
}

/* What the in-process engine sees of a command, and what it cannot. */
static void explain_inproc(struct explain *x)
{
	char why[128];

	fprintf(x->out, "engine inproc: the command runs with cudatracer's preload library (LD_PRELOAD), "
		"children and exec'd programs too:\n"
		"  sees: every call into the runtime's exported functions, from the program and from its libraries, "
		"loaded at start or later with dlopen; with the cuda plugin, the driver functions handed out by "
		"cuGetProcAddress (so cudart's own driver calls, and cudaGetDriverEntryPoint's)\n"
		"  cannot see: a runtime linked statically into the executable or into a library (its calls do not "
		"go through the dynamic linker: nvcc's default -cudart static, cuBLAS's own copy); calls the runtime "
		"makes inside itself (cudart to cudart); libraries opened with RTLD_DEEPBIND or linked -Bsymbolic "
		"against the runtime; programs that clear LD_PRELOAD for their children, or set-ID programs\n"
		"  differs from ebpf: no plugin BPF hooks, no call stacks; a thread's name is read at its first "
		"traced call\n");
	if (ct_tsc_usable(why, sizeof(why)))
		fprintf(x->out, "  clock: the TSC (%s), turned into CLOCK_MONOTONIC by the tracer "
			"(tracer.inproc_clock = monotonic: clock_gettime)\n", why);
	else
		fprintf(x->out, "  clock: clock_gettime (%s)\n", why);
	if (x->exe_static)
		fprintf(x->out, "  this program links %d runtime%s in: use --engine ebpf, or build it with -cudart shared\n",
			x->exe_static, CT_S(x->exe_static));
}

/* The traced APIs that have no return probe, by what made them so. */
static void explain_timing(FILE *out, const struct ct_config *c, struct ct_loaded_plugin *plugins, int n)
{
	static const enum ct_timing shown[] = { CT_TIMING_ENTRY_PLUGIN, CT_TIMING_ENTRY_CONFIG,
						CT_TIMING_TIMED_CONFIG };
	bool head = false;

	for (int i = 0; i < n; i++) {
		const struct ct_plugin *p = plugins[i].p;
		bool *on = calloc(p->n_apis, sizeof(bool));

		if (!on)
			return;
		ct_session_select(c, p, on);
		for (size_t t = 0; t < sizeof(shown) / sizeof(shown[0]); t++) {
			size_t count = 0;

			for (size_t k = 0; k < p->n_apis; k++) {
				if (!on[k] || ct_session_timing(c, &p->apis[k]) != shown[t])
					continue;
				if (!head)
					fprintf(out, "recorded at entry only (no return probe: no result, no duration; "
						"-C tracer.timed=GLOB times an API again, tracer.entry_only=GLOB adds one):\n");
				head = true;
				if (!count++)
					fprintf(out, "  %s: %s: %s", p->name, ct_timing_names[shown[t]], p->apis[k].symbol);
				else
					fprintf(out, ", %s", p->apis[k].symbol);
			}
			if (count)
				fputc('\n', out);
		}
		free(on);
	}
}

int ct_explain(FILE *out, const struct ct_config *c, struct ct_loaded_plugin *plugins, int n, pid_t pid,
	       const char *program)
{
	bool inproc = c->tracer.engine == CT_ENGINE_INPROC;
	struct explain x = { out, plugins, n, NULL, 0, 0, inproc, 0, c };
	char exe[PATH_MAX], link[64];
	ssize_t len;
	int err;

	if (pid && inproc) {
		fprintf(out, "--engine inproc traces a command it starts (its library must be in the process "
			"from its first instruction): for -p PID use --engine ebpf\n");
		return -EINVAL;
	}
	if (pid) {
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		len = readlink(link, exe, sizeof(exe) - 1);
		if (len < 0) {
			err = -errno;
			fprintf(out, "process %d: %s\n", pid, strerror(errno));
			return err;
		}
		exe[len] = 0;
		x.exe = exe;
		fprintf(out, "process %d (%s):\n", pid, exe);
		err = ct_target_pid_files(pid, explain_file, &x);
		if (err)
			return err;
	} else {
		if (!ct_target_command_path(program, exe, sizeof(exe)))
			program = exe;
		if (access(program, R_OK)) {
			err = -errno;
			fprintf(out, "program %s: %s\n", program, strerror(errno));
			return err;
		}
		err = explain_program(&x, program);
		if (!err && inproc)
			explain_inproc(&x);
		if (!err)
			explain_timing(out, c, plugins, n);
		return err;
	}
	if (!x.runtimes)
		fprintf(out, "  no runtime of the loaded plugins is mapped: the process has not loaded one yet "
			"(tracing it with -p catches the load), or it uses another runtime (--list-plugins)\n");
	if (x.runtimes)
		fprintf(out, "  libraries that link a runtime statically without symbols (cuBLAS, cuDNN do) make calls "
			"that cannot be seen; -C tracer.scan_libraries=true finds the ones that keep symbols\n");
	explain_timing(out, c, plugins, n);
	return 0;
}
