// SPDX-License-Identifier: GPL-2.0
/*
 * The swap token protects its holder's resident set while processes
 * thrash.  Two children cycle over working sets larger than RAM, so both
 * always fault; a 4 s timeout makes the token alternate between them.
 * Twice a second the test samples the holder and each child's VmRSS.
 *
 *  - on: a child holds the token most of the time; while a child holds it,
 *    its VmRSS grows relative to the other child's (the sum of that gain
 *    over all half seconds with the same holder must be at least half a
 *    working set); reclaim counts folios kept for the holder
 *    (swap_token_kept).  Without the reclaim hook, which child holds the
 *    token (decided by the clock) would not tell which one gains memory,
 *    and the gain would be about zero.
 *  - off: with vm.swap_token=0 the same children go on thrashing, nobody
 *    takes the token, and neither swap_token_taken nor swap_token_kept
 *    moves.
 *
 * The mean VmRSS of the holder and of the other child are printed but not
 * compared: under an emulated CPU memory moves between the children at
 * 10-20 MB/s, so a child's VmRSS lags seconds behind the token, and whatever
 * split the children start with dominates the means.  token_keep shows
 * the protection of an idle holder directly.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define SAMPLE_S	0.5
#define ON_S		24
#define OFF_S		8
#define MAX_SAMPLES	64
#define SIZE_PCT	110	/* each child's working set, % of RAM */
#define INTERVAL_MS	500
#define TIMEOUT_MS	4000

struct sample {
	pid_t holder;
	long rss[2];	/* kB */
};

struct phase {
	struct sample s[MAX_SAMPLES];
	int n;
	struct token_counters c[2];
	long passes[2], majflt[2];
};

static pid_t pid[2];
static struct thrash_stat *st;
static long mb;

/* Sample the holder and the children's VmRSS for secs; count their work. */
static void run_phase(struct phase *ph, double secs)
{
	long passes[2] = { st[0].passes, st[1].passes };
	long majflt[2] = { pid_majflt(pid[0]), pid_majflt(pid[1]) };
	double start = now_s();

	token_counters_read(&ph->c[0]);
	for (ph->n = 0; ph->n < MAX_SAMPLES && ph->n < secs / SAMPLE_S; ph->n++) {
		struct sample *s = &ph->s[ph->n];

		sleep_s(start + (ph->n + 1) * SAMPLE_S - now_s());
		s->holder = token_holder(NULL, 0);
		for (int i = 0; i < 2; i++)
			s->rss[i] = pid_status_kb(pid[i], "VmRSS");
	}
	token_counters_read(&ph->c[1]);
	for (int i = 0; i < 2; i++) {
		ph->passes[i] = st[i].passes - passes[i];
		ph->majflt[i] = pid_majflt(pid[i]) - majflt[i];
	}
}

/* Index of the child holding the token in sample s, or -1. */
static int holder_of(const struct sample *s)
{
	return s->holder == pid[0] ? 0 : s->holder == pid[1] ? 1 : -1;
}

/* The samples, eight to a line: holder ('-': neither child), then VmRSS in MB. */
static void print_phase(const char *name, const struct phase *ph)
{
	char line[256];
	int len = 0;

	for (int j = 0; j < ph->n; j++) {
		const struct sample *s = &ph->s[j];
		int i = holder_of(s);

		len += snprintf(line + len, sizeof(line) - len, " %c %ld/%ld",
				i < 0 ? '-' : '0' + i, s->rss[0] >> 10, s->rss[1] >> 10);
		if (j % 8 == 7 || j == ph->n - 1) {
			ksft_print_msg("%s:%s\n", name, line);
			len = 0;
		}
	}
	ksft_print_msg("%s: passes %ld / %ld, major faults %ld / %ld\n", name, ph->passes[0],
		       ph->passes[1], ph->majflt[0], ph->majflt[1]);
	token_counters_print(name, &ph->c[0], &ph->c[1]);
}

static void check_on(const struct phase *ph)
{
	long held[2] = { 0, 0 }, rss_holder = 0, rss_other = 0, gain = 0, steps = 0;
	int n;

	for (int j = 0; j < ph->n; j++) {
		const struct sample *s = &ph->s[j];
		int i = holder_of(s);

		if (i < 0)
			continue;
		held[i]++;
		rss_holder += s->rss[i];
		rss_other += s->rss[!i];
		/* What the holder gained on the other since the last sample, if it held it then. */
		if (j && s[-1].holder == s->holder) {
			gain += (s->rss[i] - s[-1].rss[i]) - (s->rss[!i] - s[-1].rss[!i]);
			steps++;
		}
	}
	n = held[0] + held[1];
	print_phase("on", ph);
	ksft_print_msg("on: child 0 held the token in %ld, child 1 in %ld of %d samples\n",
		       held[0], held[1], ph->n);
	ksft_print_msg("on: mean VmRSS of the holder %ld MB, of the other child meanwhile %ld MB\n",
		       n ? rss_holder / n >> 10 : 0, n ? rss_other / n >> 10 : 0);
	ksft_print_msg("on: the holder gained %ld MB on the other in %.1f s of holding\n",
		       gain >> 10, steps * SAMPLE_S);
	ksft_test_result(n * 2 > ph->n, "on: a thrashing child held the token most of the time\n");
	ksft_test_result(gain >> 10 >= mb / 2,
			 "on: the holder's resident set grew relative to the other's by %ld MB or more\n",
			 mb / 2);
	ksft_test_result(token_counter_delta("kept", &ph->c[0], &ph->c[1]) > 0,
			 "on: reclaim kept folios of the holder (swap_token_kept)\n");
}

static void check_off(const struct phase *ph)
{
	long held = 0;

	for (int j = 0; j < ph->n; j++)
		held += ph->s[j].holder != 0;
	print_phase("off", ph);
	ksft_test_result(ph->majflt[0] > 0 && ph->majflt[1] > 0,
			 "off: both children kept faulting\n");
	ksft_test_result(!held && !token_counter_delta("taken", &ph->c[0], &ph->c[1]) &&
			 !token_counter_delta("kept", &ph->c[0], &ph->c[1]),
			 "off: nobody took the token, swap_token_taken and swap_token_kept did not move\n");
}

int main(void)
{
	static struct phase on, off;
	pid_t holder[2];
	long mem;

	ksft_print_header();
	mem = mem_mb();
	mb = mem * SIZE_PCT / 100;
	token_setup(2 * mb + 64);
	ksft_set_plan(6);
	must_set(TOKEN_INTERVAL, INTERVAL_MS);
	must_set(TOKEN_TIMEOUT, TIMEOUT_MS);
	/* The children are bigger than RAM, which the size limit would not allow. */
	must_set(TOKEN_SIZE_LIMIT, 0);
	st = thrash_stats(2);
	for (int i = 0; i < 2; i++) {
		struct thrash_spec spec = { .name = i ? "prot-1" : "prot-0", .mb = mb,
					    .seed = i + 1, .stop_filled = 1 };

		pid[i] = thrash_spawn(&spec, &st[i]);
		if (pid[i] < 0 || wait_stopped(pid[i], 120))
			ksft_exit_fail_msg("child %d did not fill its memory\n", i);
		/*
		 * A child that faulted while filling may hold the token; stopped,
		 * it would keep it (nobody else contends) and its memory would
		 * be spared while the next child fills.
		 */
		holder[i] = token_holder(NULL, 0);
		token_reset();
	}
	token_reset();
	kill(pid[0], SIGCONT);
	kill(pid[1], SIGCONT);
	run_phase(&on, ON_S);
	must_set(TOKEN_ENABLE, 0);
	run_phase(&off, OFF_S);
	thrash_kill_all();

	ksft_print_msg("2 children x %ld MB on %ld MB of RAM, interval %d ms, timeout %d ms\n",
		       mb, mem, INTERVAL_MS, TIMEOUT_MS);
	ksft_print_msg("holder after child 0 filled: %d, after child 1 filled: %d\n", holder[0],
		       holder[1]);
	check_on(&on);
	check_off(&off);
	check_no_oom_kill();
	ksft_finished();
}
