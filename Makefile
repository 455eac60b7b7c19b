# Swap token for Linux 6.12: build, boot and test pipeline.
# 'make help' lists the targets.

B       := build
TREE    := $(B)/linux
KBUILD  := $(B)/kbuild
BZIMAGE := $(KBUILD)/arch/x86/boot/bzImage
INITRD  := $(B)/initramfs.cpio.gz
FRAGS   := config/base.config config/test.config

GUEST_CC     := gcc
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror -Iguest/lib -I$(TREE)/tools/testing/selftests
GUEST_TESTS  := $(patsubst guest/tests/%.c,$(B)/guest/tests/%,$(wildcard guest/tests/*.c)) \
		$(patsubst guest/tests/%.sh,$(B)/guest/tests/%,$(wildcard guest/tests/*.sh))
GUEST_BINS   := $(patsubst guest/workloads/%.c,$(B)/guest/bin/%,$(wildcard guest/workloads/*.c))
# The series' own kselftests (patches/), built from the patched tree and
# run in the guest like the tests in guest/tests.
SERIES_TESTS := swap_token
SERIES_SRC   := $(TREE)/tools/testing/selftests/mm
GUEST_HDRS   := $(wildcard guest/lib/*.h)

.PHONY: all help deps tree kernel initramfs mm-selftests check run bench check-debug shell patches series checkpatch experiments clean distclean

all: kernel initramfs

help:
	@echo "make bench       the main job: token off/on x classic/MGLRU/min_ttl_ms, table + plots"
	@echo "                 (FULL=1 every scenario, REPS=n, SWAP=zram, BENCHFLAGS=...)"
	@echo "make run         boot the patched kernel and run one qsbench"
	@echo "make check       build, boot and run every test; ends 'N passed, N failed'"
	@echo "make check-debug the reliability run on a KASAN/lockdep/UBSAN/KFENCE kernel"
	@echo "                 (LIFECYCLES=10000, OOM_ROUNDS=5)"
	@echo "make shell       boot the patched kernel with a shell on the console"
	@echo "make tree        $(TREE): Debian's 6.12 source with patches/ applied (git)"
	@echo "make patches     regenerate patches/ from the commits in $(TREE)"
	@echo "make checkpatch  scripts/checkpatch.pl --strict on the series"
	@echo "make series      build each patch of the series on its own"
	@echo "make experiments build and test the kernel with patches/experiments on top"
	@echo "                 (make bench BENCHFLAGS=--experiments runs its configurations)"
	@echo "make deps        install the Debian packages the pipeline needs"

deps:
	@sh host/deps.sh

tree: deps
	@sh host/tree.sh

kernel: tree
	@sh host/build-kernel.sh $(KBUILD) $(FRAGS)

$(B)/guest/tests/%: guest/tests/%.c $(GUEST_HDRS) | tree
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $< -lpthread

# The experiments' guest tests (host/experiments.sh check boots them).
$(B)/guest/experiments/%: guest/experiments/%.c $(GUEST_HDRS) | tree
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $< -lpthread

$(B)/guest/tests/%: guest/tests/%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(SERIES_TESTS:%=$(B)/guest/tests/%): $(B)/guest/tests/%: $(SERIES_SRC)/%.c
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $< -lpthread

# Made by 'make tree'.
$(SERIES_TESTS:%=$(SERIES_SRC)/%.c): | tree ;

$(B)/guest/bin/%: guest/workloads/%.c $(GUEST_HDRS) | tree
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $< -lpthread

initramfs: $(INITRD)

$(INITRD): $(GUEST_TESTS) $(SERIES_TESTS:%=$(B)/guest/tests/%) $(GUEST_BINS) $(wildcard guest/jobs/*) guest/init guest/run-tests guest/mm-selftest host/build-initramfs.sh
	@sh host/build-initramfs.sh $@ $(B)/guest

# The kernel's own mm selftests, static, from the patched tree (make check
# adds them to the initramfs of its mm-on and mm-off boots only).
MMSELF := $(B)/mm-selftests/list
mm-selftests: $(MMSELF)
$(MMSELF): config/mm-selftests.list host/build-mm-selftests.sh | tree
	@sh host/build-mm-selftests.sh

check: kernel initramfs $(MMSELF)
	@sh host/check.sh

check-debug: tree initramfs
	@LIFECYCLES=$(LIFECYCLES) OOM_ROUNDS=$(OOM_ROUNDS) STRESS_SECONDS=$(STRESS_SECONDS) sh host/check-debug.sh

run: kernel initramfs
	@sh host/run-qemu.sh --job "run-main" $(RUNFLAGS)

bench: kernel initramfs
	@BENCH_BUILT=1 sh host/bench.sh $(if $(FULL),--full) $(if $(REPS),--reps $(REPS)) $(if $(SWAP),--swap $(SWAP)) $(BENCHFLAGS)

shell: kernel initramfs
	@sh host/run-qemu.sh --interactive --timeout 86400 --job "setsid cttyhack sh -l" $(RUNFLAGS)

patches: tree
	@sh host/patches.sh

series: tree
	@sh host/build-series.sh

checkpatch: tree
	@sh host/checkpatch.sh

experiments: tree initramfs $(patsubst guest/experiments/%.c,$(B)/guest/experiments/%,$(wildcard guest/experiments/*.c))
	@sh host/experiments.sh check

clean:
	rm -rf $(B)/guest $(B)/run $(B)/check $(INITRD)

distclean:
	rm -rf $(B)
