// SPDX-License-Identifier: GPL-2.0
/*
 * A process that takes major faults gets the swap token, by both fault
 * paths a test can drive without a disk filesystem:
 *
 *  - anonymous swap-in: two children cycling over more anonymous memory
 *    than fits in RAM; one of them shows up in swap_token_holder (pid and
 *    comm), swap_token_taken grows and a swap_token_take event names it;
 *  - shmem swap-in: a child fills a memfd and writes it to swap
 *    (MADV_PAGEOUT, then the parent fills RAM to free the swap cache),
 *    then reads it back through a shared mapping; the token, freed half
 *    way through the read-back, goes to that child even though it touches
 *    nothing but the memfd from then on.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define MAX_EVENTS	4096

static struct token_event ev[MAX_EVENTS];
static long mem;

static int take_event(int n, int pid, const char *comm)
{
	int i = event_find(ev, n, 0, 1, pid, NULL);

	return i >= 0 && !strcmp(ev[i].comm, comm);
}

static void print_events(int n)
{
	events_print("  ", ev, n, 10);
}

static void grab_anon(void)
{
	struct thrash_stat *st = thrash_stats(2);
	struct thrash_spec spec[2] = {
		{ .name = "grab-a", .mb = mem * 6 / 10, .seed = 1 },
		{ .name = "grab-b", .mb = mem * 6 / 10, .seed = 2 },
	};
	long long taken = token_stat("taken");
	char comm[32] = "";
	pid_t pid[2], holder = 0;
	int tracing = !trace_start(), n, who = -1;
	double start = now_s();

	for (int i = 0; i < 2; i++)
		pid[i] = thrash_spawn(&spec[i], &st[i]);
	while (who < 0 && now_s() < start + 60) {
		sleep_s(0.05);
		holder = token_holder(comm, sizeof(comm));
		who = holder == pid[0] ? 0 : holder == pid[1] ? 1 : -1;
	}
	for (int i = 0; i < 2; i++)
		thrash_kill(pid[i]);
	taken = token_stat("taken") - taken;
	n = tracing ? trace_read(ev, MAX_EVENTS) : -1;

	ksft_print_msg("anon: 2 x %ld MB on %ld MB; holder %d (%s) after %.1f s, %ld and %ld passes\n",
		       spec[0].mb, mem, holder, comm, now_s() - start, st[0].passes, st[1].passes);
	ksft_print_msg("anon: swap_token_taken +%lld\n", taken);
	print_events(n);
	ksft_test_result(taken > 0, "anon: thrashing raised swap_token_taken\n");
	ksft_test_result(who >= 0 && !strcmp(comm, spec[who].name),
			 "anon: swap_token_holder names a thrashing child\n");
	if (n < 0)
		test_skip("anon: no swap_token trace events (%s)\n", strerror(-n));
	else
		ksft_test_result(who >= 0 && take_event(n, holder, spec[who].name),
				 "anon: a swap_token_take event names the holder\n");
}

/* What the shmem child does; the parent tells it to go on with SIGCONT. */
struct shm_args {
	long shm_mb;
};

/* Pages of the @len bytes at @m that are resident, or -1. */
static long resident_pages(void *m, size_t len)
{
	static unsigned char vec[1 << 16];
	long n = 0;

	if (len / 4096 > sizeof(vec) || mincore(m, len, vec))
		return -1;
	for (size_t i = 0; i < len / 4096; i++)
		n += vec[i] & 1;
	return n;
}

static void shm_child(const void *arg, struct thrash_stat *st)
{
	const struct shm_args *a = arg;
	size_t pages = (size_t)a->shm_mb << 8;
	size_t len = (size_t)a->shm_mb << 20;
	uint64_t seed = 7 ^ ((uint64_t)getpid() << 40), *shm;
	int fd = memfd_create("grab-shm", 0);
	long resident;

	prctl(PR_SET_NAME, "grab-shm");
	if (fd < 0 || ftruncate(fd, (off_t)len))
		_exit(3);
	shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		_exit(3);
	for (size_t p = 0; p < pages; p++)
		shm[p * THRASH_WORDS] = thrash_word(seed, p, 0);
	/*
	 * Write it all to swap; what stays in the swap cache meanwhile is
	 * reclaimed first when the parent fills RAM.
	 */
	if (madvise(shm, len, MADV_PAGEOUT))
		_exit(4);
	st->filled = 1;
	raise(SIGSTOP);
	/* A read-back from memory would not be a swap-in test. */
	resident = resident_pages(shm, len);
	if (resident < 0 || resident > (long)pages / 4)
		_exit(5);
	/* Read back; st->passes is the progress in pages for the parent. */
	for (size_t p = 0; p < pages; p++) {
		if (shm[p * THRASH_WORDS] != thrash_word(seed, p, 0))
			st->bad++;
		st->passes = p + 1;
	}
	st->done = 1;
	raise(SIGSTOP);
	_exit(0);
}

static void grab_shmem(void)
{
	struct thrash_stat *st = thrash_stats(1);
	struct shm_args args = { .shm_mb = mem * 4 / 10 };
	size_t pages = (size_t)args.shm_mb << 8;
	long majflt[3] = { 0 }, taken = 0;
	char comm[32] = "";
	pid_t pid, holder = 0;
	int n, seen = 0, reset = 0;
	double start = now_s(), end;

	must_set(TOKEN_INTERVAL, 100);
	pid = spawn(shm_child, &args, st);
	if (pid < 0 || wait_stopped(pid, 120))
		ksft_exit_fail_msg("shmem child did not fill its memory\n");
	/* Free the memfd's swap cache. */
	fill_fresh(mem * 9 / 10);
	majflt[0] = pid_majflt(pid);
	end = now_s() + 300;
	kill(pid, SIGCONT);
	/* Free the token once half of the memfd is read back; watch the holder. */
	for (;;) {
		int status;
		pid_t r = waitpid(pid, &status, WNOHANG | WUNTRACED);

		if (r == pid && WIFSTOPPED(status))
			break;
		if (r)
			thrash_forget(pid);
		if (r || now_s() > end) {
			if (r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 5)
				ksft_exit_fail_msg("more than a quarter of the memfd stayed in memory (or mincore() failed)\n");
			ksft_print_msg("shmem child %s after reading back %ld of %zu pages in %.0f s\n",
				       r ? "died" : "is stuck", st->passes, pages, now_s() - start);
			check_no_oom_kill();
			ksft_exit_fail_msg("no shmem result\n");
		}
		if (!reset && st->passes >= (long)pages / 2) {
			majflt[1] = pid_majflt(pid);
			trace_start();
			taken = token_stat("taken");
			token_reset();
			reset = 1;
		}
		if (reset)
			seen |= token_holder(NULL, 0) == pid;
		sleep_s(0.01);
	}
	majflt[2] = pid_majflt(pid);
	/* Read back before the reset: no faults after it (skipped below). */
	if (!reset)
		majflt[1] = majflt[2];
	holder = token_holder(comm, sizeof(comm));
	taken = token_stat("taken") - taken;
	n = trace_read(ev, MAX_EVENTS);
	thrash_kill(pid);

	ksft_print_msg("shmem: %ld MB memfd; read back in %.1f s with %ld + %ld major faults\n",
		       args.shm_mb, now_s() - start, majflt[1] - majflt[0],
		       majflt[2] - majflt[1]);
	ksft_print_msg("shmem: after the reset: swap_token_taken +%ld, holder %s, now %d (%s)\n",
		       taken, seen ? "seen" : "not seen", holder, comm);
	print_events(n);
	ksft_test_result(!st->bad, "shmem: the memfd came back from swap intact (%lld pages wrong)\n",
			 st->bad);
	if (majflt[2] - majflt[1] < 64) {
		ksft_test_result_fail("shmem: only %ld major faults after the reset: the token's test needs a read-back from swap\n",
				      majflt[2] - majflt[1]);
		ksft_test_result_fail("shmem: no swap_token_take event to look for\n");
		return;
	}
	ksft_test_result(taken > 0 && (seen || (holder == pid && !strcmp(comm, "grab-shm"))),
			 "shmem: swap-in faults on a memfd took the token\n");
	if (n < 0)
		test_skip("shmem: no swap_token trace events (%s)\n", strerror(-n));
	else
		ksft_test_result(take_event(n, pid, "grab-shm"),
				 "shmem: a swap_token_take event names the memfd reader\n");
}

int main(void)
{
	mem = token_begin(7, 0, 0);
	grab_anon();
	grab_shmem();
	check_no_oom_kill();
	ksft_finished();
}
