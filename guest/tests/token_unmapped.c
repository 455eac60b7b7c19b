// SPDX-License-Identifier: GPL-2.0
/*
 * The token spares only folios that its holder really maps.  The reverse
 * map walk visits every vma that may map a folio, among them vmas that
 * cover its offset without a page table entry for it: the token must not
 * count those.  A file F of 40% of RAM on the scratch disk; H maps all of
 * F but touches none of it, and holds the token (it paged 25% of RAM of
 * its own back in); Q maps F and reads every page of it once, then
 * sleeps; P allocates 80% of RAM, once.  Q's pages of F are mapped by Q
 * alone, and it does not use them: eviction must take them as it does
 * with the token off, give or take half of F (MGLRU once left Q 40 of 95
 * MB with the token, 0 without).  A hook that asked about H for its empty
 * vma kept them all: 95 of 95 MB, against 39 (MGLRU) and 8 (classic).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "kselftest.h"
#include "guest.h"
#include "thrash.h"
#include "token.h"

#define FILE_F	"/mnt/scratch/token_unmapped.f"

struct run {
	long q_before, q_after;		/* Q's resident pages of F, MB */
	long long kept;
	int held;
};

/* Map F (shared, read-only); NULL on error. */
static char *map_f(long f_mb)
{
	int fd = open(FILE_F, O_RDONLY);
	char *m;

	if (fd < 0)
		return NULL;
	m = mmap(NULL, f_mb << 20, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

static void run(int token_on, long f_mb, long h_mb, long p_mb, struct run *r)
{
	int to_h[2], from_h[2], from_q[2], from_p[2];
	long long kept0;
	pid_t h, q, p;

	memset(r, 0, sizeof(*r));
	if (pipe(to_h) || pipe(from_h) || pipe(from_q) || pipe(from_p))
		ksft_exit_fail_perror("pipe");
	must_set(TOKEN_ENABLE, 1);
	h = fork();
	if (h == 0) {
		if (!map_f(f_mb))
			_exit(1);
		page_in_child(h_mb, from_h[1], to_h[0]);
	}
	if (read_byte(from_h[0]) != 'f')
		ksft_exit_fail_msg("H did not start\n");
	/* Push H's memory out, so that it pages it back in and takes the token. */
	r->held = push_out_page_in(h, to_h[1], from_h[0], token_on);

	q = fork();
	if (q == 0) {
		char *f = map_f(f_mb);
		volatile char sum = 0;

		munlockall();
		if (!f)
			_exit(1);
		for (long off = 0; off < f_mb << 20; off += 4096)
			sum += f[off];
		if (write(from_q[1], "q", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read_byte(from_q[0]) != 'q')
		ksft_exit_fail_msg("Q did not map F\n");
	r->q_before = pid_status_kb(q, "RssFile") / 1024;
	kept0 = token_stat("kept");
	p = hog(p_mb, from_p[1]);
	if (read_byte(from_p[0]) != 'p')
		ksft_exit_fail_msg("P did not allocate %ld MB\n", p_mb);
	r->kept = token_stat("kept") - kept0;
	r->q_after = pid_status_kb(q, "RssFile") / 1024;
	kill(p, SIGKILL);
	kill(q, SIGKILL);
	waitpid(p, NULL, 0);
	waitpid(q, NULL, 0);
	if (write(to_h[1], "t", 1) != 1)
		kill(h, SIGKILL);
	waitpid(h, NULL, 0);
	close(to_h[0]); close(to_h[1]); close(from_h[0]); close(from_h[1]);
	close(from_q[0]); close(from_q[1]); close(from_p[0]); close(from_p[1]);
	ksft_print_msg("token %s: Q had %ld MB of F resident, then %ld MB; %s; kept +%lld pages\n",
		       token_on ? "on" : "off", r->q_before, r->q_after,
		       r->held ? "H held the token" : "H did not hold the token", r->kept);
}

int main(void)
{
	long ram, f_mb;
	struct run on, off;

	ksft_print_header();
	ram = mem_mb();
	token_setup(2 * ram);
	ksft_set_plan(2);
	f_mb = ram * 40 / 100;
	if (thrash_write_file(FILE_F, f_mb, 0, 1))
		ksft_exit_fail_msg("cannot write %ld MB to %s (the scratch disk): %s\n",
				   f_mb, FILE_F, strerror(errno));
	must_set(TOKEN_INTERVAL, 60000);
	run(1, f_mb, ram * 25 / 100, ram * 80 / 100, &on);
	run(0, f_mb, ram * 25 / 100, ram * 80 / 100, &off);
	unlink(FILE_F);

	ksft_test_result(on.held && on.q_before >= f_mb * 9 / 10,
			 "H held the token, and Q had F resident\n");
	ksft_test_result(on.q_after <= off.q_after + f_mb / 2,
			 "eviction took Q's pages of F as with the token off, although H maps F\n");
	ksft_finished();
}
