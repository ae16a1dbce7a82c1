/* SPDX-License-Identifier: MIT */
/* cudatracer capture: ask the daemon for a capture and wait for its reply
 * (docs/daemon.md). Returns the exit status: 0 with the file written, 1
 * when the daemon could not be reached or refused, 2 for a usage error. */
#ifndef CT_CONTROL_CLIENT_H
#define CT_CONTROL_CLIENT_H

int ct_capture_main(int argc, char **argv);

#endif
