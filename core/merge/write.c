// SPDX-License-Identifier: MIT
/*
 * The outputs of `cudatracer merge`. Each is written to a temporary file in
 * the folder of its path and renamed over it once whole, so that a failed
 * merge leaves no file that looks complete; a path that names something
 * other than a regular file (/dev/null) is opened as the sinks open theirs,
 * never renamed over (as root, `-o chrome:/dev/null` made /dev/null a file
 * of root's, mode 0600, for every program on the machine).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "merge/merge.h"
#include "sinks/sink.h"
#include "sinks/sinkio.h"
#include "util/log.h"
#include "util/plural.h"
#include "sinks/texttable.h"
#include "util/u64map.h"

typedef int (*write_fn)(const struct ct_merge *m, FILE *out);

static int write_atomic(const struct ct_merge *m, const char *path, write_fn fn)
{
	FILE *f = NULL;
	struct stat st;
	size_t n;
	char *tmp;
	int fd, err;

	if (!path || !*path || !strcmp(path, "-")) {
		err = fn(m, stdout);
		return err ? err : (fflush(stdout) ? -errno : 0);
	}
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		err = ct_out_open("merge", path, &f); /* /dev/null passes; a FIFO or another device is refused */
		if (err)
			return err;
		err = fn(m, f);
		if ((fclose(f) || err) && !err)
			err = -errno;
		if (err)
			ct_err("merge: writing %s failed: %s", path, strerror(-err));
		return err;
	}
	n = strlen(path);
	tmp = malloc(n + 16);
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		err = -errno;
		ct_err("merge: cannot write %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return err;
	}
	err = fn(m, f);
	if (!err && (fflush(f) || ferror(f) || fsync(fileno(f))))
		err = -(errno ? errno : EIO);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		ct_err("merge: writing %s failed: %s", path, strerror(-err));
		unlink(tmp);
	}
	free(tmp);
	return err;
}

void ct_merge_proc_label(const struct ct_merge *m, int proc, char *buf, size_t n)
{
	const struct ct_mproc *p = &m->procs[proc];
	const char *host = m->traces[p->trace].host;

	if (p->rank >= 0)
		snprintf(buf, n, "host %s rank %d (pid %u)", host, p->rank, p->pid);
	else
		snprintf(buf, n, "host %s pid %u (%s)", host, p->pid, p->comm);
}

static void us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static uint64_t earliest(const struct ct_merge *m)
{
	uint64_t t0 = UINT64_MAX;

	for (size_t i = 0; i < m->n_events; i++) {
		uint64_t t = ct_merge_ts(m, &m->events[i]);

		if (t < t0)
			t0 = t;
	}
	return t0 == UINT64_MAX ? 0 : t0;
}

/* Perfetto/Chrome JSON: a process a rank (or pid), sorted by host then rank. */
static int chrome(const struct ct_merge *m, FILE *out)
{
	uint64_t t0 = earliest(m);
	struct ct_u64map threads = { 0 };
	char label[512];

	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
	for (size_t i = 0; i < m->n_procs; i++) {
		const struct ct_mproc *p = &m->procs[i];

		ct_merge_proc_label(m, (int)i, label, sizeof(label));
		fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,\"args\":{\"name\":", i + 1);
		ct_json_str(out, label);
		fprintf(out, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%zu,\"args\":"
			"{\"sort_index\":%lld}},\n", i + 1,
			(long long)m->traces[p->trace].domain * 1000000 + (p->rank >= 0 ? p->rank : 500000 + (long long)i));
	}
	/* Each thread's track named as the trace named it (its comm), once. */
	for (size_t i = 0; i < m->n_events; i++) {
		const struct ct_mevent *e = &m->events[i];
		uint64_t key = (uint64_t)e->proc << 32 | e->tid;

		if (!e->comm[0] || ct_u64map_get(&threads, key))
			continue;
		if (ct_u64map_put(&threads, key, (void *)1)) {
			ct_u64map_free(&threads);
			return -ENOMEM;
		}
		fprintf(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":",
			e->proc + 1, e->tid);
		ct_json_str(out, e->comm);
		fputs("}},\n", out);
	}
	ct_u64map_free(&threads);
	for (size_t i = 0; i < m->n_events; i++) {
		const struct ct_mevent *e = &m->events[i];

		fputs("{\"name\":", out);
		ct_json_str(out, e->api);
		fputs(",\"cat\":", out);
		ct_json_str(out, e->plugin);
		fputs(e->entry_only ? ",\"ph\":\"i\",\"s\":\"t\",\"ts\":" : ",\"ph\":\"X\",\"ts\":", out);
		us(out, ct_merge_ts(m, e) - t0);
		if (!e->entry_only) {
			fputs(",\"dur\":", out);
			us(out, e->dur_ns);
		}
		fprintf(out, ",\"pid\":%d,\"tid\":%u,\"args\":{", e->proc + 1, e->tid);
		if (e->result_name[0]) {
			fputs("\"result\":", out);
			ct_json_str(out, e->result_name);
			fputc(',', out);
		}
		if (e->collective)
			fprintf(out, "\"comm_id\":\"0x%" PRIx64 "\",\"seq\":%" PRIu64 ",", e->comm_id, e->comm_seq);
		if (e->bytes)
			fprintf(out, "\"bytes\":%" PRIu64 ",", e->bytes);
		fputs("\"args\":", out);
		fputs(e->args ? e->args : "{}", out);
		fputs(i + 1 < m->n_events ? "}},\n" : "}}\n", out);
	}
	fputs("],\"metadata\":{\"cudatracer_merge\":{\"epoch_ns\":", out);
	fprintf(out, "%" PRIu64 ",\"hosts\":[", t0);
	for (size_t d = 0; d < m->n_domains; d++) {
		fputs(d ? ",{\"host\":" : "{\"host\":", out);
		ct_json_str(out, m->domains[d].host);
		fprintf(out, ",\"offset_ns\":%" PRId64 ",\"from_collectives\":%d}", m->domains[d].shift_ns,
			m->domains[d].matched);
	}
	fputs("]}}}\n", out);
	return ferror(out) ? -EIO : 0;
}

/* Offsets per host, then stragglers per collective and who was last most. */
static int summary(const struct ct_merge *m, FILE *out)
{
	struct ct_straggler *s;
	size_t n;
	unsigned *last;
	char label[512], late_s[CT_TABLE_NS_MAX];
	int err = ct_merge_stragglers(m, &s, &n);

	if (err)
		return err;
	last = calloc(m->n_procs ? m->n_procs : 1, sizeof(*last));
	if (!last) {
		free(s);
		return -ENOMEM;
	}
	fprintf(out, "cudatracer merge: %zu input%s, %zu host%s, %zu process%s, %zu call%s\n\n", m->n_traces,
		CT_S(m->n_traces), m->n_domains, CT_S(m->n_domains), m->n_procs, ct_plural(m->n_procs, "", "es"),
		m->n_events, CT_S(m->n_events));
	fputs("Clock offset applied per host:\n", out);
	for (size_t d = 0; d < m->n_domains; d++) {
		const struct ct_mdomain *dm = &m->domains[d];

		fprintf(out, "  %-24s %+" PRId64 " ns  ", dm->host, dm->shift_ns);
		if (d == 0)
			fputs("(the reference)\n", out);
		else if (dm->aligned)
			fprintf(out, "(from the ends of %d collectives)\n", dm->matched);
		else if (dm->matched)
			fprintf(out, "(clocks agree within %" PRId64 " ns over %d collectives)\n",
				m->tolerance_ns, dm->matched);
		else
			fputs("(no collective shared with the reference: its wall clock as recorded)\n", out);
	}
	fputs("\nStragglers (per collective, the rank that arrived last and how long after the first):\n", out);
	if (!n)
		fputs("  no collective seen on more than one rank\n", out);
	else
		fprintf(out, "  %-18s %6s  %-24s %5s  %12s  %s\n", "Communicator", "Seq", "API", "Ranks",
			"Late", "Last");
	for (size_t i = 0; i < n; i++) {
		ct_merge_proc_label(m, s[i].last_proc, label, sizeof(label));
		fprintf(out, "  0x%-16" PRIx64 " %6" PRIu64 "  %-24s %5d  %12s  %s\n", s[i].comm_id, s[i].seq,
			s[i].api, s[i].ranks, ct_table_ns(late_s, s[i].last_ns - s[i].first_ns), label);
		last[s[i].last_proc]++;
	}
	if (n) {
		fputs("\nLast to arrive, by process:\n", out);
		for (size_t p = 0; p < m->n_procs; p++) {
			uint64_t late = 0;

			if (!last[p])
				continue;
			for (size_t i = 0; i < n; i++)
				if (s[i].last_proc == (int)p)
					late += s[i].last_ns - s[i].first_ns;
			ct_merge_proc_label(m, (int)p, label, sizeof(label));
			fprintf(out, "  %-40s %u of %zu collective%s, %s late in all\n", label, last[p], n, CT_S(n),
				ct_table_ns(late_s, late));
		}
	}
	free(last);
	free(s);
	return ferror(out) ? -EIO : 0;
}

int ct_merge_write_chrome(const struct ct_merge *m, const char *path)
{
	return write_atomic(m, path, chrome);
}

int ct_merge_write_summary(const struct ct_merge *m, const char *path)
{
	return write_atomic(m, path, summary);
}
