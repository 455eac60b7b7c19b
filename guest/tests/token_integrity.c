// SPDX-License-Identifier: GPL-2.0
/*
 * Memory survives thrashing with the swap token on, byte for byte.  Three
 * children each fill half of RAM with a pattern unique to every word, page,
 * process and pass; each pass checks every word and rewrites the page with
 * the next pass's pattern, so every page goes to swap dirty and comes back;
 * a final pass checks every byte once more.  A short check interval and
 * timeout make the token change hands often meanwhile.  One child leaves
 * transparent huge pages allowed, so huge pages are split and swapped too.
 * Every byte must be checked and none may be wrong.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define PROCS		3
#define PASSES		2
#define PASS_S		20	/* no new pass after this long */

int main(void)
{
	long long taken, swpin, swpout, checked = 0, expect = 0, bad = 0;
	struct thrash_spec spec[PROCS];
	struct thrash_stat *st;
	pid_t pid[PROCS];
	int finished = 0;
	double start;
	long mem;

	mem = token_begin(4, 200, 2000);
	st = thrash_stats(PROCS);
	taken = token_stat("taken");
	swpin = vmstat("pswpin");
	swpout = vmstat("pswpout");
	start = now_s();
	for (int i = 0; i < PROCS; i++) {
		spec[i] = (struct thrash_spec){ .name = "integrity", .mb = mem / 2, .seed = i,
						.thp = i == 1, .full = 1, .passes = PASSES,
						.seconds = PASS_S };
		pid[i] = thrash_spawn(&spec[i], &st[i]);
	}
	for (int i = 0; i < PROCS; i++) {
		int status = pid[i] > 0 ? wait_exit(pid[i], 600) : -1;

		finished += (status == 0 || status == 1) && st[i].done;
		checked += st[i].checked;
		bad += st[i].bad;
		expect += (st[i].passes + 1) * ((long long)spec[i].mb << 20);
		ksft_print_msg("child %d: %ld MB%s, %ld passes, exit %d\n", i, spec[i].mb,
			       spec[i].thp ? " (THP)" : "", st[i].passes, status);
	}
	taken = token_stat("taken") - taken;
	ksft_print_msg("%d x %ld MB on %ld MB of RAM in %.1f s: pswpin +%lld, pswpout +%lld, swap_token_taken +%lld\n",
		       PROCS, spec[0].mb, mem, now_s() - start, vmstat("pswpin") - swpin,
		       vmstat("pswpout") - swpout, taken);
	ksft_print_msg("bytes verified %lld, bytes wrong %lld\n", checked, bad);
	ksft_test_result(finished == PROCS && checked == expect,
			 "every child checked every byte after each pass\n");
	ksft_test_result(finished == PROCS && !bad, "no byte was wrong\n");
	ksft_test_result(taken > 0, "the token changed hands meanwhile (swap_token_taken)\n");
	check_no_oom_kill();
	ksft_finished();
}
