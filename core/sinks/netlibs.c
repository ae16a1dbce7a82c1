// SPDX-License-Identifier: MIT
/* The network sinks' libraries, opened on demand (netlibs.h). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include "sinks/netlibs.h"
#include "util/log.h"

struct ct_curl_api ct_curl;
struct ct_mhd_api ct_mhd;
struct ct_snappy_api ct_snappy;

/* The symbols the sinks call, in the order of the api struct's pointers
 * (netlibs.h), which load() fills one by one. */
static const char *const curl_syms[] = { "curl_global_init", "curl_global_cleanup", "curl_easy_init",
	"curl_easy_setopt", "curl_easy_perform", "curl_easy_getinfo", "curl_easy_strerror", "curl_easy_cleanup",
	"curl_slist_append", "curl_slist_free_all" };
static const char *const mhd_syms[] = { "MHD_start_daemon", "MHD_stop_daemon", "MHD_create_response_from_buffer",
	"MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response", "MHD_quiesce_daemon",
	"MHD_get_connection_info" };
static const char *const snappy_syms[] = { "snappy_compress", "snappy_max_compressed_length" };

#define N(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(sizeof(ct_curl) == N(curl_syms) * sizeof(void *), "a name for each of ct_curl's pointers");
_Static_assert(sizeof(ct_mhd) == N(mhd_syms) * sizeof(void *), "a name for each of ct_mhd's pointers");
_Static_assert(sizeof(ct_snappy) == N(snappy_syms) * sizeof(void *), "a name for each of ct_snappy's pointers");

/* One row per library: the soname the build links against, the Debian
 * package that has it, its api struct and the names of its pointers. */
static struct netlib {
	const char *soname, *package;
	void **api;
	const char *const *syms;
	size_t n_syms;
	bool loaded;
} libs[] = {
	{ "libcurl.so.4", "libcurl4", (void **)&ct_curl, curl_syms, N(curl_syms), false },
	{ "libmicrohttpd.so.12", "libmicrohttpd12", (void **)&ct_mhd, mhd_syms, N(mhd_syms), false },
	{ "libsnappy.so.1", "libsnappy1v5", (void **)&ct_snappy, snappy_syms, N(snappy_syms), false },
};
static pthread_mutex_t libs_lock = PTHREAD_MUTEX_INITIALIZER;

static int load(struct netlib *l, const char *sink, const char *type)
{
	void *dl;
	int err = 0;

	pthread_mutex_lock(&libs_lock);
	if (l->loaded)
		goto out;
	dl = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		ct_err("sink '%s' (%s) needs %s: %s; install the Debian package %s", sink, type, l->soname,
		       dlerror(), l->package);
		err = -ENOENT;
		goto out;
	}
	for (size_t i = 0; i < l->n_syms; i++) {
		l->api[i] = dlsym(dl, l->syms[i]);
		if (!l->api[i]) {
			ct_err("sink '%s' (%s): %s has no %s; install the Debian package %s", sink, type, l->soname,
			       l->syms[i], l->package);
			for (size_t k = 0; k <= i; k++)
				l->api[k] = NULL;
			dlclose(dl);
			err = -ENOENT;
			goto out;
		}
	}
	l->loaded = true;
out:
	pthread_mutex_unlock(&libs_lock);
	return err;
}

int ct_netlib_curl(const char *sink, const char *type)
{
	return load(&libs[0], sink, type);
}

int ct_netlib_mhd(const char *sink, const char *type)
{
	return load(&libs[1], sink, type);
}

int ct_netlib_snappy(const char *sink, const char *type)
{
	return load(&libs[2], sink, type);
}
