/* SPDX-License-Identifier: MIT */
#ifndef CT_LOG_H
#define CT_LOG_H

enum ct_log_level { CT_LOG_ERROR = 0, CT_LOG_WARN, CT_LOG_INFO, CT_LOG_DEBUG };

extern int ct_verbosity; /* messages above this level are not printed */

__attribute__((format(printf, 2, 3)))
void ct_log(int level, const char *fmt, ...);

/* What a user needs to know in a normal run (where a file went, that tracing
 * began): shown unless -q, without a "warning:" prefix. */
__attribute__((format(printf, 1, 2)))
void ct_note(const char *fmt, ...);

#define ct_err(...) ct_log(CT_LOG_ERROR, __VA_ARGS__)
#define ct_warn(...) ct_log(CT_LOG_WARN, __VA_ARGS__)
#define ct_info(...) ct_log(CT_LOG_INFO, __VA_ARGS__)
#define ct_dbg(...) ct_log(CT_LOG_DEBUG, __VA_ARGS__)

#endif
