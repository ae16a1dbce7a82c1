// SPDX-License-Identifier: MIT
/*
 * A program that uses toyrt, for the example plugin's test: the calls and
 * their values are what the test expects to see traced.
 */
#include <stdio.h>
#include "toyrt.h"

int main(void)
{
	float host[64];
	void *dev = NULL, *none = NULL;
	int bad = 0;

	for (int i = 0; i < 64; i++)
		host[i] = (float)i;
	bad |= toyMalloc(&dev, sizeof(host)) != toySuccess;
	bad |= toyMalloc(&none, 0) != toyErrorInvalidValue;
	bad |= toyMemcpy(dev, host, sizeof(host)) != toySuccess;
	bad |= toyLaunch("scale", dev, 64) != toySuccess;
	bad |= toyLaunch("no_such_kernel", dev, 64) != toyErrorKernelNotFound;
	bad |= toyMemcpy(host, dev, sizeof(host)) != toySuccess;
	bad |= toyFree(dev) != toySuccess;
	bad |= toySetLimit(toyLimitHeap, 4096) != toySuccess;
	bad |= host[10] != 20.0f;
	printf("toy_app: dev=%p %s\n", dev, bad ? "FAILED" : "ok");
	return bad;
}
