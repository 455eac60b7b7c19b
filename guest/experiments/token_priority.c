// SPDX-License-Identifier: GPL-2.0
/*
 * The priority policy (vm.swap_token_policy = 1) under real pressure.  T1
 * and T2 cycle over 60% of RAM each, beside a third of RAM that a child
 * keeps locked; whichever holds the token, once it has two thirds of
 * its memory resident, is stopped (SIGSTOP): it keeps the token and takes
 * no more faults, while the other keeps faulting.  The locked third keeps
 * the other short of memory even once the stopped holder's memory is gone:
 * without it the other, with RAM to itself, stopped faulting (30 major
 * faults a second) before its faults could age the holder's priority.
 *
 *  - priority: the other takes the token, and takes it by priority: the
 *    stopped holder's priority, built up by its own faults, halves every
 *    256 faults until it is 0.  Without the aging, or with mainline's
 *    strict comparison of priorities (the other, faulting at a steady rate,
 *    stays at 0 itself), it would keep the token until the timeout (set out
 *    of reach here);
 *  - the interval policy's idle rule plays no part under the priority
 *    policy (no idle release);
 *  - interval policy, same load (the control): the other takes the token
 *    because the holder is idle.  Without this control, a priority policy
 *    that was never switched on would fail the first check only by the
 *    reason it reports.
 *
 * No size limit, 200 ms check interval (the control's), 120 s timeout.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define TOKEN_POLICY	"/proc/sys/vm/swap_token_policy"
#define INTERVAL_MS	200
#define TIMEOUT_MS	120000
#define WAIT_MAX_S	60	/* for the other process to take the token */
#define MAX_EVENTS	4096

static struct token_event ev[MAX_EVENTS];

/* A child that keeps @mb MB of memory locked until killed. */
static pid_t locked_hog(long mb)
{
	int ready[2];
	pid_t pid;

	if (pipe(ready))
		ksft_exit_fail_perror("pipe");
	pid = fork();
	if (pid == 0) {
		munlockall();
		if (mmap(NULL, mb << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED | MAP_POPULATE,
			 -1, 0) == MAP_FAILED || write(ready[1], "p", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (pid < 0 || read_byte(ready[0]) != 'p')
		ksft_exit_fail_msg("cannot lock %ld MB in a child\n", mb);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

struct phase {
	pid_t stopped;		/* the holder that was stopped */
	double took_s;		/* when the other took the token, -1: never */
	char reason[16];	/* ... and why */
	struct token_counters before, after;
	long long by_priority;	/* swap_token_release_priority meanwhile */
};

/*
 * Wait until T1 or T2 holds the token with two thirds of its mb MB
 * resident, stop the holder, and trace until the other one takes the token
 * (at most WAIT_MAX_S), then let the holder go on.
 */
static void phase_run(struct phase *ph, const char *name, const pid_t *t, long mb)
{
	long majflt, rss = 0;
	double t0, end;
	pid_t holder = 0, other;
	int n, i;

	token_reset();
	for (end = now_s() + 90; now_s() < end; sleep_s(0.05)) {
		holder = token_holder(NULL, 0);
		if (holder != t[0] && holder != t[1])
			continue;
		rss = pid_status_kb(holder, "VmRSS");
		if (rss >= mb * 1024 * 2 / 3)
			break;
	}
	if ((holder != t[0] && holder != t[1]) || rss < mb * 1024 * 2 / 3)
		ksft_exit_fail_msg("%s: neither T1 nor T2 held the token with its memory resident in 90 s\n",
				   name);
	other = holder == t[0] ? t[1] : t[0];
	kill(holder, SIGSTOP);
	if (wait_stopped(holder, 10))
		ksft_exit_fail_msg("%s: the holder did not stop\n", name);
	if (trace_clear())
		ksft_exit_fail_msg("cannot empty the trace buffer: %s\n", strerror(errno));
	token_counters_read(&ph->before);
	ph->by_priority = token_stat("release_priority");
	majflt = pid_majflt(other);
	ph->stopped = holder;
	ph->took_s = -1;
	t0 = now_s();
	while (now_s() - t0 < WAIT_MAX_S) {
		sleep_s(0.25);
		n = trace_read(ev, MAX_EVENTS);
		if (n < 0)
			ksft_exit_fail_msg("cannot read the trace: %s\n", strerror(-n));
		i = event_find(ev, n, 0, 1, other, NULL);
		if (i >= 0) {
			ph->took_s = now_s() - t0;
			snprintf(ph->reason, sizeof(ph->reason), "%s", ev[i].reason);
			break;
		}
	}
	token_counters_read(&ph->after);
	ph->by_priority = token_stat("release_priority") - ph->by_priority;
	majflt = pid_majflt(other) - majflt;
	kill(holder, SIGCONT);
	ksft_print_msg("%s: stopped holder %d (%ld MB resident); the other took the token after %.1f s and %ld major faults, reason %s\n",
		       name, holder, rss >> 10, ph->took_s, majflt,
		       ph->took_s < 0 ? "-" : ph->reason);
	token_counters_print(name, &ph->before, &ph->after);
}

int main(void)
{
	struct thrash_spec spec[2];
	struct phase prio, ctl;
	struct thrash_stat *st;
	pid_t t[2], locked;
	long mem;

	mem = token_begin(5, INTERVAL_MS, TIMEOUT_MS);
	if (access(TOKEN_POLICY, W_OK))
		ksft_exit_fail_msg("%s is missing\n", TOKEN_POLICY);
	must_set(TOKEN_SIZE_LIMIT, 0);
	must_set(TOKEN_POLICY, 1);
	if (trace_start())
		test_exit_skip("no tracefs or no swap_token events\n");

	locked = locked_hog(mem / 3);
	st = start_two_thrashers(spec, t, mem * 6 / 10, 60, 600);
	ksft_print_msg("T1 %d, T2 %d (%ld MB each), %ld MB locked, RAM %ld MB\n",
		       t[0], t[1], spec[0].mb, mem / 3, mem);

	phase_run(&prio, "priority", t, spec[0].mb);
	must_set(TOKEN_POLICY, 0);
	phase_run(&ctl, "interval", t, spec[0].mb);
	thrash_kill_all();
	kill(locked, SIGKILL);
	waitpid(locked, NULL, 0);

	ksft_test_result(prio.took_s >= 0 && !strcmp(prio.reason, "priority"),
			 "priority: a stopped holder aged and lost the token by priority (%.1f s)\n",
			 prio.took_s);
	ksft_test_result(!token_counter_delta("release_idle", &prio.before, &prio.after) &&
			 prio.by_priority > 0,
			 "priority: no idle release, %lld by priority\n", prio.by_priority);
	ksft_test_result(ctl.took_s >= 0 && !strcmp(ctl.reason, "idle"),
			 "interval: the same stopped holder lost the token as idle (%.1f s)\n",
			 ctl.took_s);
	ksft_test_result(st[0].checked + st[1].checked > 0 && !st[0].bad && !st[1].bad,
			 "the thrashing processes read their data back intact (%lld MB checked)\n",
			 (st[0].checked + st[1].checked) >> 20);
	check_no_oom_kill();
	ksft_finished();
}
