// SPDX-License-Identifier: GPL-2.0
/*
 * Processes that fault without end but never come back to what they
 * touched must not keep the token from the processes that thrash.  Two
 * thrashers T1 and T2 cycle over 60% of RAM each (1.2 x RAM together);
 * beside them an adversary A makes one pass over memory it will never
 * use again:
 *  - stream: a file of RAM's size, never read before, read once through
 *    a shared mapping, in order (readahead makes few of its page-ins major faults);
 *  - scrambled: the same file, pages in a scrambled order (no readahead
 *    helps, every page is a major fault);
 *  - anon: a checksum over an anonymous buffer of half of RAM that was
 *    written once and swapped out (MADV_PAGEOUT) while the thrashers ran;
 *  - shmem: the same over a memfd.
 * A goes no faster than one pass in PASS_S seconds, as a reader that
 * processes what it reads would, so that each pass lasts long enough to
 * watch.  A is given every chance: it starts its pass with the token free
 * while T1 and T2 are stopped, so that its first major fault finds nobody
 * to contend with; the thrashers go on half a second after it.  Then this process (locked in memory: it never faults) samples
 * the token's holder every SAMPLE_S seconds until A is done, for RUN_S
 * seconds at most.  For each adversary:
 *  - A held the token in at most a quarter of the samples: its page-ins
 *    bring back nothing that was recently evicted, so they neither take
 *    the token nor keep it;
 *  - T1 or T2 held it in at least half of the samples: the token still
 *    goes to the processes that thrash.
 * And nobody was OOM-killed.  These points hold for "scrambled" and
 * "shmem", which the series takes the token from as futile (their faults
 * do not slow down, and they page in nothing from swap).  Without that
 * rule (the 2004 rules: any major fault contends, a holder that faults
 * keeps the token to the timeout) the adversary held the token in 69-100%
 * of the samples under both LRUs; a kernel with the token off fails the
 * thrashers' point.  "stream" and "anon" are run and reported, with no
 * point: readahead leaves "stream" a few dozen major faults per pass, and
 * the 2004 rules let it hold the token in 1 and 27 of about 200 samples,
 * so a bound that it passes would test nothing; "anon" pages its buffer
 * in from swap as a thrashing process does, and keeps the token for its
 * whole scan (an open problem: only what the holder does with its pages
 * afterwards tells the two apart).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define INTERVAL_MS	500
#define SAMPLE_S	0.05
#define RUN_S		20
#define MIN_SAMPLES	40
#define PASS_S		12
#define STREAM_FILE	"/mnt/scratch/token_adversary.stream"

enum kind { STREAM, SCRAMBLED, ANON, SHMEM, NR_KINDS };

static const char *const kind_name[NR_KINDS] = {
	[STREAM] = "stream", [SCRAMBLED] = "scrambled", [ANON] = "anon", [SHMEM] = "shmem",
};

/* Shared with the adversary child. */
struct adv_ctl {
	volatile int ready;		/* prepared: file mapped, buffer swapped out */
	volatile int go;		/* start the pass */
	volatile int done;		/* the pass is over */
	volatile uint64_t sum;		/* the checksum, so that no read is elided */
};

struct adv_arg {
	enum kind kind;
	long mb;
	struct adv_ctl *ctl;
};

/* A memory region of @mb MB for the adversary, filled once; NULL on error. */
static char *adv_buffer(enum kind kind, long mb)
{
	size_t len = (size_t)mb << 20;
	char *m;

	if (kind == SHMEM) {
		int fd = memfd_create("adversary", 0);

		if (fd < 0 || ftruncate(fd, len))
			return NULL;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (m == MAP_FAILED)
		return NULL;
	madvise(m, len, MADV_NOHUGEPAGE);
	touch_pages(m, len, 1);
	/* Written once, never used since: out to swap. */
	if (madvise(m, len, MADV_PAGEOUT))
		return NULL;
	return m;
}

static void adversary(const void *p, struct thrash_stat *st)
{
	const struct adv_arg *a = p;
	size_t pages = (size_t)a->mb << 8;
	uint64_t sum = 0;
	double start;
	char *m;

	(void)st;
	prctl(PR_SET_NAME, "adversary");
	munlockall();
	if (a->kind == STREAM || a->kind == SCRAMBLED) {
		int fd = open(STREAM_FILE, O_RDONLY);

		if (fd < 0)
			_exit(2);
		/* Cold: nothing of it in the page cache, and no shadow entry. */
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		m = mmap(NULL, pages * THRASH_PAGE, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		m = adv_buffer(a->kind, a->mb);
	}
	if (!m || m == MAP_FAILED)
		_exit(2);
	a->ctl->ready = 1;
	while (!a->ctl->go)
		usleep(1000);
	start = now_s();
	for (size_t i = 0; i < pages; i++) {
		size_t pg = a->kind == SCRAMBLED ? i * THRASH_STRIDE % pages : i;

		sum += *(volatile uint64_t *)(m + pg * THRASH_PAGE);
		/* Ahead of one pass per PASS_S seconds: wait. */
		if (!(i % 256) && now_s() - start < (double)i / pages * PASS_S)
			sleep_s((double)i / pages * PASS_S - (now_s() - start));
	}
	a->ctl->sum = sum;
	a->ctl->done = 1;
	_exit(0);
}

struct share {
	int samples, adversary, thrashers;
	long a_majflt;
	double seconds;
};

static void run(enum kind kind, long mb, const pid_t *t, struct share *s)
{
	static struct adv_ctl *ctl;
	struct token_counters c0, c1;
	struct adv_arg a = { .kind = kind, .mb = mb };
	double start, end;
	pid_t pid;

	memset(s, 0, sizeof(*s));
	if (!ctl) {
		ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			   -1, 0);
		if (ctl == MAP_FAILED)
			ksft_exit_fail_perror("mmap");
	}
	memset((void *)ctl, 0, sizeof(*ctl));
	a.ctl = ctl;
	pid = spawn(adversary, &a, NULL);
	if (pid < 0)
		ksft_exit_fail_msg("%s: cannot start the adversary\n", kind_name[kind]);
	for (end = now_s() + 120; !ctl->ready; sleep_s(0.05))
		if (now_s() > end || waitpid(pid, NULL, WNOHANG) == pid)
			ksft_exit_fail_msg("%s: the adversary did not get ready\n", kind_name[kind]);
	/* What A swapped out now becomes old news while the thrashers run. */
	if (kind == ANON || kind == SHMEM)
		sleep_s(3);

	/* A's best chance: the token free, nobody else faulting. */
	kill(t[0], SIGSTOP);
	kill(t[1], SIGSTOP);
	sleep_s(0.2);
	token_reset();
	token_counters_read(&c0);
	ctl->go = 1;
	for (end = now_s() + 10; pid_majflt(pid) < 1 && !ctl->done; sleep_s(0.01))
		if (now_s() > end)
			break;
	sleep_s(0.5);
	kill(t[0], SIGCONT);
	kill(t[1], SIGCONT);

	start = now_s();
	for (end = start + RUN_S; !ctl->done && now_s() < end; sleep_s(SAMPLE_S)) {
		pid_t h = token_holder(NULL, 0);

		s->samples++;
		s->adversary += h == pid;
		s->thrashers += h == t[0] || h == t[1];
	}
	s->seconds = now_s() - start;
	s->a_majflt = pid_majflt(pid);
	token_counters_read(&c1);
	thrash_kill(pid);
	ksft_print_msg("%s: %d samples in %.1f s: adversary %d, thrashers %d; adversary %ld major faults, %s\n",
		       kind_name[kind], s->samples, s->seconds, s->adversary, s->thrashers,
		       s->a_majflt, ctl->done ? "pass done" : "pass not done");
	token_counters_print(kind_name[kind], &c0, &c1);
}

int main(void)
{
	struct thrash_spec spec[2];
	struct share s[NR_KINDS];
	long ram;
	pid_t t[2];

	ram = token_begin(2 * 2 + 1, INTERVAL_MS, 0);
	start_two_thrashers(spec, t, ram * 6 / 10, 1, 0);
	for (int k = 0; k < NR_KINDS; k++) {
		/*
		 * A file written afresh for each stream, so that it was never
		 * read before (its old pages' shadow entries go with it).
		 */
		if ((k == STREAM || k == SCRAMBLED) && thrash_write_file(STREAM_FILE, ram, k, 1))
			ksft_exit_fail_msg("cannot write %ld MB to %s (the scratch disk): %s\n",
					   ram, STREAM_FILE, strerror(errno));
		run(k, k == STREAM || k == SCRAMBLED ? ram : ram / 2, t, &s[k]);
	}
	thrash_kill(t[0]);
	thrash_kill(t[1]);
	unlink(STREAM_FILE);
	check_no_oom_kill();

	for (int k = SCRAMBLED; k < NR_KINDS; k++) {
		if (k == ANON)
			continue;
		if (s[k].samples < MIN_SAMPLES) {
			ksft_test_result_fail("%s: the adversary's pass was over within %d samples: too short to tell\n",
					      kind_name[k], s[k].samples);
			ksft_test_result_fail("%s: no share of the thrashers to tell\n", kind_name[k]);
			continue;
		}
		ksft_test_result(s[k].adversary * 4 <= s[k].samples,
				 "%s: the adversary held the token in at most a quarter of the samples (%d of %d)\n",
				 kind_name[k], s[k].adversary, s[k].samples);
		ksft_test_result(s[k].thrashers * 2 >= s[k].samples,
				 "%s: the thrashers held it in at least half of the samples (%d of %d)\n",
				 kind_name[k], s[k].thrashers, s[k].samples);
	}
	ksft_finished();
}
