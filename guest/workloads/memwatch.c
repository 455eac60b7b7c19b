// SPDX-License-Identifier: GPL-2.0
/*
 * memwatch: sample the resident memory of the children of -P pid (and with
 * -s of that process itself) every -i ms until it is gone.  One line per
 * process and sample:
 *   seconds pid comm rss_MB holder
 * where holder is 1 if that process holds the swap token.  For the timeline
 * plots of make bench.  It locks all its memory first, so that it never
 * faults under the pressure it watches, and so never takes the token
 * itself; it fails if it cannot.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "guest.h"
#include "thrash.h"

static long holder_pid(void)
{
	char buf[64];

	if (read_file("/proc/sys/vm/swap_token_holder", buf, sizeof(buf)))
		return 0;
	return strtol(buf, NULL, 10);	/* "none" reads as 0 */
}

int main(int argc, char **argv)
{
	long parent = 0, interval = 250;
	int self = 0;
	double start = now_s();
	int opt;

	while ((opt = getopt(argc, argv, "P:i:s")) != -1) {
		switch (opt) {
		case 'P': parent = arg_num("memwatch", "-P", optarg, 1, 1 << 30); break;
		case 'i': interval = arg_num("memwatch", "-i", optarg, 10, 60000); break;
		case 's': self = 1; break;
		default:
			fprintf(stderr, "usage: memwatch -P pid [-i ms] [-s]\n");
			return 2;
		}
	}
	if (!parent || optind != argc) {
		fprintf(stderr, "memwatch: -P pid is required\nusage: memwatch -P pid [-i ms] [-s]\n");
		return 2;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("memwatch: mlockall");
		return 1;
	}
	while (kill(parent, 0) == 0) {
		long holder = holder_pid();
		double t = now_s() - start;
		struct dirent *d;
		DIR *proc = opendir("/proc");

		if (!proc)
			return 1;
		while ((d = readdir(proc))) {
			long pid = strtol(d->d_name, NULL, 10);
			char path[64], comm[32];
			long rss;

			if (pid <= 0 || (ppid_of(pid) != parent && !(self && pid == parent)))
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
			rss = pid_status_kb(pid, "VmRSS");
			if (rss < 0 || read_file(path, comm, sizeof(comm)))
				continue;
			for (char *c = comm; *c; c++)
				if (*c == ' ')
					*c = '_';
			printf("%.2f %ld %s %.1f %d\n", t, pid, comm, rss / 1024.0, pid == holder);
		}
		closedir(proc);
		fflush(stdout);
		sleep_s(interval / 1000.0);
	}
	return 0;
}
