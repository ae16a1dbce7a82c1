// SPDX-License-Identifier: MIT
/* cudatracer capture (client.h): one request, the daemon's lines as they come. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "config/config.h"
#include "control/client.h"
#include "control/request.h"
#include "util/log.h"

static const char usage[] =
	"usage: cudatracer capture -p PID --duration D -o FILE.jsonl [--stacks] [--socket PATH]\n"
	"\n"
	"Ask the cudatracer daemon to trace the API calls of one running process for D\n"
	"(10s, 500ms, 2m) into a new jsonl file, and wait until it is written.\n"
	"\n"
	"  -p, --pid PID         the process (its children too)\n"
	"      --duration D      how long, 1ms to 24h\n"
	"  -o, --output FILE     a new file (never overwritten), made by the daemon as root\n"
	"                        in a folder no other user may change, or a sticky one\n"
	"      --stacks          call stacks on allocations, frees, launches and failing calls\n"
	"      --gpu-activity    kernels and copies too (refused: a running process cannot have them)\n"
	"      --socket PATH     the daemon's control socket (" CT_CONTROL_SOCKET ")\n"
	"  -h, --help            print this help\n";

/* A value on one line of the request: no line break, no control byte. */
static bool one_line(const char *what, const char *v)
{
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			ct_err("%s: a control byte in '%s'", what, v);
			return false;
		}
	return true;
}

/* The request's text, checked here by the daemon's own parser, so that a
 * mistake is said before anything is sent. 0, or 2 (usage). */
static int build(char *req, size_t n, const char *pid, const char *dur, const char *out, bool stacks, bool gpu)
{
	char abs[PATH_MAX + 1], why[512];
	struct ct_capture_request r;
	int len;

	if (!pid || !dur || !out) {
		fputs(usage, stderr);
		return 2;
	}
	if (!one_line("-p", pid) || !one_line("--duration", dur) || !one_line("-o", out))
		return 2;
	if (out[0] != '/') { /* the daemon's folder is not ours */
		if (!getcwd(abs, sizeof(abs)) || strlen(abs) + strlen(out) + 2 > sizeof(abs)) {
			ct_err("-o %s: cannot make it an absolute path: %s", out, strerror(errno ? errno : ENAMETOOLONG));
			return 2;
		}
		strcat(strcmp(abs, "/") ? strcat(abs, "/") : abs, out);
		out = abs;
	}
	len = snprintf(req, n, "capture\npid=%s\nduration=%s\noutput=%s\nstacks=%s\ngpu_activity=%s\n\n", pid, dur,
		       out, stacks ? "true" : "false", gpu ? "true" : "false");
	if (len < 0 || (size_t)len >= n) {
		ct_err("the request is longer than %d bytes", CT_REQUEST_MAX);
		return 2;
	}
	if (ct_request_parse(req, (size_t)len, &r, why, sizeof(why))) {
		ct_err("%s", why);
		return 2;
	}
	ct_request_free(&r);
	return 0;
}

static int connect_daemon(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		ct_err("--socket %s: longer than a socket's path may be", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	if (errno == EACCES || errno == EPERM)
		ct_err("cannot reach the daemon at %s: %s (only root may ask for a capture)", path, strerror(errno));
	else if (errno == ENOENT || errno == ECONNREFUSED)
		ct_err("no daemon listens at %s (cudatracer --daemon, its tracer.control_socket): %s", path,
		       strerror(errno));
	else
		ct_err("cannot reach the daemon at %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The daemon's lines until its last: "say" said, "ok" or "error" ends it. */
static int replies(int fd)
{
	char line[2048];
	FILE *in = fdopen(fd, "r");

	if (!in) {
		close(fd);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "say ", 4)) {
			fprintf(stderr, "cudatracer: daemon: %s\n", line + 4);
		} else if (!strncmp(line, "ok ", 3)) {
			ct_note("capture written to %s", line + 3);
			fclose(in);
			return 0;
		} else if (!strncmp(line, "error ", 6)) {
			ct_err("the daemon refused or failed: %s", line + 6);
			fclose(in);
			return 1;
		}
	}
	ct_err("the daemon closed the connection without a reply");
	fclose(in);
	return 1;
}

int ct_capture_main(int argc, char **argv)
{
	enum { OPT_DURATION = 256, OPT_STACKS, OPT_GPU, OPT_SOCKET };
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "output", required_argument, NULL, 'o' },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "gpu-activity", no_argument, NULL, OPT_GPU },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *pid = NULL, *dur = NULL, *out = NULL, *sock = CT_CONTROL_SOCKET;
	bool stacks = false, gpu = false;
	char req[CT_REQUEST_MAX];
	size_t sent = 0, len;
	int opt, fd, err;

	while ((opt = getopt_long(argc, argv, "+p:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p': pid = optarg; break;
		case OPT_DURATION: dur = optarg; break;
		case 'o': out = optarg; break;
		case OPT_STACKS: stacks = true; break;
		case OPT_GPU: gpu = true; break;
		case OPT_SOCKET: sock = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind < argc) {
		ct_err("capture: unexpected '%s'", argv[optind]);
		return 2;
	}
	err = build(req, sizeof(req), pid, dur, out, stacks, gpu);
	if (err)
		return err;
	fd = connect_daemon(sock);
	if (fd < 0)
		return 1;
	for (len = strlen(req); sent < len;) {
		ssize_t n = send(fd, req + sent, len - sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ct_err("sending the request to %s: %s", sock, strerror(errno));
			close(fd);
			return 1;
		}
		sent += (size_t)n;
	}
	return replies(fd);
}
