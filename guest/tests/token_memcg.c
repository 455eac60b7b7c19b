// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim driven by a memory cgroup's limit honours the token, and gives
 * it up before the cgroup's OOM killer.  In a cgroup limited to 50% of
 * RAM, a process H fills 30% of RAM, is pushed out to swap by a filler in
 * the same cgroup, and pages its memory back in, so it holds the token
 * (the check interval is a minute: it stays protected throughout).
 *  - spared: a process P in the cgroup allocates 45% of RAM, once.  The
 *    limit's reclaim must evict P's own pages rather than H's: H keeps at
 *    least 90% of its resident set and swap_token_kept grows.  (A limit
 *    reclaim asks for 32 pages, and under MGLRU often scans down to
 *    priority 1 to find them: reclaim that ignored the token at low
 *    priority took H's pages here.)
 *  - desperate: P mlocks 40% of RAM instead.  Only H's memory can make
 *    room, so the limit's reclaim must take it, to swap, rather than kill:
 *    no OOM kill in the cgroup, with the token on and (the same scenario
 *    as a control) off, H's memory went to swap, and reclaim said that it
 *    overrode the token (swap_token_overridden).  Reclaim that kept
 *    protecting H would end in an OOM kill here.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define CG	"/sys/fs/cgroup/"
#define CGNAME	"tokmemcg"

static long mem;

static long long cg_event(const char *name)
{
	return proc_field(CG CGNAME "/memory.events", name);
}

static void enter_cg(void)
{
	if (write_file(CG CGNAME "/cgroup.procs", "0"))
		_exit(4);
}



/* A child in the cgroup that fills mb MB (mlocked if lock), says 'p', and waits. */
static pid_t filler(long mb, int lock, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		char *m;

		enter_cg();
		if (lock && mlockall(MCL_CURRENT | MCL_FUTURE))
			_exit(5);
		if (!lock)
			munlockall();
		m = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(1);
		touch_pages(m, mb << 20, 1);
		if (fd >= 0 && write(fd, "p", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

struct run {
	long rss_before, rss_after, swap_after;	/* H, MB */
	long long kept, overridden, ooms;
	int held;
};

/* Set up H, then run P (mlocked or not) against it; 0 on success. */
static int run(int token_on, int lock, long h_mb, long p_mb, struct run *r)
{
	int to_h[2], from_h[2], from_p[2];
	long long kept0, over0, oom0;
	pid_t h, p, f;

	memset(r, 0, sizeof(*r));
	rmdir(CG CGNAME);
	if (mkdir(CG CGNAME, 0755) || write_file(CG CGNAME "/memory.max", "0") ||
	    pipe(to_h) || pipe(from_h) || pipe(from_p))
		return -1;
	{
		char val[32];

		snprintf(val, sizeof(val), "%ldM", mem / 2);
		if (write_file(CG CGNAME "/memory.max", val))
			return -1;
	}
	must_set(TOKEN_ENABLE, token_on);
	h = fork();
	if (h == 0) {
		enter_cg();
		page_in_child(h_mb, from_h[1], to_h[0]);
	}
	if (read_byte(from_h[0]) != 'f')
		return -1;
	/* Push H out to swap with the cgroup's own reclaim. */
	f = filler(mem * 45 / 100, 0, from_p[1]);
	if (read_byte(from_p[0]) != 'p')
		return -1;
	kill(f, SIGKILL);
	waitpid(f, NULL, 0);
	token_reset();
	if (!token_on)
		must_set(TOKEN_ENABLE, 0);
	if (write(to_h[1], "g", 1) != 1 || read_byte(from_h[0]) != 'r')
		return -1;
	r->rss_before = pid_status_kb(h, "VmRSS") / 1024;
	r->held = token_holder(NULL, 0) == h;
	kept0 = token_stat("kept");
	over0 = token_stat("overridden");
	oom0 = cg_event("oom_kill");
	p = filler(p_mb, lock, from_p[1]);
	read_byte(from_p[0]);	/* 'p', or nothing if P was killed */
	r->kept = token_stat("kept") - kept0;
	r->overridden = token_stat("overridden") - over0;
	r->ooms = cg_event("oom_kill") - oom0;
	r->rss_after = pid_status_kb(h, "VmRSS") / 1024;
	r->swap_after = pid_status_kb(h, "VmSwap") / 1024;
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	if (write(to_h[1], "t", 1) != 1)
		kill(h, SIGKILL);
	waitpid(h, NULL, 0);
	close(to_h[0]); close(to_h[1]); close(from_h[0]); close(from_h[1]);
	close(from_p[0]); close(from_p[1]);
	rmdir(CG CGNAME);
	return 0;
}

static void show(const char *name, const struct run *r)
{
	ksft_print_msg("%s: H %ld MB resident, then %ld MB resident and %ld MB in swap; %s; kept +%lld, overridden +%lld; OOM kills in the cgroup %lld\n",
		       name, r->rss_before, r->rss_after, r->swap_after,
		       r->held ? "H held the token" : "H did not hold the token", r->kept,
		       r->overridden, r->ooms);
}

int main(void)
{
	struct run spared, desperate, control;
	long h_mb, ram;

	ksft_print_header();
	ram = mem_mb();
	token_setup(2 * ram);
	mem = ram;
	if (write_file(CG "cgroup.subtree_control", "+memory"))
		test_exit_skip("no memory cgroup controller\n");
	ksft_set_plan(4);
	must_set(TOKEN_INTERVAL, 60000);
	h_mb = mem * 30 / 100;
	ksft_print_msg("RAM %ld MB, cgroup limit %ld MB, H %ld MB\n", mem, mem / 2, h_mb);

	if (run(1, 0, h_mb, mem * 45 / 100, &spared) ||
	    run(1, 1, h_mb, mem * 40 / 100, &desperate) ||
	    run(0, 1, h_mb, mem * 40 / 100, &control))
		ksft_exit_fail_msg("could not set up a run: %s\n", strerror(errno));
	show("spared", &spared);
	show("desperate", &desperate);
	show("control, token off", &control);

	ksft_test_result(spared.held && desperate.held,
			 "H took the token by paging its memory back in inside the cgroup\n");
	ksft_test_result(spared.kept > 0 && spared.rss_after >= spared.rss_before * 9 / 10,
			 "spared: the limit's reclaim kept H's pages and evicted P's\n");
	ksft_test_result(!control.ooms,
			 "control: with the token off, P's mlocked memory fits once H is in swap\n");
	ksft_test_result(!desperate.ooms && desperate.swap_after > 0 && desperate.overridden > 0,
			 "desperate: with the token on, reclaim overrode it and took H's memory to swap rather than kill\n");
	ksft_finished();
}
