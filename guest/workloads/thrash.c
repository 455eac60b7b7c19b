// SPDX-License-Identifier: GPL-2.0
/*
 * thrash: -p children each fill -m MB of anonymous memory with a pattern and
 * cycle over it for -n passes (or until -t seconds have passed), reading one
 * word per page, or with -f checking every word and rewriting every page.
 * The memory workload of the swap token tests (guest/lib/thrash.h) as a
 * command, for experiments.  -w prints, every second, the swap token holder
 * and each child's VmRSS and major faults.  Exit status 1 if a child saw a
 * wrong byte or died.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "guest.h"
#include "thrash.h"

static void usage(const char *msg)
{
	fprintf(stderr, "thrash: %s\n"
		"usage: thrash [-p procs] [-m MB] [-n passes] [-t seconds] [-f] [-H] [-w]\n", msg);
	exit(2);
}

static void watch(const pid_t *pid, int procs, const struct thrash_stat *st, double start)
{
	char holder[64];

	for (;;) {
		int running = 0;

		sleep_s(1);
		if (read_file("/proc/sys/vm/swap_token_holder", holder, sizeof(holder)))
			snprintf(holder, sizeof(holder), "-");
		printf("thrash: %5.1f s holder %-16s", now_s() - start, holder);
		for (int i = 0; i < procs; i++) {
			if (st[i].done)
				continue;
			running++;
			printf(" | %d: %ld MB %ld majflt %ld passes", pid[i],
			       pid_status_kb(pid[i], "VmRSS") >> 10, pid_majflt(pid[i]),
			       st[i].passes);
		}
		printf("\n");
		if (!running)
			return;
	}
}

int main(int argc, char **argv)
{
	struct thrash_spec spec = { .name = "thrash", .mb = 64, .passes = 1, .seed = 1 };
	long procs = 1, failed = 0;
	int opt, verbose = 0;
	struct thrash_stat *st;
	pid_t pid[THRASH_MAX];
	double start;

	while ((opt = getopt(argc, argv, "p:m:n:t:fHw")) != -1) {
		switch (opt) {
		case 'p': procs = arg_num("thrash", "-p", optarg, 1, THRASH_MAX); break;
		case 'm': spec.mb = arg_num("thrash", "-m", optarg, 1, 1 << 20); break;
		case 'n': spec.passes = arg_num("thrash", "-n", optarg, 0, 1L << 30); break;
		case 't': spec.seconds = arg_num("thrash", "-t", optarg, 0, 1 << 20); break;
		case 'f': spec.full = 1; break;
		case 'H': spec.thp = 1; break;
		case 'w': verbose = 1; break;
		default: usage("unknown option");
		}
	}
	if (optind != argc)
		usage("unexpected argument");
	if (!spec.passes && !spec.seconds)
		usage("-n 0 needs -t");

	setvbuf(stdout, NULL, _IOLBF, 0);
	st = thrash_stats(procs);
	start = now_s();
	for (int i = 0; i < procs; i++) {
		pid[i] = thrash_spawn(&spec, &st[i]);
		if (pid[i] < 0) {
			perror("thrash: fork");
			return 1;
		}
	}
	if (verbose)
		watch(pid, procs, st, start);
	for (int i = 0; i < procs; i++) {
		int status = wait_exit(pid[i], 1e9);

		failed |= status != 0;
		printf("thrash: child %d (pid %d): %ld passes, %lld bytes checked, %lld wrong, exit %d\n",
		       i, pid[i], st[i].passes, st[i].checked, st[i].bad, status);
	}
	printf("thrash: %ld x %ld MB%s: %.2f s%s\n", procs, spec.mb, spec.full ? " (full)" : "",
	       now_s() - start, failed ? " (FAILED)" : "");
	return failed;
}
