// SPDX-License-Identifier: MIT
/* toyrt: see toyrt.h. */
#include <stdlib.h>
#include <string.h>
#include "toyrt.h"

toyStatus toyMalloc(void **ptr, size_t size)
{
	if (!ptr || !size)
		return toyErrorInvalidValue;
	*ptr = malloc(size);
	return *ptr ? toySuccess : toyErrorOutOfMemory;
}

toyStatus toyFree(void *ptr)
{
	if (!ptr)
		return toyErrorInvalidValue;
	free(ptr);
	return toySuccess;
}

toyStatus toyMemcpy(void *dst, const void *src, size_t size)
{
	if (!dst || !src)
		return toyErrorInvalidValue;
	memmove(dst, src, size);
	return toySuccess;
}

toyStatus toyLaunch(const char *name, float *data, unsigned int n)
{
	if (!name || !data)
		return toyErrorInvalidValue;
	if (strcmp(name, "scale") != 0)
		return toyErrorKernelNotFound;
	for (unsigned int i = 0; i < n; i++)
		data[i] *= 2.0f;
	return toySuccess;
}

toyStatus toySetLimit(toyLimit limit, size_t value)
{
	return limit == toyLimitStack || limit == toyLimitHeap ? (value ? toySuccess : toyErrorInvalidValue)
							       : toyErrorInvalidValue;
}
