// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the ELF symbol reader (ct_elf_resolve, libelf underneath) on
 * any bytes, as a --lib path or a library mapped by a traced process could
 * hold. The input is the file; the names looked up are runtime APIs that
 * the seed files (small test libraries) define, and a few that they do not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symbols/elf.h"

static const char *const names[] = {
	"cudaMalloc", "cudaFree", "cudaGetDeviceCount", "cudaMemset", "cudaMemcpy",
	"cudaDeviceSynchronize", "cudaLaunchKernel", "main", "_start", "_init", "x", "",
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_elf: memfd_create");
		exit(1);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t offs[N_NAMES];
	int found;

	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	found = ct_elf_resolve(path, names, N_NAMES, offs);
	if (found > (int)N_NAMES)
		abort();
	for (size_t i = 0, hits = 0; found >= 0 && i < N_NAMES; i++)
		if (offs[i] && ++hits > (size_t)found)
			abort(); /* an offset for a name not counted as found */
	return 0;
}
