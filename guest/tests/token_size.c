// SPDX-License-Identifier: GPL-2.0
/*
 * A process too big for the token cannot take it.  B cycles over 90% of
 * RAM, S1 and S2 over 30% each (150% of RAM together), with a 200 ms check
 * interval and a 3 s timeout.  All three fill their memory first and stop,
 * so B's footprint (resident plus swapped out) is above the limit for the
 * whole of each traced run; then a filler pushes them all out to swap, so
 * that each has to fault its memory back in.
 *
 *  - limit 50% of RAM: B faults but never takes the token, its faults are
 *    counted as refused (swap_token_refused_size), and S1 or S2 takes it
 *    (without the filler the LRU alone might keep the small, busy ones
 *    resident, and they would not need the token);
 *  - no limit (0): in the same load B does take the token.  Without this
 *    control, a B that never contended would pass the first part too.
 *
 * KUnit covers the holder that grows above the limit (release reason
 * "size"); the bench's "huge" scenario measures what the limit is for.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define INTERVAL_MS	200
#define TIMEOUT_MS	3000
#define LIMIT_PCT	50
#define RUN_S		12
#define MAX_EVENTS	4096

static struct token_event ev[MAX_EVENTS];
static pid_t pid[3];	/* B, S1, S2 */

struct run {
	int takes[3];		/* swap_token_take events per process */
	long majflt;		/* B's major faults during the run */
	long long refused;	/* swap_token_refused_size during the run */
};

/*
 * Free the token, resume the processes if they are stopped, trace RUN_S
 * seconds of the load and count who took the token.
 */
static void traced_run(struct run *r, const char *name)
{
	long long refused = token_stat("refused_size");
	long majflt = pid_majflt(pid[0]);
	struct token_counters before, after;
	int n;

	/* The trace first: the first take after the reset may come at once. */
	if (trace_clear())
		ksft_exit_fail_msg("cannot empty the trace buffer: %s\n", strerror(errno));
	token_reset();
	token_counters_read(&before);
	for (int k = 0; k < 3; k++)
		kill(pid[k], SIGCONT);
	sleep_s(RUN_S);
	n = trace_read(ev, MAX_EVENTS);
	if (n < 0)
		ksft_exit_fail_msg("cannot read the trace: %s\n", strerror(-n));
	token_counters_read(&after);
	r->majflt = pid_majflt(pid[0]) - majflt;
	r->refused = token_stat("refused_size") - refused;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			r->takes[k] += ev[i].take && ev[i].pid == pid[k];
	ksft_print_msg("%s: %d events; takes B %d, S1 %d, S2 %d; B %ld major faults, %lld refused\n",
		       name, n, r->takes[0], r->takes[1], r->takes[2], r->majflt, r->refused);
	token_counters_print(name, &before, &after);
}

int main(void)
{
	struct thrash_spec spec[3];
	struct thrash_stat *st;
	struct run limited = { 0 }, unlimited = { 0 };
	long mem;

	mem = token_begin(5, INTERVAL_MS, TIMEOUT_MS);
	must_set(TOKEN_SIZE_LIMIT, LIMIT_PCT);
	if (trace_start())
		test_exit_skip("no tracefs or no swap_token events\n");

	st = thrash_stats(3);
	for (int k = 0; k < 3; k++) {
		static const char *const names[] = { "size-big", "size-small-1", "size-small-2" };

		spec[k] = (struct thrash_spec){ .name = names[k],
						.mb = k ? mem * 3 / 10 : mem * 9 / 10,
						.seed = 20 + k, .stop_filled = 1 };
		pid[k] = thrash_spawn(&spec[k], &st[k]);
		if (pid[k] < 0 || wait_stopped(pid[k], 180))
			ksft_exit_fail_msg("%s did not fill its memory\n", names[k]);
	}
	ksft_print_msg("B %d (%ld MB), S1 %d, S2 %d (%ld MB each), RAM %ld MB, limit %d%%\n",
		       pid[0], spec[0].mb, pid[1], pid[2], spec[1].mb, mem, LIMIT_PCT);
	token_reset();
	if (!fill_fresh(mem * 4 / 5))
		ksft_exit_fail_msg("the filler did not push the processes out to swap\n");

	traced_run(&limited, "limit");
	must_set(TOKEN_SIZE_LIMIT, 0);
	traced_run(&unlimited, "no limit");
	thrash_kill_all();

	ksft_test_result(limited.majflt > 0 && !limited.takes[0],
			 "limit: B faulted (%ld major faults) and never took the token\n",
			 limited.majflt);
	ksft_test_result(limited.refused > 0, "limit: B's faults were refused (%lld)\n",
			 limited.refused);
	ksft_test_result(limited.takes[1] + limited.takes[2] > 0,
			 "limit: the small processes took the token (%d times)\n",
			 limited.takes[1] + limited.takes[2]);
	ksft_test_result(unlimited.takes[0] > 0, "no limit: B took the token (%d times)\n",
			 unlimited.takes[0]);
	check_no_oom_kill();
	ksft_finished();
}
