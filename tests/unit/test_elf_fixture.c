// SPDX-License-Identifier: MIT
/*
 * A shared library for test_elf, one symbol per rule of the ELF reader
 * (core/symbols/elf.h): an IFUNC and the implementation it picks, a name
 * with a default and a compat version, a name with only a compat version,
 * a zero-size function written in assembly, a sized one, a local one.
 * Linked with test_elf_fixture.map, which defines the versions.
 */
#define NOINLINE __attribute__((noinline, used))

NOINLINE int fixture_sized(int x)
{
	return x * 5 + 3;
}

static NOINLINE int fixture_local(int x)
{
	return x * 3 + fixture_sized(x);
}

void *fixture_local_addr(void)
{
	return (void *)fixture_local;
}

/* The implementation is local: only .symtab names it. */
static NOINLINE int fixture_ifunc_impl(int x)
{
	return x + 42;
}

static int (*fixture_ifunc_resolver(void))(int)
{
	return fixture_ifunc_impl;
}

int fixture_ifunc(int x) __attribute__((ifunc("fixture_ifunc_resolver")));

/* What the resolver runs at: the test names an address inside it. */
void *fixture_ifunc_resolver_addr(void)
{
	return (void *)fixture_ifunc_resolver;
}

__asm__(".symver fixture_versioned_v1, fixture_versioned@VERS_1");
__asm__(".symver fixture_versioned_v2, fixture_versioned@@VERS_2");
__asm__(".symver fixture_old_only_v1, fixture_old_only@VERS_1");

NOINLINE int fixture_versioned_v1(void)
{
	return 1;
}

NOINLINE int fixture_versioned_v2(void)
{
	return 2;
}

NOINLINE int fixture_old_only_v1(void)
{
	return 3;
}

/* No .size: the symbol's size is 0, as in much hand-written assembly. */
#if defined(__x86_64__)
__asm__(".text\n.globl fixture_zero_size\n.type fixture_zero_size, @function\n"
	"fixture_zero_size:\n\tmovl $7, %eax\n\tret\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl fixture_zero_size\n.type fixture_zero_size, %function\n"
	"fixture_zero_size:\n\tmov w0, #7\n\tret\n");
#else
#error "fixture_zero_size: add this architecture's two instructions"
#endif
