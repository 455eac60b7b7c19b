// SPDX-License-Identifier: GPL-2.0
/*
 * qsbench: the classic thrashing benchmark, written from its description
 * (Lorenzo Allegrucci, 2002).  The parent forks -p children; each fills an
 * array of -m MB with rand() after srand(seed), quicksorts it and checks
 * that it is sorted.  A wrong result is a failure (exit 1).  -b adds one
 * more child with an array of -b MB (the "huge" bench scenario: one big
 * process among small ones).  With -d N each value of rand() is written N
 * times in a row: the pages then compress as memory usually does, where
 * swap is zram (-d 4: LZ4 makes a 4 KB page 0.44 of its size once filled,
 * falling to 0.31 as the sort goes on; -d 1, the default, leaves them
 * incompressible, and zram's store of them then fills RAM).  Prints the
 * wall time of the whole run, and of each child with -v.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "guest.h"

static long repeat = 1;	/* each value written this many times in a row */

static void usage(const char *msg)
{
	fprintf(stderr, "qsbench: %s\nusage: qsbench [-p procs] [-m MB] [-b big MB] [-s seed] [-d dup] [-v]\n", msg);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void swap_int(int *a, int *b)
{
	int t = *a;

	*a = *b;
	*b = t;
}

/* Quicksort with a median-of-three pivot; recurse on the smaller half. */
static void qsort_int(int *a, long lo, long hi)
{
	while (hi - lo > 16) {
		long mid = lo + (hi - lo) / 2, i = lo, j = hi;
		int pivot;

		if (a[mid] < a[lo])
			swap_int(&a[mid], &a[lo]);
		if (a[hi] < a[lo])
			swap_int(&a[hi], &a[lo]);
		if (a[hi] < a[mid])
			swap_int(&a[hi], &a[mid]);
		pivot = a[mid];
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j)
				swap_int(&a[i++], &a[j--]);
		}
		if (j - lo < hi - i) {
			qsort_int(a, lo, j);
			lo = i;
		} else {
			qsort_int(a, i, hi);
			hi = j;
		}
	}
	for (long i = lo + 1; i <= hi; i++) {
		int v = a[i];
		long k = i - 1;

		while (k >= lo && a[k] > v) {
			a[k + 1] = a[k];
			k--;
		}
		a[k + 1] = v;
	}
}

static int child(long mb, unsigned int seed, int verbose, int id)
{
	long n = mb * 1048576 / sizeof(int);
	double start = now();
	int *a = mmap(NULL, n * sizeof(int), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED) {
		perror("qsbench: mmap");
		return 1;
	}
	srand(seed);
	for (long i = 0; i < n; i++)
		a[i] = i % repeat ? a[i - 1] : rand();
	qsort_int(a, 0, n - 1);
	for (long i = 1; i < n; i++) {
		if (a[i - 1] > a[i]) {
			fprintf(stderr, "qsbench: child %d: array not sorted at %ld\n", id, i);
			return 1;
		}
	}
	if (verbose)
		printf("qsbench: child %d (pid %d) sorted %ld MB in %.2f s\n",
		       id, getpid(), mb, now() - start);
	return 0;
}

int main(int argc, char **argv)
{
	long procs = 1, mb = 10, big = 0, seed = 1;
	int opt, verbose = 0, failed = 0, status;
	double start;

	while ((opt = getopt(argc, argv, "p:m:b:s:d:v")) != -1) {
		switch (opt) {
		case 'p': procs = arg_num("qsbench", "-p", optarg, 1, 1024); break;
		case 'm': mb = arg_num("qsbench", "-m", optarg, 1, 1 << 20); break;
		case 'd': repeat = arg_num("qsbench", "-d", optarg, 1, 1024); break;
		case 'b': big = arg_num("qsbench", "-b", optarg, 1, 1 << 20); break;
		case 's': seed = arg_num("qsbench", "-s", optarg, 0, 0x7fffffff); break;
		case 'v': verbose = 1; break;
		default: usage("unknown option");
		}
	}
	if (optind != argc)
		usage("unexpected argument");

	setvbuf(stdout, NULL, _IOLBF, 0);
	start = now();
	for (int i = 0; i < procs + !!big; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("qsbench: fork");
			return 1;
		}
		if (pid == 0)
			_exit(child(i < procs ? mb : big, seed, verbose, i));
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (big)
		printf("qsbench: %ld x %ld MB + 1 x %ld MB: %.2f s%s\n", procs, mb, big,
		       now() - start, failed ? " (FAILED)" : "");
	else
		printf("qsbench: %ld x %ld MB: %.2f s%s\n", procs, mb, now() - start,
		       failed ? " (FAILED)" : "");
	return failed;
}
