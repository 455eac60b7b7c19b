// SPDX-License-Identifier: GPL-2.0
/*
 * When the token moves on, the old holder's protection ends, and its
 * memory goes to the next pressure no later than memory that memory.min
 * protected for the same time.  H, in a cgroup of its own, fills 30% of
 * RAM, is pushed out to swap and pages it all back in; P then allocates
 * 80% of RAM, once, while H sleeps.
 *  - token: H holds the token, and eviction spares its pages (puts them
 *    back on the LRU each time it meets them).  Then T, pushed out by P,
 *    pages back in after H has been idle for an interval: the token moves
 *    to T.
 *  - memory.min: the token is off, and H's cgroup has a memory.min above
 *    H's size while P allocates; it is cleared where the token moves.
 * Then Q allocates 60% of RAM in steps of 5%, and the test reads H's
 * resident memory after each step.  Once Q is done, H must have kept no
 * more with the token than with memory.min, give or take a quarter of
 * its size: protection that outlived the token would leave H all of it.
 * Under the classic LRU the sum over the steps (how soon H's memory went)
 * must also be no larger with the token, give or take one reading:
 * eviction puts a spared page back as one nobody used (at the head of the
 * inactive list), not among the pages just used.  Under MGLRU the sum
 * depends mostly on which cgroup (H's or the root, where P and Q run)
 * reclaim visits first, and two runs differ by more than H's size
 * (145-726 MB with the token, 279-770 with memory.min, 12 pairs): it is
 * printed, and the placement it would judge is checked directly instead.
 *
 * Under MGLRU the test also checks that placement directly, in debugfs
 * lru_gen.  Before P, it ages H's cgroup twice, walking its page tables:
 * the first aging moves the pages H used while paging in to what was the
 * youngest generation, clears their accessed bits and opens a new, empty
 * youngest one; the second opens another, so that H's pages are out of
 * the two youngest.  H then sleeps and uses nothing more.  While P
 * allocates, the test reads the youngest generation every 20 ms: it must
 * hold at most 5% of the pages H had when P began.  Eviction puts a kept
 * page one generation above the oldest, which is the youngest only while
 * the lruvec has two generations left, until the next aging: at most a
 * batch (MIN_LRU_BATCH, 64 folios) at a time.  The placement the fix
 * replaced put every kept page in the youngest.  (Kept pages put in the
 * oldest generation would pass unseen.)
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define STEPS	12
#define GENS	4		/* MGLRU's MAX_NR_GENS */
#define READ_MS	20		/* between two readings of the generations */
#define CG	"/sys/fs/cgroup/"
#define CGNAME	"tokhandoff"

struct run {
	long h_mb;			/* H's memory, MB */
	long h_kept;			/* H resident after P, MB */
	long h_left[STEPS + 1];		/* H resident after each step of Q */
	long p_left[STEPS + 1];		/* P resident after each step of Q */
	long p_mb;
	int held, moved;
	long long kept, overridden;
	long sum;			/* sum of h_left[] */
	/* MGLRU, from the readings while P allocates: */
	int readings;
	long young;			/* most of H's pages in the youngest */
	long young_of;			/* H's pages at the first reading */
};

/* MGLRU's lru_gen/enabled: bit 0 on, bit 1 page-table walks; 0 if absent. */
static long lru_gen_enabled(void)
{
	char buf[32];

	if (read_file("/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf)))
		return 0;
	return strtol(buf, NULL, 0);
}

static int mglru(void)
{
	return lru_gen_enabled() & 1;
}

/* H's cgroup as MGLRU's debugfs file shows it. */
struct gens {
	unsigned short id;		/* the memcg's id */
	unsigned long max_seq;
	int n;				/* generations, oldest first */
	long anon[GENS];		/* anonymous pages in each */
};

static int read_gens(struct gens *g)
{
	FILE *f = fopen("/sys/kernel/debug/lru_gen", "r");
	char line[256], path[128];
	unsigned long seq, age;
	long anon, file;
	unsigned short id;
	int in = 0, node = 0;

	memset(g, 0, sizeof(*g));
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "memcg ", 6)) {
			in = sscanf(line, "memcg %hu %127s", &id, path) == 2 &&
			     !strcmp(path, "/" CGNAME);
			if (in)
				g->id = id;
			continue;
		}
		/* Node 0's generations only: age() ages that node. */
		if (sscanf(line, " node %d", &node) == 1)
			continue;
		if (in && !node && g->n < GENS &&
		    sscanf(line, "%lu %lu %ld %ld", &seq, &age, &anon, &file) == 4) {
			g->anon[g->n++] = anon;
			g->max_seq = seq;
		}
	}
	fclose(f);
	return g->n;
}

/*
 * Age H's cgroup once, walking its page tables: a new youngest generation,
 * where the pages used since the last aging go, their accessed bits
 * cleared.
 */
static void age(void)
{
	struct gens g, after;
	char cmd[64];
	int err;

	if (!(lru_gen_enabled() & 2))
		ksft_exit_fail_msg("MGLRU does not walk page tables (lru_gen/enabled)\n");
	/* An aging by reclaim between the read and the write voids the write. */
	for (int i = 0; i < 5; i++) {
		if (!read_gens(&g))
			ksft_exit_fail_msg("no generations of " CGNAME " in debugfs lru_gen\n");
		snprintf(cmd, sizeof(cmd), "+ %hu 0 %lu 200 1", g.id, g.max_seq);
		err = write_file("/sys/kernel/debug/lru_gen", cmd);
		if (err)
			ksft_exit_fail_msg("lru_gen '%s': %s\n", cmd, strerror(-err));
		if (read_gens(&after) && after.max_seq == g.max_seq + 1)
			return;
	}
	ksft_exit_fail_msg("lru_gen '%s' did not age " CGNAME "\n", cmd);
}

/* One reading of H's pages in the youngest generation. */
static void read_young(struct run *r)
{
	struct gens g;
	long young, all = 0;

	if (!read_gens(&g))
		return;
	for (int i = 0; i < g.n; i++)
		all += g.anon[i];
	young = g.anon[g.n - 1];
	if (!r->readings++)
		r->young_of = all;
	if (young > r->young)
		r->young = young;
}

static long child_rss_mb(pid_t pid)
{
	return pid_status_kb(pid, "VmRSS") / 1024;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void run(int token_on, long ram, struct run *r)
{
	const char *name = token_on ? "token" : "memory.min";
	int to_h[2], from_h[2], to_t[2], from_t[2], from_p[2];
	long step = ram * 5 / 100;
	pid_t h, t, p, q[STEPS];
	long long kept0, over0;

	memset(r, 0, sizeof(*r));
	r->h_mb = ram * 30 / 100;
	r->p_mb = ram * 80 / 100;
	if (pipe(to_h) || pipe(from_h) || pipe(to_t) || pipe(from_t) || pipe(from_p))
		ksft_exit_fail_perror("pipe");
	must_set(TOKEN_ENABLE, 1);
	must_set(TOKEN_INTERVAL, 60000);
	h = fork();
	if (h == 0) {
		if (write_file(CG CGNAME "/cgroup.procs", "0"))
			_exit(4);
		page_in_child(r->h_mb, from_h[1], to_h[0]);
	}
	t = fork();
	if (t == 0)
		page_in_child(ram * 10 / 100, from_t[1], to_t[0]);
	if (read_byte(from_h[0]) != 'f' || read_byte(from_t[0]) != 'f')
		ksft_exit_fail_msg("H or T did not start\n");
	r->held = push_out_page_in(h, to_h[1], from_h[0], token_on);
	if (!token_on) {
		char min[32];

		snprintf(min, sizeof(min), "%ld", (r->h_mb + 8) << 20);
		if (write_file(CG CGNAME "/memory.min", min))
			ksft_exit_fail_msg("cannot set memory.min\n");
	}

	if (mglru()) {
		age();
		age();
	}

	/* P: pressure while H holds the token and sleeps. */
	kept0 = token_stat("kept");
	over0 = token_stat("overridden");
	p = hog(r->p_mb, from_p[1]);
	for (;;) {
		struct pollfd pfd = { .fd = from_p[0], .events = POLLIN };

		if (token_on && mglru())
			read_young(r);
		if (poll(&pfd, 1, READ_MS) != 0)
			break;
		if (waitpid(p, NULL, WNOHANG) == p)
			ksft_exit_fail_msg("P died before it allocated %ld MB\n", r->p_mb);
	}
	if (read_byte(from_p[0]) != 'p')
		ksft_exit_fail_msg("P did not allocate %ld MB\n", r->p_mb);
	if (token_on && mglru())
		read_young(r);
	r->kept = token_stat("kept") - kept0;
	r->overridden = token_stat("overridden") - over0;
	r->h_kept = child_rss_mb(h);

	/* The token moves to T once H has been idle for an interval. */
	if (write_file(CG CGNAME "/memory.min", "0"))
		ksft_exit_fail_msg("cannot clear memory.min\n");
	must_set(TOKEN_INTERVAL, 100);
	usleep(300 * 1000);
	if (write(to_t[1], "g", 1) != 1 || read_byte(from_t[0]) != 'r')
		ksft_exit_fail_msg("T did not page its memory back in\n");
	r->moved = token_holder(NULL, 0) == t;

	/* Q: the next pressure, in steps. */
	r->h_left[0] = child_rss_mb(h);
	r->p_left[0] = child_rss_mb(p);
	for (int i = 0; i < STEPS; i++) {
		q[i] = hog(step, from_p[1]);
		if (read_byte(from_p[0]) != 'p')
			ksft_exit_fail_msg("Q did not allocate %ld MB\n", step);
		r->h_left[i + 1] = child_rss_mb(h);
		r->p_left[i + 1] = child_rss_mb(p);
	}
	for (int i = 0; i <= STEPS; i++)
		r->sum += r->h_left[i];
	for (int i = 0; i < STEPS; i++)
		stop(q[i]);
	stop(p);
	if (write(to_h[1], "t", 1) != 1)
		kill(h, SIGKILL);
	if (write(to_t[1], "t", 1) != 1)
		kill(t, SIGKILL);
	waitpid(h, NULL, 0);
	waitpid(t, NULL, 0);
	close(to_h[0]); close(to_h[1]); close(from_h[0]); close(from_h[1]);
	close(to_t[0]); close(to_t[1]); close(from_t[0]); close(from_t[1]);
	close(from_p[0]); close(from_p[1]);
	ksft_print_msg("%s: H %ld MB, %s, %ld MB resident after P (kept +%lld pages, overridden +%lld); %s\n",
		       name, r->h_mb, r->held ? "held the token" : "did not hold the token",
		       r->h_kept, r->kept, r->overridden,
		       r->moved ? "then T took the token" : "T did not take the token");
	for (int i = 0; i <= STEPS; i++)
		ksft_print_msg("%s: Q %3ld MB: H %3ld MB, P %3ld MB resident\n",
			       name, i * step, r->h_left[i], r->p_left[i]);
	ksft_print_msg("%s: sum of H's resident MB over the steps: %ld\n", name, r->sum);
	if (r->readings)
		ksft_print_msg("%s: while P allocated, at most %ld pages of H were in the youngest generation, of %ld when P began (%d readings)\n",
			       name, r->young, r->young_of, r->readings);
}

int main(void)
{
	struct run on, min;
	long ram;

	ksft_print_header();
	ram = mem_mb();
	token_setup(2 * ram);
	if (write_file(CG "cgroup.subtree_control", "+memory"))
		test_exit_skip("no memory cgroup controller\n");
	if (mkdir(CG CGNAME, 0755) && errno != EEXIST)
		ksft_exit_fail_perror("mkdir " CG CGNAME);
	ksft_set_plan(3 + mglru());
	run(1, ram, &on);
	run(0, ram, &min);
	rmdir(CG CGNAME);

	ksft_test_result(on.held && on.moved,
			 "token: H held the token, then T took it\n");
	ksft_test_result(min.h_kept >= min.h_mb * 9 / 10,
			 "memory.min: H kept its memory under P\n");
	ksft_test_result(on.h_left[STEPS] <= min.h_left[STEPS] + on.h_mb / 4 &&
			 (mglru() || on.sum <= min.sum + on.h_mb),
			 "after the token moved on, Q took H's memory as it did after memory.min was cleared\n");
	if (mglru())
		ksft_test_result(on.readings && on.kept > 0 && on.young * 20 <= on.young_of,
				 "MGLRU: eviction did not put H's kept pages back in the youngest generation\n");
	ksft_finished();
}
