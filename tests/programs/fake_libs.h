/* SPDX-License-Identifier: MIT */
/*
 * For test programs that run the stand-in runtime and driver of a folder
 * (tests/programs/fakegpu): a kernel's host stub under the mangled name
 * nvcc gives it, my_kern(float*), and a library of that folder opened.
 */
#ifndef CT_TEST_FAKE_LIBS_H
#define CT_TEST_FAKE_LIBS_H

#include <dlfcn.h>
#include <stdio.h>

__attribute__((noinline)) void _Z7my_kernPf(float *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void *open_lib(const char *dir, const char *name, int how)
{
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, how);
	if (!h)
		fprintf(stderr, "%s: %s\n", name, dlerror());
	return h;
}

#endif
