// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile hog cannot keep the token.  H cycles over 125% of RAM and never
 * stops faulting, so it is never idle; V1 and V2 (25% of RAM each) fault
 * too.  With a 100 ms check interval and a 1500 ms timeout, over at least
 * RUN_S seconds of traced handoffs, longer (up to RUN_MAX_S) until three
 * timeouts are traced and both victims took the token, as on a debug kernel
 * several times slower or when one victim won the first few handoffs:
 *
 *  - nobody's memory is spared past the timeout: sampled every 50 ms, a
 *    holder seen holding for longer than the timeout (plus a margin for
 *    the sampling and for reclaim already under way) must not have had
 *    any mapping kept (swap_token_kept) since the previous sample.  It
 *    may go on holding the token while nobody contends: the token moves
 *    at the timeout only when another process takes a major fault;
 *  - a holder that lost the token at the timeout does not get it back for
 *    one more timeout;
 *  - the token was taken away at the timeout several times, and both V1
 *    and V2 held it;
 *  - nobody was OOM-killed.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define INTERVAL_MS	100
#define TIMEOUT_MS	1500
#define TIMEOUT_S	(TIMEOUT_MS / 1000.0)
#define TOLERANCE_S	0.05
/* Sampling period, and margin past the timeout for the sampling and reclaim in flight. */
#define SAMPLE_S	0.05
#define MARGIN_S	0.25
#define RUN_S		11
#define RUN_MAX_S	45
#define MAX_EVENTS	4096

static struct token_event ev[MAX_EVENTS];

/* How many of the n events are losses of the token at the timeout. */
static int timeout_releases(int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += !ev[i].take && !strcmp(ev[i].reason, "timeout");
	return k;
}

/* Whether pid took the token in one of the n events. */
static int took(int n, pid_t pid)
{
	return event_find(ev, n, 0, 1, pid, NULL) >= 0;
}

int main(void)
{
	struct thrash_spec sh, sv[2];
	struct thrash_stat *st;
	pid_t h, v[2], cur = 0;
	double start = 0, longest = 0, shortest_back = 1e9;
	int n, timeouts = 0, spared_late = 0, late_samples = 0, early = 0;
	pid_t seen = 0;
	double seen_since = 0, next_read = 0;
	long long kept = 0;
	long mem;

	mem = token_begin(5, INTERVAL_MS, TIMEOUT_MS);
	/* H is bigger than RAM: the size limit alone would keep it out (token_size). */
	must_set(TOKEN_SIZE_LIMIT, 0);
	if (trace_start())
		test_exit_skip("no tracefs or no swap_token events\n");

	st = thrash_stats(3);
	for (int i = 0; i < 2; i++) {
		sv[i] = (struct thrash_spec){ .name = i ? "victim-2" : "victim-1", .mb = mem / 4,
					      .seed = 10 + i, .stop_filled = 1,
					      .seconds = 120 };
		v[i] = thrash_spawn(&sv[i], &st[i]);
		if (v[i] < 0 || wait_stopped(v[i], 120))
			ksft_exit_fail_msg("victim %d did not fill its memory\n", i + 1);
	}
	sh = (struct thrash_spec){ .name = "hostile", .mb = mem * 5 / 4, .seed = 3,
				   .seconds = 120 };
	token_reset();
	h = thrash_spawn(&sh, &st[2]);
	for (double end = now_s() + 120; h > 0 && token_holder(NULL, 0) != h && now_s() < end;)
		sleep_s(0.05);
	if (h < 0 || token_holder(NULL, 0) != h)
		ksft_exit_fail_msg("the hostile process did not take the token\n");
	if (trace_clear())
		ksft_exit_fail_msg("cannot empty the trace buffer: %s\n", strerror(errno));
	ksft_print_msg("H %d (%ld MB), V1 %d, V2 %d (%ld MB each), RAM %ld MB\n",
		       h, sh.mb, v[0], v[1], sv[0].mb, mem);
	kill(v[0], SIGCONT);
	kill(v[1], SIGCONT);
	for (double t0 = now_s();;) {
		pid_t who = token_holder(NULL, 0);
		long long k = token_stat("kept");
		double t = now_s();

		/*
		 * Handoffs are at least an interval apart: two samples that see
		 * the same holder saw one hold.
		 */
		if (who > 0 && who == seen && t - seen_since > TIMEOUT_S + MARGIN_S) {
			late_samples++;
			if (k > kept) {
				spared_late++;
				ksft_print_msg("pid %d held the token for %.2f s and %lld mappings were kept since the last sample\n",
					       who, t - seen_since, k - kept);
			}
		}
		if (who != seen) {
			seen = who;
			seen_since = t;
		}
		kept = k;
		if (t >= next_read) {
			next_read = t + 1;
			n = trace_read(ev, MAX_EVENTS);
			if (t - t0 >= RUN_MAX_S ||
			    (t - t0 >= RUN_S && timeout_releases(n) >= 3 &&
			     took(n, v[0]) && took(n, v[1])))
				break;
		}
		sleep_s(SAMPLE_S);
	}
	token_reset();
	thrash_kill(h);
	thrash_kill(v[0]);
	thrash_kill(v[1]);
	if (n <= 0)
		ksft_exit_fail_msg("no token events traced (%d)\n", n);

	/*
	 * Walk the events: every loss of the token, handoffs included, is a
	 * release event of the old holder.  cur is the holder, start when it
	 * took the token (0: before the trace began, hold length unknown).
	 */
	cur = h;
	for (int i = 0; i < n; i++) {
		double held;
		int k;

		if (ev[i].take) {
			cur = ev[i].pid;
			start = ev[i].ts;
			continue;
		}
		held = start && ev[i].pid == cur ? ev[i].ts - start : 0;
		cur = 0;
		start = 0;
		if (held > longest)
			longest = held;
		if (strcmp(ev[i].reason, "timeout"))
			continue;
		timeouts++;
		k = event_find(ev, n, i + 1, 1, ev[i].pid, NULL);
		if (k >= 0 && ev[k].ts - ev[i].ts < shortest_back)
			shortest_back = ev[k].ts - ev[i].ts;
		if (k >= 0 && ev[k].ts - ev[i].ts < TIMEOUT_S - TOLERANCE_S) {
			early++;
			ksft_print_msg("pid %d timed out at %.3f and took it back at %.3f\n",
				       ev[i].pid, ev[i].ts, ev[k].ts);
		}
	}
	events_print("", ev, n, 30);
	ksft_print_msg("%d events, %d timeouts, longest hold %.3f s, shortest return %.3f s\n",
		       n, timeouts, longest, shortest_back);
	ksft_print_msg("%d samples of a holder past its timeout\n", late_samples);
	ksft_test_result(!spared_late, "nobody's memory was spared past the timeout\n");
	ksft_test_result(!early, "a timed-out holder stays ineligible for one more timeout\n");
	ksft_test_result(timeouts >= 3, "the token was taken away at the timeout %d times\n",
			 timeouts);
	ksft_test_result(took(n, v[0]) && took(n, v[1]),
			 "both victims held the token (%d, %d)\n", took(n, v[0]), took(n, v[1]));
	check_no_oom_kill();
	ksft_finished();
}
