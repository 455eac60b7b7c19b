// SPDX-License-Identifier: GPL-2.0
/*
 * fthrash: file-backed thrashing.  With -c, writes -p files of -m MB each
 * (DIR/fthrash.N, a known pattern) and exits.  Without, forks -p children;
 * child i maps file i read-only (MAP_SHARED) and reads the first word of
 * every page, checking it against the pattern, for -n passes: in file order,
 * or with -r in a scrambled order, where read-around soon gives up (the
 * kernel stops it after many misses) and nearly every page not in the page
 * cache is a major fault.  Not MADV_RANDOM: the kernel ignores references
 * through such a mapping (vma_has_recency()), and with them the swap token's
 * protection, which is what the bench wants to see.  When the files
 * together are larger than RAM every pass faults through filemap_fault(),
 * the page-cache path of the swap token.  With -C (cold) each pass meets
 * an empty page cache without any memory pressure: the mapping is
 * MADV_RANDOM, so each page is a major fault of its own, and after each
 * pass the child unmaps its pages and drops the file's cache
 * (POSIX_FADV_DONTNEED); that measures what the fault path costs where
 * nothing thrashes.  Prints the wall time; exit status 1 if a word was
 * wrong or a child died.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "guest.h"
#include "thrash.h"

static const char *dir = ".";
static long mb = 64, passes = 1, first;
static int scramble, cold;


static void usage(const char *msg)
{
	fprintf(stderr, "fthrash: %s\n"
		"usage: fthrash [-d dir] [-p procs] [-m MB] [-n passes] [-f first] [-r] [-C] [-c]\n", msg);
	exit(2);
}

static void file_name(char *buf, size_t len, long i)
{
	snprintf(buf, len, "%s/fthrash.%ld", dir, i);
}

/* Write file i: page p holds thrash_word(i + 1, p, w) at word w. */
static int create(long i)
{
	char name[4096];

	file_name(name, sizeof(name), i);
	if (thrash_write_file(name, mb, i + 1, 0)) {
		perror(name);
		return 1;
	}
	return 0;
}

static int child(long i)
{
	size_t pages = (size_t)mb << 8, len = (size_t)mb << 20;
	long long bad = 0;
	const uint64_t *mem;
	char name[4096];
	int fd;

	prctl(PR_SET_NAME, "fthrash");
	/* Killing fthrash (the bench's background reader) ends its children too. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	file_name(name, sizeof(name), i);
	fd = open(name, O_RDONLY);
	if (fd < 0) {
		perror(name);
		return 1;
	}
	mem = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		perror("fthrash: mmap");
		return 1;
	}
	if (cold && (madvise((void *)mem, len, MADV_RANDOM) ||
		     posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))) {
		perror("fthrash: -C");
		return 1;
	}
	for (long n = 0; n < passes; n++) {
		for (size_t k = 0; k < pages; k++) {
			size_t p = scramble ? k * THRASH_STRIDE % pages : k;

			if (mem[p * THRASH_WORDS] != thrash_word(i + 1, p, 0))
				bad += bytes_differing(mem[p * THRASH_WORDS],
						       thrash_word(i + 1, p, 0));
		}
		if (cold && (madvise((void *)mem, len, MADV_DONTNEED) ||
			     posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))) {
			perror("fthrash: -C");
			return 1;
		}
	}
	close(fd);
	if (bad)
		fprintf(stderr, "fthrash: %s: %lld bytes wrong\n", name, bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	long procs = 1;
	int opt, make = 0, failed = 0, status;
	double start;

	while ((opt = getopt(argc, argv, "d:p:m:n:f:rCc")) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'p': procs = arg_num("fthrash", "-p", optarg, 1, 64); break;
		case 'm': mb = arg_num("fthrash", "-m", optarg, 1, 1 << 20); break;
		case 'n': passes = arg_num("fthrash", "-n", optarg, 1, 1 << 20); break;
		case 'f': first = arg_num("fthrash", "-f", optarg, 0, 1 << 20); break;
		case 'r': scramble = 1; break;
		case 'C': cold = 1; break;
		case 'c': make = 1; break;
		default: usage("unknown option");
		}
	}
	if (optind != argc)
		usage("unexpected argument");
	if (mb % THRASH_STRIDE == 0)
		usage("-m must not be a multiple of 7919");

	setvbuf(stdout, NULL, _IOLBF, 0);
	start = now_s();
	if (make) {
		for (long i = first; i < first + procs; i++)
			failed |= create(i);
		return failed;
	}
	for (long i = first; i < first + procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fthrash: fork");
			return 1;
		}
		if (pid == 0)
			_exit(child(i));
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	printf("fthrash: %ld x %ld MB x %ld passes: %.2f s%s\n", procs, mb, passes,
	       now_s() - start, failed ? " (FAILED)" : "");
	return failed;
}
