/* SPDX-License-Identifier: MIT */
#ifndef CT_REPORT_H
#define CT_REPORT_H

/* The subcommand: cudatracer report TRACE.jsonl[.gz] [-o TYPE[:PATH]]... */
int ct_report_main(int argc, char **argv);

#endif
