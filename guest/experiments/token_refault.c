// SPDX-License-Identifier: GPL-2.0
/*
 * Only thrashing takes the token (vm.swap_token_refault_gate).  T1 and T2
 * cycle over 60% of RAM each, so they keep faulting back pages they lost;
 * S reads a file of 75% of RAM that is not in the page cache and has never
 * been reclaimed (written with the cache dropped behind it), one pass in a
 * scrambled order with MADV_RANDOM, so that each of its faults reads one
 * page it never had.  200 ms check interval, 3 s timeout, no size limit.
 *
 *  - gate on: S faults but never takes the token, its faults are counted as
 *    refused (swap_token_refused_cold), and T1 or T2 does take it;
 *  - gate off: a second streaming reader in the same load does take the
 *    token.  Without this control, an S that never contended at all would
 *    pass the first part too.
 *
 * Without MADV_RANDOM, read-around brings in pages that are evicted before
 * S gets to them: S then refaults them, and is thrashing by the gate's
 * measure (the bench's "stream" scenario has that case).
 *
 * Needs the scratch disk (/mnt/scratch): tmpfs pages are not page cache
 * that a cold read could miss.
 */
#include <fcntl.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define FILE_PATH	"/mnt/scratch/token_refault"
#define FILE_SEED	77
#define INTERVAL_MS	200
#define TIMEOUT_MS	3000
#define RUN_S		12	/* the gate-on run, at least */
#define RUN_MAX_S	40	/* each run at most: until T1, T2 (on) or S (off) took it */
#define MAX_EVENTS	4096

static struct token_event ev[MAX_EVENTS];
static long file_mb;

/*
 * A streaming reader: map the file and check every page once, in a
 * scrambled order, without read-around.  Bytes checked and wrong go to *st.
 */
static void reader(const void *arg, struct thrash_stat *st)
{
	size_t pages = (size_t)file_mb << 8;
	const uint64_t *mem;
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, "streamer");
	fd = open(FILE_PATH, O_RDONLY);
	mem = fd < 0 ? MAP_FAILED : mmap(NULL, pages * THRASH_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		_exit(3);
	/* No read-around: every fault reads one page it never had. */
	madvise((void *)mem, pages * THRASH_PAGE, MADV_RANDOM);
	for (size_t k = 0; k < pages; k++) {
		size_t p = k * THRASH_STRIDE % pages;

		st->bad += thrash_check_page(mem + p * THRASH_WORDS, FILE_SEED, p);
		st->checked += THRASH_PAGE;
	}
	st->done = 1;
	_exit(st->bad ? 1 : 0);
}

struct run {
	int takes_s, takes_t;	/* swap_token_take events of S, of T1 and T2 */
	long majflt;		/* S's major faults */
	long long refused;	/* swap_token_refused_cold */
	long long checked, bad;	/* S's bytes */
};

static int count_takes(int n, pid_t pid)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += ev[i].take && ev[i].pid == pid;
	return k;
}

/*
 * Start a reader with the cache dropped, trace at least min_s seconds and
 * until the reader (want_reader) or T1 or T2 took the token, or RUN_MAX_S
 * passed, then stop it.
 */
static void traced_run(struct run *r, const char *name, const pid_t *t, double min_s,
		       int want_reader)
{
	struct thrash_stat *st = thrash_stats(1);
	long long refused;
	pid_t s;
	int n = 0;

	if (write_file("/proc/sys/vm/drop_caches", "3"))
		ksft_exit_fail_msg("cannot drop the page cache\n");
	/* The trace first: the first take after the reset may come at once. */
	if (trace_clear())
		ksft_exit_fail_msg("cannot empty the trace buffer: %s\n", strerror(errno));
	token_reset();
	refused = token_stat("refused_cold");
	s = spawn(reader, NULL, st);
	if (s < 0)
		ksft_exit_fail_msg("cannot start the reader\n");
	for (double t0 = now_s(); now_s() - t0 < RUN_MAX_S && !st->done;) {
		sleep_s(1);
		n = trace_read(ev, MAX_EVENTS);
		if (n < 0)
			ksft_exit_fail_msg("cannot read the trace: %s\n", strerror(-n));
		if (now_s() - t0 >= min_s &&
		    (want_reader ? count_takes(n, s) : count_takes(n, t[0]) + count_takes(n, t[1])))
			break;
	}
	r->majflt = pid_majflt(s);
	r->refused = token_stat("refused_cold") - refused;
	thrash_kill(s);
	r->checked = st->checked;
	r->bad = st->bad;
	r->takes_s = count_takes(n, s);
	r->takes_t = count_takes(n, t[0]) + count_takes(n, t[1]);
	ksft_print_msg("%s: %d events; takes S %d, T1+T2 %d; S %ld major faults, %lld refused, %lld MB checked, %lld bytes wrong\n",
		       name, n, r->takes_s, r->takes_t, r->majflt, r->refused,
		       r->checked >> 20, r->bad);
}

int main(void)
{
	struct run on = { 0 }, off = { 0 };
	struct thrash_spec spec[2];
	pid_t t[2];
	long mem;

	mem = token_begin(6, INTERVAL_MS, TIMEOUT_MS);
	if (access("/mnt/scratch", W_OK))
		test_exit_skip("no scratch disk at /mnt/scratch\n");
	if (access(TOKEN_REFAULT_GATE, W_OK))
		ksft_exit_fail_msg("%s is missing\n", TOKEN_REFAULT_GATE);
	must_set(TOKEN_SIZE_LIMIT, 0);
	must_set(TOKEN_REFAULT_GATE, 1);
	if (trace_start())
		test_exit_skip("no tracefs or no swap_token events\n");
	file_mb = mem * 3 / 4;	/* not a multiple of THRASH_STRIDE */
	if (thrash_write_file(FILE_PATH, file_mb, FILE_SEED, 1))
		ksft_exit_fail_msg("cannot write %s: %s\n", FILE_PATH, strerror(errno));

	start_two_thrashers(spec, t, mem * 6 / 10, 40, 300);
	ksft_print_msg("T1 %d, T2 %d (%ld MB each), file %ld MB, RAM %ld MB\n",
		       t[0], t[1], spec[0].mb, file_mb, mem);

	traced_run(&on, "gate on", t, RUN_S, 0);
	must_set(TOKEN_REFAULT_GATE, 0);
	traced_run(&off, "gate off", t, 0, 1);
	thrash_kill_all();
	unlink(FILE_PATH);

	ksft_test_result(on.majflt > 0 && !on.takes_s,
			 "gate on: the reader faulted (%ld major faults) and never took the token\n",
			 on.majflt);
	ksft_test_result(on.refused > 0, "gate on: cold faults were refused (%lld)\n",
			 on.refused);
	ksft_test_result(on.takes_t > 0, "gate on: the thrashing processes took the token (%d times)\n",
			 on.takes_t);
	ksft_test_result(off.takes_s > 0, "gate off: the reader took the token (%d times)\n",
			 off.takes_s);
	ksft_test_result(on.checked + off.checked > 0 && !on.bad && !off.bad,
			 "the file read back intact (%lld MB checked, %lld bytes wrong)\n",
			 (on.checked + off.checked) >> 20, on.bad + off.bad);
	check_no_oom_kill();
	ksft_finished();
}
