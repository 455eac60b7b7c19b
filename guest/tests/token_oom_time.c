// SPDX-License-Identifier: GPL-2.0
/*
 * The token must not delay an OOM kill.  Three cases, each run with the
 * token off and on, interleaved, in the OOM-edge boots (small swap):
 *  - global: three processes that cycle over 45% of RAM + swap each
 *    (1.35 x what there is) start together; the time from their start to
 *    the first OOM kill (vmstat oom_kill);
 *  - memcg: the same inside a memory cgroup with memory.max = 30% of RAM
 *    and memory.swap.max = 0, each process over 15% of RAM; the time to
 *    the cgroup's first oom_kill (memory.events);
 *  - memory.max: a process in a cgroup without swap fills 20% of RAM and
 *    stops; how long writing memory.max = 5% of RAM takes, and the oom and
 *    oom_kill events (memory.events) it raises.
 * With the token the median time may exceed the median without by at most
 * max(2 s, half of it) for a kill (1 s for the write), the runs' own
 * spread; every memory.max write must kill its process, and raise at most
 * 3 x the oom events it raises without the token.  The interval is set to
 * 5 s, so that a token that held kills back for a pause of one interval,
 * as the former valve did, would miss these bounds.  A token that held OOM kills back (the series'
 * former OOM "valve" did: 35 s in one zram bench run) fails the first two;
 * one that retried the kill of a memory.max write fails the third.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/stat.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define PROCS	3
#define ROUNDS	3
#define CG	"/sys/fs/cgroup/"
#define CGNAME	"oomtime"

static long mem, swap;

/* A thrash child that first moves itself into the test's cgroup. */
static void cg_thrash_child(const void *arg, struct thrash_stat *st)
{
	if (write_file(CG CGNAME "/cgroup.procs", "0"))
		_exit(4);
	thrash_child(arg, st);
}

static long long cg_event(const char *name)
{
	return proc_field(CG CGNAME "/memory.events", name);
}

static int cg_make(long max_mb)
{
	char val[32];

	rmdir(CG CGNAME);
	if (write_file(CG "cgroup.subtree_control", "+memory") ||
	    (mkdir(CG CGNAME, 0755) && errno != EEXIST))
		return -1;
	snprintf(val, sizeof(val), "%ldM", max_mb);
	return write_file(CG CGNAME "/memory.swap.max", "0") ?:
	       write_file(CG CGNAME "/memory.max", val);
}

/* Seconds from the start of PROCS thrashers to the first OOM kill; -1: none. */
static double time_to_kill(int in_cg, long mb, int round)
{
	struct thrash_spec spec = { .name = "oomtime", .mb = mb, .full = 1 };
	struct thrash_stat *st = thrash_stats(PROCS);
	long long before = in_cg ? cg_event("oom_kill") : vmstat("oom_kill");
	double start = now_s(), t = -1;
	pid_t pid[PROCS];

	memset(st, 0, PROCS * sizeof(*st));
	for (int i = 0; i < PROCS; i++) {
		spec.seed = round * PROCS + i + 1;
		pid[i] = spawn(in_cg ? cg_thrash_child : thrash_child_fn, &spec, &st[i]);
	}
	while (now_s() - start < 200) {
		long long now = in_cg ? cg_event("oom_kill") : vmstat("oom_kill");

		if (now > before) {
			t = now_s() - start;
			break;
		}
		sleep_s(0.01);
	}
	for (int i = 0; i < PROCS; i++)
		if (pid[i] > 0) {
			thrash_kill(pid[i]);
			wait_exit(pid[i], 60);
		}
	return t;
}

/*
 * Write memory.max below a sleeping process's usage: seconds; the oom and
 * oom_kill events it raised go to ev[0] and ev[1].
 */
static double max_write(long fill_mb, long max_mb, long long *ev)
{
	struct thrash_stat *st = thrash_stats(1);
	struct thrash_spec spec = { .name = "oomfill", .mb = fill_mb, .stop_filled = 1 };
	char val[32];
	double start;
	pid_t pid;

	memset(st, 0, sizeof(*st));
	ev[0] = ev[1] = 0;
	if (cg_make(mem))
		return -1;
	pid = spawn(cg_thrash_child, &spec, st);
	if (pid < 0 || wait_stopped(pid, 120))
		return -1;
	ev[0] = cg_event("oom");
	ev[1] = cg_event("oom_kill");
	snprintf(val, sizeof(val), "%ldM", max_mb);
	start = now_s();
	write_file(CG CGNAME "/memory.max", val);
	start = now_s() - start;
	ev[0] = cg_event("oom") - ev[0];
	ev[1] = cg_event("oom_kill") - ev[1];
	thrash_kill(pid);
	wait_exit(pid, 60);
	return start;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One case: ROUNDS runs per setting, interleaved; the verdict on the medians. */
static void kill_case(const char *name, int in_cg, long mb)
{
	double t[2][ROUNDS], m[2];
	int missing = 0;

	for (int r = 0; r < 2 * ROUNDS; r++) {
		int on = r % 2;

		must_set(TOKEN_ENABLE, on);
		if (in_cg && cg_make(mem * 30 / 100))
			ksft_exit_fail_msg("cannot make the cgroup %s\n", CGNAME);
		t[on][r / 2] = time_to_kill(in_cg, mb, r);
		missing += t[on][r / 2] < 0;
		ksft_print_msg("%s, token %s: first OOM kill after %.2f s\n", name,
			       on ? "on" : "off", t[on][r / 2]);
	}
	m[0] = median(t[0], ROUNDS);
	m[1] = median(t[1], ROUNDS);
	ksft_test_result(!missing && m[1] <= m[0] + (m[0] / 2 > 2 ? m[0] / 2 : 2),
			 "%s: the first OOM kill came %.2f s after the start with the token, %.2f s without\n",
			 name, m[1], m[0]);
}

int main(void)
{
	double w[2][ROUNDS], m[2];
	long long ooms[2] = { 0, 0 }, kills[2] = { 0, 0 }, n[2] = { 0, 0 };
	int failed = 0;

	ksft_print_header();
	swap = token_oom_boot();
	mem = mem_mb();
	ksft_set_plan(3);
	must_set(TOKEN_INTERVAL, 5000);
	ksft_print_msg("RAM %ld MB, swap %ld MB\n", mem, swap);

	kill_case("global", 0, (mem + swap) * 45 / 100);
	kill_case("memcg", 1, mem * 15 / 100);

	for (int r = 0; r < 2 * ROUNDS; r++) {
		int on = r % 2;

		must_set(TOKEN_ENABLE, on);
		w[on][r / 2] = max_write(mem * 20 / 100, mem * 5 / 100, n);
		failed += w[on][r / 2] < 0;
		ooms[on] += n[0];
		kills[on] += n[1];
		ksft_print_msg("memory.max, token %s: the write took %.3f s, oom +%lld, oom_kill +%lld\n",
			       on ? "on" : "off", w[on][r / 2], n[0], n[1]);
	}
	m[0] = median(w[0], ROUNDS);
	m[1] = median(w[1], ROUNDS);
	/*
	 * The write loops on the OOM killer until the victim's memory is
	 * gone, raising "oom" on every pass: thousands, varying by 3 x from
	 * one write to the next with the token off.  The test compares the
	 * sums; a token that made each write retry for a pause would raise
	 * them by far more.
	 */
	ksft_test_result(!failed && kills[0] == ROUNDS && kills[1] == ROUNDS &&
			 ooms[1] <= 3 * ooms[0] &&
			 m[1] <= m[0] + (m[0] / 2 > 1 ? m[0] / 2 : 1),
			 "memory.max: the write took %.3f s with the token, %.3f s without; oom events %lld and %lld, kills %lld and %lld\n",
			 m[1], m[0], ooms[1], ooms[0], kills[1], kills[0]);
	rmdir(CG CGNAME);
	settings_restore();
	ksft_finished();
}
