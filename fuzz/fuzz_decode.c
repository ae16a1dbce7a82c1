// SPDX-License-Identifier: MIT
/*
 * Fuzz target: every plugin's record decoder and every sink's formatting.
 * A record is what the BPF engine writes to the ring buffer; a broken or
 * hostile ring buffer could hand the tracer any bytes, under any API index.
 *
 * Input: [plugin byte][flags byte], then records of sizeof(struct ct_record)
 * bytes each (the last one zero-padded), at most MAX_RECORDS. Flags bit 0:
 * keep the record's API index as it is (usually out of range) instead of
 * taking it modulo the plugin's API count. Each record is decoded with
 * ct_decode() and written by every sink type, in each variant of its keys
 * (see write_sinks_conf), to /dev/null, through the core's output layer:
 * open, event per record, tick, close.
 *
 * Plugins are loaded from CT_FUZZ_PLUGINS (default: the build's plugins/);
 * CT_FUZZ_SINKS=text,jsonl limits the sinks to those types.
 * With CT_FUZZ_WRITE_SEEDS=DIR, one seed per plugin API is written there.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config/config.h"
#include "decode/decode.h"
#include "util/log.h"
#include "decode/names.h"
#include "sinks/output.h"
#include "plugin/loader.h"

#define MAX_PLUGINS 16
#define MAX_RECORDS 16
#define WALL_OFFSET 1700000000000000000ll

static struct ct_loaded_plugin plugins[MAX_PLUGINS];
static int n_plugins;
static char tmpdir[] = "/tmp/ctfuzz.XXXXXX";
static char conf_path[PATH_MAX];

static void cleanup(void)
{
	unlink(conf_path);
	rmdir(tmpdir);
}

static void load_plugins(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		fprintf(stderr, "fuzz_decode: cannot open %s: %s\n", dir, strerror(errno));
		exit(1);
	}
	while ((de = readdir(d)) && n_plugins < MAX_PLUGINS) {
		size_t len = strlen(de->d_name);
		char path[PATH_MAX];

		if (strncmp(de->d_name, "libct-", 6) || len < 10 || strcmp(de->d_name + len - 3, ".so"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (ct_plugin_load(path, NULL, &plugins[n_plugins])) {
			fprintf(stderr, "fuzz_decode: cannot load %s (CT_FUZZ_VERBOSE=1 says why)\n", path);
			exit(1);
		}
		fprintf(stderr, "fuzz_decode: plugin %d: %s, %zu APIs\n", n_plugins,
			plugins[n_plugins].p->name, plugins[n_plugins].p->n_apis);
		n_plugins++;
	}
	closedir(d);
	if (!n_plugins) {
		fprintf(stderr, "fuzz_decode: no libct-*.so in %s\n", dir);
		exit(1);
	}
}

/* One value that differs from a key's default, or NULL: data from the key table. */
static const char *other_value(const struct ct_key *k, int choice)
{
	switch (k->type) {
	case CT_KEY_BOOL:
		return choice ? NULL : (k->def && !strcmp(k->def, "true") ? "false" : "true");
	case CT_KEY_U64:
		return choice ? NULL : "1";
	case CT_KEY_DUR:
		return choice ? NULL : "1ns";
	case CT_KEY_STR:
		return choice ? NULL : "<a href=\"x\">&'\\\n";
	case CT_KEY_CHOICE:
		for (int i = 0; i <= choice; i++)
			if (!k->choices[i])
				return NULL;
		return k->choices[choice];
	}
	return NULL;
}

/* Every sink type with its defaults, then once more for each other value of each key. */
static void write_sinks_conf(void)
{
	FILE *f;
	int n = 0;

	if (!mkdtemp(tmpdir)) {
		perror("fuzz_decode: mkdtemp");
		exit(1);
	}
	snprintf(conf_path, sizeof(conf_path), "%s/sinks.ini", tmpdir);
	atexit(cleanup);
	f = fopen(conf_path, "w");
	if (!f) {
		perror("fuzz_decode: config");
		exit(1);
	}
	for (int i = 0; ct_sink_types[i]; i++) {
		const struct ct_sink_ops *o = ct_sink_types[i];
		const char *only = getenv("CT_FUZZ_SINKS");

		/* The push sinks send to a server from a thread of their own (their
		 * tests run them against real ones); here only when asked for. */
		bool pushes = !strcmp(o->type, "remote_write") || !strcmp(o->type, "otlp");
		/* A server the sink listens as: any free port, never another value. */
		const char *base = !strcmp(o->type, "prometheus") ? "listen = 127.0.0.1:0\n" : "";

		/* sqlite writes a database file, not a stream: not /dev/null (its tests: test_sink_sqlite). */
		if ((only ? !strstr(only, o->type) : pushes) || !strcmp(o->type, "sqlite"))
			continue;
		fprintf(f, "[sink.s%d]\ntype = %s\npath = /dev/null\n%s", n++, o->type, base);
		for (const struct ct_key *k = o->keys; k && k->name; k++) {
			const char *v;

			/* Rotation needs a regular file to rotate (daemon_rotate tests it). */
			if (!strcmp(k->name, "listen") || !strcmp(k->name, "url") || !strncmp(k->name, "rotate", 6))
				continue;
			for (int c = 0; (v = other_value(k, c)); c++)
				fprintf(f, "[sink.s%d]\ntype = %s\npath = /dev/null\n%s%s = %s\n", n++, o->type,
					base, k->name, v);
		}
	}
	fclose(f);
	fprintf(stderr, "fuzz_decode: %d sink variants\n", n);
}

static void write_seeds(const char *dir)
{
	for (int p = 0; p < n_plugins; p++) {
		for (size_t a = 0; a < plugins[p].p->n_apis; a++) {
			uint8_t in[2 + sizeof(struct ct_record)] = { (uint8_t)p, 0 };
			struct ct_record r = { .ts_ns = 1000000 + a, .dur_ns = 1500, .pid = 42, .tid = 43,
					       .call = (uint32_t)a, .flags = CT_REC_HAS_STR, .ret = a % 3 };
			char path[PATH_MAX];
			FILE *f;

			strcpy(r.comm, "seed");
			strcpy(r.str, "kernel_name");
			for (int i = 0; i < CT_REC_ARGS; i++)
				r.args[i] = i == 0 ? 0x7f0000001000ull : (uint64_t)i * 64;
			for (int i = 0; i < CT_REC_MEM; i++)
				r.mem[i] = 0x7f0000002000ull + (uint64_t)i;
			memcpy(in + 2, &r, sizeof(r));
			snprintf(path, sizeof(path), "%s/seed-%s-%zu", dir, plugins[p].p->name, a);
			f = fopen(path, "w");
			if (!f || fwrite(in, sizeof(in), 1, f) != 1) {
				perror(path);
				exit(1);
			}
			fclose(f);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("CT_FUZZ_PLUGINS");

	ct_verbosity = getenv("CT_FUZZ_VERBOSE") ? CT_LOG_DEBUG : -1;
	load_plugins(dir ? dir : CT_FUZZ_PLUGIN_DIR);
	write_sinks_conf();
	if (getenv("CT_FUZZ_WRITE_SEEDS"))
		write_seeds(getenv("CT_FUZZ_WRITE_SEEDS"));
	return 0;
}

/* What every sink may rely on, whatever the record said. */
static void check_event(const struct ct_plugin *p, const struct ct_record *r, const struct ct_event *ev)
{
	if (ev->api != &p->apis[CT_CALL_API(r->call)] || ev->n_fields > CT_MAX_ARGS || (size_t)ev->n_fields != ev->api->n_args)
		abort();
	for (int i = 0; i < ev->n_fields; i++) {
		const struct ct_field *f = &ev->fields[i];

		if (f->arg != &ev->api->args[i] || f->n3 > 3)
			abort();
		/* Strings end within their buffer: sinks print them with %s. */
		if (f->str && strnlen(f->str, CT_REC_STR) == CT_REC_STR)
			abort();
	}
	if (!ev->comm || strnlen(ev->comm, CT_COMM_LEN) == CT_COMM_LEN)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t rs = sizeof(struct ct_record);
	struct ct_record *recs[MAX_RECORDS];
	struct ct_run_stats st = { 0 };
	const struct ct_plugin *p;
	struct ct_output out = { 0 };
	struct ct_config conf;
	int n = 0;

	if (size < 2)
		return 0;
	p = plugins[data[0] % n_plugins].p;
	/* Each record in its own allocation of exactly its size: ASan sees any overread. */
	for (size_t off = 2; off < size && n < MAX_RECORDS; off += rs) {
		size_t len = size - off < rs ? size - off : rs;

		recs[n] = calloc(1, rs);
		if (!recs[n])
			abort();
		memcpy(recs[n], data + off, len);
		if (!(data[1] & 1))
			recs[n]->call = CT_CALL_ID(CT_CALL_PLUGIN(recs[n]->call), CT_CALL_API(recs[n]->call) % p->n_apis);
		n++;
	}
	ct_config_init(&conf);
	if (ct_config_load(&conf, conf_path) || ct_config_finish(&conf) || ct_output_open(&out, &conf))
		abort();
	for (int i = 0; i < n; i++) {
		struct ct_event ev;

		memset(&ev, 0xa5, sizeof(ev)); /* no field is read before the decoder sets it */
		if (ct_decode(p, recs[i], WALL_OFFSET, &ev)) {
			if (CT_CALL_API(recs[i]->call) < p->n_apis)
				abort(); /* refused a record with a valid API index */
			continue;
		}
		check_event(p, recs[i], &ev);
		st.events++;
		ct_output_event(&out, &ev);
	}
	ct_output_tick(&out, (uint64_t)WALL_OFFSET + 5000000000ull);
	st.start_ns = WALL_OFFSET;
	st.end_ns = WALL_OFFSET + 10000000000ll;
	ct_output_close(&out, &st);
	ct_config_free(&conf);
	ct_names_reset(); /* handle names are kept per process: one input, one run */
	for (int i = 0; i < n; i++)
		free(recs[i]);
	return 0;
}
