/* SPDX-License-Identifier: MIT */
/* Where ld.so will find an executable's libraries (ldso.c says how). */
#ifndef CT_LDSO_H
#define CT_LDSO_H

#include <stdbool.h>
#include <stddef.h>

enum ct_ld_via {
	CT_LD_PATH,         /* the executable, or a DT_NEEDED name with a slash */
	CT_LD_PRELOAD,      /* LD_PRELOAD or /etc/ld.so.preload */
	CT_LD_RPATH,        /* DT_RPATH of v[via_of] */
	CT_LD_LIBRARY_PATH, /* the environment's LD_LIBRARY_PATH */
	CT_LD_RUNPATH,      /* DT_RUNPATH of v[via_of] */
	CT_LD_CACHE,        /* /etc/ld.so.cache */
	CT_LD_DEFAULT,      /* a default folder */
	CT_LD_NOT_FOUND,    /* ld.so will refuse to start the program */
};

extern const char *const ct_ld_via_names[];

struct ct_ld_lib {
	char *name;         /* as DT_NEEDED (or LD_PRELOAD) names it; v[0]: the executable's path */
	char *path;         /* the file ld.so will map; NULL: not found */
	enum ct_ld_via via;
	int by;             /* the index of the object that needs it; -1 for v[0] */
	int via_of;         /* CT_LD_RPATH, CT_LD_RUNPATH: whose path list found it */
};

struct ct_ld_set {
	struct ct_ld_lib *v; /* v[0] is the executable, then breadth first */
	size_t n;
	bool dynamic;        /* has a PT_INTERP: false, a static executable loads nothing */
	bool secure;         /* set-user/group-ID: LD_LIBRARY_PATH and LD_PRELOAD paths ignored */
};

/* Resolve every library `exe` will load at start. 0 or -errno. */
int ct_ld_resolve(const char *exe, struct ct_ld_set *out);
void ct_ld_free(struct ct_ld_set *s);

#endif
