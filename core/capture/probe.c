// SPDX-License-Identifier: MIT
/*
 * One plugin's probes: attach the session engine's entry/exit pair to every
 * file that defines the plugin's symbols, with the call id (plugin and API)
 * as cookie: one uprobe_multi link per file and direction, or one link per
 * symbol where the kernel lacks uprobe_multi; or, with uprobe session
 * programs, one link per file for entries and returns together.
 *
 * A file is held by a descriptor of ours from the first look to the detach:
 * it is known by that descriptor's device and inode, read and attached
 * through /proc/self/fd/N (a uprobe resolves its path to an inode once, at
 * attach). A path a process gave, or its /proc/PID/fd/N, may be gone or
 * name another file by then.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include "symbols/elf.h"
#include "util/log.h"
#include "capture/probe.h"
#include "capture/ring.h"

/*
 * A test hook (docs/reliability.md): CUDATRACER_TEST_FAIL_ENTRY_LINKS=1 makes
 * the entry links of every file fail after its return links were made, the
 * one failure that descriptor limits cannot reach now that files are read
 * before either is attached.
 */
static int entry_fault(void)
{
	const char *v = getenv("CUDATRACER_TEST_FAIL_ENTRY_LINKS");

	return v && !strcmp(v, "1") ? -EMFILE : 0;
}

int ct_probe_open(struct ct_probe *pr, struct ct_loaded_plugin *lp, uint32_t number,
		  const struct ct_engine *engine, const bool *enabled, const bool *entry_only)
{
	const struct ct_plugin *p = lp->p;

	memset(pr, 0, sizeof(*pr));
	pr->lp = lp;
	pr->engine = engine;
	pr->number = number;
	pr->enabled = enabled;
	pr->entry_only = entry_only;
	pr->warned_missing = calloc(p->n_apis, sizeof(bool));
	pr->names = calloc(p->n_apis, sizeof(char *));
	if (!pr->warned_missing || !pr->names)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_apis; i++)
		pr->names[i] = p->apis[i].symbol;
	return 0;
}

static int push_link(struct ct_probe *pr, struct bpf_link *l, int fd)
{
	struct ct_link *v = realloc(pr->links, (pr->n_links + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(l);
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	pr->links = v;
	pr->links[pr->n_links++] = (struct ct_link){ l, fd };
	return 0;
}

static void link_destroy(struct ct_link *k)
{
	bpf_link__destroy(k->l);
	if (k->fd >= 0)
		close(k->fd);
}

/* The kernel's attach type of uprobe session programs (engine.c's). */
#define CT_TRACE_UPROBE_SESSION 57

/*
 * One uprobe session link for every probe of a file: libbpf 1.4's
 * bpf_link_create() refuses uprobe_multi options for an attach type it
 * does not know, so the link is made by the syscall itself.
 */
static int attach_session(struct ct_probe *pr, const char *path, const uint64_t *offs,
			  const uint64_t *cookies, size_t n)
{
	union bpf_attr attr;
	int fd;

	if (!n)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(pr->engine->entry);
	attr.link_create.attach_type = CT_TRACE_UPROBE_SESSION;
	attr.link_create.uprobe_multi.path = (uint64_t)(uintptr_t)path;
	attr.link_create.uprobe_multi.offsets = (uint64_t)(uintptr_t)offs;
	attr.link_create.uprobe_multi.cookies = (uint64_t)(uintptr_t)cookies;
	attr.link_create.uprobe_multi.cnt = (uint32_t)n;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	return push_link(pr, NULL, fd);
}

static int attach_multi(struct ct_probe *pr, const char *path, const uint64_t *offs,
			const uint64_t *cookies, size_t n, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, mo, .offsets = (const unsigned long *)offs, .cookies = (const __u64 *)cookies, .cnt = n,
		    .retprobe = ret);
	struct bpf_program *prog = ret ? pr->engine->exit : pr->engine->entry;
	struct bpf_link *l;

	if (!n)
		return 0;
	l = bpf_program__attach_uprobe_multi(prog, -1, path, NULL, &mo);
	if (!l)
		return -errno;
	return push_link(pr, l, -1);
}

static int attach_single(struct ct_probe *pr, const char *path, uint64_t off, uint64_t cookie, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie, .retprobe = ret);
	struct bpf_program *prog = ret ? pr->engine->exit : pr->engine->entry;
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, -1, path, off, &uo);

	if (!l)
		return -errno;
	return push_link(pr, l, -1);
}

/*
 * A file's entry links without its exit links would record calls that never
 * return, and fill each thread's frame stack for good: the links made since
 * `mark` go, together.
 */
static void drop_links_since(struct ct_probe *pr, int mark)
{
	while (pr->n_links > mark)
		link_destroy(&pr->links[--pr->n_links]);
}

static bool offset_taken(const uint64_t *offs, size_t n, uint64_t off)
{
	for (size_t k = 0; k < n; k++)
		if (offs[k] == off)
			return true;
	return false;
}

/* Missing symbols are said once per API, in one line per file. */
static void missing_note(struct ct_probe *pr, size_t i, char **buf, size_t *len, int *n)
{
	const char *sym = pr->lp->p->apis[i].symbol;
	size_t add = strlen(sym) + 2;
	char *nb;

	if (pr->warned_missing[i])
		return;
	pr->warned_missing[i] = true;
	nb = realloc(*buf, *len + add + 1);
	if (!nb)
		return;
	*buf = nb;
	*len += snprintf(*buf + *len, add + 1, "%s%s", *n ? ", " : "", sym);
	(*n)++;
}

bool ct_probe_file_has_symbols(struct ct_probe *pr, const char *path)
{
	size_t n = pr->lp->p->n_apis;
	uint64_t *offs = calloc(n, sizeof(*offs));
	int found;

	if (!offs)
		return false;
	found = ct_elf_resolve(path, pr->names, n, offs);
	free(offs);
	return found > 0;
}

/* Files already looked at (probed, or failed once: said once) are known by inode. */
static bool known(const struct ct_probe *pr, const struct stat *st)
{
	for (int i = 0; i < pr->n_files; i++)
		if (pr->files[i].dev == st->st_dev && pr->files[i].ino == st->st_ino)
			return true;
	return false;
}

static int remember(struct ct_probe *pr, const struct stat *st, int fd, const char *display, int n_syms)
{
	struct ct_attached_file *f = realloc(pr->files, (pr->n_files + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	pr->files = f;
	pr->files[pr->n_files++] = (struct ct_attached_file){ st->st_dev, st->st_ino, fd, strdup(display), n_syms };
	return 0;
}

static int attach_file(struct ct_probe *pr, const char *path, const char *display, bool named)
{
	const struct ct_plugin *p = pr->lp->p;
	size_t n = p->n_apis, ne = 0, nx = 0;
	uint64_t *offs = NULL, *eo = NULL, *ec = NULL, *xo = NULL, *xc = NULL;
	char *mbuf = NULL, self[32];
	size_t mlen = 0;
	int found, err = 0, nmissing = 0, ngen_missing = 0, mark = pr->n_links;
	int fd = open(path, O_PATH | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		ct_err("cannot probe %s: %s", display, strerror(-err));
		goto cleanup;
	}
	if (known(pr, &st)) {
		err = 0;
		goto cleanup;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);

	offs = calloc(n, sizeof(*offs));
	eo = calloc(n, sizeof(*eo));
	ec = calloc(n, sizeof(*ec));
	xo = calloc(n, sizeof(*xo));
	xc = calloc(n, sizeof(*xc));
	if (!offs || !eo || !ec || !xo || !xc) {
		err = -ENOMEM;
		goto cleanup;
	}
	found = ct_elf_resolve(self, pr->names, n, offs);
	if (found == -ENOEXEC && !named) {
		/* Named like a runtime, but not one: nothing to probe in it. */
		ct_info("%s is not an ELF file: not probed", display);
		err = 0;
		goto cleanup;
	}
	if (found < 0) {
		err = found;
		ct_err("cannot read symbols of %s: %s", display,
		       err == -ENOEXEC ? "not an ELF file" : strerror(-err));
		goto cleanup;
	}
	if (found == 0) {
		ct_info("%s defines none of plugin %s's symbols", display, p->name);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		if (!pr->enabled[i])
			continue;
		if (!offs[i]) {
			/* A generated row names what the header of the build declared:
			 * another version of the runtime lacks some, which is no news. */
			if (p->apis[i].flags & CT_API_GENERATED)
				ngen_missing++;
			else
				missing_note(pr, i, &mbuf, &mlen, &nmissing);
			continue;
		}
		/* Two names of one function (libnccl's ncclX and its alias pncclX):
		 * one probe, under the row that comes first, or each call would be
		 * recorded twice. */
		if (offset_taken(eo, ne, offs[i]))
			continue;
		eo[ne] = offs[i];
		ec[ne++] = CT_CALL_ID(pr->number, i);
		if (!pr->entry_only[i]) {
			xo[nx] = offs[i];
			xc[nx++] = CT_CALL_ID(pr->number, i);
		}
	}
	if (ngen_missing)
		ct_info("%s: %d API%s of the generated table absent from %s (another version of the runtime)", p->name,
			ngen_missing, ngen_missing > 1 ? "s" : "", display);
	if (nmissing)
		ct_warn("%s: %d API%s not in %s (this runtime version lacks them); tracing the rest: %s",
			p->name, nmissing, nmissing > 1 ? "s are" : " is", display, mbuf);
	free(mbuf);
	/*
	 * Return probes first, then entries: an entry that fires finds its
	 * return probe live, so no call of a busy thread gets a frame that no
	 * return pops (those are dropped by the engine all the same, by their
	 * stack pointer, but cost the call's record). A return seen without
	 * its entry, until the entries are live, is counted as unpaired.
	 * The uprobe_multi attach can fail for reasons the load did not reveal
	 * (an old kernel with the program type but not the link); fall back.
	 */
	if (pr->engine->links == CT_LINK_SESSION) {
		/* One link: an entry-only API's entry declines its return. */
		err = entry_fault() ?: attach_session(pr, self, eo, ec, ne);
	} else if (pr->engine->multi) {
		err = attach_multi(pr, self, xo, xc, nx, true);
		if (!err)
			err = entry_fault() ?: attach_multi(pr, self, eo, ec, ne, false);
	} else {
		for (size_t i = 0; i < nx && !err; i++)
			err = attach_single(pr, self, xo[i], xc[i], true);
		if (!err)
			err = entry_fault();
		for (size_t i = 0; i < ne && !err; i++)
			err = attach_single(pr, self, eo[i], ec[i], false);
	}
	if (err) {
		/* Entry and exit links of a file live together or not at all; the
		 * file is not tried again, so this is said once. */
		bool some = pr->n_links > mark;

		drop_links_since(pr, mark);
		pr->n_failed++;
		ct_err("attaching %zu uprobes to %s with %s failed: %s%s; its calls are not traced%s", ne, display,
		       ct_engine_links_name(pr->engine), strerror(-err),
		       err == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : "",
		       some ? " (the links already made were removed: no call is seen without its return)" : "");
		(void)remember(pr, &st, -1, display, 0);
		goto cleanup;
	}
	err = remember(pr, &st, fd, display, (int)ne);
	if (err) {
		drop_links_since(pr, mark);
		goto cleanup;
	}
	fd = -1; /* held until ct_probe_close */
	ct_info("plugin %s: %zu probes on %s (%s)", p->name, ne, display, ct_engine_links_name(pr->engine));
	err = (int)ne;
cleanup:
	if (fd >= 0)
		close(fd);
	free(offs);
	free(eo);
	free(ec);
	free(xo);
	free(xc);
	return err;
}

int ct_probe_attach_file(struct ct_probe *pr, const char *path, const char *display)
{
	return attach_file(pr, path, display, true);
}

int ct_probe_attach_found(struct ct_probe *pr, const char *path, const char *display)
{
	return attach_file(pr, path, display, false);
}

void ct_probe_detach(struct ct_probe *pr)
{
	for (int i = pr->n_links - 1; i >= 0; i--)
		link_destroy(&pr->links[i]);
	pr->n_links = 0;
}

void ct_probe_close(struct ct_probe *pr)
{
	for (int i = pr->n_links - 1; i >= 0; i--)
		link_destroy(&pr->links[i]);
	free(pr->links);
	for (int i = 0; i < pr->n_files; i++) {
		if (pr->files[i].fd >= 0)
			close(pr->files[i].fd);
		free(pr->files[i].path);
	}
	free(pr->files);
	free(pr->warned_missing);
	free(pr->names);
	memset(pr, 0, sizeof(*pr));
}
