/* SPDX-License-Identifier: MIT */
/*
 * The handshake of programs a tracer attaches to with -p: when argv[at] is
 * "wait", print "ready PID" and block until the driver writes a line on
 * stdin (it does once the tracer is attached). False if stdin closed first.
 */
#ifndef CT_TEST_READY_H
#define CT_TEST_READY_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static inline bool ready_wait(int argc, char **argv, int at)
{
	char line[16];

	if (argc <= at || strcmp(argv[at], "wait"))
		return true;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) != NULL;
}

#endif
