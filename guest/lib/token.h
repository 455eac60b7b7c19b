/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The swap token's user interface as the guest tests use it: the vm.swap_token*
 * sysctls, the holder file, the swap_token_* vmstat counters and the
 * swap_token trace events.  Every setting a test changes through
 * setting_set() gets its old value back when the test exits.
 */
#ifndef TOKEN_H
#define TOKEN_H

#include <sys/klog.h>
#include <sys/mman.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"

#define TOKEN_ENABLE	"/proc/sys/vm/swap_token"
#define TOKEN_INTERVAL	"/proc/sys/vm/swap_token_interval_ms"
#define TOKEN_TIMEOUT	"/proc/sys/vm/swap_token_timeout_ms"
#define TOKEN_SIZE_LIMIT "/proc/sys/vm/swap_token_size_limit_pct"
#define TOKEN_HOLDER	"/proc/sys/vm/swap_token_holder"
#define TRACING		"/sys/kernel/tracing/"
#define TOKEN_EVENTS	TRACING "events/swap_token/"

#define SETTINGS_MAX	16

struct setting {
	char path[128];
	char old[64];
};

static inline struct setting *settings(void)
{
	static struct setting saved[SETTINGS_MAX];

	return saved;
}

/* Put back every value setting_set() changed, newest change first. */
static inline void settings_restore(void)
{
	for (int i = SETTINGS_MAX - 1; i >= 0; i--) {
		struct setting *s = &settings()[i];

		if (s->path[0] && write_file(s->path, s->old))
			printf("# could not restore %s to %s\n", s->path, s->old);
	}
}

/* Write val to path, remembering the value it had first; 0 or -errno. */
static inline int setting_set(const char *path, const char *val)
{
	static int registered;
	int i, err;

	for (i = 0; i < SETTINGS_MAX && settings()[i].path[0]; i++)
		if (!strcmp(settings()[i].path, path))
			return write_file(path, val);
	if (i == SETTINGS_MAX)
		return -ENOSPC;
	err = read_file(path, settings()[i].old, sizeof(settings()[i].old));
	if (err)
		return err;
	snprintf(settings()[i].path, sizeof(settings()[i].path), "%s", path);
	if (!registered++)
		atexit(settings_restore);
	return write_file(path, val);
}

static inline int setting_setl(const char *path, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return setting_set(path, buf);
}

/* Like setting_setl() but a failure ends the test. */
static inline void must_set(const char *path, long val)
{
	int err = setting_setl(path, val);

	if (err)
		ksft_exit_fail_msg("cannot write %ld to %s: %s\n", val, path, strerror(-err));
}

/* Holder's tgid (comm copied to comm), 0 if the token is free, -1 on error. */
static inline pid_t token_holder(char *comm, size_t len)
{
	char buf[64], name[32] = "";
	int pid;

	if (read_file(TOKEN_HOLDER, buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, "none"))
		pid = 0;
	else if (sscanf(buf, "%d %31s", &pid, name) < 1 || pid <= 0)
		return -1;
	if (comm)
		snprintf(comm, len, "%s", name);
	return pid;
}

static inline long long token_stat(const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "swap_token_%s", name);
	return vmstat(key);
}

/* All swap_token_* vmstat counters, to report what happened during a phase. */
#define TOKEN_NR_COUNTERS	9
static const char *const token_counter_names[TOKEN_NR_COUNTERS] = {
	"taken", "release_idle", "release_size", "release_timeout", "release_futile",
	"release_exit", "refused_size", "kept", "overridden",
};

struct token_counters {
	long long v[TOKEN_NR_COUNTERS];
};

static inline void token_counters_read(struct token_counters *c)
{
	for (int i = 0; i < TOKEN_NR_COUNTERS; i++)
		c->v[i] = token_stat(token_counter_names[i]);
}

/* Print the changes from *a to *b as "name: taken +N ..." (a ksft message). */
static inline void token_counters_print(const char *name, const struct token_counters *a,
					const struct token_counters *b)
{
	char line[384];
	int len = 0;

	for (int i = 0; i < TOKEN_NR_COUNTERS; i++)
		len += snprintf(line + len, sizeof(line) - len, " %s +%lld",
				token_counter_names[i], b->v[i] - a->v[i]);
	ksft_print_msg("%s:%s\n", name, line);
}

/* The change of one counter ("taken", "kept", ...) from *a to *b. */
static inline long long token_counter_delta(const char *name, const struct token_counters *a,
					    const struct token_counters *b)
{
	for (int i = 0; i < TOKEN_NR_COUNTERS; i++)
		if (!strcmp(token_counter_names[i], name))
			return b->v[i] - a->v[i];
	return 0;
}

/* Release the token, whoever holds it, and leave it enabled. */
static inline void token_reset(void)
{
	must_set(TOKEN_ENABLE, 0);
	must_set(TOKEN_ENABLE, 1);
}

/* Skip the test unless root on a kernel with the swap token and swap_mb MB of free swap. */
static inline void token_require(long swap_mb)
{
	if (geteuid())
		ksft_exit_skip("must run as root\n");
	if (access(TOKEN_HOLDER, R_OK))
		ksft_exit_skip("kernel has no swap token (%s)\n", TOKEN_HOLDER);
	if (swap_mb && meminfo_kb("SwapFree") < swap_mb * 1024)
		ksft_exit_skip("needs %ld MB of free swap, have %lld kB\n", swap_mb,
			       meminfo_kb("SwapFree"));
}

/* The OOM kills counted at token_setup(). */
static inline long long *counts_at_setup(void)
{
	static long long n[1];

	return n;
}

/*
 * Print the kernel log's OOM reports (from "invoked oom-killer" to "Killed
 * process"), so that a failure explains itself in the test output.
 */
static inline void print_oom_report(void)
{
	static char log[1 << 17];
	int len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	int in_report = 0;

	if (len <= 0)
		return;
	log[len] = 0;
	for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		in_report |= !!strstr(line, "invoked oom-killer");
		if (in_report)
			ksft_print_msg("kernel: %s\n", line);
		if (strstr(line, "Killed process"))
			in_report = 0;
	}
}

/*
 * A test point: nobody was OOM-killed since token_setup().  The tests leave
 * plenty of swap free, and the token must never cause an OOM kill.
 */
static inline void check_no_oom_kill(void)
{
	long long n = vmstat("oom_kill") - counts_at_setup()[0];

	if (n) {
		ksft_print_msg("oom_kill +%lld\n", n);
		print_oom_report();
	}
	ksft_test_result(!n, "nobody was OOM-killed\n");
}

/*
 * Start of a test for the OOM-edge boots: root, a kernel with the token, a
 * swap of 1-512 MB (larger would take too long to page through), and the
 * test's own memory locked.  Returns the swap size in MB.
 */
static inline long token_oom_boot(void)
{
	long swap;

	token_require(0);
	swap = meminfo_kb("SwapTotal") / 1024;
	if (swap <= 0 || swap > 512)
		ksft_exit_skip("needs a swap of 1-512 MB (the oom-edge boot), have %ld MB\n", swap);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		ksft_exit_fail_perror("mlockall");
	return swap;
}

/* Read (or, if write, write) one byte of every page of bytes at mem. */
static inline void touch_pages(char *mem, long bytes, int write)
{
	volatile char sink;

	for (long off = 0; off < bytes; off += 4096) {
		if (write)
			mem[off] = (char)(off / 4096);
		else
			sink = mem[off];
	}
	(void)sink;
}

/*
 * A child that allocates and touches @mb MB of anonymous memory.  With
 * @ready_fd >= 0 it then writes 'p' to it and waits to be killed; without,
 * it exits at once (pushing idle memory out to swap on its way).
 */
static inline pid_t hog(long mb, int ready_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		char *mem;

		munlockall();
		mem = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(1);
		touch_pages(mem, mb << 20, 1);
		if (ready_fd >= 0) {
			if (write(ready_fd, "p", 1) != 1)
				_exit(1);
			pause();
		}
		_exit(0);
	}
	return pid;
}

/* One byte from fd, or -1. */
static inline int read_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? c : -1;
}

/*
 * The body of a child H that fills @mb MB, writes 'f' to @out and waits
 * for a byte on @in (meanwhile its memory is pushed out to swap), pages
 * it all back in (major faults: it takes the token), writes 'r' and waits
 * for a byte again before it exits.
 */
static inline __attribute__((noreturn)) void page_in_child(long mb, int out, int in)
{
	char *m;

	munlockall();
	m = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(1);
	touch_pages(m, mb << 20, 1);
	if (write(out, "f", 1) != 1 || read_byte(in) < 0)
		_exit(1);
	touch_pages(m, mb << 20, 0);
	if (write(out, "r", 1) != 1 || read_byte(in) < 0)
		_exit(1);
	_exit(0);
}

/*
 * Push the memory of @child, a page_in_child() that reported 'f' on
 * @from, out to swap with a hog of 90% of RAM; free the token (and switch
 * it off unless @token_on); then have the child page it all back in.
 * Returns true if the child then holds the token.  A failure ends the
 * test.
 */
static inline int push_out_page_in(pid_t child, int to, int from, int token_on)
{
	int ready[2];
	pid_t p;

	if (pipe(ready))
		ksft_exit_fail_perror("pipe");
	p = hog(mem_mb() * 9 / 10, ready[1]);
	if (read_byte(ready[0]) != 'p')
		ksft_exit_fail_msg("the hog did not run\n");
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	token_reset();
	if (!token_on)
		must_set(TOKEN_ENABLE, 0);
	if (write(to, "g", 1) != 1 || read_byte(from) != 'r')
		ksft_exit_fail_msg("the holder child did not page its memory back in\n");
	return token_holder(NULL, 0) == child;
}

/*
 * Common start of a test that thrashes: token_require(); lock the test's own
 * memory so that it never faults (and so never competes for the token); hold
 * its output back until it exits, because the process reading it (sed in
 * run-tests) may have been swapped out and would then fault and compete for
 * the token while the test watches who holds it; free the token.
 */
static inline void token_setup(long swap_mb)
{
	static char out[1 << 16];

	token_require(swap_mb);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		ksft_exit_fail_perror("mlockall");
	fflush(stdout);
	setvbuf(stdout, out, _IOFBF, sizeof(out));
	counts_at_setup()[0] = vmstat("oom_kill");
	token_reset();
}

/*
 * A skipped test point as the host's KTAP parser reads it: "ok N reason #
 * SKIP" (kselftest's ksft_test_result_skip() prints "ok N # SKIP reason",
 * which has no description and fails the parse).
 */
static inline __printf(1, 2) void test_skip(const char *fmt, ...)
{
	char msg[256];
	va_list args;
	size_t len;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	len = strlen(msg);
	if (len && msg[len - 1] == '\n')
		msg[len - 1] = '\0';
	ksft_cnt.ksft_xskip++;
	printf("ok %u %s # SKIP\n", ksft_test_num(), msg);
}

/*
 * Skip the rest of the test: before the plan as kselftest does ("1..0 #
 * SKIP reason"); after it, every point not yet reported as skipped in the
 * form test_skip() prints, so that the document stays well-formed.
 */
static inline __noreturn __printf(1, 2) void test_exit_skip(const char *fmt, ...)
{
	char msg[256];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	if (!ksft_plan && !ksft_test_num())
		ksft_exit_skip("%s", msg);
	while (ksft_test_num() < ksft_plan)
		test_skip("%s", msg);
	fflush(stdout);
	exit(KSFT_SKIP);
}

/*
 * The start of most thrashing tests: the TAP header, token_setup() with
 * twice RAM of swap, the plan, and the check interval and timeout (0
 * leaves one as it is).  Returns MemTotal in MB.
 */
static inline long token_begin(int plan, long interval_ms, long timeout_ms)
{
	long mem;

	ksft_print_header();
	mem = mem_mb();
	token_setup(2 * mem);
	ksft_set_plan(plan);
	if (interval_ms)
		must_set(TOKEN_INTERVAL, interval_ms);
	if (timeout_ms)
		must_set(TOKEN_TIMEOUT, timeout_ms);
	return mem;
}

/*
 * Start two processes, "thrash-1" and "thrash-2", that cycle over mb MB
 * each (seeds seed and seed + 1) for at most seconds, and wait until both
 * have cycled once; a failure ends the test.  Their specs go to spec[2],
 * their pids to t[2]; returns their stats.
 */
static inline struct thrash_stat *start_two_thrashers(struct thrash_spec *spec, pid_t *t,
						      long mb, uint64_t seed, double seconds)
{
	struct thrash_stat *st = thrash_stats(2);

	for (int k = 0; k < 2; k++) {
		spec[k] = (struct thrash_spec){ .name = k ? "thrash-2" : "thrash-1", .mb = mb,
						.seed = seed + k, .seconds = seconds };
		t[k] = thrash_spawn(&spec[k], &st[k]);
		if (t[k] < 0)
			ksft_exit_fail_msg("cannot start %s\n", spec[k].name);
	}
	if (thrash_wait_cycling(st, 2, 180))
		ksft_exit_fail_msg("the thrashing processes did not start cycling\n");
	return st;
}

/*
 * One swap_token_take or swap_token_release line of the trace buffer.  A
 * take is recorded by the task that took the token: its pid and comm are
 * those of the line (the tests' processes have one thread).
 */
struct token_event {
	double ts;		/* trace timestamp, seconds */
	int take;		/* swap_token_take, else swap_token_release */
	int pid;		/* the taker (the line's task), or the releaser */
	int old_pid;		/* take only: the old holder, 0 if none */
	char comm[16];		/* take only: the taker's comm */
	char reason[16];
};

/* Empty the trace buffer; 0 or -errno. */
static inline int trace_clear(void)
{
	int fd = open(TRACING "trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Enable both token events and empty the trace buffer; 0 or -errno. */
static inline int trace_start(void)
{
	int err;

	err = setting_set(TOKEN_EVENTS "swap_token_take/enable", "1");
	err = err ?: setting_set(TOKEN_EVENTS "swap_token_release/enable", "1");
	err = err ?: setting_set(TRACING "tracing_on", "1");
	return err ?: trace_clear();
}

/* Value of " key=" in the fields of an event (up to the next space). */
static inline void event_field(const char *fields, const char *key, char *out, size_t len)
{
	size_t n = strlen(key);
	const char *p = fields;

	out[0] = '\0';
	while ((p = strstr(p, key))) {
		if ((p == fields || p[-1] == ' ') && p[n] == '=') {
			p += n + 1;
			snprintf(out, len, "%.*s", (int)strcspn(p, " \n"), p);
			return;
		}
		p += n;
	}
}

static inline int event_int(const char *fields, const char *key)
{
	char buf[16];

	event_field(fields, key, buf, sizeof(buf));
	return buf[0] ? atoi(buf) : -1;
}

/* Parse the token events in the trace buffer, oldest first; how many, or -errno. */
static inline int trace_read(struct token_event *ev, int max)
{
	FILE *f = fopen(TRACING "trace", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *name = strstr(line, ": swap_token_"), *fields, *ts, *task, *dash;
		struct token_event *e = &ev[n];

		if (line[0] == '#' || !name)
			continue;
		*name = '\0';
		ts = strrchr(line, ' ');
		/* "  comm-pid  [cpu] flags ts": the task is before the '['. */
		task = line + strspn(line, " ");
		dash = strchr(task, '[');
		if (!dash)
			continue;
		while (dash > task && dash[-1] == ' ')
			dash--;
		*dash = '\0';
		dash = strrchr(task, '-');
		if (!dash)
			continue;
		*dash = '\0';
		name += 2;
		fields = strchr(name, ' ');
		if (!ts || !fields)
			continue;
		fields++;
		memset(e, 0, sizeof(*e));
		e->ts = atof(ts + 1);
		if (!strncmp(name, "swap_token_take:", 16)) {
			e->take = 1;
			e->pid = atoi(dash + 1);
			e->old_pid = event_int(fields, "old_pid");
			snprintf(e->comm, sizeof(e->comm), "%s", task);
		} else if (!strncmp(name, "swap_token_release:", 19)) {
			e->pid = event_int(fields, "pid");
		} else {
			continue;
		}
		event_field(fields, "reason", e->reason, sizeof(e->reason));
		n++;
	}
	fclose(f);
	return n;
}

/* Print up to max events as ksft messages, each line starting with prefix. */
static inline void events_print(const char *prefix, const struct token_event *ev, int n, int max)
{
	for (int i = 0; i < n && i < max; i++)
		ksft_print_msg("%s%.3f %s pid %d (%s) old %d reason %s\n", prefix, ev[i].ts,
			       ev[i].take ? "take" : "release", ev[i].pid,
			       ev[i].take ? ev[i].comm : "-", ev[i].old_pid, ev[i].reason);
	if (n > max)
		ksft_print_msg("%s... %d events in all\n", prefix, n);
}

/* First event from index from on with take, pid (any if 0) and reason (any if NULL); -1 if none. */
static inline int event_find(const struct token_event *ev, int n, int from, int take, int pid,
			     const char *reason)
{
	for (int i = from < 0 ? 0 : from; i < n; i++)
		if (ev[i].take == take && (!pid || ev[i].pid == pid) &&
		    (!reason || !strcmp(ev[i].reason, reason)))
			return i;
	return -1;
}

#endif
