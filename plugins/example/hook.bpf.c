/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The example's BPF hook: a value the table cannot express. toyLaunch(name,
 * data, n) runs its kernel over n floats; the bytes it touches, n * 4, are
 * derived here at the call's entry and shown as toyLaunch's `bytes` field.
 * Built with clang (`make HOOK=1`); the plugin works without it, and then
 * shows `bytes` as unknown.
 */
#include <cudatracer/hook.bpf.h>
#include "toy_apis.h"

CT_HOOK(c, api, phase)
{
	if (!c || api != TOY_LAUNCH || phase != CT_HOOK_ENTRY)
		return 0;
	c->mem[TOY_LAUNCH_BYTES_WORD] = (__u64)(__u32)c->args[2] * sizeof(float);
	return CT_HOOK_WROTE(TOY_LAUNCH_BYTES_WORD);
}
