#!/bin/sh
# 'make check': boot the test kernel in the configurations below, run the
# KUnit suites (at boot) and the guest tests that host/manifest lists for
# each boot, scan the consoles for kernel reports, run the harness's own
# tests and checkpatch, then merge everything into one 'N passed, N failed'
# line (host/results.py, which also holds each boot to the manifest).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/check
rm -rf "$out"
mkdir -p "$out"
results=

manifest=$top/host/manifest
logs=

# boot NAME RUNNER-OPTIONS...: one QEMU boot running the guest tests that
# host/manifest lists for NAME, each for at most $test_timeout seconds.  The
# kernel log holds 1 MB, so that a test's OOM reports cannot push a
# warning out before run-tests copies it.
boot() {
	name=$1; shift
	tests=$(awk -v b="$name" '$1 == b && $2 == "test" { printf " %s", $3 }' "$manifest")
	[ -n "$tests" ] || { echo "check: host/manifest lists no test for boot $name" >&2; exit 2; }
	printf 'check: boot %-12s %s ... ' "$name" "$(echo "$*" | sed 's/ --add [^ ]*//g')"
	start=$(date +%s)
	sh "$top/host/run-qemu.sh" --quiet --log "$out/$name.log" "$@" \
		--job "$job$tests" --append "guest_test_timeout=$test_timeout log_buf_len=1M $kunit$extra" \
		2> "$out/$name.err"
	rc=$?
	echo "$rc" > "$out/$name.log.rc"
	echo "exit $rc, $(($(date +%s) - start))s"
	[ -s "$out/$name.err" ] && sed 's/^/    /' "$out/$name.err"
	results="$results $name=$out/$name.log"
	logs="$logs $out/$name.log"
}

# KUnit runs once, in the first boot; later boots pass kunit.enable=0.
# token_adversary takes about 6.5 minutes here.
job=run-tests test_timeout=600 kunit= extra=
boot mglru   --lru mglru   --swap disk --scratch 512 --timeout 1200
kunit=kunit.enable=0
boot classic --lru classic --swap disk --scratch 512 --timeout 1200
boot zram    --lru mglru   --swap zram --swap-size 256 --timeout 300
# The OOM edge needs RAM + swap nearly full: a small swap, both LRUs.
test_timeout=600
for lru in classic mglru; do
	boot oom-$lru --lru $lru --swap disk --swap-size 128 --timeout 900
done

# The kernel's own mm selftests (host/build-mm-selftests.sh), with the token
# on and off: results.py compares the two boots point by point.  Both boot
# with norandmaps, so that each program meets the same address-space layout
# in both: mremap_test maps its 40 MB preamble below an address it checked
# only for the region itself, and fails on about 7% of random layouts
# (7 of 100 runs natively; 0 of 60 without randomisation).
extra=" norandmaps"
mm=
for f in "$top"/build/mm-selftests/bin/* "$top"/build/mm-selftests/list; do
	mm="$mm --add $f:/usr/lib/mm-selftests/${f##*/}"
done
# The two boots run at the same time with one vCPU each: the selftests are
# single-threaded and none is timed, so the pair takes about the time of
# one (split_huge_page_test alone takes two minutes under TCG, most of it
# writing its files one byte per write()).
test_timeout=300
for state in on off; do
	job="mm-selftests $state"
	# shellcheck disable=SC2086
	boot mm-$state --lru mglru --swap disk --cpus 1 --timeout 900 $mm > "$out/mm-$state.progress" &
done
wait
cat "$out/mm-on.progress" "$out/mm-off.progress"
results="$results mm-on=$out/mm-on.log mm-off=$out/mm-off.log"
logs="$logs $out/mm-on.log $out/mm-off.log"

echo "check: kernel reports in the console logs"
# shellcheck disable=SC2086
sh "$top/host/kernel-reports.sh" --tap $logs > "$out/kernel-reports.tap"
results="$results kernel-reports=$out/kernel-reports.tap"

echo "check: harness self-tests"
sh "$top/tests/harness.sh" > "$out/harness.tap" 2> "$out/harness.err"
results="$results harness=$out/harness.tap"

echo "check: checkpatch --strict on patches/"
sh "$top/host/checkpatch.sh" --tap > "$out/checkpatch.tap" 2>&1
results="$results checkpatch=$out/checkpatch.tap"

echo "check: results"
# shellcheck disable=SC2086
exec python3 "$top/host/results.py" --manifest "$manifest" $results
