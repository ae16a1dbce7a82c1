// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the ELF symbol reader (symbols/elf.c, libelf underneath) on
 * any bytes, as a --lib path or a library mapped by a traced process could
 * hold, through both of its users: lookup by name (ct_elf_resolve, the
 * uprobe offsets) and the by-offset table of the symbolizer. The input is
 * the file; the names looked up are runtime APIs that the seed files
 * (small test libraries) define, and a few that they do not.
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

/* The symbolizer's table: every function found again at its own offset. */
static void by_offset(void)
{
	struct ct_elf_funcs t = { 0 };
	struct ct_elf *e;

	if (ct_elf_open_path(path, &e))
		return;
	(void)ct_elf_build_id(e);
	if (ct_elf_funcs_add(&t, e) == 0) {
		ct_elf_funcs_sort(&t);
		for (size_t i = 0; i < t.n; i++)
			if (ct_elf_funcs_at(&t, t.fns[i].off) != (long)i || !ct_elf_funcs_name(&t, (long)i)[0])
				abort();
	}
	ct_elf_funcs_free(&t);
	ct_elf_close(e);
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
	by_offset();
	return 0;
}
