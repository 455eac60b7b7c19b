// SPDX-License-Identifier: GPL-2.0
/*
 * psifreeze: "one at a time" from userspace, the peer of the swap token
 * that an administrator can deploy on an unpatched kernel.  It watches the
 * memory cgroup -c CGROUP (where the jobs run) and a PSI trigger on
 * /proc/pressure/memory: while memory is "full"-stalled for at least -s us
 * within a -w us window, it freezes all but one of the processes of
 * CGROUP (cgroup.freeze), lets that one run for a quantum of -q ms, then
 * thaws the next and freezes it, in turn.  Once no stall was reported for
 * -C quanta in a row, it thaws them all.
 *
 * Each process of CGROUP is moved into a cgroup of its own below it
 * (CGROUP/psifreeze.PID), as the cgroup is the unit of freezing; processes
 * that appear later are moved at the next decision.  A process that is
 * the parent of another one of CGROUP (a job's launcher, waiting for its
 * workers) is left alone: it is not one of the jobs that take turns.  A process's own
 * cgroup is removed when it exits.  On SIGTERM or SIGINT everything is
 * thawed, the cgroups emptied into CGROUP and removed.  It locks its memory
 * first, so that it never waits for a page-in itself.
 *
 * Prints one line per change: "seconds freeze|rotate|thaw runner=PID n=N".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guest.h"
#include "thrash.h"

#define MAX_PROCS	64
#define PREFIX		"psifreeze."

static const char *cg;
static pid_t procs[MAX_PROCS];	/* each in CGROUP/psifreeze.PID */
static int nprocs;
static int runner = -1;		/* index of the one not frozen, -1: none frozen */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int sub_write(pid_t pid, const char *file, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/" PREFIX "%d/%s", cg, pid, file);
	return write_file(path, val);
}

static void freeze(int i, int on)
{
	int err = sub_write(procs[i], "cgroup.freeze", on ? "1" : "0");

	if (err && err != -ENOENT)
		fprintf(stderr, "psifreeze: %s %d: %s\n", on ? "freeze" : "thaw", procs[i],
			strerror(-err));
}

/* Whether the process of procs[i] is gone (its cgroup is empty). */
static int gone(int i)
{
	char path[512], buf[256];

	snprintf(path, sizeof(path), "%s/" PREFIX "%d/cgroup.events", cg, procs[i]);
	if (read_file(path, buf, sizeof(buf)))
		return 1;
	return strstr(buf, "populated 0") != NULL;
}

/* Forget procs[i]: its cgroup, emptied first into CGROUP if need be. */
static void drop(int i)
{
	char path[512], procs_path[512];
	int last;

	snprintf(path, sizeof(path), "%s/" PREFIX "%d", cg, procs[i]);
	snprintf(procs_path, sizeof(procs_path), "%s/cgroup.procs", cg);
	freeze(i, 0);
	if (!gone(i)) {
		char pid[32];

		snprintf(pid, sizeof(pid), "%d", procs[i]);
		write_file(procs_path, pid);
	}
	if (rmdir(path) && errno != ENOENT)
		fprintf(stderr, "psifreeze: rmdir %s: %s\n", path, strerror(errno));
	last = --nprocs;
	procs[i] = procs[last];
	if (runner == i)
		runner = -2;	/* the runner left: the caller picks another */
	else if (runner == last)
		runner = i;
}

/* Whether pid is the parent of a process in CGROUP or of one taking turns. */
static int launcher(pid_t pid, const pid_t *in, int n)
{
	for (int i = 0; i < n; i++)
		if (ppid_of(in[i]) == pid)
			return 1;
	for (int i = 0; i < nprocs; i++)
		if (ppid_of(procs[i]) == pid)
			return 1;
	return 0;
}

/* Move every process of CGROUP itself, but launchers, into a cgroup of its own. */
static void split(void)
{
	char path[512], line[32];
	pid_t in[MAX_PROCS];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "r");
	if (!f)
		return;
	while (n < MAX_PROCS && fgets(line, sizeof(line), f))
		in[n++] = strtol(line, NULL, 10);
	fclose(f);
	for (int k = 0; k < n && nprocs < MAX_PROCS; k++) {
		pid_t pid = in[k];
		char sub[512];

		if (pid <= 0 || pid == getpid() || launcher(pid, in, n))
			continue;
		snprintf(line, sizeof(line), "%d", pid);
		snprintf(sub, sizeof(sub), "%s/" PREFIX "%d", cg, pid);
		if (mkdir(sub, 0755) && errno != EEXIST)
			continue;
		procs[nprocs] = pid;
		/* Frozen from the start if others are: only the runner runs. */
		if (runner >= 0)
			sub_write(pid, "cgroup.freeze", "1");
		if (sub_write(pid, "cgroup.procs", line)) {
			rmdir(sub);	/* it exited meanwhile */
			continue;
		}
		nprocs++;
	}
}

static void reap(void)
{
	for (int i = nprocs - 1; i >= 0; i--)
		if (gone(i))
			drop(i);
}

static void thaw_all(void)
{
	for (int i = 0; i < nprocs; i++)
		freeze(i, 0);
	runner = -1;
}

/* Let procs[next] run alone. */
static void run_alone(int next)
{
	freeze(next, 0);
	for (int i = 0; i < nprocs; i++)
		if (i != next)
			freeze(i, 1);
	runner = next;
}

int main(int argc, char **argv)
{
	long quantum = 2000, stall = 100000, window = 1000000, calm = 2;
	double start = now_s(), last_stall = 0, turn = 0;
	char trig[64];
	struct pollfd pfd;
	int opt;

	while ((opt = getopt(argc, argv, "c:q:s:w:C:")) != -1) {
		switch (opt) {
		case 'c': cg = optarg; break;
		case 'q': quantum = arg_num("psifreeze", "-q", optarg, 10, 600000); break;
		case 's': stall = arg_num("psifreeze", "-s", optarg, 1000, 10000000); break;
		case 'w': window = arg_num("psifreeze", "-w", optarg, 500000, 10000000); break;
		case 'C': calm = arg_num("psifreeze", "-C", optarg, 1, 1000); break;
		default:
			fprintf(stderr, "usage: psifreeze -c CGROUP [-q quantum_ms] [-s stall_us] [-w window_us] [-C calm_quanta]\n");
			return 2;
		}
	}
	if (!cg || optind != argc) {
		fprintf(stderr, "usage: psifreeze -c CGROUP [-q quantum_ms] [-s stall_us] [-w window_us] [-C calm_quanta]\n");
		return 2;
	}
	if (stall > window) {
		fprintf(stderr, "psifreeze: -s %ld is longer than the window -w %ld\n", stall, window);
		return 2;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("psifreeze: mlockall");
		return 1;
	}
	pfd.fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK);
	if (pfd.fd < 0) {
		perror("psifreeze: /proc/pressure/memory");
		return 1;
	}
	snprintf(trig, sizeof(trig), "full %ld %ld", stall, window);
	if (write(pfd.fd, trig, strlen(trig) + 1) < 0) {
		fprintf(stderr, "psifreeze: PSI trigger '%s': %s\n", trig, strerror(errno));
		return 1;
	}
	pfd.events = POLLPRI;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);

	while (!stop) {
		int n = poll(&pfd, 1, runner >= 0 ? 100 : 1000);
		double t = now_s();

		if (n < 0 && errno != EINTR) {
			perror("psifreeze: poll");
			break;
		}
		if (n > 0 && (pfd.revents & POLLERR)) {
			fprintf(stderr, "psifreeze: the PSI trigger went away\n");
			break;
		}
		if (n > 0 && (pfd.revents & POLLPRI))
			last_stall = t;
		reap();
		if (runner == -2 && nprocs) {
			/* The runner finished: the next one's turn. */
			run_alone(0);
			turn = t;
			printf("%.3f rotate runner=%d n=%d\n", t - start, procs[runner], nprocs);
		} else if (runner == -2) {
			runner = -1;
		}
		if (runner < 0) {
			if (last_stall != t)
				continue;
			split();
			if (nprocs < 2)
				continue;
			run_alone(0);
			turn = t;
			printf("%.3f freeze runner=%d n=%d\n", t - start, procs[runner], nprocs);
			continue;
		}
		if ((t - turn) * 1000 < quantum)
			continue;
		if ((t - last_stall) * 1000 >= calm * quantum) {
			thaw_all();
			printf("%.3f thaw n=%d\n", t - start, nprocs);
			continue;
		}
		split();
		run_alone((runner + 1) % nprocs);
		turn = t;
		printf("%.3f rotate runner=%d n=%d\n", t - start, procs[runner], nprocs);
	}
	thaw_all();
	while (nprocs)
		drop(nprocs - 1);
	return 0;
}
