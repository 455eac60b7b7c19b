// SPDX-License-Identifier: GPL-2.0
/*
 * The waits (vm.swap_token_wait_ms, patches/experiments) under real
 * pressure.  Each phase runs two processes that cycle over their memory
 * for 20 s, with the waits at 20 ms:
 *
 *  - two of 60% of RAM each: one holds the token, eviction spares its
 *    memory, and the other's major faults wait (swap_token_waited
 *    rises), at most one wait per fault: no more waits than the major
 *    faults of the whole machine meanwhile;
 *  - one of 90% of RAM, above the size limit (75%), beside one of 30%:
 *    the small one holds the token; the big one, which the token cannot
 *    serve, faults all along but never waits: the waits (of whatever
 *    else faults meanwhile, the shell's pages, say) stay under a tenth
 *    of its major faults, where a big one that waited would wait on most
 *    of them;
 *  - the first phase again with the waits off (0): nobody waits.
 *
 * Every thrasher checks the data it reads back.
 */
#include <signal.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define TOKEN_WAIT	"/proc/sys/vm/swap_token_wait_ms"
#define WAIT_MS		20
#define SECONDS		20

struct phase {
	long long waited, majflt, taken, big_majflt;
	long long checked, bad;
};

/* Two thrashers of mb[0] and mb[1] MB for SECONDS; counters over the run. */
static void phase_run(struct phase *ph, const char *name, long wait_ms, const long *mb)
{
	struct thrash_spec spec[2];
	struct thrash_stat *st = thrash_stats(2);
	long long waited, majflt, taken, big;
	pid_t t[2];

	must_set(TOKEN_WAIT, wait_ms);
	token_reset();
	for (int k = 0; k < 2; k++) {
		spec[k] = (struct thrash_spec){ .name = k ? "thrash-2" : "thrash-1", .mb = mb[k],
						.seed = 70 + k, .seconds = SECONDS };
		t[k] = thrash_spawn(&spec[k], &st[k]);
		if (t[k] < 0)
			ksft_exit_fail_msg("%s: cannot start %s\n", name, spec[k].name);
	}
	if (thrash_wait_cycling(st, 2, 180))
		ksft_exit_fail_msg("%s: the thrashing processes did not start cycling\n", name);
	waited = token_stat("waited");
	majflt = vmstat("pgmajfault");
	taken = token_stat("taken");
	big = pid_majflt(t[0]);
	sleep_s(SECONDS / 2);
	ph->waited = token_stat("waited") - waited;
	ph->majflt = vmstat("pgmajfault") - majflt;
	ph->taken = token_stat("taken") - taken;
	ph->big_majflt = pid_majflt(t[0]) - big;
	thrash_kill_all();
	ph->checked = st[0].checked + st[1].checked;
	ph->bad = st[0].bad + st[1].bad;
	ksft_print_msg("%s: %ld + %ld MB, wait %ld ms: %lld waits, %lld major faults (%lld of %s), %lld takes, %lld MB checked, %lld bytes wrong\n",
		       name, mb[0], mb[1], wait_ms, ph->waited, ph->majflt, ph->big_majflt,
		       spec[0].name, ph->taken, ph->checked >> 20, ph->bad);
}

int main(void)
{
	struct phase two, big, off;
	long mem;

	mem = token_begin(5, 0, 0);
	if (access(TOKEN_WAIT, W_OK))
		ksft_exit_fail_msg("%s is missing\n", TOKEN_WAIT);
	must_set(TOKEN_SIZE_LIMIT, 75);

	phase_run(&two, "two", WAIT_MS, (long[]){ mem * 6 / 10, mem * 6 / 10 });
	phase_run(&big, "big", WAIT_MS, (long[]){ mem * 9 / 10, mem * 3 / 10 });
	phase_run(&off, "off", 0, (long[]){ mem * 6 / 10, mem * 6 / 10 });

	ksft_test_result(two.waited > 0 && two.waited <= two.majflt,
			 "two that fit the token: faults waited (%lld), at most once per major fault (%lld)\n",
			 two.waited, two.majflt);
	ksft_test_result(big.taken > 0 && big.big_majflt > 100 && big.waited * 10 < big.big_majflt,
			 "a process above the size limit never waited (%lld waits, %lld of its major faults)\n",
			 big.waited, big.big_majflt);
	ksft_test_result(off.waited == 0 && off.majflt > 0,
			 "waits off: nobody waited (%lld)\n", off.waited);
	ksft_test_result(two.checked + big.checked + off.checked > 0 &&
			 !two.bad && !big.bad && !off.bad,
			 "the thrashing processes read their data back intact\n");
	check_no_oom_kill();
	ksft_finished();
}
