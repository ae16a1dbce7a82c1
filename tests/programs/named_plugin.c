// SPDX-License-Identifier: MIT
/* A plugin of one API whose name and library are the build's (-DNAME=watchN):
 * distinct plugins in any number, for tests that need several loaded at once
 * (test_privilege_verifier: the watcher with 1 to 8 plugins' patterns). */
#include <cudatracer/plugin.h>

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct ct_api apis[] = {
	CT_API(STR(NAME) "Call", 0, CT_ARGS(CT_ARG("n", CT_ARG_INT, CT_SLOT(0), 4, CT_ROLE_NONE))),
};

static const struct ct_plugin plugin = {
	CT_PLUGIN_HEAD,
	.name = STR(NAME),
	.version = "1",
	.description = "a test plugin",
	CT_LIBRARIES("lib" STR(NAME) ".so"),
	CT_APIS(apis),
};

CT_PLUGIN_DEFINE(plugin)
