// SPDX-License-Identifier: MIT
/*
 * TSC cycles to CLOCK_MONOTONIC ns for the in-process engine's records
 * (see tsc.h). A pair is one rdtsc between two clock_gettime calls, the
 * narrowest of a few, taken at its middle. The first two pairs, 10 ms
 * apart, give the rate; every later check measures the rate over the last
 * interval again (CLOCK_MONOTONIC is slewed by NTP, the TSC is not) and
 * starts a new piece where the current one stands, at a rate that brings
 * it back onto CLOCK_MONOTONIC by the next check: no step, so a call's
 * times stay in order whichever piece converts them. Durations take the
 * measured rate, not the slewed one. Intervals double from
 * 20 ms to a second, so that the first rate's error (tens of ns over
 * 10 ms) never builds up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "capture/tsc.h"
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define CALIBRATE_NS 10000000ull
#define MAX_INTERVAL_NS 1000000000ull
#define PAIR_TRIES 7
/* Slewing faster than this (1000 ppm) means the TSC did not keep time
 * (a VM paused and resumed?): the conversion steps to the pair instead. */
#define MAX_SLEW_PPM 1000

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cycles(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return 0;
#endif
}

static void pair(uint64_t *c, uint64_t *n)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < PAIR_TRIES; i++) {
		uint64_t a = mono_ns(), t = cycles(), b = mono_ns();

		if (b - a < best) {
			best = b - a;
			*c = t;
			*n = a + (b - a) / 2;
		}
	}
}

static bool file_has(const char *path, const char *line_start, const char *word)
{
	char buf[8192];
	size_t wl = strlen(word);
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(buf, sizeof(buf), f)) {
		char *p = buf;

		if (strncmp(buf, line_start, strlen(line_start)))
			continue;
		while ((p = strstr(p, word))) {
			if ((p == buf || p[-1] == ' ' || p[-1] == '\t') && (p[wl] == ' ' || p[wl] == '\n' || !p[wl])) {
				found = true;
				break;
			}
			p += wl;
		}
		break; /* cpuinfo: every CPU has the same flags as the first */
	}
	fclose(f);
	return found;
}

bool ct_tsc_usable(char *why, size_t len)
{
	char src[64] = "";
	FILE *f;

#if !defined(__x86_64__)
	snprintf(why, len, "not an x86-64 CPU");
	return false;
#endif
	if (!file_has("/proc/cpuinfo", "flags", "constant_tsc") || !file_has("/proc/cpuinfo", "flags", "nonstop_tsc")) {
		snprintf(why, len, "the TSC is not invariant (/proc/cpuinfo lacks constant_tsc or nonstop_tsc)");
		return false;
	}
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f || !fgets(src, sizeof(src), f))
		src[0] = 0;
	if (f)
		fclose(f);
	src[strcspn(src, "\n")] = 0;
	/* The kernel keeps the TSC as its clock only where it found it in step
	 * on every CPU, and drops it if its watchdog sees it drift. */
	if (strcmp(src, "tsc")) {
		snprintf(why, len, "the kernel's clocksource is %s, not tsc", src[0] ? src : "unknown");
		return false;
	}
	snprintf(why, len, "invariant TSC, the kernel's clocksource");
	return true;
}

static uint64_t eval(const struct ct_tsc_piece *p, uint64_t c)
{
	__int128 d = (__int128)(int64_t)(c - p->at) * (__int128)p->mult;

	return p->zero + (uint64_t)(int64_t)(d >> CT_TSC_SHIFT);
}

static uint64_t rate(uint64_t dc, uint64_t dn)
{
	return dc ? (uint64_t)(((unsigned __int128)dn << CT_TSC_SHIFT) / dc) : 0;
}

struct ct_tsc_piece ct_tsc_next_piece(const struct ct_tsc_piece *cur, uint64_t c, uint64_t n, uint64_t prev_c,
				      uint64_t prev_n, bool *snapped)
{
	uint64_t dc = c - prev_c, dn = n - prev_n, mult, at_c = eval(cur, c);
	int64_t err = (int64_t)(n - at_c);
	__int128 fix;

	*snapped = false;
	if (c <= prev_c || n <= prev_n || !(mult = rate(dc, dn))) {
		*snapped = true;
		return (struct ct_tsc_piece){ c, n, cur->mult };
	}
	/* Aim to be on CLOCK_MONOTONIC one interval from now. */
	fix = (__int128)err * ((__int128)1 << CT_TSC_SHIFT) / (__int128)dc; /* err may be negative: no shift */
	if ((err < 0 ? -err : err) > (int64_t)(dn / (1000000 / MAX_SLEW_PPM)) || (__int128)mult + fix <= 0) {
		*snapped = true;
		return (struct ct_tsc_piece){ c, n, mult };
	}
	return (struct ct_tsc_piece){ c, at_c, (uint64_t)((__int128)mult + fix) };
}

int ct_tsc_clock_start(struct ct_tsc_clock *c)
{
	uint64_t c0, n0, c1, n1;

	memset(c, 0, sizeof(*c));
	pair(&c0, &n0);
	nanosleep(&(struct timespec){ 0, CALIBRATE_NS }, NULL);
	pair(&c1, &n1);
	if (c1 <= c0 || n1 <= n0)
		return -EINVAL;
	c->rate = rate(c1 - c0, n1 - n0);
	c->cur = (struct ct_tsc_piece){ c1, n1, c->rate };
	c->prev = c->cur;
	c->meas_c = c1;
	c->meas_n = n1;
	c->interval_ns = 2 * CALIBRATE_NS;
	c->next_ns = n1 + c->interval_ns;
	return 0;
}

void ct_tsc_clock_check(struct ct_tsc_clock *c, uint64_t now)
{
	uint64_t cy, n;
	bool snapped;

	if (now < c->next_ns)
		return;
	pair(&cy, &n);
	c->prev = c->cur;
	c->cur = ct_tsc_next_piece(&c->prev, cy, n, c->meas_c, c->meas_n, &snapped);
	if (cy > c->meas_c && n > c->meas_n)
		c->rate = rate(cy - c->meas_c, n - c->meas_n);
	c->meas_c = cy;
	c->meas_n = n;
	c->checks++;
	c->snaps += snapped;
	if (c->interval_ns < MAX_INTERVAL_NS)
		c->interval_ns *= 2;
	c->next_ns = n + c->interval_ns;
}

uint64_t ct_tsc_ns(const struct ct_tsc_clock *c, uint64_t cy)
{
	return eval(cy >= c->cur.at ? &c->cur : &c->prev, cy);
}

uint64_t ct_tsc_dur_ns(const struct ct_tsc_clock *c, uint64_t cy)
{
	return (uint64_t)(((unsigned __int128)cy * c->rate) >> CT_TSC_SHIFT);
}
