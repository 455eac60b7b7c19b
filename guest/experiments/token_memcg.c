// SPDX-License-Identifier: GPL-2.0
/*
 * One token per memory cgroup (vm.swap_token_memcg).  Two cgroups, A and
 * B, each with memory.max of 30% of RAM, each holding two processes that
 * cycle over 18% of RAM (1.2 x the limit): each cgroup thrashes inside its
 * own limit, with little pressure on the machine as a whole.
 *
 *  - on: both cgroups' tokens get a holder, a process of that cgroup;
 *  - switching off releases both (reason "disabled"); then, the control,
 *    no cgroup token is taken while the global token still is;
 *  - on again until both have holders, then every process is killed and
 *    the cgroups removed: each token, which still names its exited holder
 *    (it keeps that mm_struct alive), is released when its cgroup goes.
 *
 * 200 ms check interval, 3 s timeout, default size limit (a share of the
 * cgroup's limit: each process is 60% of it).
 */
#include <sys/stat.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define CG		"/sys/fs/cgroup/"
#define INTERVAL_MS	200
#define TIMEOUT_MS	3000
#define WAIT_MAX_S	60
#define MAX_EVENTS	8192

static struct token_event ev[MAX_EVENTS];
static const char *const cg_name[2] = { "token_memcg_a", "token_memcg_b" };
static unsigned long long cg_id[2];
static pid_t pid[4];		/* A1, A2 in A; B1, B2 in B */

struct member {
	int cg;
	struct thrash_spec spec;
};

/* A thrash child that first moves itself into its cgroup. */
static void member_child(const void *arg, struct thrash_stat *st)
{
	const struct member *m = arg;
	char path[128];

	snprintf(path, sizeof(path), CG "%s/cgroup.procs", cg_name[m->cg]);
	if (write_file(path, "0"))
		_exit(4);
	thrash_child(&m->spec, st);
}

/* Remove both cgroups once their processes are gone (also at exit); how many went. */
static int remove_cgroups(void)
{
	int gone = 0;

	for (int k = 0; k < 2; k++) {
		char path[128];
		int err;

		snprintf(path, sizeof(path), CG "%s", cg_name[k]);
		for (double end = now_s() + 10; (err = rmdir(path)) && errno == EBUSY && now_s() < end;)
			sleep_s(0.1);
		gone += !err;
	}
	return gone;
}

static void remove_cgroups_at_exit(void)
{
	remove_cgroups();
}

static int read_events(void)
{
	int n = trace_read(ev, MAX_EVENTS);

	if (n < 0)
		ksft_exit_fail_msg("cannot read the trace: %s\n", strerror(-n));
	return n;
}

/* Events of cgroup k's token (-1: any cgroup's, not the global one). */
static int count(int n, int take, int k, const char *reason)
{
	int c = 0;

	for (int i = 0; i < n; i++) {
		if (ev[i].take != take || (reason && strcmp(ev[i].reason, reason)))
			continue;
		if (k < 0 ? ev[i].cgroup != 0 : ev[i].cgroup == cg_id[k])
			c++;
	}
	return c;
}

/* Takes of cgroup k's token by a process of that cgroup. */
static int takes_inside(int n, int k)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += ev[i].take && ev[i].cgroup == cg_id[k] &&
		     (ev[i].pid == pid[2 * k] || ev[i].pid == pid[2 * k + 1]);
	return c;
}

/*
 * Empty the trace, switch the cgroups' tokens on, and trace until both were
 * taken from inside, at most WAIT_MAX_S.
 */
static int wait_both_held(int *a, int *b)
{
	int n = 0;

	if (trace_clear())
		ksft_exit_fail_msg("cannot empty the trace buffer: %s\n", strerror(errno));
	must_set(TOKEN_MEMCG, 1);
	for (double t0 = now_s(); now_s() - t0 < WAIT_MAX_S;) {
		sleep_s(0.5);
		n = read_events();
		*a = takes_inside(n, 0);
		*b = takes_inside(n, 1);
		if (*a && *b)
			break;
	}
	return n;
}

int main(void)
{
	int on_a, on_b, again_a, again_b, n, off_released, off_cg, off_global, removed, gone = 0;
	struct member m[4];
	struct thrash_stat *st;
	struct stat sb;
	long mem, limit;

	mem = token_begin(6, INTERVAL_MS, TIMEOUT_MS);
	if (access(TOKEN_MEMCG, W_OK))
		ksft_exit_fail_msg("%s is missing\n", TOKEN_MEMCG);
	if (write_file(CG "cgroup.subtree_control", "+memory"))
		test_exit_skip("no memory cgroup controller\n");
	limit = mem * 3 / 10;
	atexit(remove_cgroups_at_exit);
	for (int k = 0; k < 2; k++) {
		char path[128], val[32];

		snprintf(path, sizeof(path), CG "%s", cg_name[k]);
		if ((mkdir(path, 0755) && errno != EEXIST) || stat(path, &sb))
			ksft_exit_fail_msg("cannot make %s: %s\n", path, strerror(errno));
		cg_id[k] = sb.st_ino;
		snprintf(path, sizeof(path), CG "%s/memory.max", cg_name[k]);
		snprintf(val, sizeof(val), "%ld", limit << 20);
		if (write_file(path, val))
			ksft_exit_fail_msg("cannot limit %s\n", cg_name[k]);
	}
	must_set(TOKEN_MEMCG, 0);
	if (trace_start())
		test_exit_skip("no tracefs or no swap_token events\n");

	st = thrash_stats(4);
	for (int i = 0; i < 4; i++) {
		static const char *const names[] = { "memcg-a1", "memcg-a2", "memcg-b1",
						     "memcg-b2" };

		m[i] = (struct member){ .cg = i / 2,
					.spec = { .name = names[i], .mb = limit * 6 / 10,
						  .seed = 80 + i, .seconds = 600 } };
		pid[i] = spawn(member_child, &m[i], &st[i]);
		if (pid[i] < 0)
			ksft_exit_fail_msg("cannot start %s\n", names[i]);
	}
	if (thrash_wait_cycling(st, 4, 180))
		ksft_exit_fail_msg("the processes did not start cycling\n");
	ksft_print_msg("A %llu: %d %d, B %llu: %d %d (%ld MB each), limits %ld MB, RAM %ld MB\n",
		       cg_id[0], pid[0], pid[1], cg_id[1], pid[2], pid[3], m[0].spec.mb, limit,
		       mem);

	/* On: both cgroups get a holder of their own. */
	n = wait_both_held(&on_a, &on_b);
	ksft_print_msg("on: %d events; cgroup token takes from inside: A %d, B %d\n", n, on_a,
		       on_b);

	/* Off: both released, then only the global token moves. */
	if (trace_clear())
		ksft_exit_fail_msg("cannot empty the trace buffer: %s\n", strerror(errno));
	must_set(TOKEN_MEMCG, 0);
	n = read_events();
	off_released = count(n, 0, 0, "disabled") + count(n, 0, 1, "disabled");
	sleep_s(10);
	n = read_events();
	off_cg = count(n, 1, -1, NULL);
	off_global = 0;
	for (int i = 0; i < n; i++)
		off_global += ev[i].take && !ev[i].cgroup;
	ksft_print_msg("off: %d cgroup tokens released; then %d events, takes: cgroup %d, global %d\n",
		       off_released, n, off_cg, off_global);

	/* On again; then the processes die holding, and the cgroups go. */
	wait_both_held(&again_a, &again_b);
	thrash_kill_all();
	if (trace_clear())
		ksft_exit_fail_msg("cannot empty the trace buffer: %s\n", strerror(errno));
	removed = remove_cgroups();
	/* A cgroup goes offline shortly after rmdir, in a work item. */
	for (double end = now_s() + 10; now_s() < end; sleep_s(0.2)) {
		n = read_events();
		gone = (count(n, 0, 0, "disabled") > 0) + (count(n, 0, 1, "disabled") > 0);
		if (gone == 2)
			break;
	}
	ksft_print_msg("removal: held again A %d, B %d; %d of 2 cgroups removed; %d events, %d of 2 tokens released\n",
		       again_a, again_b, removed, n, gone);

	ksft_test_result(on_a && on_b, "on: each cgroup's token was taken by one of its processes\n");
	ksft_test_result(off_released == 2, "off: both cgroups' tokens were released (%d)\n",
			 off_released);
	ksft_test_result(!off_cg && off_global,
			 "off: no cgroup token was taken, the global one was (%d times)\n",
			 off_global);
	ksft_test_result(again_a && again_b && gone == 2,
			 "removing the cgroups released the tokens their exited holders had\n");
	ksft_test_result(st[0].checked + st[2].checked > 0 && !st[0].bad && !st[1].bad &&
			 !st[2].bad && !st[3].bad, "the processes read their data back intact\n");
	check_no_oom_kill();
	ksft_finished();
}
