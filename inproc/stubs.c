// SPDX-License-Identifier: MIT
/* A stub library's registration with the core (its stubs come from gen_stubs.py). */
#include "inproc.h"

extern const char *const ct_stub_names[] CT_HIDDEN;
extern const char *const ct_stub_apis[] CT_HIDDEN;
extern struct ct_slot ct_stub_slots[] CT_HIDDEN;
extern const unsigned ct_stub_count CT_HIDDEN;

__attribute__((constructor)) static void ct_stubs_register(void)
{
	ct_inproc_register(ct_stub_names, ct_stub_apis, ct_stub_slots, ct_stub_count);
}
