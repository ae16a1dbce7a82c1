// SPDX-License-Identifier: MIT
/*
 * A shared library with known symbols for test_symbolizer: a C function, functions
 * under C++ (mangled) names like the host stubs nvcc emits for kernels, a
 * local function only .symtab knows, and a data object.
 */
#define NOINLINE __attribute__((noinline, used))

NOINLINE int fixture_c_function(int x)
{
	return x + 1;
}

/* The host stub nvcc emits for `template <class T> __global__ void kernel(T *, int)`. */
void fixture_template_stub(float *p, int n) __asm__("_Z6kernelIfEvPT_i");
NOINLINE void fixture_template_stub(float *p, int n)
{
	if (p)
		p[0] = (float)n;
}

void fixture_method(int a, float b) __asm__("_ZN2ns5Klass6methodEif");
NOINLINE void fixture_method(int a, float b)
{
	volatile float sink = (float)a + b;
	(void)sink;
}

static NOINLINE int fixture_local(int x)
{
	return x * 3 + fixture_c_function(x);
}

void *fixture_local_addr(void)
{
	return (void *)fixture_local;
}

int fixture_data[16] = { 5 };
