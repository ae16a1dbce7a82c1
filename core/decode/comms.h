/* SPDX-License-Identifier: MIT */
/*
 * Communicators by handle, per process (NCCL's ncclComm_t, an MPI_Comm):
 * what the call that created one said about it (its rank, its size, the id
 * all its members passed), what later queries added (ncclCommCount,
 * ncclCommUserRank), and how many collective calls it has seen. Plugins say
 * which argument is which through roles (COMM, COMM_NEW, COMM_ID, RANK,
 * NRANKS) and flags (CT_API_COLLECTIVE); nothing here knows an API name.
 *
 * Not thread-safe: the poll loop is the only user, like names.c.
 */
#ifndef CT_COMMS_H
#define CT_COMMS_H

#include <cudatracer/event.h>

/*
 * Update what is known from a decoded call with a result, and point
 * ev->comm_info at what is known of the communicator it used or created
 * (a copy valid until the next call), or NULL. The fields are the event's
 * own, found by role by the caller (NULL: the API has none).
 */
struct ct_comm_fields {
	const struct ct_field *comm, *created, *id, *rank, *nranks;
};
void ct_comms_note(struct ct_event *ev, const struct ct_comm_fields *f);

/*
 * The rules, by the roles a call has:
 *  - COMM_NEW with COMM (ncclCommSplit): split from COMM; its id is
 *    ct_comms_split_id(COMM's id, the COMM_ID argument, the color), so that
 *    every member of the same split names it alike; rank and size come from
 *    later queries on it.
 *  - COMM_NEW read from memory with NRANKS and no RANK (ncclCommInitAll):
 *    an array of NRANKS handles from that word, handle i of rank i; as many
 *    as the call's reads copied (CT_MAX_MEM_WORDS words at most).
 */
uint64_t ct_comms_split_id(uint64_t parent, int64_t color);

/* Drop a process's communicators (it exited). */
void ct_comms_forget(uint32_t pid);
/* Drop everything (at exit). */
void ct_comms_reset(void);

#endif
