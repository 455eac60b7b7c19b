// SPDX-License-Identifier: GPL-2.0
/*
 * The holder's memory is kept while it pages in, and only then.  A process
 * H pages its working set back in from swap and so takes the token; right
 * after that, another process P allocates 95% of RAM, which only minor
 * faults.  Three runs, under whichever LRU the guest runs (make check
 * boots both):
 *  - on: H took its last major fault less than an interval (60 s) ago, so
 *    eviction must skip its pages (swap_token_kept grows) and H keeps at
 *    least 90% of its resident set;
 *  - lapsed: the same with a 2 s timeout and H asleep for 2.5 s before P
 *    starts: H still holds the token (no decision is due for a minute),
 *    but its protection has lapsed by itself, so eviction keeps nothing.
 *    (The protection lapses the same way an interval after the holder's
 *    last major fault; the KUnit tests check that rule, where no other
 *    process can take the token meanwhile.)
 *  - off: the token is off and eviction keeps nothing.
 *  - stream: "lapsed" with pressure that takes no major fault: P is a
 *    read(2) streamer going once through a file of 1.5 x RAM on the
 *    scratch disk, with vm.swappiness 200 so that reclaim scans anonymous
 *    memory too.  H still holds the token, but eviction keeps none of its
 *    pages.  (The classic LRU then takes H's memory; MGLRU evicts the
 *    streamer's page cache first and leaves H alone, token or not.)
 * If the reclaim hook stopped working, "on" fails; if the protection did
 * not lapse, "lapsed" fails.  "on" is run again (up to ON_TRIES times) if
 * reclaim overrode the token while P ran.  In "on", swap_token_kept must
 * also count only what eviction really kept: the pages that the
 * mm_vmscan_lru_shrink_inactive events report as kept (nr_ref_keep) are at
 * least as many.  nr_ref_keep also counts the folios kept for a first look
 * at their references and for rmap lock contention, with the token or
 * without ("off" shows how many): the assertion fails if the token counted
 * keeps anywhere else, e.g. in active list aging.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "kselftest.h"
#include "guest.h"
#include "token.h"


struct result {
	long rss_before, rss_after;	/* H's VmRSS in MB */
	long refaults;			/* H's major faults touching its set again */
	int held;			/* H held the token while P ran */
	long long kept;			/* swap_token_kept while P ran */
	long long ref_keep;		/* sum of the shrink events' nr_ref_keep */
	long long overridden;		/* swap_token_overridden while P ran */
};

#define SHRINK_EVENT	TRACING "events/vmscan/mm_vmscan_lru_shrink_inactive/enable"

#define BUFFER_KB	TRACING "buffer_size_kb"

/* The trace buffer's size per CPU before shrink_trace_start(), in KB. */
static long buffer_kb;

/* Trace eviction's verdicts from now on, in a larger buffer; 0 or -errno. */
static int shrink_trace_start(void)
{
	char old[64], *e;
	int err;

	/* "1408", or "7 (expanded: 1408)" before the first use. */
	err = read_file(BUFFER_KB, old, sizeof(old));
	if (err)
		return err;
	e = strstr(old, "expanded: ");
	buffer_kb = atol(e ? e + 10 : old);
	err = write_file(BUFFER_KB, "4096");
	err = err ?: setting_set(SHRINK_EVENT, "1");
	err = err ?: setting_set(TRACING "tracing_on", "1");
	return err ?: trace_clear();
}

/*
 * The pages eviction kept (FOLIOREF_KEEP) since shrink_trace_start(), from
 * the nr_ref_keep field of the events; -1 if events were lost or the trace
 * is unreadable.
 */
static long long shrink_trace_ref_keep(void)
{
	long long sum = 0, lost = 0;
	char line[512], *f;
	FILE *t;

	setting_set(SHRINK_EVENT, "0");
	for (int cpu = 0; ; cpu++) {
		char path[96];

		snprintf(path, sizeof(path), TRACING "per_cpu/cpu%d/stats", cpu);
		t = fopen(path, "r");
		if (!t)
			break;
		while (fgets(line, sizeof(line), t))
			if (sscanf(line, "overrun: %lld", &lost) == 1 && lost)
				sum = -1;
		fclose(t);
	}
	if (sum < 0)
		return -1;
	t = fopen(TRACING "trace", "r");
	if (!t)
		return -1;
	while (fgets(line, sizeof(line), t))
		if (strstr(line, "mm_vmscan_lru_shrink_inactive:") &&
		    (f = strstr(line, " nr_ref_keep=")))
			sum += atoll(f + 13);
	fclose(t);
	return sum;
}

/* Give the trace buffer its size back (it holds 8 MB of the guest's RAM). */
static void shrink_trace_end(void)
{
	char kb[32];

	snprintf(kb, sizeof(kb), "%ld", buffer_kb);
	if (buffer_kb > 0 && write_file(BUFFER_KB, kb))
		ksft_print_msg("could not give the trace buffer its %s KB back\n", kb);
	trace_clear();
}

static long proc_rss_mb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb / 1024;
}

static long majflt(void)
{
	char buf[1024], *p;
	long v = -1;

	if (read_file("/proc/self/stat", buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	/* Field 12 is majflt; the text after ')' starts at field 3. */
	if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %ld", &v) != 1)
		v = -1;
	return v;
}



static long mem_total_mb(void)
{
	return meminfo_kb("MemTotal") / 1024;
}

/*
 * How often "on" is run while reclaim overrides the token in it.  A reclaim
 * cycle that frees nothing while it spares H (P's pages still under
 * writeback, say) takes the protection away for the interval, which the
 * series does by design (the cover letter asks whether it should while
 * writes are in flight); that run then says nothing about whether
 * eviction keeps H's pages.  A valve that fired in every run fails.
 */
#define ON_TRIES	3

#define STREAM_FILE	"/mnt/scratch/token_keep.stream"

/* Read @file through with read(2), say 'p' on @ready_fd and wait. */
static pid_t streamer(const char *file, int ready_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		static char buf[1 << 16];
		int fd = open(file, O_RDONLY);
		ssize_t n;

		if (fd < 0)
			_exit(1);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0 || write(ready_fd, "p", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

/*
 * One run: token on or off; H sleeps idle_s between paging in and P, which
 * allocates p_mb MB, or streams @stream if not NULL.
 */
static void run(const char *name, int token_on, double idle_s, long h_mb, long p_mb,
		const char *stream, struct result *r)
{
	int to_h[2], from_h[2], from_p[2];
	long long kept0, overridden0;
	pid_t h, p;

	memset(r, 0, sizeof(*r));
	if (pipe(to_h) || pipe(from_h) || pipe(from_p))
		ksft_exit_fail_perror("pipe");
	must_set(TOKEN_ENABLE, token_on);

	h = fork();
	if (h == 0) {
		char *mem = mmap(NULL, h_mb << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long before;

		if (mem == MAP_FAILED)
			_exit(1);
		munlockall();
		touch_pages(mem, h_mb << 20, 1);
		/* 1: filled; wait while a hog pushes us out. */
		if (write(from_h[1], "f", 1) != 1 || read_byte(to_h[0]) < 0)
			_exit(1);
		/* 2: page the set back in: major faults, the token. */
		touch_pages(mem, h_mb << 20, 0);
		if (write(from_h[1], "r", 1) != 1 || read_byte(to_h[0]) < 0)
			_exit(1);
		/* 3: P has run; touch the set again and count refaults. */
		before = majflt();
		touch_pages(mem, h_mb << 20, 0);
		before = majflt() - before;
		if (write(from_h[1], &before, sizeof(before)) != sizeof(before))
			_exit(1);
		_exit(0);
	}
	if (read_byte(from_h[0]) != 'f')
		ksft_exit_fail_msg("H did not start\n");
	/* Push H out with a hog that needs most of RAM, then free it again. */
	waitpid(hog(mem_total_mb() * 9 / 10, -1), NULL, 0);
	token_reset();
	if (!token_on)
		must_set(TOKEN_ENABLE, 0);
	if (write(to_h[1], "g", 1) != 1 || read_byte(from_h[0]) != 'r')
		ksft_exit_fail_msg("H did not page its set back in\n");
	r->rss_before = proc_rss_mb(h);
	sleep_s(idle_s);

	if (shrink_trace_start())
		r->ref_keep = -1;
	kept0 = token_stat("kept");
	overridden0 = token_stat("overridden");
	p = stream ? streamer(stream, from_p[1]) : hog(p_mb, from_p[1]);
	if (read_byte(from_p[0]) != 'p')
		ksft_exit_fail_msg("P did not %s %ld MB\n", stream ? "stream" : "allocate", p_mb);
	r->held = token_holder(NULL, 0) == h;
	r->kept = token_stat("kept") - kept0;
	r->overridden = token_stat("overridden") - overridden0;
	if (!r->ref_keep)
		r->ref_keep = shrink_trace_ref_keep();
	shrink_trace_end();
	r->rss_after = proc_rss_mb(h);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);

	if (write(to_h[1], "t", 1) != 1 ||
	    read(from_h[0], &r->refaults, sizeof(r->refaults)) != sizeof(r->refaults))
		ksft_exit_fail_msg("lost H\n");
	waitpid(h, NULL, 0);
	ksft_print_msg("%s: H %ld MB resident before P, %ld MB after; %ld refaults; %s; kept +%lld pages, eviction's nr_ref_keep %lld; overridden +%lld\n",
		       name, r->rss_before, r->rss_after, r->refaults,
		       r->held ? "H held the token" : "H did not hold the token", r->kept,
		       r->ref_keep, r->overridden);
	close(to_h[0]); close(to_h[1]); close(from_h[0]); close(from_h[1]);
	close(from_p[0]); close(from_p[1]);
}

int main(void)
{
	long ram = mem_total_mb(), h_mb = ram * 35 / 100, p_mb = ram * 95 / 100;
	struct result on, lapsed, off, stream;

	ksft_print_header();
	token_setup(2 * ram);
	ksft_set_plan(7);
	ksft_print_msg("H %ld MB, P %ld MB, RAM %ld MB\n", h_mb, p_mb, ram);

	/*
	 * H's last major fault stays within the interval while P runs, and
	 * nobody may take the token from H before P is done.
	 */
	must_set(TOKEN_INTERVAL, 60000);
	for (int try = 1; ; try++) {
		run("on", 1, 0, h_mb, p_mb, NULL, &on);
		if (!on.overridden || try == ON_TRIES)
			break;
		ksft_print_msg("on: a reclaim cycle freed nothing without H's memory, so the token was overridden for the interval (try %d of %d); again\n",
			       try, ON_TRIES);
	}
	/* H idles past its timeout before P runs. */
	must_set(TOKEN_TIMEOUT, 2000);
	run("lapsed", 1, 2.5, h_mb, p_mb, NULL, &lapsed);
	run("off", 0, 0, h_mb, p_mb, NULL, &off);
	/* H idles past its timeout, and P takes no major fault. */
	if (thrash_write_file(STREAM_FILE, ram * 3 / 2, 0, 1))
		ksft_exit_fail_msg("cannot write %ld MB to %s (the scratch disk): %s\n",
				   ram * 3 / 2, STREAM_FILE, strerror(errno));
	must_set("/proc/sys/vm/swappiness", 200);
	run("stream", 1, 2.5, h_mb, ram * 3 / 2, STREAM_FILE, &stream);
	unlink(STREAM_FILE);

	ksft_test_result(on.held && on.rss_before >= h_mb * 9 / 10,
			 "on: H took the token by paging its set back in\n");
	ksft_test_result(on.kept > 0 && on.rss_after >= on.rss_before * 9 / 10,
			 "on: eviction kept H's pages, H kept at least 90%% of its resident set\n");
	if (on.ref_keep < 0)
		ksft_test_result_fail("on: no complete trace of eviction's verdicts (no tracefs, or events lost)\n");
	else
		ksft_test_result(on.kept > 0 && on.kept <= on.ref_keep,
				 "on: every page in swap_token_kept was kept by eviction (nr_ref_keep)\n");
	ksft_test_result(lapsed.held && !lapsed.kept,
			 "lapsed: H still held the token, and eviction kept none of its pages\n");
	ksft_test_result(!off.kept, "off: eviction kept nothing\n");
	ksft_test_result(stream.held && !stream.kept,
			 "stream: H still held the token, and under a read(2) streamer eviction kept none of its pages\n");
	ksft_test_result(on.refaults * 4 <= off.refaults || off.rss_after >= off.rss_before * 9 / 10,
			 "on: H took at most a quarter of the major faults it took without the token, unless the LRU kept H by itself\n");
	ksft_finished();
}
