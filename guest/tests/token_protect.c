// SPDX-License-Identifier: GPL-2.0
/*
 * The swap token protects its holder's resident set.  Two children cycle
 * over working sets that together exceed RAM; twice a second the test
 * samples the holder and each child's VmRSS and major faults.  With the
 * token on, a child holds it most of the time, the holder's resident set
 * while it holds the token is clearly larger than the other child's at the
 * same moments, and reclaim counts folios kept for the holder
 * (swap_token_kept).  Nothing else tells the two children apart, so without
 * the protection the two averages would be equal.  Then, with
 * vm.swap_token=0, the same children keep thrashing and neither
 * swap_token_taken nor swap_token_kept moves, and nobody holds the token.
 */
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define SAMPLE_S	0.5
#define ON_S		24
#define OFF_S		10
#define MAX_SAMPLES	64

struct sample {
	pid_t holder;
	long rss[2];	/* kB */
	long majflt[2];
};

struct phase {
	struct sample s[MAX_SAMPLES];
	int n;
	long long taken, kept;
	long passes[2], majflt[2];
};

static pid_t pid[2];
static struct thrash_stat *st;
static long mem;

static void run_phase(struct phase *ph, double secs)
{
	long long taken = token_stat("taken"), kept = token_stat("kept");
	long passes[2] = { st[0].passes, st[1].passes };
	long majflt[2] = { pid_majflt(pid[0]), pid_majflt(pid[1]) };
	double start = now_s();

	/* Nothing is printed while the children run: the reader of our output may fault. */
	for (ph->n = 0; ph->n < MAX_SAMPLES && ph->n < secs / SAMPLE_S; ph->n++) {
		struct sample *s = &ph->s[ph->n];

		sleep_s(start + (ph->n + 1) * SAMPLE_S - now_s());
		s->holder = token_holder(NULL, 0);
		for (int i = 0; i < 2; i++) {
			s->rss[i] = pid_status_kb(pid[i], "VmRSS");
			s->majflt[i] = pid_majflt(pid[i]);
		}
	}
	ph->taken = token_stat("taken") - taken;
	ph->kept = token_stat("kept") - kept;
	for (int i = 0; i < 2; i++) {
		ph->passes[i] = st[i].passes - passes[i];
		ph->majflt[i] = pid_majflt(pid[i]) - majflt[i];
	}
}

static void print_phase(const char *name, const struct phase *ph)
{
	long rss[2] = { 0, 0 };

	for (int j = 0; j < ph->n; j++)
		for (int i = 0; i < 2; i++)
			rss[i] += ph->s[j].rss[i] / ph->n;
	ksft_print_msg("%s: passes %ld / %ld, major faults %ld / %ld, mean VmRSS %ld / %ld MB\n",
		       name, ph->passes[0], ph->passes[1], ph->majflt[0], ph->majflt[1],
		       rss[0] >> 10, rss[1] >> 10);
	ksft_print_msg("%s: swap_token_taken +%lld, swap_token_kept +%lld\n", name, ph->taken,
		       ph->kept);
}

static void check_on(const struct phase *ph, long mb)
{
	long held = 0, handovers = 0, rss_holder = 0, rss_other = 0, margin = mb * 1024 / 10;
	pid_t last = 0;

	for (int j = 0; j < ph->n; j++) {
		const struct sample *s = &ph->s[j];
		int i = s->holder == pid[0] ? 0 : s->holder == pid[1] ? 1 : -1;

		if (i < 0)
			continue;
		held++;
		rss_holder += s->rss[i];
		rss_other += s->rss[!i];
		handovers += last && last != s->holder;
		last = s->holder;
	}
	if (held) {
		rss_holder /= held;
		rss_other /= held;
	}
	print_phase("on", ph);
	ksft_print_msg("on: a child held the token in %ld of %d samples, %ld handovers\n",
		       held, ph->n, handovers);
	ksft_print_msg("on: mean VmRSS while holding %ld MB, the other child's meanwhile %ld MB\n",
		       rss_holder >> 10, rss_other >> 10);
	ksft_test_result(held * 10 >= ph->n * 6, "on: a thrashing child held the token most of the time\n");
	ksft_test_result(held && rss_holder >= rss_other + margin,
			 "on: the holder's resident set is larger than the other child's by %ld MB or more\n",
			 margin >> 10);
	ksft_test_result(ph->kept > 0, "on: reclaim kept folios of the holder (swap_token_kept)\n");
}

static void check_off(const struct phase *ph)
{
	long held = 0;

	for (int j = 0; j < ph->n; j++)
		held += ph->s[j].holder != 0;
	print_phase("off", ph);
	ksft_test_result(ph->passes[0] + ph->passes[1] > 0 && ph->majflt[0] + ph->majflt[1] > 0,
			 "off: the children kept thrashing\n");
	ksft_test_result(!ph->taken && !ph->kept && !held,
			 "off: nobody took the token, swap_token_taken and swap_token_kept did not move\n");
}

int main(void)
{
	static struct phase on, off;
	struct thrash_spec spec[2];

	ksft_print_header();
	mem = mem_mb();
	token_setup(2 * mem);
	ksft_set_plan(5);
	st = thrash_stats(2);
	for (int i = 0; i < 2; i++) {
		spec[i] = (struct thrash_spec){ .name = i ? "prot-b" : "prot-a", .mb = mem * 5 / 8,
						.seed = i + 1, .stop_filled = 1 };
		pid[i] = thrash_spawn(&spec[i], &st[i]);
		if (pid[i] < 0 || wait_stopped(pid[i], 120))
			ksft_exit_fail_msg("child %d did not fill its memory\n", i);
	}
	ksft_print_msg("2 children x %ld MB on %ld MB of RAM\n", spec[0].mb, mem);
	must_set(TOKEN_INTERVAL, 1000);
	must_set(TOKEN_TIMEOUT, 300000);
	token_reset();
	kill(pid[0], SIGCONT);
	kill(pid[1], SIGCONT);
	run_phase(&on, ON_S);
	must_set(TOKEN_ENABLE, 0);
	run_phase(&off, OFF_S);
	thrash_kill_all();

	check_on(&on, spec[0].mb);
	check_off(&off);
	ksft_finished();
}
