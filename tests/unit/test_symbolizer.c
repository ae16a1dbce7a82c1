// SPDX-License-Identifier: MIT
/*
 * Kernel-name resolution against this very process: functions in the
 * executable, in a library loaded after the first lookup, in a stripped
 * copy of it, and in a child process that maps the same files.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "symbols/symbolizer.h"

#ifndef SYM_FIXTURE
#error "SYM_FIXTURE (path of the fixture library) must be defined"
#endif

static __attribute__((noinline, used)) int exe_local_function(int x)
{
	return x * 7 + 1;
}

int exe_global_function(int x);
__attribute__((noinline)) int exe_global_function(int x)
{
	return exe_local_function(x) - 1;
}

static uint32_t self(void)
{
	return (uint32_t)getpid();
}

static uint64_t addr_of(void *h, const char *sym)
{
	void *p = dlsym(h, sym);

	if (!p)
		fail_msg("dlsym %s: %s", sym, dlerror());
	return (uint64_t)(uintptr_t)p;
}

static void *open_fixture(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		fail_msg("dlopen %s: %s", path, dlerror());
	return h;
}

static int teardown(void **state)
{
	ct_sym_reset();
	return 0;
}

static void test_executable_functions(void **state)
{
	uint64_t a = (uint64_t)(uintptr_t)exe_local_function;

	assert_string_equal(ct_sym_lookup(self(), a), "exe_local_function");
	assert_string_equal(ct_sym_lookup(self(), (uint64_t)(uintptr_t)exe_global_function),
			    "exe_global_function");
	/* An address inside a function still names it (the symbol's size covers it). */
	assert_string_equal(ct_sym_lookup(self(), a + 1), "exe_local_function");
}

static void test_cached_answer_is_stable(void **state)
{
	uint64_t a = (uint64_t)(uintptr_t)exe_global_function;
	const char *first = ct_sym_lookup(self(), a);

	assert_non_null(first);
	assert_ptr_equal(ct_sym_lookup(self(), a), first);
	ct_sym_forget(self());
	assert_string_equal(ct_sym_lookup(self(), a), "exe_global_function");
}

static void test_library_loaded_after_first_lookup(void **state)
{
	void *h;

	/* Reads /proc/self/maps before the library exists ... */
	assert_non_null(ct_sym_lookup(self(), (uint64_t)(uintptr_t)exe_global_function));
	h = open_fixture(SYM_FIXTURE);
	/* ... so this address is in no known mapping and the maps are read again. */
	assert_string_equal(ct_sym_lookup(self(), addr_of(h, "fixture_c_function")),
			    "fixture_c_function");
	dlclose(h);
}

static void test_cxx_names_are_demangled(void **state)
{
	void *h = open_fixture(SYM_FIXTURE);

	assert_string_equal(ct_sym_lookup(self(), addr_of(h, "_Z6kernelIfEvPT_i")),
			    "void kernel<float>(float*, int)");
	assert_string_equal(ct_sym_lookup(self(), addr_of(h, "_ZN2ns5Klass6methodEif")),
			    "ns::Klass::method(int, float)");
	dlclose(h);
}

static void test_local_function_needs_symtab(void **state)
{
	void *full = open_fixture(SYM_FIXTURE);
	void *stripped = open_fixture(SYM_FIXTURE_STRIPPED);
	void *(*local_addr)(void);

	*(void **)&local_addr = dlsym(full, "fixture_local_addr");
	assert_non_null(local_addr);
	assert_string_equal(ct_sym_lookup(self(), (uint64_t)(uintptr_t)local_addr()),
			    "fixture_local");

	/* Stripped: exported names remain in .dynsym, the local one is gone. */
	*(void **)&local_addr = dlsym(stripped, "fixture_local_addr");
	assert_non_null(local_addr);
	assert_ptr_not_equal(local_addr, dlsym(full, "fixture_local_addr"));
	assert_null(ct_sym_lookup(self(), (uint64_t)(uintptr_t)local_addr()));
	assert_string_equal(ct_sym_lookup(self(), addr_of(stripped, "_Z6kernelIfEvPT_i")),
			    "void kernel<float>(float*, int)");
	dlclose(stripped);
	dlclose(full);
}

static void test_unknown_addresses(void **state)
{
	void *h = open_fixture(SYM_FIXTURE);
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int on_stack = 0;

	assert_ptr_not_equal(anon, MAP_FAILED);
	assert_null(ct_sym_lookup(self(), 0));
	assert_null(ct_sym_lookup(self(), 0x10));                            /* unmapped */
	assert_null(ct_sym_lookup(self(), (uint64_t)(uintptr_t)anon));       /* no file */
	assert_null(ct_sym_lookup(self(), (uint64_t)(uintptr_t)&on_stack));  /* [stack] */
	assert_null(ct_sym_lookup(self(), addr_of(h, "fixture_data")));      /* not code */
	/* Asked twice: the cached "unknown" answer is still unknown. */
	assert_null(ct_sym_lookup(self(), (uint64_t)(uintptr_t)anon));
	munmap(anon, 4096);
	dlclose(h);
}

static void test_process_that_does_not_exist(void **state)
{
	/* Above any pid_max Linux allows (2^22). */
	uint32_t pid = (1u << 22) + 17;

	assert_null(ct_sym_lookup(pid, (uint64_t)(uintptr_t)exe_global_function));
	assert_int_equal(ct_sym_refresh(pid), -ENOENT);
}

static void test_other_process_shares_the_file_cache(void **state)
{
	void *h = open_fixture(SYM_FIXTURE);
	uint64_t a = addr_of(h, "_ZN2ns5Klass6methodEif");
	const char *mine = ct_sym_lookup(self(), a);
	int go[2];
	pid_t child;

	assert_non_null(mine);
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char c;

		close(go[1]);
		(void)!read(go[0], &c, 1); /* keep the mappings until the parent is done */
		_exit(0);
	}
	close(go[0]);
	/* Same file, same address in the child: the same parsed symbol answers. */
	assert_ptr_equal(ct_sym_lookup((uint32_t)child, a), mine);
	assert_string_equal(ct_sym_lookup((uint32_t)child,
					   (uint64_t)(uintptr_t)exe_local_function),
			    "exe_local_function");
	close(go[1]);
	waitpid(child, NULL, 0);
	/* Gone, but its maps were read while it lived: names stay available. */
	assert_string_equal(ct_sym_lookup((uint32_t)child,
					   (uint64_t)(uintptr_t)exe_global_function),
			    "exe_global_function");
	dlclose(h);
}

/*
 * A process that loads a library the tracer never read, and exits before
 * its record is decoded: maps read while it lived (ct_sym_refresh) are
 * enough, the library is opened by its path once /proc/PID is gone.
 */
static void test_library_of_a_process_that_exited(void **state)
{
	int up[2], go[2];
	uint64_t a = 0;
	pid_t child;

	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		void *h = dlopen(SYM_FIXTURE, RTLD_NOW | RTLD_LOCAL);
		uint64_t addr = h ? (uint64_t)(uintptr_t)dlsym(h, "_ZN2ns5Klass6methodEif") : 0;
		char c;

		close(go[1]); /* so that the parent's close is the end of the pipe */
		close(up[0]);
		(void)!write(up[1], &addr, sizeof(addr));
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	close(up[1]);
	close(go[0]);
	assert_int_equal(read(up[0], &a, sizeof(a)), (ssize_t)sizeof(a));
	assert_true(a != 0);
	assert_int_equal(ct_sym_refresh((uint32_t)child), 0);
	close(go[1]);
	waitpid(child, NULL, 0);
	close(up[0]);
	assert_string_equal(ct_sym_lookup((uint32_t)child, a), "ns::Klass::method(int, float)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_executable_functions, teardown),
		cmocka_unit_test_teardown(test_cached_answer_is_stable, teardown),
		cmocka_unit_test_teardown(test_library_loaded_after_first_lookup, teardown),
		cmocka_unit_test_teardown(test_cxx_names_are_demangled, teardown),
		cmocka_unit_test_teardown(test_local_function_needs_symtab, teardown),
		cmocka_unit_test_teardown(test_unknown_addresses, teardown),
		cmocka_unit_test_teardown(test_process_that_does_not_exist, teardown),
		cmocka_unit_test_teardown(test_other_process_shares_the_file_cache, teardown),
		cmocka_unit_test_teardown(test_library_of_a_process_that_exited, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
