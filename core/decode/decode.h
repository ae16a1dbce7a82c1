/* SPDX-License-Identifier: MIT */
#ifndef CT_DECODE_H
#define CT_DECODE_H

#include <cudatracer/event.h>
#include "record.h"

/* Name of `v` in a sorted enum table, or NULL. */
const char *ct_enum_name(const struct ct_enum *e, int64_t v);

/*
 * Turn one record into an event, driven by the plugin's API table. The event
 * points into the record and the plugin's tables: valid until the next call.
 * Returns 0, or -EINVAL for a record that names no API of this plugin.
 */
int ct_decode(const struct ct_plugin *p, const struct ct_record *r, int64_t wall_offset_ns,
	      struct ct_event *ev);

/*
 * Where a call was made, as the analysis names a call site: "function
 * (file:line)" of its innermost Python frame, else of its innermost native
 * frame ("function (module)" without a line); NULL when it has no stack.
 * Written into buf (n bytes).
 */
const char *ct_event_site(const struct ct_event *ev, char *buf, size_t n);

/* Strings an API reads (a kernel's name) that the engine could read neither
 * at entry nor at return, since the start. */
uint64_t ct_decode_strings_unread(void);

/*
 * A record as the engine sent it (the prefix its API uses) made whole for
 * the decoder: data itself when it came whole, else buf holding it followed
 * by zeros; NULL when it is too short to have a header.
 */
const struct ct_record *ct_record_whole(const void *data, size_t len, struct ct_record *buf);

/*
 * The 8-byte words of a record the engine sends for this API (header
 * included), and in *stack_words how many stack argument words it copies:
 * everything the API's fields and reads use, nothing after.
 */
uint8_t ct_record_words(const struct ct_api *a, uint8_t *stack_words);
/* The argument slots of those (the in-process engine sends these alone,
 * not the unused slots before the memory words). */
uint8_t ct_record_arg_slots(const struct ct_api *a);

#endif
