/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the guest tests and workloads: read the guest_*
 * parameters the host put on the kernel command line, /proc/meminfo and
 * /proc/vmstat fields, and sysctl files.
 */
#ifndef GUEST_H
#define GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Value of NAME=value on /proc/cmdline copied to buf, or NULL if absent. */
static inline char *cmdline_param(const char *name, char *buf, size_t len)
{
	char line[4096], *tok, *save;
	size_t n = strlen(name);
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(tok, name, n) && tok[n] == '=') {
			snprintf(buf, len, "%s", tok + n + 1);
			return buf;
		}
	}
	return NULL;
}

/* Read a "name value" (vmstat) or "Name: value kB" (meminfo) field; -1 if absent. */
static inline long long proc_field(const char *path, const char *name)
{
	char key[128];
	long long val;
	size_t n = strlen(name);
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld%*[^\n]", key, &val) == 2) {
		if (!strncmp(key, name, n) && (key[n] == '\0' || key[n] == ':')) {
			fclose(f);
			return val;
		}
	}
	fclose(f);
	return -1;
}

static inline long long vmstat(const char *name)
{
	return proc_field("/proc/vmstat", name);
}

static inline long long meminfo_kb(const char *name)
{
	return proc_field("/proc/meminfo", name);
}

/* Read a whole small file into buf (trailing newline removed); -errno on error. */
static inline int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Write a string to a file in one write(); 0 or -errno (as the kernel returned it). */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Parent pid of pid from /proc/pid/stat (the comm may hold spaces); -1 if gone. */
static inline long ppid_of(long pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	return p ? strtol(p + 4, NULL, 10) : -1;	/* ") S ppid" */
}

/* Parse a command-line number in [min, max]; exits with status 2 naming the option otherwise. */
static inline long arg_num(const char *prog, const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno || v < min || v > max) {
		fprintf(stderr, "%s: %s needs a number in [%ld, %ld], got '%s'\n",
			prog, opt, min, max, s);
		exit(2);
	}
	return v;
}

#endif
