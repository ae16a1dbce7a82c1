// SPDX-License-Identifier: MIT
/*
 * The NCCL plugin (libnccl.so.2): tables only, built from the public plugin
 * header as a third-party plugin would be.
 *
 * Slots follow the x86-64 SysV ABI: registers rdi, rsi, rdx, rcx, r8, r9 are
 * slots 0-5, stack words slots 6-11. An ncclUniqueId (128 bytes) passed by
 * value goes on the stack and takes no register: in ncclCommInitRank(comm,
 * nranks, commId, rank) `rank` is in rdx (slot 2) and the id's first word,
 * the random magic that every member of the clique passes alike, is slot 6.
 * Every signature was checked against nccl.h of NCCL 2.28 (CUDA 13.0), every
 * symbol against `nm -D` of its libnccl.so.2.
 *
 * libnccl exports each call twice: ncclX (weak) and pncclX, the name a
 * profiling shim that overrides ncclX calls on to (MPI's PMPI scheme). In
 * libnccl itself both are one address, probed once; the p rows matter where
 * a shim sits in front. libnccl 2.28 exports no _v2 symbols.
 */
#include <nccl.h>
#include <cudatracer/plugin.h>
#include "nccl_apis.h" /* generated: every other API (apis.ini) */

/* Generated from nccl.h (tools/gen_enum.py). */
extern const struct ct_enum nccl_results;
extern const struct ct_enum nccl_datatypes;
extern const struct ct_enum nccl_redops;
extern const struct ct_enum nccl_residences;

/* Bytes of one element of each ncclDataType_t: a size is not in nccl.h, the
 * values are; a type NCCL adds fails the assertion below until it has a row. */
static const struct ct_elem_size datatype_size_v[] = {
	{ ncclInt8, 1 },     { ncclUint8, 1 },   { ncclInt32, 4 },    { ncclUint32, 4 },
	{ ncclInt64, 8 },    { ncclUint64, 8 },  { ncclFloat16, 2 },  { ncclFloat32, 4 },
	{ ncclFloat64, 8 },  { ncclBfloat16, 2 }, { ncclFloat8e4m3, 1 }, { ncclFloat8e5m2, 1 },
};
_Static_assert(sizeof(datatype_size_v) / sizeof(datatype_size_v[0]) == ncclNumTypes,
	       "a ncclDataType_t without a size");
static const struct ct_elem_sizes datatype_sizes = { datatype_size_v, ncclNumTypes };

/* Argument shapes that recur. */
#define PTR(n, s) CT_ARG(n, CT_ARG_PTR, CT_SLOT(s), 8, CT_ROLE_NONE)
#define INT(n, s) CT_ARG(n, CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_NONE)
#define HEX(n, s) CT_ARG(n, CT_ARG_HEX, CT_SLOT(s), 4, CT_ROLE_NONE)
#define COMM(s) CT_ARG("comm", CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_COMM)
#define STREAM(s) CT_ARG("stream", CT_ARG_HANDLE, CT_SLOT(s), 8, CT_ROLE_STREAM)
#define COUNT(n, s) CT_ARG(n, CT_ARG_UINT, CT_SLOT(s), 8, CT_ROLE_ELEMENTS)
#define DTYPE(s) CT_ARG_ELEM_TYPE("datatype", CT_SLOT(s), 4, &nccl_datatypes, &datatype_sizes)
#define REDOP(s) CT_ARG_NAMED("op", CT_SLOT(s), 4, CT_ROLE_NONE, &nccl_redops)
#define NRANKS(n, s) CT_ARG(n, CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_NRANKS)
#define RANK(n, s) CT_ARG(n, CT_ARG_INT, CT_SLOT(s), 4, CT_ROLE_RANK)
/* Out-parameters, copied after the call into mem[w]. */
#define NEW_COMM(n, w) CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(w), 8, CT_ROLE_COMM_NEW)
#define OUT_INT(n, w, role) CT_ARG(n, CT_ARG_INT, CT_MEMW(w), 4, role)
#define OUT_HANDLE(n, w) CT_ARG(n, CT_ARG_HANDLE, CT_MEMW(w), 8, CT_ROLE_NONE)
#define NO_ARGS .n_args = 0

/* Each call as ncclX and pncclX, one layout. */
#define BOTH(sym, ...) CT_API(sym, __VA_ARGS__), CT_API("p" sym, __VA_ARGS__)

#define COLL (CT_API_COLLECTIVE)
#define SHARE (CT_API_COLLECTIVE | CT_API_BUS_SHARE)

static const struct ct_api apis[] = {
	/* versions and ids */
	BOTH("ncclGetVersion", 0, CT_READS(CT_OUT_WORD(0, 0)), CT_ARGS(OUT_INT("version", 0, CT_ROLE_NONE))),
	BOTH("ncclGetUniqueId", 0, CT_READS(CT_OUT_WORD(0, 0)),
	     CT_ARGS(CT_ARG("uniqueId", CT_ARG_HEX, CT_MEMW(0), 8, CT_ROLE_NONE))),
	/* const char *ncclGetErrorString(ncclResult_t): nothing to check */
	BOTH("ncclGetErrorString", 0, CT_RETURNS_VOID,
	     CT_ARGS(CT_ARG_NAMED("result", CT_SLOT(0), 4, CT_ROLE_NONE, &nccl_results))),
	BOTH("ncclGetLastError", 0, CT_RETURNS_VOID, CT_ARGS(COMM(0))),

	/* communicators: created, split, queried, ended */
	BOTH("ncclCommInitRank", 0, CT_READS(CT_OUT_WORD(0, 0)),
	     CT_ARGS(NEW_COMM("comm", 0), NRANKS("nranks", 1),
		     CT_ARG("commId", CT_ARG_HEX, CT_SLOT(6), 8, CT_ROLE_COMM_ID), RANK("rank", 2))),
	BOTH("ncclCommInitRankConfig", 0, CT_READS(CT_OUT_WORD(0, 0)),
	     CT_ARGS(NEW_COMM("comm", 0), NRANKS("nranks", 1),
		     CT_ARG("commId", CT_ARG_HEX, CT_SLOT(6), 8, CT_ROLE_COMM_ID), RANK("rank", 2),
		     PTR("config", 3))),
	/* (newcomm*, nranks, myrank, nId, ncclUniqueId *commIds, config*): the first id's magic */
	BOTH("ncclCommInitRankScalable", 0, CT_READS(CT_OUT_WORD(0, 0), CT_IN_WORDS(4, 1, 1)),
	     CT_ARGS(NEW_COMM("newcomm", 0), NRANKS("nranks", 1), RANK("myrank", 2), INT("nId", 3),
		     CT_ARG("commIds", CT_ARG_HEX, CT_MEMW(1), 8, CT_ROLE_COMM_ID), PTR("config", 5))),
	/* (comm*, ndev, devlist*): one communicator a device, comm[i] of rank i;
	 * the first CT_MAX_MEM_WORDS handles are read (comms.h) */
	BOTH("ncclCommInitAll", 0, CT_READS(CT_OUT_WORDS(0, CT_MAX_MEM_WORDS, 0)),
	     CT_ARGS(NEW_COMM("comm", 0), NRANKS("ndev", 1), PTR("devlist", 2))),
	/* Every member of one new communicator passes the same color: with the
	 * parent's id, what names it alike on each (comms.h). */
	BOTH("ncclCommSplit", 0, CT_READS(CT_OUT_WORD(3, 0)),
	     CT_ARGS(COMM(0), CT_ARG("color", CT_ARG_INT, CT_SLOT(1), 4, CT_ROLE_COMM_ID), INT("key", 2), NEW_COMM("newcomm", 0), PTR("config", 4))),
	BOTH("ncclCommShrink", 0, CT_READS(CT_OUT_WORD(3, 0)),
	     CT_ARGS(COMM(0), PTR("excludeRanksList", 1), INT("excludeRanksCount", 2),
		     NEW_COMM("newcomm", 0), PTR("config", 4), HEX("shrinkFlags", 5))),
	BOTH("ncclCommFinalize", 0, CT_ARGS(COMM(0))),
	BOTH("ncclCommDestroy", 0, CT_ARGS(COMM(0))),
	BOTH("ncclCommAbort", 0, CT_ARGS(COMM(0))),
	BOTH("ncclCommRevoke", 0, CT_ARGS(COMM(0), HEX("revokeFlags", 1))),
	BOTH("ncclCommCount", 0, CT_READS(CT_OUT_WORD(1, 0)),
	     CT_ARGS(COMM(0), OUT_INT("count", 0, CT_ROLE_NRANKS))),
	BOTH("ncclCommUserRank", 0, CT_READS(CT_OUT_WORD(1, 0)),
	     CT_ARGS(COMM(0), OUT_INT("rank", 0, CT_ROLE_RANK))),
	BOTH("ncclCommCuDevice", 0, CT_READS(CT_OUT_WORD(1, 0)),
	     CT_ARGS(COMM(0), OUT_INT("device", 0, CT_ROLE_NONE))),
	BOTH("ncclCommGetAsyncError", 0, CT_READS(CT_OUT_WORD(1, 0)),
	     CT_ARGS(COMM(0), CT_ARG_NAMED("asyncError", CT_MEMW(0), 4, CT_ROLE_NONE, &nccl_results))),

	/* memory and buffer registration */
	BOTH("ncclMemAlloc", CT_API_DEV_ALLOC, CT_READS(CT_OUT_WORD(0, 0)),
	     CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_MEMW(0), 8, CT_ROLE_ALLOC_PTR),
		     CT_ARG("size", CT_ARG_SIZE, CT_SLOT(1), 8, CT_ROLE_BYTES))),
	BOTH("ncclMemFree", CT_API_DEV_FREE, CT_ARGS(CT_ARG("ptr", CT_ARG_PTR, CT_SLOT(0), 8, CT_ROLE_FREE_PTR))),
	BOTH("ncclCommRegister", 0, CT_READS(CT_OUT_WORD(3, 0)),
	     CT_ARGS(COMM(0), PTR("buff", 1), CT_ARG("size", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_NONE),
		     OUT_HANDLE("handle", 0))),
	BOTH("ncclCommDeregister", 0, CT_ARGS(COMM(0), CT_ARG("handle", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE))),
	BOTH("ncclCommWindowRegister", 0, CT_READS(CT_OUT_WORD(3, 0)),
	     CT_ARGS(COMM(0), PTR("buff", 1), CT_ARG("size", CT_ARG_SIZE, CT_SLOT(2), 8, CT_ROLE_NONE),
		     OUT_HANDLE("win", 0), HEX("winFlags", 4))),
	BOTH("ncclCommWindowDeregister", 0, CT_ARGS(COMM(0), CT_ARG("win", CT_ARG_HANDLE, CT_SLOT(1), 8, CT_ROLE_NONE))),

	/* reduction operators */
	BOTH("ncclRedOpCreatePreMulSum", 0, CT_READS(CT_OUT_WORD(0, 0)),
	     CT_ARGS(OUT_INT("op", 0, CT_ROLE_NONE), PTR("scalar", 1), DTYPE(2),
		     CT_ARG_NAMED("residence", CT_SLOT(3), 4, CT_ROLE_NONE, &nccl_residences), COMM(4))),
	BOTH("ncclRedOpDestroy", 0, CT_ARGS(REDOP(0), COMM(1))),

	/* collectives: (sendbuff, recvbuff, count, datatype, [op], [root], comm, stream) */
	BOTH("ncclAllReduce", CT_API_COLLECTIVE | CT_API_BUS_ALLREDUCE,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("count", 2), DTYPE(3), REDOP(4),
		     COMM(5), STREAM(6))),
	/* The count is this rank's share: sendcount of the gathered whole... */
	BOTH("ncclAllGather", SHARE,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("sendcount", 2), DTYPE(3),
		     COMM(4), STREAM(5))),
	/* ... recvcount of the reduced whole. */
	BOTH("ncclReduceScatter", SHARE,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("recvcount", 2), DTYPE(3), REDOP(4),
		     COMM(5), STREAM(6))),
	/* count: elements sent to each peer */
	BOTH("ncclAlltoAll", SHARE,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("count", 2), DTYPE(3),
		     COMM(4), STREAM(5))),
	BOTH("ncclBroadcast", COLL,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("count", 2), DTYPE(3), INT("root", 4),
		     COMM(5), STREAM(6))),
	BOTH("ncclBcast", COLL,
	     CT_ARGS(PTR("buff", 0), COUNT("count", 1), DTYPE(2), INT("root", 3), COMM(4), STREAM(5))),
	BOTH("ncclReduce", COLL,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("count", 2), DTYPE(3), REDOP(4),
		     INT("root", 5), COMM(6), STREAM(7))),
	/* count: elements each rank sends to (Gather) or receives from (Scatter) the root */
	BOTH("ncclGather", SHARE,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("count", 2), DTYPE(3), INT("root", 4),
		     COMM(5), STREAM(6))),
	BOTH("ncclScatter", SHARE,
	     CT_ARGS(PTR("sendbuff", 0), PTR("recvbuff", 1), COUNT("count", 2), DTYPE(3), INT("root", 4),
		     COMM(5), STREAM(6))),

	/* point to point */
	BOTH("ncclSend", CT_API_P2P,
	     CT_ARGS(PTR("sendbuff", 0), COUNT("count", 1), DTYPE(2), INT("peer", 3), COMM(4), STREAM(5))),
	BOTH("ncclRecv", CT_API_P2P,
	     CT_ARGS(PTR("recvbuff", 0), COUNT("count", 1), DTYPE(2), INT("peer", 3), COMM(4), STREAM(5))),

	/* groups */
	BOTH("ncclGroupStart", 0, NO_ARGS),
	BOTH("ncclGroupEnd", 0, NO_ARGS),
	BOTH("ncclGroupSimulateEnd", 0, CT_ARGS(PTR("simInfo", 0))),
};

static const struct ct_plugin nccl_plugin = {
	CT_PLUGIN_HEAD,
	.name = "nccl",
	.version = CT_PLUGIN_VERSION,
	.description = "NVIDIA NCCL (libnccl.so.2): communicators, collectives, point-to-point",
	CT_LIBRARIES("libnccl.so"),
	CT_APIS(apis),
	CT_GEN_APIS(nccl_gen_apis),
	.errors = &nccl_results,
	.success_name = "ncclSuccess",
};

CT_PLUGIN_DEFINE(nccl_plugin)
