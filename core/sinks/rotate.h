/* SPDX-License-Identifier: MIT */
/*
 * Rotation of a sink's file (docs/daemon.md, "Rotation"): past a size or an
 * age, the file is renamed beside itself to NAME.YYYYmmddTHHMMSSZ-NNN.EXT
 * (never over anything: RENAME_NOREPLACE), finished as a whole file, and a new
 * file is begun at the path. A worker thread compresses the renamed file and
 * removes the oldest rotated files past the caps, one rotation at a time.
 */
#ifndef CT_ROTATE_H
#define CT_ROTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum ct_rotate_compress { CT_ROTATE_NONE, CT_ROTATE_GZIP };

/* The keys of a sink (ct_sink_common.rot); all 0: no rotation. */
struct ct_rotate_conf {
	uint64_t size;        /* bytes the file reaches before it is rotated */
	uint64_t interval_ns; /* age of the file before it is rotated */
	uint64_t keep;        /* rotated files kept, the newest (0: all) */
	uint64_t keep_bytes;  /* bytes of rotated files kept, the newest (0: no cap) */
	int compress;         /* enum ct_rotate_compress */
};

static inline bool ct_rotate_on(const struct ct_rotate_conf *rc)
{
	return rc->size || rc->interval_ns;
}

struct ct_rotor;

/* Rotation of the file at `path` (not standard output): its folder is
 * walked as the opener walks it and held. Says why it refuses. */
int ct_rotor_new(struct ct_rotor **rp, const char *what, const char *path, const struct ct_rotate_conf *rc);
/* The file `out` is written at the path (the name in the folder is that
 * file, not a link to it: refused, said); it begins (ct_rotor_begin). */
int ct_rotor_attach(struct ct_rotor *r, FILE *out);
/* The file `out` at the path begins (after a rotation or at the start):
 * its size now is what an empty one holds (a header, a meta line). */
void ct_rotor_begin(struct ct_rotor *r, FILE *out);
/* True when `out` is past the size, or (on a tick) past the age with
 * something written since it began. */
bool ct_rotor_due(struct ct_rotor *r, FILE *out, bool tick);
/* Rename the file `out` to its rotated name; out NULL: the file at the
 * path that a session before finished (a plain file of ours with one
 * link). 0, or a negative errno with the
 * reason said: the file then goes on as it is and rotation is tried again
 * a second later. */
int ct_rotor_rename(struct ct_rotor *r, FILE *out);
/* The name in the folder of the last file renamed. */
const char *ct_rotor_rotated(const struct ct_rotor *r);
/* The renamed file is finished and closed: compress it and apply the caps,
 * beside the reader. */
void ct_rotor_finished(struct ct_rotor *r);
/* Waits for the worker; frees r (NULL is fine). */
void ct_rotor_free(struct ct_rotor *r);

/* Rotated files of the file at base (its name in the folder dfd) whose
 * names this tracer makes, owned by the user it runs as, plain files with
 * one link: the oldest removed while more than keep (0: any number) or
 * more than keep_bytes (0: any size) are there. Returns how many it
 * removed. */
int ct_rotate_prune(int dfd, const char *base, uint64_t keep, uint64_t keep_bytes);

#endif
