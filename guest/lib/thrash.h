/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory workloads for the swap token tests and the thrash workload.
 *
 * A thrash child fills an anonymous region with a pattern that is unique per
 * word, per process and per generation, then cycles over it: either reading
 * one word per page (cheap, but every page is faulted back in if it was
 * swapped out) or, in full mode, checking every word and rewriting the page
 * with the next generation (so every page is dirty and goes back to swap).
 * Progress and results go to a struct thrash_stat in memory shared with the
 * parent.  Children the parent has not reaped are killed when it exits.
 *
 * Also here: per-process counters from /proc/PID (VmRSS, majflt).
 */
#ifndef THRASH_H
#define THRASH_H

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "guest.h"

#define THRASH_PAGE	4096L
#define THRASH_WORDS	(THRASH_PAGE / 8)
#define THRASH_MAX	16

struct thrash_spec {
	const char *name;	/* comm of the child (15 chars at most) */
	long mb;		/* size of the region */
	uint64_t seed;		/* mixed with the pid into the pattern */
	int thp;		/* leave transparent huge pages allowed */
	int full;		/* check every word and rewrite every page per pass */
	int stop_filled;	/* raise(SIGSTOP) once the region is filled */
	long passes;		/* stop after this many passes; 0: no limit */
	double seconds;		/* no new pass after this long after the fill; 0: none */
};

/* Written by the child, read by the parent (MAP_SHARED): hence volatile. */
struct thrash_stat {
	volatile int filled;		/* the region holds generation 0 */
	volatile int done;		/* finished (the child exits next) */
	volatile long passes;		/* passes completed */
	volatile long long checked;	/* bytes compared with the pattern */
	volatile long long bad;		/* bytes that differed */
};

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	if (s <= 0)
		return;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* MemTotal in MB: the tests size their working sets from it. */
static inline long mem_mb(void)
{
	return meminfo_kb("MemTotal") / 1024;
}

/* The pattern word: a bijection of the word's index, keyed by seed. */
static inline uint64_t thrash_word(uint64_t seed, uint64_t page, uint64_t word)
{
	uint64_t x = seed ^ (page * THRASH_WORDS + word);

	x *= 0x9e3779b97f4a7c15ULL;
	return x ^ (x >> 29);
}

static inline uint64_t thrash_gen_seed(uint64_t seed, long gen)
{
	return seed + gen * 0x632be59bd9b4e019ULL;
}

/* Number of bytes in which two words differ. */
static inline int bytes_differing(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ b;
	int n = 0;

	for (; x; x >>= 8)
		n += !!(x & 0xff);
	return n;
}

static inline void thrash_fill_page(uint64_t *page, uint64_t seed, size_t p)
{
	for (size_t w = 0; w < THRASH_WORDS; w++)
		page[w] = thrash_word(seed, p, w);
}

/* Check every word of page p against seed; bytes wrong. */
static inline long thrash_check_page(const uint64_t *page, uint64_t seed, size_t p)
{
	long bad = 0;

	for (size_t w = 0; w < THRASH_WORDS; w++)
		if (page[w] != thrash_word(seed, p, w))
			bad += bytes_differing(page[w], thrash_word(seed, p, w));
	return bad;
}

/*
 * Page visit order for reading a file "in scrambled order": k * THRASH_STRIDE
 * mod pages is a permutation of the pages because the prime THRASH_STRIDE
 * does not divide pages = mb * 256 unless it divides mb (callers check).
 */
#define THRASH_STRIDE	7919

/*
 * Write a file of mb MB whose page p holds thrash_word(seed, p, w) at word
 * w, and fsync it.  With drop_behind, each MB leaves the page cache as soon
 * as it is on disk (invalidated, not reclaimed: no shadow entry is left),
 * so that the file is cold and was never evicted.  0, or -1 with errno set.
 */
static inline int thrash_write_file(const char *name, long mb, uint64_t seed, int drop_behind)
{
	static uint64_t buf[256 * THRASH_WORDS];	/* 1 MB */
	size_t pages = (size_t)mb << 8;
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	for (size_t p = 0; p < pages; p += 256) {
		for (size_t k = 0; k < 256; k++)
			thrash_fill_page(buf + k * THRASH_WORDS, seed, p + k);
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    (drop_behind && (fdatasync(fd) ||
				     posix_fadvise(fd, p * THRASH_PAGE, sizeof(buf),
						   POSIX_FADV_DONTNEED)))) {
			close(fd);
			return -1;
		}
	}
	if (fsync(fd)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* A private anonymous region of mb MB, 4 kB pages unless thp; NULL on error. */
static inline uint64_t *thrash_region(long mb, int thp)
{
	size_t len = (size_t)mb << 20;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (!thp)
		madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

/* Body of a thrash child; never returns.  Exit status 1 if a byte was wrong. */
static inline void thrash_child(const struct thrash_spec *s, struct thrash_stat *st)
{
	size_t pages = (size_t)s->mb << 8;
	uint64_t seed = s->seed ^ ((uint64_t)getpid() << 40);
	uint64_t *mem, cur, next;
	double end;
	long gen = 0;

	prctl(PR_SET_NAME, s->name);
	mem = thrash_region(s->mb, s->thp);
	if (!mem)
		_exit(3);
	for (size_t p = 0; p < pages; p++)
		thrash_fill_page(mem + p * THRASH_WORDS, seed, p);
	st->filled = 1;
	if (s->stop_filled)
		raise(SIGSTOP);
	end = s->seconds > 0 ? now_s() + s->seconds : 0;
	while ((!s->passes || st->passes < s->passes) && (!end || now_s() < end)) {
		long long bad = 0;

		cur = thrash_gen_seed(seed, gen);
		next = thrash_gen_seed(seed, gen + 1);
		for (size_t p = 0; p < pages; p++) {
			uint64_t *page = mem + p * THRASH_WORDS;

			if (s->full) {
				bad += thrash_check_page(page, cur, p);
				thrash_fill_page(page, next, p);
			} else if (page[0] != thrash_word(cur, p, 0)) {
				bad += bytes_differing(page[0], thrash_word(cur, p, 0));
			}
		}
		gen += s->full;
		st->checked += s->full ? (long long)pages * THRASH_PAGE : (long long)pages * 8;
		st->bad += bad;
		st->passes++;
	}
	if (s->full) {
		long long bad = 0;

		cur = thrash_gen_seed(seed, gen);
		for (size_t p = 0; p < pages; p++)
			bad += thrash_check_page(mem + p * THRASH_WORDS, cur, p);
		st->checked += (long long)pages * THRASH_PAGE;
		st->bad += bad;
	}
	st->done = 1;
	_exit(st->bad ? 1 : 0);
}

/* Children not reaped yet: killed by thrash_kill_all() at exit. */
static inline pid_t *thrash_pids(void)
{
	static pid_t pids[THRASH_MAX];

	return pids;
}

static inline void thrash_forget(pid_t pid)
{
	for (int i = 0; i < THRASH_MAX; i++)
		if (thrash_pids()[i] == pid)
			thrash_pids()[i] = 0;
}

/* SIGKILL a child and reap it. */
static inline void thrash_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	thrash_forget(pid);
}

static inline void thrash_kill_all(void)
{
	for (int i = 0; i < THRASH_MAX; i++)
		thrash_kill(thrash_pids()[i]);
}

/*
 * Wait until each of n children, whose stats are st[0..n-1], has completed
 * a pass over its memory, at most timeout seconds; 0, or -1 if one did not.
 */
static inline int thrash_wait_cycling(const struct thrash_stat *st, int n, double timeout)
{
	for (double end = now_s() + timeout;; sleep_s(0.2)) {
		int cycling = 0;

		for (int i = 0; i < n; i++)
			cycling += st[i].passes > 0;
		if (cycling == n)
			return 0;
		if (now_s() >= end)
			return -1;
	}
}

/* n zeroed stat slots shared with the children; exits the program on error. */
static inline struct thrash_stat *thrash_stats(int n)
{
	void *p = mmap(NULL, n * sizeof(struct thrash_stat), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("thrash: mmap");
		exit(1);
	}
	return p;
}

/*
 * Fork a child running fn(arg); -1 on error.  The child must end with _exit():
 * exit() would flush a copy of the parent's unwritten output.
 */
static inline pid_t spawn(void (*fn)(const void *arg, struct thrash_stat *st), const void *arg,
			  struct thrash_stat *st)
{
	static int registered;
	pid_t pid;
	int i;

	for (i = 0; i < THRASH_MAX && thrash_pids()[i]; i++)
		;
	if (i == THRASH_MAX)
		return -1;
	if (!registered++)
		atexit(thrash_kill_all);
	pid = fork();
	if (pid == 0) {
		fn(arg, st);
		_exit(3);
	}
	if (pid > 0)
		thrash_pids()[i] = pid;
	return pid;
}

static inline void thrash_child_fn(const void *spec, struct thrash_stat *st)
{
	thrash_child(spec, st);
}

static inline pid_t thrash_spawn(const struct thrash_spec *s, struct thrash_stat *st)
{
	return spawn(thrash_child_fn, s, st);
}

/* Allocate fresh memory and write each page once, never reading it back. */
static inline void fill_fresh_child(const void *arg, struct thrash_stat *st)
{
	long mb = *(const long *)arg;
	uint64_t *m;

	prctl(PR_SET_NAME, "filler");
	/* Its own code and stack must not be paged out and faulted back in either. */
	mlockall(MCL_CURRENT);
	m = thrash_region(mb, 0);
	if (!m)
		_exit(3);
	for (size_t p = 0; p < (size_t)mb << 8; p++)
		m[p * THRASH_WORDS] = p;
	st->done = 1;
	_exit(0);
}

static inline int wait_exit(pid_t pid, double timeout);

/*
 * Push other processes' memory out to swap: a child fills mb MB of fresh
 * memory and exits.  It takes minor faults only, so it never competes for
 * the swap token.  1 on success.
 */
static inline int fill_fresh(long mb)
{
	static struct thrash_stat *st;
	pid_t pid;

	if (!st)
		st = thrash_stats(1);
	pid = spawn(fill_fresh_child, &mb, st);
	return pid > 0 && !wait_exit(pid, 120);
}

/*
 * Wait until pid stops itself (raise(SIGSTOP)); 0, or -1 if it exited or
 * timed out (with a message on stdout saying which).
 */
static inline int wait_stopped(pid_t pid, double timeout)
{
	double end = now_s() + timeout;
	int status;

	while (now_s() < end) {
		pid_t r = waitpid(pid, &status, WNOHANG | WUNTRACED);

		if (r == pid && WIFSTOPPED(status))
			return 0;
		if (r == pid || r < 0) {
			thrash_forget(pid);
			if (r == pid && WIFSIGNALED(status))
				printf("# child %d killed by signal %d\n", pid, WTERMSIG(status));
			else if (r == pid)
				printf("# child %d exited, status %d\n", pid, WEXITSTATUS(status));
			return -1;
		}
		sleep_s(0.01);
	}
	printf("# child %d did not stop within %.0f s\n", pid, timeout);
	return -1;
}

/* Wait for pid to exit; its exit status, or -1 if it was killed or timed out. */
static inline int wait_exit(pid_t pid, double timeout)
{
	double end = now_s() + timeout;
	int status;

	while (now_s() < end) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			thrash_forget(pid);
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
		if (r < 0)
			return -1;
		sleep_s(0.05);
	}
	return -1;
}

/* "Field:  N kB" from /proc/PID/status, in kB; -1 if absent. */
static inline long pid_status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, n) && line[n] == ':') {
			val = atol(line + n + 1);
			break;
		}
	}
	fclose(f);
	return val;
}

/* Major faults of pid (field 12 of /proc/PID/stat); -1 on error. */
static inline long pid_majflt(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long majflt;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %lu", &majflt) != 1)
		return -1;
	return majflt;
}

#endif
