// SPDX-License-Identifier: GPL-2.0
/*
 * How the swap token changes hands, with a 100 ms check interval and a
 * 1500 ms timeout.
 *
 *  - idle: B pages its memory back in from swap, so takes the token, and
 *    is stopped; then A pages its memory back in.  A takes the token from
 *    B (swap_token_release_idle, a take event old_pid=B new_pid=A
 *    reason=idle).  Free memory is plentiful meanwhile, so no reclaim
 *    interferes, and the timeout is long, so B does not time out first.
 *  - exit: A, holding the token, is killed: the token is free (holder
 *    "none"), swap_token_release_exit and a release event with reason=exit
 *    say why.
 *  - disable: C cycles over more memory than there is RAM and takes the
 *    token; writing 0 to vm.swap_token releases it (a release event with
 *    reason=disabled) and nobody takes it while it is off
 *    although C keeps faulting; writing 1 lets C take it again.
 *  - timeout: B resumes.  C never stops faulting, so keeps the token until
 *    the timeout, when B takes it (swap_token_release_timeout, a take event
 *    with reason=timeout); C does not get it back for one more timeout.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define INTERVAL_MS	100
#define TIMEOUT_MS	1500
#define TIMEOUT_S	(TIMEOUT_MS / 1000.0)
#define TOLERANCE_S	0.05	/* timer granularity */
#define SLACK_S		2.5	/* late check: the other process faults slowly (TCG) */
#define MAX_EVENTS	4096

static struct token_event ev[MAX_EVENTS];
static struct thrash_stat *st;
static pid_t a, b, c;
static long mem;

static void print_events(const char *name, int n)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "%s: ", name);
	events_print(prefix, ev, n, 40);
}

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

/* Resume a stopped child and wait until it holds the token and has touched all its memory. */
static int resume_until_held(pid_t pid, struct thrash_stat *s)
{
	double end = now_s() + 60;

	s->passes = 0;
	kill(pid, SIGCONT);
	while (now_s() < end && (token_holder(NULL, 0) != pid || !s->passes))
		sleep_s(0.02);
	return token_holder(NULL, 0) == pid;
}

static void test_idle(void)
{
	long long released;
	int n, i, took;

	must_set(TOKEN_TIMEOUT, 60000);
	if (!resume_until_held(b, &st[1])) {
		ksft_test_result_fail("idle: B paging in took the free token\n");
		test_skip("idle: no holder to lose it\n");
		return;
	}
	kill(b, SIGSTOP);
	wait_stopped(b, 10);
	trace_start();
	released = token_stat("release_idle");
	kill(a, SIGCONT);
	took = wait_holder(a, 20);
	released = token_stat("release_idle") - released;
	n = trace_read(ev, MAX_EVENTS);
	i = event_find(ev, n, 0, 1, a, "idle");
	must_set(TOKEN_TIMEOUT, TIMEOUT_MS);

	print_events("idle", n);
	ksft_print_msg("idle: A %s the token from B, release_idle +%lld\n",
		       took ? "took" : "did not take", released);
	ksft_test_result(took && released == 1,
			 "idle: a stopped holder loses the token to a faulting process\n");
	ksft_test_result(i >= 0 && ev[i].old_pid == b,
			 "idle: the take event says old_pid=B new_pid=A reason=idle\n");
}

static void test_exit(void)
{
	long long released = token_stat("release_exit");
	char comm[32] = "";
	pid_t holder;
	int n, i;

	kill(a, SIGSTOP);
	wait_stopped(a, 10);
	trace_start();
	holder = token_holder(comm, sizeof(comm));
	thrash_kill(a);
	released = token_stat("release_exit") - released;
	n = trace_read(ev, MAX_EVENTS);
	i = event_find(ev, n, 0, 0, a, "exit");

	ksft_print_msg("exit: holder %d (%s) killed, release_exit +%lld, holder now %d\n",
		       holder, comm, released, token_holder(NULL, 0));
	ksft_test_result(holder == a && released == 1 && token_holder(NULL, 0) == 0,
			 "exit: the holder's exit releases the token\n");
	ksft_test_result(holder == a && i >= 0,
			 "exit: a release event with reason=exit names it\n");
}

static void test_disable(void)
{
	long long taken;
	long majflt = pid_majflt(c);
	pid_t holder;
	int again, released = 0, n;

	trace_start();
	must_set(TOKEN_ENABLE, 0);
	holder = token_holder(NULL, 0);
	taken = token_stat("taken");
	/* At least a second, and until C has faulted (it may be stalled in reclaim). */
	sleep_s(1);
	for (int i = 0; i < 20 && pid_majflt(c) - majflt < 10; i++)
		sleep_s(0.25);
	taken = token_stat("taken") - taken;
	holder |= token_holder(NULL, 0);
	majflt = pid_majflt(c) - majflt;
	n = trace_read(ev, MAX_EVENTS);
	for (int i = event_find(ev, n, 0, 0, 0, "disabled"); i >= 0;
	     i = event_find(ev, n, i + 1, 0, 0, "disabled"))
		released++;
	must_set(TOKEN_ENABLE, 1);
	again = wait_holder(c, 10);

	ksft_print_msg("disable: %d release events (disabled), then %ld major faults of C and taken +%lld\n",
		       released, majflt, taken);
	ksft_test_result(released == 1 && !holder && !taken && majflt > 0,
			 "disable: writing 0 releases the token and nobody takes it while off\n");
	ksft_test_result(again, "disable: writing 1 lets the faulting process take it again\n");
}

static void test_timeout(void)
{
	long long released = token_stat("release_timeout");
	double held = -1, back = -1;
	int n, i, j = -1, k = -1;
	pid_t old = 0;

	trace_start();
	kill(b, SIGCONT);
	sleep_s(3 * TIMEOUT_S + 3);
	kill(b, SIGSTOP);
	kill(c, SIGSTOP);
	released = token_stat("release_timeout") - released;
	n = trace_read(ev, MAX_EVENTS);

	/*
	 * The first timeout take (i) for which the trace also has the old
	 * holder's take before it (j), and the old holder's next take (k).
	 */
	for (i = event_find(ev, n, 0, 1, 0, "timeout"); i >= 0;
	     i = event_find(ev, n, i + 1, 1, 0, "timeout")) {
		old = ev[i].old_pid;
		for (j = i - 1; j >= 0 && !(ev[j].take && ev[j].pid == old); j--)
			;
		if (j >= 0)
			break;
	}
	if (i >= 0) {
		k = event_find(ev, n, i + 1, 1, old, NULL);
		held = ev[i].ts - ev[j].ts;
		back = k >= 0 ? ev[k].ts - ev[i].ts : -1;
	}
	print_events("timeout", n);
	ksft_print_msg("timeout: release_timeout +%lld; held %.3f s, back after %.3f s\n",
		       released, held, back);
	ksft_test_result(released > 0 && i >= 0 && (old == b || old == c) && ev[i].pid != old,
			 "timeout: a holder that keeps faulting loses the token to the other process\n");
	ksft_test_result(i >= 0 && held >= TIMEOUT_S - TOLERANCE_S &&
			 held <= TIMEOUT_S + INTERVAL_MS / 1000.0 + SLACK_S,
			 "timeout: it held the token for the timeout (%d ms)\n", TIMEOUT_MS);
	ksft_test_result(i >= 0 && (k < 0 || back >= TIMEOUT_S - TOLERANCE_S),
			 "timeout: the old holder does not get it back for one more timeout\n");
}

int main(void)
{
	struct thrash_spec sa, sb, sc;

	mem = token_begin(10, INTERVAL_MS, 0);
	/* C is bigger than RAM: the size limit alone would keep it out (token_size). */
	must_set(TOKEN_SIZE_LIMIT, 0);
	if (trace_start())
		test_exit_skip("no tracefs or no swap_token events\n");

	st = thrash_stats(3);
	sa = (struct thrash_spec){ .name = "life-a", .mb = mem / 3, .seed = 1, .stop_filled = 1 };
	sb = (struct thrash_spec){ .name = "life-b", .mb = mem / 3, .seed = 2, .stop_filled = 1 };
	sc = (struct thrash_spec){ .name = "life-c", .mb = mem * 5 / 4, .seed = 3 };
	a = thrash_spawn(&sa, &st[0]);
	b = thrash_spawn(&sb, &st[1]);
	if (a < 0 || b < 0 || wait_stopped(a, 120) || wait_stopped(b, 120))
		ksft_exit_fail_msg("A and B did not fill their memory\n");
	/* Neither may keep the token (and its memory) while the filler pushes them out. */
	token_reset();
	if (!fill_fresh(mem * 4 / 5))
		ksft_exit_fail_msg("the filler did not push A and B out to swap\n");
	token_reset();
	ksft_print_msg("A: pid %d, B: pid %d, %ld MB each; RAM %ld MB\n", a, b, sa.mb, mem);
	test_idle();
	test_exit();

	c = thrash_spawn(&sc, &st[2]);
	if (c < 0 || !wait_holder(c, 120))
		ksft_exit_fail_msg("C (%ld MB) did not take the token\n", sc.mb);
	ksft_print_msg("C: pid %d, %ld MB\n", c, sc.mb);
	test_disable();
	test_timeout();
	check_no_oom_kill();
	ksft_finished();
}
