// SPDX-License-Identifier: MIT
/*
 * What the device fallback believes (core/decode/nvgpus.c, procgpu.c,
 * procenv.c): a driver information file gives a GPU only with a valid minor
 * and UUID, whatever else it holds; only /dev/nvidiaN links are GPUs; and
 * CUDA_VISIBLE_DEVICES is counted as the runtime reads it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "decode/nvgpus.h"
#include "decode/procenv.h"
#include "decode/procgpu.h"

#define UUID "GPU-0a1b2c3d-0000-1111-2222-333344445555"

static int parse(const char *text, struct ct_gpu_info *g)
{
	return ct_nvgpu_parse(text, strlen(text), g);
}

static void information_files(void **state)
{
	struct ct_gpu_info g;
	char *big;

	(void)state;
	assert_int_equal(parse("Model: \t\t NVIDIA H100\nGPU UUID: \t " UUID "\nBus Location: \t 0000:3b:00.0\n"
			       "Device Minor: \t 7\nGPU Excluded:\t No\n", &g), 0);
	assert_int_equal(g.minor, 7);
	assert_string_equal(g.uuid, UUID);
	assert_string_equal(g.bus, "0000:3b:00.0");
	/* no bus: still the GPU, with none */
	assert_int_equal(parse("GPU UUID: " UUID "\nDevice Minor: 0", &g), 0);
	assert_string_equal(g.bus, "");
	/* a bus that is not one is left out */
	assert_int_equal(parse("GPU UUID: " UUID "\nDevice Minor: 0\nBus Location: 0000:3b:00.0;rm -rf\n", &g), 0);
	assert_string_equal(g.bus, "");
	/* no UUID, a short or long or foreign one, no minor, nvidiactl's, a sign */
	assert_int_equal(parse("Device Minor: 0\n", &g), -EINVAL);
	assert_int_equal(parse("GPU UUID: GPU-0a1b\nDevice Minor: 0\n", &g), -EINVAL);
	assert_int_equal(parse("GPU UUID: " UUID "0\nDevice Minor: 0\n", &g), -EINVAL);
	assert_int_equal(parse("GPU UUID: MIG-0a1b2c3d-0000-1111-2222-333344445555\nDevice Minor: 0\n", &g), -EINVAL);
	assert_int_equal(parse("GPU UUID: " UUID "\n", &g), -EINVAL);
	assert_int_equal(parse("GPU UUID: " UUID "\nDevice Minor: 255\n", &g), -EINVAL);
	assert_int_equal(parse("GPU UUID: " UUID "\nDevice Minor: -1\n", &g), -EINVAL);
	assert_int_equal(parse("GPU UUID: " UUID "\nDevice Minor: 00001\n", &g), -EINVAL);
	/* a key inside a long line is not a key */
	big = malloc(70000);
	assert_non_null(big);
	memset(big, 'A', 69000);
	strcpy(big + 69000, "GPU UUID: " UUID "\nDevice Minor: 1\n");
	assert_int_equal(parse(big, &g), -EINVAL);
	big[68999] = '\n';
	assert_int_equal(parse(big, &g), 0);
	assert_int_equal(g.minor, 1);
	free(big);
}

static int32_t minor(const char *link)
{
	return ct_procgpu_minor_of_link(link, strlen(link));
}

static void device_links(void **state)
{
	(void)state;
	assert_int_equal(minor("/dev/nvidia0"), 0);
	assert_int_equal(minor("/dev/nvidia17"), 17);
	assert_int_equal(minor("/dev/nvidia253"), 253);
	assert_int_equal(minor("/dev/nvidiactl"), -1);
	assert_int_equal(minor("/dev/nvidia-uvm"), -1);
	assert_int_equal(minor("/dev/nvidia-uvm-tools"), -1);
	assert_int_equal(minor("/dev/nvidia-modeset"), -1);
	assert_int_equal(minor("/dev/nvidia254"), -1);
	assert_int_equal(minor("/dev/nvidia1000"), -1);
	assert_int_equal(minor("/dev/nvidia01"), -1);
	assert_int_equal(minor("/dev/nvidia"), -1);
	assert_int_equal(minor("/dev/nvidia0 (deleted)"), -1);
	assert_int_equal(minor("/tmp/dev/nvidia0"), -1);
	assert_int_equal(minor("socket:[1234]"), -1);
}

static int visible(const char *v)
{
	return ct_visible_devices_count(v, strlen(v));
}

static void visible_devices(void **state)
{
	(void)state;
	assert_int_equal(visible("0"), 1);
	assert_int_equal(visible("3,1"), 2);
	assert_int_equal(visible("3,"), 1);
	assert_int_equal(visible(UUID), 1);
	assert_int_equal(visible("MIG-0a1b2c3d-0000-1111-2222-333344445555"), 1);
	assert_int_equal(visible(""), 0);
	assert_int_equal(visible("-1"), 0);
	assert_int_equal(visible("1,-1,2"), 1); /* the runtime stops at -1 */
	assert_int_equal(visible("GPU-"), 0);
	assert_int_equal(visible(" 0"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(information_files),
		cmocka_unit_test(device_links),
		cmocka_unit_test(visible_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
