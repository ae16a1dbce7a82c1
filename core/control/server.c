// SPDX-License-Identifier: MIT
/* The daemon's control socket: connections, their requests, the captures (server.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "control/server.h"
#include "util/log.h"

/* How long a stopping daemon waits for its captures to close their files. */
#define CT_CONTROL_STOP_S 30

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void ct_control_init(struct ct_control *c)
{
	memset(c, 0, sizeof(*c));
	c->listen_fd = c->dir_fd = c->lock_fd = -1;
	for (int i = 0; i < CT_CONTROL_PENDING; i++)
		c->pending[i].fd = -1;
}

/* The socket's folder: made if missing, then held, and used only if it is
 * root's alone (no one else can reach the socket, or put another there). */
static int open_folder(struct ct_control *c, const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		ct_err("control socket: cannot make %s: %s", dir, strerror(errno));
		return -errno;
	}
	c->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dir_fd < 0 || fstat(c->dir_fd, &st)) {
		ct_err("control socket: cannot open the folder %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		ct_err("control socket: the folder %s is uid %u, mode %04o: it must be root's alone (0700), so that no "
		       "one else can reach the socket or put one in its place", dir, (unsigned)st.st_uid,
		       (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int ct_control_open(struct ct_control *c, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *dir = NULL, lock[NAME_MAX + 1];
	int err;

	if (path[0] != '/' || !slash[1] || strlen(slash + 1) > 64) {
		ct_err("control socket %s: expected an absolute path whose name is 64 bytes at most", path);
		return -EINVAL;
	}
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	c->name = strdup(slash + 1);
	c->path = strdup(path);
	if (!dir || !c->name || !c->path) {
		err = -ENOMEM;
		goto fail;
	}
	err = open_folder(c, dir);
	if (err)
		goto fail;
	/* One daemon a socket: the lock says who, held as long as it listens. */
	snprintf(lock, sizeof(lock), "%s.lock", c->name);
	c->lock_fd = openat(c->dir_fd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (c->lock_fd < 0 || flock(c->lock_fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (err == -EWOULDBLOCK)
			ct_err("control socket %s: another daemon serves it", path);
		else
			ct_err("control socket %s: cannot lock %s/%s: %s", path, dir, lock, strerror(-err));
		goto fail;
	}
	if (unlinkat(c->dir_fd, c->name, 0) && errno != ENOENT) { /* a socket a daemon before left */
		err = -errno;
		ct_err("control socket %s: cannot remove the old one: %s", path, strerror(-err));
		goto fail;
	}
	/* Bound in the folder held and checked, not through the path again. */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", c->dir_fd, c->name);
	c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->listen_fd < 0 || bind(c->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    fchmodat(c->dir_fd, c->name, 0600, 0) || listen(c->listen_fd, 16)) {
		err = -errno;
		ct_err("control socket %s: cannot listen: %s", path, strerror(-err));
		goto fail;
	}
	free(dir);
	ct_info("control socket %s: capture requests taken", path);
	return 0;
fail:
	free(dir);
	ct_control_close(c);
	return err;
}

/* The reason, then the connection closed. What the client sent past what
 * was read is read first (a little, never waiting): closed with bytes
 * unread, the socket would be reset, the reply lost before it is read. */
static void refuse(int fd, const char *why)
{
	char drop[4096];

	ct_warn("capture request refused: %s", why);
	ct_reply(fd, "error", why);
	for (int i = 0; i < 16 && recv(fd, drop, sizeof(drop), MSG_DONTWAIT) > 0; i++)
		;
	close(fd);
}

static void accept_one(struct ct_control *c, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char why[128];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || len != sizeof(cred)) {
		refuse(fd, "the peer's credentials could not be read");
		return;
	}
	if (cred.uid != 0) {
		snprintf(why, sizeof(why), "only root may ask for a capture (PID %d is uid %u)", (int)cred.pid,
			 (unsigned)cred.uid);
		refuse(fd, why);
		return;
	}
	for (int i = 0; i < CT_CONTROL_PENDING; i++) {
		if (c->pending[i].fd >= 0)
			continue;
		c->pending[i].fd = fd;
		c->pending[i].len = 0;
		c->pending[i].deadline_ns = mono_ns() + CT_CONTROL_REQUEST_S * 1000000000ull;
		return;
	}
	refuse(fd, "too many requests are being sent at once: try again");
}

/* A whole request: parsed, and its capture started (the connection is the
 * capture's from then on), or refused with the reason. */
static void handle(struct ct_control *c, struct ct_control_conn *p, const struct ct_config *conf)
{
	struct ct_capture_request r;
	char why[512];
	int slot = -1, fd = p->fd;

	p->fd = -1;
	if (ct_request_parse(p->buf, p->len, &r, why, sizeof(why))) {
		refuse(fd, why);
		return;
	}
	for (int i = 0; i < CT_CONTROL_CAPTURES && slot < 0; i++)
		if (!c->busy[i])
			slot = i;
	if (slot < 0) {
		snprintf(why, sizeof(why), "%d captures are running, the most at once: try again when one ends",
			 CT_CONTROL_CAPTURES);
		refuse(fd, why);
	} else if (ct_capture_start(&c->captures[slot], c->next_id + 1, &r, conf, fd, why, sizeof(why))) {
		refuse(fd, why);
	} else {
		c->busy[slot] = true;
		c->next_id++; /* captures are numbered as they start */
	}
	ct_request_free(&r);
}

static void read_pending(struct ct_control *c, struct ct_control_conn *p, const struct ct_config *conf,
			 unsigned long long now)
{
	ssize_t got = -1; /* the loop runs at least once: the buffer is never full here */

	while (p->len < sizeof(p->buf) && (got = recv(p->fd, p->buf + p->len, sizeof(p->buf) - p->len,
						      MSG_DONTWAIT)) > 0) {
		p->len += (size_t)got;
		if (ct_request_complete(p->buf, p->len)) {
			handle(c, p, conf);
			return;
		}
	}
	if (p->len >= sizeof(p->buf)) {
		refuse(p->fd, "a request is at most 4096 bytes: this one is longer");
	} else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
		ct_info("a capture request ended before it was whole: ignored");
		close(p->fd);
	} else if (now >= p->deadline_ns) {
		refuse(p->fd, "the request did not come whole in time (a request is sent at once, ended by an "
			      "empty line)");
	} else {
		return;
	}
	p->fd = -1;
}

void ct_control_serve(struct ct_control *c, const struct ct_config *conf)
{
	unsigned long long now = mono_ns();
	int fd;

	if (c->listen_fd < 0)
		return;
	while ((fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		accept_one(c, fd);
	for (int i = 0; i < CT_CONTROL_PENDING; i++)
		if (c->pending[i].fd >= 0)
			read_pending(c, &c->pending[i], conf, now);
	for (int i = 0; i < CT_CONTROL_CAPTURES; i++)
		if (c->busy[i] && ct_capture_poll(&c->captures[i]))
			c->busy[i] = false;
}

/* Every capture stopped and finished; past CT_CONTROL_STOP_S, killed. */
static void stop_captures(struct ct_control *c)
{
	unsigned long long until = mono_ns() + CT_CONTROL_STOP_S * 1000000000ull;
	bool left = false;

	for (int i = 0; i < CT_CONTROL_CAPTURES; i++)
		if (c->busy[i])
			ct_capture_stop(&c->captures[i]);
	do {
		left = false;
		for (int i = 0; i < CT_CONTROL_CAPTURES; i++) {
			if (c->busy[i] && ct_capture_poll(&c->captures[i]))
				c->busy[i] = false;
			left |= c->busy[i];
		}
		if (left && mono_ns() >= until) {
			for (int i = 0; i < CT_CONTROL_CAPTURES; i++)
				if (c->busy[i] && c->captures[i].run) {
					ct_warn("capture %u did not stop in %d s: killed", c->captures[i].id,
						CT_CONTROL_STOP_S);
					kill(c->captures[i].run, SIGKILL);
				}
			until = ~0ull;
		}
		if (left)
			nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	} while (left);
}

void ct_control_close(struct ct_control *c)
{
	for (int i = 0; i < CT_CONTROL_PENDING; i++)
		if (c->pending[i].fd >= 0) {
			refuse(c->pending[i].fd, "the daemon stops");
			c->pending[i].fd = -1;
		}
	stop_captures(c);
	if (c->listen_fd >= 0) {
		unlinkat(c->dir_fd, c->name, 0);
		close(c->listen_fd);
	}
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	free(c->name);
	free(c->path);
	ct_control_init(c);
}
