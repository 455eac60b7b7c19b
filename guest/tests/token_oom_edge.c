// SPDX-License-Identifier: GPL-2.0
/*
 * The OOM edge: the token must never cause an OOM kill that would not
 * happen without it.  In a guest with a small swap (make check boots one
 * with 128 MB), three processes together fill 78% of RAM + swap and check
 * every word of their memory twice over, in rounds with the token off and
 * on, interleaved.  OOM kills (vmstat oom_kill) are counted per setting:
 * with the token on there must be no more than with it off.  Every byte
 * that survived must be right.
 *
 * guest_oom_rounds=N (default 3) on the kernel command line sets the rounds
 * per setting.  Skipped when swap is larger than 512 MB: the load would
 * take too long to page through.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define PROCS 3

int main(void)
{
	long long kills[2] = { 0, 0 }, checked = 0, bad = 0;
	long mem, swap, rounds = 3, died[2] = { 0, 0 };
	struct thrash_spec spec;
	struct thrash_stat *st;
	char buf[16];

	ksft_print_header();
	swap = token_oom_boot();
	mem = mem_mb();
	if (cmdline_param("guest_oom_rounds", buf, sizeof(buf)))
		rounds = atol(buf);
	ksft_set_plan(2);
	spec = (struct thrash_spec){ .name = "edge", .full = 1, .passes = 2,
				     .mb = (mem + swap) * 78 / 100 / PROCS };
	ksft_print_msg("RAM %ld MB, swap %ld MB: %d x %ld MB, %ld rounds per setting\n",
		       mem, swap, PROCS, spec.mb, rounds);
	st = thrash_stats(PROCS);
	for (long r = 0; r < 2 * rounds; r++) {
		int on = r % 2;
		long long before = vmstat("oom_kill");
		pid_t pid[PROCS];

		must_set(TOKEN_ENABLE, on);
		memset(st, 0, PROCS * sizeof(*st));
		for (int i = 0; i < PROCS; i++) {
			spec.seed = r * PROCS + i + 1;
			pid[i] = thrash_spawn(&spec, &st[i]);
		}
		for (int i = 0; i < PROCS; i++) {
			int rc = wait_exit(pid[i], 900);

			died[on] += rc != 0 && rc != 1;
			checked += st[i].checked;
			bad += st[i].bad;
		}
		kills[on] += vmstat("oom_kill") - before;
		ksft_print_msg("round %ld, token %s: oom_kill +%lld\n", r + 1, on ? "on" : "off",
			       vmstat("oom_kill") - before);
	}
	settings_restore();
	ksft_print_msg("OOM kills: token off %lld, on %lld; processes killed or lost: off %ld, on %ld\n",
		       kills[0], kills[1], died[0], died[1]);
	ksft_test_result(kills[1] <= kills[0], "OOM kills with the token (%lld) <= without (%lld)\n",
			 kills[1], kills[0]);
	ksft_test_result(!bad && checked > 0, "%lld bytes checked, %lld wrong\n", checked, bad);
	ksft_finished();
}
