// SPDX-License-Identifier: GPL-2.0
/*
 * How the swap token changes hands, with a 100 ms check interval and a
 * 1500 ms timeout.  Child A cycles over more memory than there is RAM, so
 * it never stops faulting; child B has a small working set that A's
 * thrashing pushes out to swap while B is stopped.
 *
 *  - disable: writing 0 to vm.swap_token releases A's token
 *    (swap_token_release_disabled) and nobody takes it while it is off;
 *    writing 1 lets A take it again;
 *  - idle: A, holding the token, stops (SIGSTOP); B resumes and faults, and
 *    takes the token from A (swap_token_release_idle, a take event with
 *    reason=idle);
 *  - timeout: A resumes; since it never stops faulting it keeps the token
 *    until the timeout, when B takes it (swap_token_release_timeout, a take
 *    event with reason=timeout); A does not get it back for one more
 *    timeout, and does after that;
 *  - exit: the holder is killed; the token is free (holder "none") and
 *    swap_token_release_exit and a release event with reason=exit say why.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define INTERVAL_MS	100
#define TIMEOUT_MS	1500
#define TIMEOUT_S	(TIMEOUT_MS / 1000.0)
#define TOLERANCE_S	0.05	/* timer granularity */
#define SLACK_S		1.0	/* a late check under an emulated CPU */
#define MAX_EVENTS	4096

static struct token_event ev[MAX_EVENTS];
static pid_t a, b;

/* Poll the holder for up to secs; 1 once it is want (0: free). */
static int wait_holder(pid_t want, double secs)
{
	double end = now_s() + secs;

	do {
		if (token_holder(NULL, 0) == want)
			return 1;
		sleep_s(0.02);
	} while (now_s() < end);
	return 0;
}

static void test_disable(void)
{
	long long released = token_stat("release_disabled"), taken;
	long majflt = pid_majflt(a);
	pid_t holder;
	int again;

	must_set(TOKEN_ENABLE, 0);
	holder = token_holder(NULL, 0);
	taken = token_stat("taken");
	sleep_s(1);
	taken = token_stat("taken") - taken;
	holder |= token_holder(NULL, 0);
	majflt = pid_majflt(a) - majflt;
	released = token_stat("release_disabled") - released;
	must_set(TOKEN_ENABLE, 1);
	again = wait_holder(a, 10);

	ksft_print_msg("disable: release_disabled +%lld, then %ld major faults of A and taken +%lld in 1 s\n",
		       released, majflt, taken);
	ksft_test_result(released == 1 && !holder && !taken && majflt > 0,
			 "disable: writing 0 releases the token and nobody takes it while off\n");
	ksft_test_result(again, "disable: writing 1 lets the faulting process take it again\n");
}

static void test_idle(void)
{
	long long released = token_stat("release_idle");
	int n, i, moved;

	trace_start();
	kill(a, SIGSTOP);
	kill(b, SIGCONT);
	moved = wait_holder(b, 20);
	released = token_stat("release_idle") - released;
	n = trace_read(ev, MAX_EVENTS);
	i = event_find(ev, n, 0, 1, b, "idle");

	ksft_print_msg("idle: B %s the token, release_idle +%lld\n", moved ? "took" : "did not take",
		       released);
	ksft_test_result(moved && released > 0,
			 "idle: a stopped holder loses the token to a faulting process\n");
	ksft_test_result(i >= 0 && ev[i].old_pid == a,
			 "idle: the take event says old_pid=A new_pid=B reason=idle\n");
}

static void test_timeout(void)
{
	long long released = token_stat("release_timeout");
	double held = -1, back = -1;
	int n, i, j = -1, k = -1;
	pid_t old = 0;

	trace_start();
	kill(a, SIGCONT);
	sleep_s(3 * TIMEOUT_S + 3);
	kill(a, SIGSTOP);
	kill(b, SIGSTOP);
	released = token_stat("release_timeout") - released;
	n = trace_read(ev, MAX_EVENTS);

	/* The first timeout take (i), the old holder's take before it (j), and after it (k). */
	i = event_find(ev, n, 0, 1, 0, "timeout");
	if (i >= 0) {
		old = ev[i].old_pid;
		for (j = i - 1; j >= 0 && !(ev[j].take && ev[j].pid == old); j--)
			;
		k = event_find(ev, n, i + 1, 1, old, NULL);
		held = j >= 0 ? ev[i].ts - ev[j].ts : -1;
		back = k >= 0 ? ev[k].ts - ev[i].ts : -1;
	}
	for (int e = 0; e < n && e < 40; e++)
		ksft_print_msg("timeout: %.3f %s pid %d (%s) old %d reason %s\n", ev[e].ts,
			       ev[e].take ? "take" : "release", ev[e].pid, ev[e].comm,
			       ev[e].old_pid, ev[e].reason);
	ksft_print_msg("timeout: release_timeout +%lld; held %.3f s, back after %.3f s\n",
		       released, held, back);
	ksft_test_result(released > 0 && i >= 0 && (old == a || old == b) && ev[i].pid != old,
			 "timeout: a holder that keeps faulting loses the token to the other process\n");
	ksft_test_result(j >= 0 && held >= TIMEOUT_S - TOLERANCE_S &&
			 held <= TIMEOUT_S + INTERVAL_MS / 1000.0 + SLACK_S,
			 "timeout: it held the token for the timeout (%d ms)\n", TIMEOUT_MS);
	ksft_test_result(i >= 0 && (k < 0 || back >= TIMEOUT_S - TOLERANCE_S),
			 "timeout: the old holder does not get it back for one more timeout\n");
}

static void test_exit(void)
{
	long long released = token_stat("release_exit");
	char comm[32] = "";
	pid_t holder = token_holder(comm, sizeof(comm));
	int n, i;

	trace_start();
	if (holder != a && holder != b) {
		ksft_print_msg("exit: holder is %d (%s), not A or B\n", holder, comm);
		ksft_test_result_fail("exit: the holder's exit releases the token\n");
		ksft_test_result_skip("exit: no holder to kill\n");
		return;
	}
	thrash_kill(holder);
	released = token_stat("release_exit") - released;
	n = trace_read(ev, MAX_EVENTS);
	i = event_find(ev, n, 0, 0, holder, "exit");

	ksft_print_msg("exit: killed %s, release_exit +%lld, holder now %d\n",
		       holder == a ? "A" : "B", released, token_holder(NULL, 0));
	ksft_test_result(released == 1 && token_holder(NULL, 0) == 0,
			 "exit: the holder's exit releases the token\n");
	ksft_test_result(i >= 0, "exit: a release event with reason=exit names it\n");
}

int main(void)
{
	struct thrash_stat *st;
	struct thrash_spec sa, sb;
	long mem;

	ksft_print_header();
	mem = mem_mb();
	token_setup(2 * mem);
	ksft_set_plan(9);
	must_set(TOKEN_INTERVAL, INTERVAL_MS);
	must_set(TOKEN_TIMEOUT, TIMEOUT_MS);
	if (trace_start())
		ksft_exit_skip("no tracefs or no swap_token events\n");

	st = thrash_stats(2);
	sa = (struct thrash_spec){ .name = "life-a", .mb = mem * 5 / 4, .seed = 1 };
	sb = (struct thrash_spec){ .name = "life-b", .mb = mem / 3, .seed = 2, .stop_filled = 1 };
	b = thrash_spawn(&sb, &st[1]);
	if (b < 0 || wait_stopped(b, 120))
		ksft_exit_fail_msg("B did not fill its memory\n");
	a = thrash_spawn(&sa, &st[0]);
	if (a < 0 || !wait_holder(a, 120))
		ksft_exit_fail_msg("A (%ld MB) did not take the token\n", sa.mb);
	ksft_print_msg("A: pid %d, %ld MB; B: pid %d, %ld MB; RAM %ld MB\n", a, sa.mb, b, sb.mb,
		       mem);

	test_disable();
	test_idle();
	test_timeout();
	test_exit();
	ksft_finished();
}
