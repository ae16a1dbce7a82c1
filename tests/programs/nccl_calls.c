// SPDX-License-Identifier: MIT
/*
 * Calls the NCCL APIs the nccl plugin traces, once each, in a fixed order
 * and with distinctive argument values, so that a test can check each
 * event's decoded fields. Linked against the real libnccl.so.2: without a
 * GPU, ncclCommInitRank fails with ncclUnhandledCudaError and every call
 * on a NULL communicator with ncclInvalidArgument (those that reach CUDA
 * first, ncclUnhandledCudaError); ncclGetVersion,
 * ncclGetUniqueId, the group calls and ending a NULL communicator succeed.
 *
 * Prints each call's result as "name result", and the version and the
 * unique id's first word it got, so that the test can compare what the
 * tracer decoded with what the program saw. Exits 0 when every
 * call returned what this NCCL returns without a GPU, 1 otherwise.
 */
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define H(v) ((void *)(uintptr_t)(v)) /* a made-up handle or pointer */
#define S ((cudaStream_t)H(0x5555))

static int failures;

static void check(const char *what, ncclResult_t r, ncclResult_t want)
{
	printf("%s %d\n", what, (int)r);
	if (r != want) {
		fprintf(stderr, "nccl_calls: %s returned %d (%s), expected %d\n", what, (int)r,
			ncclGetErrorString(r), (int)want);
		failures++;
	}
}

#define CALL(name, want, ...) check(#name, name(__VA_ARGS__), want)
#define BAD ncclInvalidArgument

int main(void)
{
	int version = -7, count = -8, rank = -9, device = -10;
	ncclResult_t async = (ncclResult_t)-11;
	ncclUniqueId id, got_id;
	ncclComm_t comm = H(0xc0c0), newcomm = H(0xc1c1);
	ncclRedOp_t op = (ncclRedOp_t)-12;
	void *mem = H(0x7777), *handle = H(0x8888);
	ncclWindow_t win = H(0x9999);
	int devs[2] = { 0, 1 };
	float scalar = 2.0f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The unique id's first word is what the tracer shows as commId. */
	memset(&id, 0, sizeof(id));
	memcpy(id.internal, &(uint64_t){ 0x1122334455667788ull }, 8);

	CALL(ncclGetVersion, ncclSuccess, &version);
	/* The alias pncclGetVersion is the same function: one event, not two. */
	CALL(pncclGetVersion, ncclSuccess, &version);
	CALL(ncclGetUniqueId, ncclSuccess, &got_id);
	printf("version %d\nuniqueId 0x%llx\n", version, *(unsigned long long *)got_id.internal);
	CALL(ncclCommInitRank, ncclUnhandledCudaError, &comm, 4, id, 3);
	CALL(ncclCommInitRankConfig, ncclUnhandledCudaError, &comm, 4, id, 2, NULL);
	CALL(ncclCommInitAll, ncclUnhandledCudaError, &comm, 2, devs);
	CALL(ncclCommSplit, ncclUnhandledCudaError, NULL, 5, 6, &newcomm, NULL);
	CALL(ncclCommCount, BAD, NULL, &count);
	CALL(ncclCommUserRank, BAD, NULL, &rank);
	CALL(ncclCommCuDevice, BAD, NULL, &device);
	CALL(ncclCommGetAsyncError, BAD, NULL, &async);
	CALL(ncclMemAlloc, ncclUnhandledCudaError, &mem, 4096);
	CALL(ncclCommRegister, BAD, NULL, H(0x1000), 8192, &handle);
	CALL(ncclCommWindowRegister, ncclUnhandledCudaError, NULL, H(0x1000), 8192, &win, 1);
	CALL(ncclRedOpCreatePreMulSum, BAD, &op, &scalar, ncclFloat32, ncclScalarHostImmediate, NULL);
	CALL(ncclGroupStart, ncclSuccess);
	CALL(ncclAllReduce, BAD, H(0x1000), H(0x2000), 1024, ncclFloat32, ncclSum, NULL, S);
	CALL(ncclAllGather, BAD, H(0x1000), H(0x2000), 1025, ncclFloat16, NULL, S);
	CALL(ncclReduceScatter, BAD, H(0x1000), H(0x2000), 1026, ncclBfloat16, ncclMax, NULL, S);
	CALL(ncclBroadcast, BAD, H(0x1000), H(0x2000), 1027, ncclInt64, 1, NULL, S);
	CALL(ncclBcast, BAD, H(0x1000), 1028, ncclUint8, 2, NULL, S);
	CALL(ncclReduce, BAD, H(0x1000), H(0x2000), 1029, ncclFloat64, ncclMin, 3, NULL, S);
	CALL(ncclAlltoAll, BAD, H(0x1000), H(0x2000), 1030, ncclInt32, NULL, S);
	CALL(ncclSend, BAD, H(0x1000), 1031, ncclFloat8e4m3, 1, NULL, S);
	CALL(ncclRecv, BAD, H(0x2000), 1032, ncclUint64, 2, NULL, S);
	CALL(ncclGroupEnd, ncclSuccess);
	CALL(ncclCommFinalize, ncclSuccess, NULL);
	CALL(ncclCommDestroy, ncclSuccess, NULL);
	CALL(ncclCommAbort, ncclSuccess, NULL);
	return failures ? 1 : 0;
}
