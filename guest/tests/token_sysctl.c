// SPDX-License-Identifier: GPL-2.0
/*
 * The swap token sysctls accept exactly their documented ranges: every
 * out-of-range, negative, overflowing, non-numeric, empty or overlong write
 * fails with EINVAL and leaves the value as it was (also values that would
 * land in range if truncated to 32 bits), valid values are accepted and read
 * back, swap_token_holder cannot be written, and writers racing each other
 * with valid and invalid values never leave or expose anything but a valid
 * value.
 *
 * A write of zero bytes changes nothing; it may succeed as a no-op or fail
 * with EINVAL.  A write of two numbers ("150 160") is taken as the kernel's
 * other integer sysctls take it: the first is set and the write succeeds,
 * never both an error and a change.
 *
 * The holder file shows the holder as the reader's PID namespace sees it:
 * a reader in a new PID namespace sees "none" while a process outside it
 * (this test, which pages its memory back in from swap) holds the token.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define LONG_LEN	5000

struct knob {
	const char *path;
	const char *name;
	const char *probe[2];	/* values set before the invalid writes */
	const char *bad[8];	/* invalid for this knob only */
	const char *good[6];	/* valid, accepted and read back */
};

static const struct knob knobs[] = {
	{ TOKEN_ENABLE, "swap_token", { "0", "1" },
	  { "2", "-1", "10", "2147483648", "4294967296", "4294967297" },
	  { "0", "1", "1\n", "0\n" } },
	{ TOKEN_INTERVAL, "swap_token_interval_ms", { "777" },
	  { "0", "9", "60001", "-10", "2147483648", "4294967306" },
	  { "10", "60000", "2000\n", "150", "100" } },
	{ TOKEN_TIMEOUT, "swap_token_timeout_ms", { "12345" },
	  { "0", "99", "3600001", "-100", "2147483648", "4294967796" },
	  { "100", "3600000", "300000\n", "1500" } },
	{ TOKEN_SIZE_LIMIT, "swap_token_size_limit_pct", { "33" },
	  { "101", "-1", "1000", "2147483648", "4294967296", "4294967297" },
	  { "0", "100", "75\n", "1" } },
};
#define NKNOBS	ARRAY_SIZE(knobs)

/* Invalid for every knob; the overlong ones are filled in by main(). */
static char long_digits[LONG_LEN + 1], long_alpha[LONG_LEN + 1], long_zeros[LONG_LEN + 1];
static const char *const common_bad[] = {
	"-", "-2147483649", "99999999999999999999", "18446744073709551616", "abc", "1a",
	"1.5", "\n", " ", long_digits, long_alpha, long_zeros,
};

static const char *show(const char *v)
{
	static char buf[40];

	if (!strcmp(v, "\n"))
		return "<newline>";
	if (!strcmp(v, " "))
		return "<space>";
	if (strlen(v) > 20)
		snprintf(buf, sizeof(buf), "<%zu chars %.6s...>", strlen(v), v);
	else
		snprintf(buf, sizeof(buf), "'%s'", v);
	return buf;
}

/* Numeric value of a sysctl, or LONG_MIN if unreadable or not one clean number. */
static long read_knob(const char *path)
{
	char buf[64], *end;
	long v;

	if (read_file(path, buf, sizeof(buf)) || !buf[0])
		return LONG_MIN;
	errno = 0;
	v = strtol(buf, &end, 10);
	return errno || *end ? LONG_MIN : v;
}

/* An invalid write: EINVAL and no change.  1 if it behaved. */
static int try_bad(const struct knob *k, const char *val)
{
	long before = read_knob(k->path), after;
	int err = write_file(k->path, val);

	after = read_knob(k->path);
	if (err == -EINVAL && after == before)
		return 1;
	ksft_print_msg("%s: writing %s: %s, value %ld -> %ld\n", k->name, show(val),
		       err ? strerror(-err) : "accepted", before, after);
	return 0;
}

static void test_invalid(const struct knob *k)
{
	int ok = 1, n = 0, err;

	for (int p = 0; p < 2 && k->probe[p]; p++) {
		err = setting_set(k->path, k->probe[p]);
		if (err || read_knob(k->path) != atol(k->probe[p])) {
			ksft_print_msg("%s: cannot set %s: %s\n", k->name, k->probe[p],
				       strerror(-err));
			ok = 0;
			continue;
		}
		for (int i = 0; i < 8 && k->bad[i]; i++, n++)
			ok &= try_bad(k, k->bad[i]);
		for (size_t i = 0; i < ARRAY_SIZE(common_bad); i++, n++)
			ok &= try_bad(k, common_bad[i]);
		/* A zero-byte write must not change anything either. */
		err = write_file(k->path, "");
		if ((err && err != -EINVAL) || read_knob(k->path) != atol(k->probe[p])) {
			ksft_print_msg("%s: empty write: %s, value now %ld\n", k->name,
				       err ? strerror(-err) : "accepted", read_knob(k->path));
			ok = 0;
		}
		n++;
	}
	ksft_test_result(ok, "%s: %d invalid writes fail with EINVAL and change nothing\n",
			 k->name, n);
}

static void test_valid(const struct knob *k)
{
	int ok = 1;

	for (int i = 0; i < 6 && k->good[i]; i++) {
		int err = write_file(k->path, k->good[i]);
		long v = read_knob(k->path);

		if (err || v != atol(k->good[i])) {
			ksft_print_msg("%s: writing %s: %s, reads %ld\n", k->name, show(k->good[i]),
				       err ? strerror(-err) : "accepted", v);
			ok = 0;
		}
	}
	ksft_test_result(ok, "%s: valid values are accepted and read back\n", k->name);
}

static void test_holder(void)
{
	char buf[64], comm[32];
	struct stat st;
	int fd, wrote = 0, pid;

	fd = open(TOKEN_HOLDER, O_WRONLY);
	if (fd >= 0) {
		wrote = write(fd, "1", 1) >= 0;
		close(fd);
	}
	if (stat(TOKEN_HOLDER, &st) || read_file(TOKEN_HOLDER, buf, sizeof(buf))) {
		ksft_test_result_fail("swap_token_holder: cannot stat or read\n");
		return;
	}
	ksft_print_msg("swap_token_holder: mode %o, reads '%s'\n", st.st_mode & 0777, buf);
	pid = token_holder(comm, sizeof(comm));
	ksft_test_result(!wrote && !(st.st_mode & 0222) &&
			 (!strcmp(buf, "none") || (pid > 0 && comm[0])),
			 "swap_token_holder is read-only and reads 'none' or '<pid> <comm>'\n");
}

/* "150 160" to the interval: success and 150, or an error and no change. */
static void test_two_numbers(void)
{
	long before, after;
	int err;

	setting_set(TOKEN_INTERVAL, "2000");
	before = read_knob(TOKEN_INTERVAL);
	err = write_file(TOKEN_INTERVAL, "150 160");
	after = read_knob(TOKEN_INTERVAL);
	ksft_print_msg("writing '150 160': %s, value %ld -> %ld\n",
		       err ? strerror(-err) : "accepted", before, after);
	ksft_test_result((!err && after == 150) || (err && after == before),
			 "swap_token_interval_ms: '150 160' sets 150 and succeeds, or fails and changes nothing\n");
}

/*
 * Make sure somebody holds the token: fill 4 MB, have a child push it out
 * to swap (fill_fresh() only takes minor faults), and fault it back in.
 * The first major fault after a reset takes the token.
 */
static void take_token(void)
{
	long len = 4 << 20, majflt;
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char sink;

	if (mem == MAP_FAILED)
		return;
	memset(mem, 1, len);
	fill_fresh(mem_mb() * 9 / 10);
	token_reset();
	majflt = pid_majflt(getpid());
	for (long off = 0; off < len; off += 4096)
		sink = mem[off];
	(void)sink;
	munmap(mem, len);
	ksft_print_msg("4 MB pushed out to swap and touched again: %ld major faults, holder %d\n",
		       pid_majflt(getpid()) - majflt, token_holder(NULL, 0));
}

static void test_holder_namespace(void)
{
	char outside[64] = "", inside[64] = "";
	int fd[2], status = -1;
	pid_t child;

	take_token();
	if (pipe(fd) || unshare(CLONE_NEWPID)) {
		ksft_test_result_fail("swap_token_holder: pipe or unshare(CLONE_NEWPID): %s\n",
				      strerror(errno));
		return;
	}
	/* Our next child is the first process of the new namespace. */
	child = fork();
	if (child == 0) {
		char buf[64] = "";

		read_file(TOKEN_HOLDER, buf, sizeof(buf));
		_exit(write(fd[1], buf, strlen(buf) + 1) > 0 ? 0 : 1);
	}
	if (child < 0 || read(fd[0], inside, sizeof(inside) - 1) <= 0)
		inside[0] = '\0';
	waitpid(child, &status, 0);
	read_file(TOKEN_HOLDER, outside, sizeof(outside));
	ksft_print_msg("swap_token_holder: '%s' here, '%s' in a new PID namespace\n", outside,
		       inside);
	ksft_test_result(strcmp(outside, "none") && !strcmp(inside, "none"),
			 "swap_token_holder: a holder outside the reader's PID namespace reads as 'none'\n");
	close(fd[0]);
	close(fd[1]);
}

/* Concurrent writers: each writes random valid and invalid values and reads back. */
#define GOOD_MAX	4
struct race {
	unsigned int seed;
	double end;
	long writes, bad_results, bad_reads;
};

static const long race_good[NKNOBS][GOOD_MAX] = {
	{ 0, 1, 0, 1 }, { 10, 100, 2000, 60000 }, { 100, 1500, 300000, 3600000 },
	{ 0, 1, 75, 100 },
};

static int race_valid(int k, long v)
{
	for (int i = 0; i < GOOD_MAX; i++)
		if (race_good[k][i] == v)
			return 1;
	return 0;
}

static int list_len(const char *const *list, int max)
{
	int n = 0;

	while (n < max && list[n])
		n++;
	return n;
}

static void *race_thread(void *arg)
{
	struct race *r = arg;

	while (now_s() < r->end) {
		int k = rand_r(&r->seed) % NKNOBS, bad = rand_r(&r->seed) % 2, err;
		char val[32];

		if (bad) {
			int n = list_len(knobs[k].bad, 8);
			int i = rand_r(&r->seed) % (n + ARRAY_SIZE(common_bad));
			const char *v = i < n ? knobs[k].bad[i] : common_bad[i - n];

			err = write_file(knobs[k].path, v);
			r->bad_results += err != -EINVAL;
		} else {
			long v = race_good[k][rand_r(&r->seed) % GOOD_MAX];

			snprintf(val, sizeof(val), "%ld", v);
			err = write_file(knobs[k].path, val);
			r->bad_results += err != 0;
		}
		r->writes++;
		r->bad_reads += !race_valid(k, read_knob(knobs[k].path));
	}
	return NULL;
}

static void test_race(void)
{
	struct race r[4];
	pthread_t th[4];
	pthread_attr_t attr;
	long writes = 0, results = 0, reads = 0, final_bad = 0;

	for (size_t k = 0; k < NKNOBS; k++)
		setting_setl(knobs[k].path, race_good[k][1]);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	for (int i = 0; i < 4; i++) {
		r[i] = (struct race){ .seed = 1 + i, .end = now_s() + 1.0 };
		if (pthread_create(&th[i], &attr, race_thread, &r[i]))
			ksft_exit_fail_msg("pthread_create failed\n");
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		writes += r[i].writes;
		results += r[i].bad_results;
		reads += r[i].bad_reads;
	}
	for (size_t k = 0; k < NKNOBS; k++) {
		long v = read_knob(knobs[k].path);

		ksft_print_msg("after the race %s = %ld\n", knobs[k].name, v);
		final_bad += !race_valid(k, v);
	}
	ksft_print_msg("race: %ld writes by 4 threads in 1 s, %ld wrong results, %ld invalid reads\n",
		       writes, results, reads);
	ksft_test_result(writes > 0 && results == 0,
			 "racing writers: valid writes succeed, invalid ones fail with EINVAL\n");
	ksft_test_result(reads == 0 && final_bad == 0,
			 "racing writers: every value read during and after is a valid one\n");
}

int main(void)
{
	memset(long_digits, '9', LONG_LEN);
	memset(long_alpha, 'a', LONG_LEN);
	memset(long_zeros, '0', LONG_LEN);
	long_zeros[LONG_LEN - 1] = '1';

	ksft_print_header();
	token_require(0);
	ksft_set_plan(2 * ARRAY_SIZE(knobs) + 5);
	for (size_t k = 0; k < ARRAY_SIZE(knobs); k++) {
		test_invalid(&knobs[k]);
		test_valid(&knobs[k]);
	}
	test_two_numbers();
	test_holder();
	test_race();
	/* Last: unshare() moves our later children into the new namespace. */
	test_holder_namespace();
	ksft_finished();
}
