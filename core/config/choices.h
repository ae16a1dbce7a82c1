/* SPDX-License-Identifier: MIT */
/*
 * What the [tracer] choice keys hold. Each key's row in the key table
 * (config.c) lists its words in the order of its enum, so the code that
 * reads the config compares numbers, never words.
 */
#ifndef CT_CHOICES_H
#define CT_CHOICES_H

enum ct_profile { CT_PROFILE_DEFAULT, CT_PROFILE_FULL };
enum ct_attach_mode { CT_ATTACH_AUTO, CT_ATTACH_MULTI, CT_ATTACH_SINGLE, CT_ATTACH_SESSION };
enum ct_trace_mode { CT_MODE_EVENTS, CT_MODE_AGGREGATE };
enum ct_reader_priority { CT_READER_HIGH, CT_READER_NORMAL };
enum ct_engine_kind { CT_ENGINE_EBPF, CT_ENGINE_INPROC };
enum ct_stack_method { CT_STACK_FP, CT_STACK_DWARF };
enum ct_inproc_clock { CT_INPROC_CLOCK_AUTO, CT_INPROC_CLOCK_MONOTONIC };

#endif
