// SPDX-License-Identifier: GPL-2.0
/*
 * hogint: a memory hog and an interactive process.  The hog (comm "hog")
 * maps -m MB and writes one word per page over it, pass after pass, until it
 * is killed.  The interactive process (comm "interactive") fills -w MB, then
 * -i times sleeps -s ms and reads its whole working set back, timing each
 * wake-up to done.  Prints the latency percentiles and how fast the hog
 * went.  -m 0 runs the interactive process alone (its latency floor).
 * The load of the 2004 mem_load complaint: a hog that holds the token must
 * not make the interactive process wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "guest.h"
#include "thrash.h"

static void usage(const char *msg)
{
	fprintf(stderr, "hogint: %s\n"
		"usage: hogint [-m hog MB] [-w working set MB] [-i iterations] [-s sleep ms]\n", msg);
	exit(2);
}

static void hog(const void *arg, struct thrash_stat *st)
{
	long mb = *(const long *)arg;
	size_t pages = (size_t)mb << 8;
	uint64_t *mem;

	prctl(PR_SET_NAME, "hog");
	mem = thrash_region(mb, 0);
	if (!mem)
		_exit(3);
	for (uint64_t n = 1;; n++) {
		for (size_t p = 0; p < pages; p++)
			mem[p * THRASH_WORDS] = n;
		st->passes++;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The value at rank ceil(q * n) of n sorted samples. */
static double percentile(const double *v, long n, double q)
{
	long k = (long)(q * n + 0.999999);

	return v[k < 1 ? 0 : k - 1];
}

int main(int argc, char **argv)
{
	long hog_mb = 256, ws_mb = 16, iters = 50, sleep_ms = 500;
	struct thrash_stat *st;
	double *lat, start, hog_start;
	long long bad = 0;
	size_t pages;
	uint64_t *ws;
	pid_t pid = 0;
	int opt;

	while ((opt = getopt(argc, argv, "m:w:i:s:")) != -1) {
		switch (opt) {
		case 'm': hog_mb = arg_num("hogint", "-m", optarg, 0, 1 << 20); break;
		case 'w': ws_mb = arg_num("hogint", "-w", optarg, 1, 1 << 20); break;
		case 'i': iters = arg_num("hogint", "-i", optarg, 1, 100000); break;
		case 's': sleep_ms = arg_num("hogint", "-s", optarg, 0, 3600000); break;
		default: usage("unknown option");
		}
	}
	if (optind != argc)
		usage("unexpected argument");

	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_NAME, "interactive");
	pages = (size_t)ws_mb << 8;
	lat = calloc(iters, sizeof(*lat));
	ws = thrash_region(ws_mb, 0);
	if (!lat || !ws) {
		perror("hogint");
		return 1;
	}
	for (size_t p = 0; p < pages; p++)
		thrash_fill_page(ws + p * THRASH_WORDS, 1, p);
	st = thrash_stats(1);
	start = hog_start = now_s();
	if (hog_mb) {
		pid = spawn(hog, &hog_mb, st);
		if (pid < 0) {
			perror("hogint: fork");
			return 1;
		}
	}
	for (long i = 0; i < iters; i++) {
		double t;

		sleep_s(sleep_ms / 1000.0);
		t = now_s();
		for (size_t p = 0; p < pages; p++)
			if (ws[p * THRASH_WORDS] != thrash_word(1, p, 0))
				bad++;
		lat[i] = (now_s() - t) * 1000;
	}
	if (pid) {
		thrash_kill(pid);
		if (!st->passes)
			fprintf(stderr, "hogint: the hog never finished a pass\n");
	}
	qsort(lat, iters, sizeof(*lat), cmp_double);
	printf("hogint: %ld MB hog, %ld MB x %ld: p50 %.1f ms p99 %.1f ms max %.1f ms,"
	       " hog %.1f MB/s: %.2f s%s\n", hog_mb, ws_mb, iters,
	       percentile(lat, iters, 0.5), percentile(lat, iters, 0.99), lat[iters - 1],
	       hog_mb * st->passes / (now_s() - hog_start), now_s() - start,
	       bad ? " (FAILED)" : "");
	return bad != 0;
}
