// SPDX-License-Identifier: MIT
/* Where the tracer's own preload and injection libraries are (ownlib.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/ownlib.h"

#define N_DIRS 3

/* The binary's folder, the installed tree's libdir from it, the built-in one. */
static void ownlib_dirs(char dirs[N_DIRS][PATH_MAX])
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = 0;
	snprintf(dirs[0], PATH_MAX, "%.*s", PATH_MAX - 128, exe);
	snprintf(dirs[1], PATH_MAX, "%.*s/%.100s", PATH_MAX - 128, exe, CT_INJECT_RELDIR);
	snprintf(dirs[2], PATH_MAX, "%s", CT_INJECT_DIR);
}

int ct_ownlib_find(const char *name, char *out)
{
	char dirs[N_DIRS][PATH_MAX], path[PATH_MAX + 128];

	ownlib_dirs(dirs);
	for (int i = 0; i < N_DIRS; i++) {
		snprintf(path, sizeof(path), "%.*s/%.100s", PATH_MAX - 1, dirs[i], name);
		if (!access(path, R_OK) && realpath(path, out))
			return 0;
	}
	return -ENOENT;
}

void ct_ownlib_where(char *buf, size_t len)
{
	char dirs[N_DIRS][PATH_MAX];

	ownlib_dirs(dirs);
	snprintf(buf, len, "%s, %s or %s", dirs[0], dirs[1], dirs[2]);
}
