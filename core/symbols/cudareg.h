/* SPDX-License-Identifier: MIT */
/*
 * The kernels a CUDA file registers, read from its code: what names a
 * runtime launch (cudaLaunchKernel's host stub address) in a process that
 * registered its kernels before the tracer came (-p), from a file whose
 * symbol table was stripped (PyTorch's wheels).
 *
 * nvcc's registration code calls __cudaRegisterFunction(handle, hostFun,
 * deviceFun, deviceName, ...) once per kernel with constant arguments: the
 * stub's address in rsi and the kernel's mangled name in rdx, loaded just
 * before the call (lea with a rip-relative address; mov of a 32-bit address
 * in an executable that is not position-independent). Every call to it
 * through its PLT entry or its GOT slot (the runtime shared, as frameworks
 * load it; a runtime linked in and stripped cannot be probed at all) is
 * found in the executable segments and the two
 * loads looked for in the bytes before it. Only pairs that make sense are
 * kept: the stub in executable bytes, the name a printable C or mangled
 * identifier in the file.
 *
 * Bounded: the file is read in chunks of 1 MiB (never held whole), names
 * at most 4 KiB.
 */
#ifndef CT_SYMBOLS_CUDAREG_H
#define CT_SYMBOLS_CUDAREG_H

#include <stddef.h>
#include <stdint.h>

struct ct_elf;

/* Called for each kernel: its stub's file offset and its (mangled) name. Nonzero stops. */
typedef int (*ct_cudareg_fn)(void *ctx, uint64_t stub_off, const char *name, size_t len);

/*
 * Returns the number of kernels found (0 for a file that does not register
 * any: it does not import __cudaRegisterFunction), or -errno.
 */
int ct_cudareg_scan(struct ct_elf *e, ct_cudareg_fn fn, void *ctx);

#endif
