// SPDX-License-Identifier: MIT
/* Listening sockets kept across a daemon's reload (listeners.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sinks/listeners.h"

/* A daemon's sinks are at most CT_MAX_SINKS; those that listen, a few. */
#define CT_KEPT_MAX 64

static struct kept {
	char *listen;
	int fd;
} kept[CT_KEPT_MAX];
static int n_kept;
static bool handing_over;

void ct_listeners_close_unclaimed(void)
{
	while (n_kept) {
		n_kept--;
		close(kept[n_kept].fd);
		free(kept[n_kept].listen);
	}
}

void ct_listeners_handover(bool on)
{
	handing_over = on;
	if (!on)
		ct_listeners_close_unclaimed();
}

void ct_listeners_keep(const char *listen, int fd)
{
	char *name = handing_over && n_kept < CT_KEPT_MAX ? strdup(listen) : NULL;

	if (!name) {
		close(fd);
		return;
	}
	kept[n_kept++] = (struct kept){ name, fd };
}

int ct_listeners_take(const char *listen)
{
	for (int i = 0; i < n_kept; i++) {
		int fd = kept[i].fd;

		if (strcmp(kept[i].listen, listen))
			continue;
		free(kept[i].listen);
		kept[i] = kept[--n_kept];
		return fd;
	}
	return -1;
}
