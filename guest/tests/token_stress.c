// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle stress: the token must survive processes that take it and die.
 *
 * Two thrashers of 55% of RAM each keep the guest swapping (every word
 * checked, every page rewritten per pass).  Six spawners each own 16 MB of
 * memory that the thrashers push out to swap, and fork short-lived children
 * in a loop.  A child moves itself into one of two memory cgroups (one with
 * a small memory.max, so memcg reclaim runs too; there it first fills 12 MB
 * of fresh memory), reads 32 random pages of the inherited memory back from
 * swap (major faults: it contends for the token) and checks them, then ends
 * in one of four ways: exits; forks a grandchild that does the same and
 * exits beside it; execs a new program; or exits while a second thread is
 * still faulting.  Meanwhile a thread rewrites the token's sysctls with
 * random valid values and slips invalid ones in between, which must fail
 * with EINVAL.  The cgroups' own tokens start switched on, so children
 * also take them, die holding them, and leave them to their cgroups'
 * removal; the writer switches them off and on.
 *
 * guest_stress_lifecycles=N (default 1500) and guest_stress_seconds=S
 * (default 150) on the kernel command line set the target and the time
 * limit: make check-debug runs 10000.
 *
 * Checks: the target was reached; children really took the token and exited
 * holding it; no child died abnormally; 0 bytes wrong; every invalid write
 * rejected; the holder is a live process or none at the end; no OOM kill.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define SPAWNERS	6
#define REGION_MB	16
#define READS		32
#define CG		"/sys/fs/cgroup/"

struct shared {
	volatile long lifecycles;	/* processes that ran and were reaped */
	volatile long abnormal;		/* children that crashed or failed */
	volatile long long checked;	/* bytes compared */
	volatile long long bad;		/* bytes wrong */
	volatile int stop;
};

static struct shared *sh;
static long target = 1500, seconds = 150;
static int cgroups;
static volatile int writer_stop;
static long bad_writes, bad_writes_wrong, good_writes;

/* Read READS random pages of region (seed) back and check their first word. */
static void touch(const uint64_t *region, uint64_t seed, unsigned int *rnd)
{
	long long bad = 0;

	for (int i = 0; i < READS; i++) {
		size_t p = rand_r(rnd) % ((size_t)REGION_MB << 8);
		uint64_t w = region[p * THRASH_WORDS];

		if (w != thrash_word(seed, p, 0))
			bad += bytes_differing(w, thrash_word(seed, p, 0));
	}
	__sync_fetch_and_add(&sh->checked, READS * 8LL);
	if (bad)
		__sync_fetch_and_add(&sh->bad, bad);
}

struct toucher {
	const uint64_t *region;
	uint64_t seed;
	unsigned int rnd;
};

static void *touch_thread(void *arg)
{
	struct toucher *t = arg;

	for (;;)
		touch(t->region, t->seed, &t->rnd);
	return NULL;
}

/* One short life; never returns. */
static void lifecycle(const uint64_t *region, uint64_t seed, long n)
{
	unsigned int rnd = n * 2654435761u + getpid();
	struct toucher t = { region, seed, rnd };
	pthread_t th;
	pid_t pid;
	int status;

	/* In stress_b, 12 MB of fresh memory against its 8 MB limit: memcg reclaim. */
	if (cgroups && !write_file(n % 2 ? CG "stress_a/cgroup.procs" : CG "stress_b/cgroup.procs",
				   "0") && n % 2 == 0) {
		uint64_t *fresh = thrash_region(12, 0);

		for (size_t p = 0; fresh && p < 12 << 8; p++)
			fresh[p * THRASH_WORDS] = p;
	}
	touch(region, seed, &rnd);
	switch (n % 4) {
	case 0:			/* plain exit */
		_exit(0);
	case 1:			/* a grandchild lives the same life beside it */
		pid = fork();
		if (pid == 0) {
			touch(region, seed, &rnd);
			_exit(0);
		}
		touch(region, seed, &rnd);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			_exit(1);
		_exit(0);
	case 2:			/* exec: the old mm goes while the task lives on */
		execl("/bin/busybox", "true", (char *)NULL);
		_exit(1);
	default:		/* exit while another thread is faulting */
		if (pthread_create(&th, NULL, touch_thread, &t))
			_exit(1);
		touch(region, seed, &rnd);
		_exit(0);
	}
}

static void spawner(const void *arg, struct thrash_stat *st)
{
	long id = (long)arg;
	uint64_t seed = 0x5eed0000 + id;
	uint64_t *region = thrash_region(REGION_MB, 0);
	long n = id;

	(void)st;
	prctl(PR_SET_NAME, "spawner");
	if (!region)
		_exit(3);
	for (size_t p = 0; p < (size_t)REGION_MB << 8; p++)
		thrash_fill_page(region + p * THRASH_WORDS, seed, p);
	while (!sh->stop && sh->lifecycles < target) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			sleep_s(0.01);
			continue;
		}
		if (pid == 0)
			lifecycle(region, seed, n);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			__sync_fetch_and_add(&sh->abnormal, 1);
			if (sh->abnormal < 5)
				printf("# lifecycle %ld (kind %ld): status 0x%x\n", n, n % 4, status);
		}
		__sync_fetch_and_add(&sh->lifecycles, n % 4 == 1 ? 2 : 1);
		n += SPAWNERS;
	}
	_exit(0);
}

static long rnd_range(unsigned int *r, long lo, long hi)
{
	return lo + rand_r(r) % (hi - lo + 1);
}

/* Random valid settings, each followed by an invalid write that must fail. */
static void *sysctl_writer(void *arg)
{
	static const char *const bad[] = { "-1", "abc", "99999999999999999999", "7x", "1.5" };
	static const char *const knob[] = {
		TOKEN_ENABLE, TOKEN_INTERVAL, TOKEN_TIMEOUT, TOKEN_SIZE_LIMIT,
	};
	unsigned int r = 12345;
	char val[32];

	(void)arg;
	while (!writer_stop) {
		int k = rand_r(&r) % ARRAY_SIZE(knob);

		if (k == 0)
			snprintf(val, sizeof(val), "%d", rand_r(&r) % 4 != 0);
		else if (k == 1)
			snprintf(val, sizeof(val), "%ld", rnd_range(&r, 10, 200));
		else if (k == 2)
			snprintf(val, sizeof(val), "%ld", rnd_range(&r, 100, 1000));
		else
			snprintf(val, sizeof(val), "%ld", rnd_range(&r, 0, 100));
		if (!write_file(knob[k], val))
			good_writes++;
		bad_writes++;
		if (write_file(knob[k], bad[rand_r(&r) % ARRAY_SIZE(bad)]) != -EINVAL)
			bad_writes_wrong++;
		sleep_s(0.02);
	}
	return NULL;
}

static void setup_cgroups(void)
{
	if (write_file(CG "cgroup.subtree_control", "+memory"))
		return;
	mkdir(CG "stress_a", 0755);
	mkdir(CG "stress_b", 0755);
	cgroups = !write_file(CG "stress_b/memory.max", "8M") &&
		  !access(CG "stress_a/cgroup.procs", W_OK);
}

static void cleanup_cgroups(void)
{
	if (!cgroups)
		return;
	/* Emptied as the children exit; the directories can go then. */
	rmdir(CG "stress_a");
	rmdir(CG "stress_b");
}

int main(void)
{
	struct token_counters before, after;
	struct thrash_spec spec = { .name = "thrasher", .full = 1, .seed = 99 };
	struct thrash_stat *st;
	pid_t thr[2], sp[SPAWNERS];
	pthread_t writer;
	char buf[32], comm[16];
	double start, end;
	long long taken, exits, bad;
	pid_t holder;

	ksft_print_header();
	ksft_set_plan(7);
	if (cmdline_param("guest_stress_lifecycles", buf, sizeof(buf)))
		target = atol(buf);
	if (cmdline_param("guest_stress_seconds", buf, sizeof(buf)))
		seconds = atol(buf);
	token_setup(512);
	setting_set(TOKEN_INTERVAL, "50");
	setting_set(TOKEN_TIMEOUT, "500");
	setting_set(TOKEN_SIZE_LIMIT, "75");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	setup_cgroups();
	ksft_print_msg("target %ld lifecycles in %ld s, memory cgroups %s\n", target, seconds,
		       cgroups ? "on" : "off");

	st = thrash_stats(2);
	spec.mb = mem_mb() * 55 / 100;
	spec.seconds = seconds;
	token_counters_read(&before);
	for (int i = 0; i < 2; i++)
		thr[i] = thrash_spawn(&spec, &st[i]);
	for (long i = 0; i < SPAWNERS; i++)
		sp[i] = spawn(spawner, (const void *)i, NULL);
	if (pthread_create(&writer, NULL, sysctl_writer, NULL))
		ksft_exit_fail_perror("pthread_create");

	start = now_s();
	end = start + seconds;
	while (now_s() < end && sh->lifecycles < target)
		sleep_s(0.5);
	sh->stop = 1;
	for (int i = 0; i < SPAWNERS; i++)
		if (wait_exit(sp[i], 120))
			sh->abnormal++;
	writer_stop = 1;
	pthread_join(writer, NULL);
	token_counters_read(&after);
	for (int i = 0; i < 2; i++) {
		thrash_kill(thr[i]);
		__sync_fetch_and_add(&sh->checked, st[i].checked);
		__sync_fetch_and_add(&sh->bad, st[i].bad);
	}
	cleanup_cgroups();
	taken = token_counter_delta("taken", &before, &after);
	exits = token_counter_delta("release_exit", &before, &after);
	bad = sh->bad;

	ksft_print_msg("%ld lifecycles in %.1f s; token taken %lld times, released at exit %lld times\n",
		       sh->lifecycles, now_s() - start, taken, exits);
	ksft_print_msg("sysctl: %ld valid writes, %ld invalid ones\n", good_writes, bad_writes);
	ksft_test_result(sh->lifecycles >= target, "%ld of %ld process lifecycles\n",
			 sh->lifecycles, target);
	ksft_test_result(taken > 0 && exits > 0,
			 "the lifecycles took the token (%lld) and exited holding it (%lld)\n",
			 taken, exits);
	ksft_test_result(!sh->abnormal, "no child crashed or failed (%ld did)\n", sh->abnormal);
	ksft_test_result(!bad && sh->checked > 0, "%lld bytes checked, %lld wrong\n",
			 sh->checked, bad);
	ksft_test_result(!bad_writes_wrong, "%ld invalid sysctl writes under load, %ld not EINVAL\n",
			 bad_writes, bad_writes_wrong);
	holder = token_holder(comm, sizeof(comm));
	ksft_test_result(holder == 0 || !kill(holder, 0),
			 "the holder at the end is none or alive (%d %s)\n", holder, comm);
	check_no_oom_kill();
	settings_restore();
	ksft_finished();
}
