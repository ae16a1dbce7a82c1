// SPDX-License-Identifier: MIT
/*
 * The ELF reader's rules (core/symbols/elf.h), seen from both of its users
 * on one fixture library: by name (ct_elf_resolve, the uprobe offsets) and
 * by address (ct_sym_lookup, kernel names). Expected offsets come from the
 * loader itself: dlsym/dlvsym give an address, /proc/self/maps turns it
 * into the file offset a uprobe would be given.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "symbols/elf.h"
#include "symbols/symbolizer.h"

#ifndef ELF_FIXTURE
#error "ELF_FIXTURE, ELF_FIXTURE_STRIPPED and ELF_FIXTURE_DEBUG must be defined"
#endif

static const char *const names[] = {
	"fixture_sized", "fixture_zero_size", "fixture_versioned", "fixture_old_only",
	"fixture_ifunc", "fixture_local", "fixture_absent",
};
enum { SIZED, ZERO, VERSIONED, OLD_ONLY, IFUNC, LOCAL, ABSENT, N_NAMES };

static void *open_fixture(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		fail_msg("dlopen %s: %s", path, dlerror());
	return h;
}

static void *sym(void *h, const char *name, const char *version)
{
	void *p = version ? dlvsym(h, name, version) : dlsym(h, name);

	if (!p)
		fail_msg("dlsym %s@%s: %s", name, version ? version : "", dlerror());
	return p;
}

static void *call_addr_fn(void *h, const char *name)
{
	void *(*fn)(void);

	*(void **)&fn = sym(h, name, NULL);
	return fn();
}

/* The file offset of an address of this process, from /proc/self/maps. */
static uint64_t file_off(const void *addr)
{
	uint64_t a = (uint64_t)(uintptr_t)addr, off = 0;
	unsigned long long start, end, pgoff;
	char line[4096];
	FILE *fp = fopen("/proc/self/maps", "re");

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &pgoff) == 3 && a >= start && a < end) {
			off = a - start + pgoff;
			break;
		}
	fclose(fp);
	if (!off)
		fail_msg("%p is in no mapping", addr);
	return off;
}

static int teardown(void **state)
{
	ct_sym_reset();
	return 0;
}

/* By name: every rule, on the full file and on its stripped copy. */
static void check_resolve(const char *path, bool full)
{
	void *h = open_fixture(path);
	uint64_t offs[N_NAMES];

	/* The IFUNC and the absent name get no offset; the local one needs .symtab. */
	assert_int_equal(ct_elf_resolve(path, names, N_NAMES, offs), full ? 5 : 4);
	assert_int_equal(offs[SIZED], file_off(sym(h, "fixture_sized", NULL)));
	assert_int_equal(offs[ZERO], file_off(sym(h, "fixture_zero_size", NULL)));
	/* The default version, the one dlsym (and the linker) picks ... */
	assert_int_equal(offs[VERSIONED], file_off(sym(h, "fixture_versioned", "VERS_2")));
	assert_int_equal(offs[VERSIONED], file_off(sym(h, "fixture_versioned", NULL)));
	assert_int_not_equal(offs[VERSIONED], file_off(sym(h, "fixture_versioned", "VERS_1")));
	/* ... unless there is only a compat one. */
	assert_int_equal(offs[OLD_ONLY], file_off(sym(h, "fixture_old_only", "VERS_1")));
	assert_int_equal(offs[IFUNC], 0);
	assert_int_equal(offs[LOCAL], full ? file_off(call_addr_fn(h, "fixture_local_addr")) : 0);
	assert_int_equal(offs[ABSENT], 0);
	dlclose(h);
}

static void test_resolve_full(void **state)
{
	check_resolve(ELF_FIXTURE, true);
}

static void test_resolve_stripped(void **state)
{
	check_resolve(ELF_FIXTURE_STRIPPED, false);
}

/* An IFUNC is found, as an IFUNC at its resolver: not where calls go. */
static void test_find_reports_ifunc(void **state)
{
	const char *const paths[] = { ELF_FIXTURE, ELF_FIXTURE_STRIPPED };

	for (int p = 0; p < 2; p++) {
		void *h = open_fixture(paths[p]);
		struct ct_elf_fn out[N_NAMES];
		struct ct_elf *e;

		assert_int_equal(ct_elf_open_path(paths[p], &e), 0);
		assert_int_equal(ct_elf_find(e, names, N_NAMES, out), p == 0 ? 6 : 5);
		assert_int_equal(out[IFUNC].kind, CT_ELF_IFUNC);
		assert_int_equal(out[IFUNC].off, file_off(call_addr_fn(h, "fixture_ifunc_resolver_addr")));
		/* dlsym runs the resolver: what it returns is the implementation. */
		assert_int_not_equal(out[IFUNC].off, file_off(sym(h, "fixture_ifunc", NULL)));
		assert_int_equal(out[SIZED].kind, CT_ELF_FUNC);
		assert_int_equal(out[ABSENT].kind, CT_ELF_NONE);
		ct_elf_close(e);
		dlclose(h);
	}
}

/* foo@@V and foo@V are both foo; the .symtab suffix and .gnu.version's hidden bit agree. */
static void test_versioned_names(void **state)
{
	const char *const paths[] = { ELF_FIXTURE, ELF_FIXTURE_STRIPPED };
	const char *base = "fixture_versioned";

	for (int p = 0; p < 2; p++) {
		void *h = open_fixture(paths[p]);
		uint64_t v1 = file_off(sym(h, base, "VERS_1")), v2 = file_off(sym(h, base, "VERS_2"));
		int n_default = 0, n_compat = 0, n_suffixed = 0;
		struct ct_elf_fn fn;
		struct ct_elf *e;
		size_t pos = 0;

		assert_int_equal(ct_elf_open_path(paths[p], &e), 0);
		while (ct_elf_next_fn(e, &pos, &fn)) {
			if (fn.name_len != strlen(base) || strncmp(fn.name, base, fn.name_len))
				continue;
			assert_int_equal(fn.off, fn.compat ? v1 : v2);
			n_compat += fn.compat;
			n_default += !fn.compat;
			n_suffixed += fn.name[fn.name_len] == '@';
		}
		/* .symtab and .dynsym each hold both; a stripped file only .dynsym, without suffixes. */
		assert_int_equal(n_default, p == 0 ? 2 : 1);
		assert_int_equal(n_compat, p == 0 ? 2 : 1);
		assert_int_equal(n_suffixed, p == 0 ? 2 : 0);
		ct_elf_close(e);
		dlclose(h);
	}
}

/* By address, with the same rules. */
static void test_symbolizer_full(void **state)
{
	void *h = open_fixture(ELF_FIXTURE);
	uint32_t pid = (uint32_t)getpid();
	char *zero = sym(h, "fixture_zero_size", NULL), *sized = sym(h, "fixture_sized", NULL);

	/* Inside the implementation an IFUNC picked: the implementation's own name. */
	assert_string_equal(ct_sym_lookup(pid, (uint64_t)(uintptr_t)sym(h, "fixture_ifunc", NULL)),
			    "fixture_ifunc_impl");
	/* Both versions are named without their suffix. */
	assert_string_equal(ct_sym_lookup(pid, (uint64_t)(uintptr_t)sym(h, "fixture_versioned", "VERS_1")),
			    "fixture_versioned");
	assert_string_equal(ct_sym_lookup(pid, (uint64_t)(uintptr_t)sym(h, "fixture_versioned", "VERS_2")),
			    "fixture_versioned");
	/* A zero-size symbol names its address, nothing after it; a sized one its whole body. */
	assert_string_equal(ct_sym_lookup(pid, (uint64_t)(uintptr_t)zero), "fixture_zero_size");
	assert_null(ct_sym_lookup(pid, (uint64_t)(uintptr_t)(zero + 1)));
	assert_string_equal(ct_sym_lookup(pid, (uint64_t)(uintptr_t)(sized + 1)), "fixture_sized");
	dlclose(h);
}

static void test_symbolizer_stripped(void **state)
{
	void *h = open_fixture(ELF_FIXTURE_STRIPPED);
	uint32_t pid = (uint32_t)getpid();
	char *resolver = call_addr_fn(h, "fixture_ifunc_resolver_addr");

	/* The implementation is local and gone with .symtab; the IFUNC symbol
	 * names neither it nor the resolver it points at. */
	assert_null(ct_sym_lookup(pid, (uint64_t)(uintptr_t)sym(h, "fixture_ifunc", NULL)));
	assert_null(ct_sym_lookup(pid, (uint64_t)(uintptr_t)resolver));
	assert_string_equal(ct_sym_lookup(pid, (uint64_t)(uintptr_t)sym(h, "fixture_versioned", "VERS_1")),
			    "fixture_versioned");
	assert_string_equal(ct_sym_lookup(pid, (uint64_t)(uintptr_t)sym(h, "fixture_sized", NULL)),
			    "fixture_sized");
	dlclose(h);
}

/* A debug file's PT_LOAD headers keep no file bytes: the stripped file's place its symbols. */
static void test_debug_file(void **state)
{
	const char *const local[] = { "fixture_local" };
	struct ct_elf *full, *stripped, *dbg;
	struct ct_elf_fn want, got;

	assert_int_equal(ct_elf_open_path(ELF_FIXTURE, &full), 0);
	assert_int_equal(ct_elf_open_path(ELF_FIXTURE_STRIPPED, &stripped), 0);
	assert_int_equal(ct_elf_find(full, local, 1, &want), 1);
	assert_int_equal(ct_elf_find(stripped, local, 1, &got), 0);
	assert_true(ct_elf_build_id(stripped)[0]);
	assert_string_equal(ct_elf_build_id(stripped), ct_elf_build_id(full));

	assert_int_equal(ct_elf_open(ct_elf_open_fd(ELF_FIXTURE_DEBUG), stripped, &dbg), 0);
	assert_true(ct_elf_has_symtab(dbg));
	assert_int_equal(ct_elf_find(dbg, local, 1, &got), 1);
	assert_int_equal(got.off, want.off);
	ct_elf_close(dbg);

	assert_int_equal(ct_elf_open_path(ELF_FIXTURE_DEBUG, &dbg), 0);
	assert_int_equal(ct_elf_find(dbg, local, 1, &got), 0);
	ct_elf_close(dbg);
	ct_elf_close(stripped);
	ct_elf_close(full);
}

static void test_has_symtab(void **state)
{
	bool symtab = false;

	assert_int_equal(ct_elf_info(ELF_FIXTURE, &symtab), 0);
	assert_true(symtab);
	assert_int_equal(ct_elf_info(ELF_FIXTURE_STRIPPED, &symtab), 0);
	assert_false(symtab);
}

/*
 * A FIFO where a library should be (a traced process controls its
 * /proc/PID/root): refused at once. Opened without O_NONBLOCK it would
 * wait for a writer forever; the alarm then kills the test.
 */
static void test_fifo_is_refused_without_blocking(void **state)
{
	char dir[] = "/tmp/ct_test_elf.XXXXXX", fifo[64];
	const char *const one[] = { "fixture_sized" };
	uint64_t off;
	bool symtab;

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/libcudart.so", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	assert_int_equal(ct_elf_open_fd(fifo), -ENOEXEC);
	assert_int_equal(ct_elf_resolve(fifo, one, 1, &off), -ENOEXEC);
	assert_int_equal(ct_elf_info(fifo, &symtab), -ENOEXEC);
	assert_int_equal(ct_elf_open_fd("/dev/null"), -ENOEXEC);
	assert_int_equal(ct_elf_open_fd(dir), -ENOEXEC);
	alarm(0);
	unlink(fifo);
	rmdir(dir);
}

static void test_size_bound(void **state)
{
	char big[] = "/tmp/ct_test_elf.XXXXXX";
	const char *const one[] = { "fixture_sized" };
	uint64_t off = 1;
	int fd = mkstemp(big);

	assert_true(fd >= 0);
	/* Sparse: no disk space is used. */
	assert_int_equal(ftruncate(fd, (off_t)CT_ELF_MAX_SIZE + 1), 0);
	assert_int_equal(ct_elf_open_fd(big), -EFBIG);
	assert_int_equal(ct_elf_resolve(big, one, 1, &off), -EFBIG);
	assert_int_equal(off, 0);
	/* Within the bound but not ELF. */
	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(ct_elf_resolve(big, one, 1, &off), -ENOEXEC);
	close(fd);
	unlink(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_full),
		cmocka_unit_test(test_resolve_stripped),
		cmocka_unit_test(test_find_reports_ifunc),
		cmocka_unit_test(test_versioned_names),
		cmocka_unit_test_teardown(test_symbolizer_full, teardown),
		cmocka_unit_test_teardown(test_symbolizer_stripped, teardown),
		cmocka_unit_test(test_debug_file),
		cmocka_unit_test(test_has_symtab),
		cmocka_unit_test(test_fifo_is_refused_without_blocking),
		cmocka_unit_test(test_size_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
