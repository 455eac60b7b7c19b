// SPDX-License-Identifier: GPL-2.0
/*
 * gentext: write -m MB of text to FILE, the input of the bench's real
 * programs (GNU sort, xz; guest/jobs/real).  Each line holds 2 to 7 words
 * of a vocabulary of 4096 words of 2 to 9 lowercase letters, the common
 * words chosen more often than the rare ones, so that the text sorts with
 * shared prefixes and repeated lines and compresses as text does.  The
 * same -s seed gives the same file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "guest.h"
#include "thrash.h"

#define WORDS	4096

static char vocab[WORDS][10];

static void usage(const char *msg)
{
	fprintf(stderr, "gentext: %s\nusage: gentext [-m MB] [-s seed] FILE\n", msg);
	exit(2);
}

int main(int argc, char **argv)
{
	long mb = 16, seed = 1, bytes = 0, n = 0;
	char line[128];
	FILE *f;
	int opt;

	while ((opt = getopt(argc, argv, "m:s:")) != -1) {
		switch (opt) {
		case 'm': mb = arg_num("gentext", "-m", optarg, 1, 1 << 20); break;
		case 's': seed = arg_num("gentext", "-s", optarg, 0, 1L << 30); break;
		default: usage("unknown option");
		}
	}
	if (optind != argc - 1)
		usage("one FILE needed");
	for (int w = 0; w < WORDS; w++) {
		uint64_t x = thrash_word(seed, w, 0);
		int len = 2 + x % 8;

		for (int i = 0; i < len; i++)
			vocab[w][i] = 'a' + (x >> (3 + 5 * i)) % 26;
		vocab[w][len] = 0;
	}
	f = fopen(argv[optind], "w");
	if (!f) {
		perror(argv[optind]);
		return 1;
	}
	while (bytes < mb << 20) {
		uint64_t x = thrash_word(seed + 1, n++, 0);
		int words = 2 + x % 6, len = 0;

		for (int i = 0; i < words; i++) {
			/* The square of a uniform draw: small indexes are common. */
			uint64_t u = (x >> (3 + 12 * (i % 5))) % WORDS;
			const char *w = vocab[u * u / WORDS];

			len += snprintf(line + len, sizeof(line) - len, "%s%s", i ? " " : "", w);
			if (i % 5 == 4)
				x = thrash_word(seed + 2, n, i);
		}
		line[len++] = '\n';
		if (fwrite(line, 1, len, f) != (size_t)len)
			break;
		bytes += len;
	}
	if (fclose(f)) {
		perror(argv[optind]);
		return 1;
	}
	return 0;
}
