// SPDX-License-Identifier: MIT
/*
 * Checking a plugin file before dlopen. ld.so maps each PT_LOAD segment of
 * the file and touches it: a segment that ends past the end of the file (a
 * copy cut short, a disk that filled up) is a SIGBUS inside dlopen, which
 * kills the tracer with no word of which file. So the descriptor the loader
 * opened once (and checked, plugin/trust.c) has its ELF header, program
 * headers and section header table checked against the size of what was
 * opened, and that same descriptor is loaded (dlopen of /proc/self/fd/N):
 * the file checked is the file loaded.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plugin/elfcheck.h"

/* More program headers than any shared object has: refuse, do not allocate. */
#define ELF_MAX_PHDRS 4096

/* Where the byte range [off, off + len) ends, or UINT64_MAX if that overflows. */
static uint64_t range_end(uint64_t off, uint64_t len)
{
	return off > UINT64_MAX - len ? UINT64_MAX : off + len;
}

/*
 * 0 if the file can be handed to ld.so (including files that are not 64-bit
 * ELF at all, which ld.so refuses with its own message before mapping
 * anything); -ENOEXEC with `why` filled if mapping it would fault.
 */
static int check_headers(int fd, const char *path, uint64_t size, char *why, size_t n)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	uint64_t end;
	int err = 0;

	if (size < sizeof(eh)) {
		snprintf(why, n, "%s: file too short", path); /* ld.so's words */
		return -ENOEXEC;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh)) {
		snprintf(why, n, "%s: %s", path, strerror(errno ? errno : EIO));
		return -EIO;
	}
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		snprintf(why, n, "%s: invalid ELF header", path);
		return -ENOEXEC;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	if (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)) {
		snprintf(why, n, "%s: program headers of %u bytes, not %zu: not a shared object for this machine",
			 path, eh.e_phentsize, sizeof(Elf64_Phdr));
		return -ENOEXEC;
	}
	if (eh.e_phnum > ELF_MAX_PHDRS) {
		snprintf(why, n, "%s: %u program headers: not a shared object", path, eh.e_phnum);
		return -ENOEXEC;
	}
	end = range_end(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr));
	if (end > size) {
		snprintf(why, n, "%s is truncated: its program headers end at byte %llu, the file has %llu",
			 path, (unsigned long long)end, (unsigned long long)size);
		return -ENOEXEC;
	}
	ph = calloc(eh.e_phnum ? eh.e_phnum : 1, sizeof(*ph));
	if (!ph) {
		snprintf(why, n, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (pread(fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) != (ssize_t)(eh.e_phnum * sizeof(*ph))) {
		snprintf(why, n, "%s: cannot read its program headers: %s", path, strerror(errno ? errno : EIO));
		err = -EIO;
		goto out;
	}
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		end = range_end(ph[i].p_offset, ph[i].p_filesz);
		if (end > size) {
			snprintf(why, n, "%s is truncated: its loadable segment %d ends at byte %llu, the file has %llu",
				 path, i, (unsigned long long)end, (unsigned long long)size);
			err = -ENOEXEC;
			goto out;
		}
	}
	/* ld.so does not read it, but a file cut before its end is not the one built. */
	end = range_end(eh.e_shoff, (uint64_t)eh.e_shnum * eh.e_shentsize);
	if (eh.e_shoff && end > size) {
		snprintf(why, n, "%s is truncated: its section header table ends at byte %llu, the file has %llu",
			 path, (unsigned long long)end, (unsigned long long)size);
		err = -ENOEXEC;
	}
out:
	free(ph);
	return err;
}

static int name_is_loaded(struct dl_phdr_info *info, size_t size, void *name)
{
	(void)size;
	return info->dlpi_name && !strcmp(info->dlpi_name, name);
}

/*
 * ld.so returns an object already loaded under the same name without
 * opening anything, and /proc/self/fd/N names stay in its list after fd N is
 * closed and reused. Find a descriptor number whose name no loaded object
 * has; the extra descriptors tried are closed again.
 */
static int fresh_fd_name(int fd, char *name, size_t n)
{
	int tried[16], n_tried = 0, cur = fd;

	for (;;) {
		snprintf(name, n, "/proc/self/fd/%d", cur);
		if (!dl_iterate_phdr(name_is_loaded, name))
			break;
		if (n_tried == (int)(sizeof(tried) / sizeof(tried[0]))) {
			cur = -EMFILE;
			break;
		}
		cur = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (cur < 0) {
			cur = -errno;
			break;
		}
		tried[n_tried++] = cur;
	}
	for (int i = 0; i < n_tried; i++)
		if (tried[i] != cur)
			close(tried[i]);
	return cur;
}

/* ld.so names the file it loaded /proc/self/fd/N: say the plugin's path instead. */
static void name_dlerror(const char *fd_name, const char *path, char *why, size_t n)
{
	const char *msg = dlerror();
	size_t len = strlen(fd_name);

	if (!msg)
		msg = "unknown error";
	if (!strncmp(msg, fd_name, len) && msg[len] == ':')
		snprintf(why, n, "%s%s", path, msg + len);
	else
		snprintf(why, n, "%s", msg);
}

void *ct_elf_dlopen(int fd, const char *path, int flags, char *why, size_t n)
{
	char fd_name[64];
	struct stat st;
	void *dl = NULL;
	int dl_fd;

	if (fstat(fd, &st)) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "%s is not a regular file", path);
		return NULL;
	}
	if (check_headers(fd, path, (uint64_t)st.st_size, why, n))
		return NULL;
	dl_fd = fresh_fd_name(fd, fd_name, sizeof(fd_name));
	if (dl_fd < 0) {
		snprintf(why, n, "%s: %s", path, strerror(-dl_fd));
		return NULL;
	}
	dl = dlopen(fd_name, flags);
	if (!dl)
		name_dlerror(fd_name, path, why, n);
	if (dl_fd != fd)
		close(dl_fd);
	return dl;
}
