// SPDX-License-Identifier: GPL-2.0
/*
 * The guest has what the runner asked for: memory size, CPUs, swap backend
 * and size, LRU mode.  host/run-qemu.sh writes its request as guest_mem,
 * guest_cpus, guest_swap, guest_swap_mb and guest_lru on the command line.
 */
#include <sys/sysinfo.h>
#include "kselftest.h"
#include "guest.h"

static long param_long(const char *name)
{
	char buf[64];

	return cmdline_param(name, buf, sizeof(buf)) ? atol(buf) : -1;
}

static void check_memory(void)
{
	long want = param_long("guest_mem");
	long long have = meminfo_kb("MemTotal") / 1024;

	/* The kernel image and reserved areas take a few percent. */
	ksft_print_msg("memory: asked %ld MB, MemTotal %lld MB\n", want, have);
	ksft_test_result(want > 0 && have <= want && have >= want * 85 / 100,
			 "memory size matches guest_mem\n");
}

static void check_cpus(void)
{
	long want = param_long("guest_cpus");
	int have = get_nprocs();

	ksft_print_msg("cpus: asked %ld, online %d\n", want, have);
	ksft_test_result(want == have, "online CPUs match guest_cpus\n");
}

static void check_swap(void)
{
	char backend[32] = "", dev[128], type[32], line[256];
	long want_mb = param_long("guest_swap_mb");
	long long size_kb, used, total_kb = 0;
	const char *want_dev = NULL;
	int prio, ndev = 0, match = 0;
	FILE *f;

	cmdline_param("guest_swap", backend, sizeof(backend));
	if (!strcmp(backend, "disk"))
		want_dev = "/dev/vda";
	else if (!strcmp(backend, "zram"))
		want_dev = "/dev/zram0";

	f = fopen("/proc/swaps", "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		ksft_test_result_fail("swap backend matches guest_swap (no /proc/swaps)\n");
		return;
	}
	while (fscanf(f, "%127s %31s %lld %lld %d", dev, type, &size_kb, &used, &prio) == 5) {
		ksft_print_msg("swap: %s %lld kB\n", dev, size_kb);
		ndev++;
		total_kb += size_kb;
		match += want_dev && !strcmp(dev, want_dev);
	}
	fclose(f);
	if (!want_dev) {
		ksft_test_result(!strcmp(backend, "none") && ndev == 0,
				 "swap backend matches guest_swap=%s\n", backend);
		return;
	}
	/* mkswap keeps one page for its header. */
	ksft_test_result(ndev == 1 && match == 1 && total_kb <= want_mb * 1024 &&
			 total_kb >= want_mb * 1024 - 64,
			 "swap backend matches guest_swap=%s, %ld MB\n", backend, want_mb);
}

static void check_lru(void)
{
	char want[32] = "", have[32] = "";
	unsigned long mask;

	cmdline_param("guest_lru", want, sizeof(want));
	if (read_file("/sys/kernel/mm/lru_gen/enabled", have, sizeof(have))) {
		ksft_test_result_fail("LRU mode matches guest_lru (no lru_gen/enabled)\n");
		return;
	}
	mask = strtoul(have, NULL, 0);
	ksft_print_msg("lru: asked %s, lru_gen/enabled %s\n", want, have);
	ksft_test_result((!strcmp(want, "mglru") && (mask & 1)) ||
			 (!strcmp(want, "classic") && mask == 0),
			 "LRU mode matches guest_lru\n");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(4);
	check_memory();
	check_cpus();
	check_swap();
	check_lru();
	ksft_finished();
}
