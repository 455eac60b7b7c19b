#!/bin/sh
# 'make check-debug': the reliability run on a debug kernel (KASAN, lockdep,
# DEBUG_VM, DEBUG_ATOMIC_SLEEP, KFENCE, UBSAN; config/debug.config), built in
# its own directory.  Boots it twice: MGLRU with 1 GiB of swap for every
# guest test with the lifecycle stress at LIFECYCLES (default 10000) within
# STRESS_SECONDS (default 4500), and the classic LRU with 128 MB of swap for
# the OOM edge (OOM_ROUNDS per setting, default 5).  Any kernel report in
# either console log fails the run.  Ends with 'N passed, N failed' like
# make check, and writes the figures
# (lifecycles, reports, bytes verified, OOM kills off/on) to
# build/check-debug/figures.md.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/check-debug
kbuild=$top/build/kbuild-debug
lifecycles=${LIFECYCLES:-10000}
rounds=${OOM_ROUNDS:-5}
seconds=${STRESS_SECONDS:-4500}
case "$lifecycles$rounds$seconds" in
*[!0-9]*|'') echo "check-debug: LIFECYCLES, OOM_ROUNDS and STRESS_SECONDS must be numbers" >&2; exit 2 ;;
esac

sh "$top/host/build-kernel.sh" "$kbuild" "$top/config/base.config" "$top/config/test.config" \
	"$top/config/debug.config" || exit 1
rm -rf "$out"
mkdir -p "$out"

boot() {	# boot NAME RUNNER-OPTIONS...
	name=$1; shift
	printf 'check-debug: boot %-8s ... ' "$name"
	start=$(date +%s)
	sh "$top/host/run-qemu.sh" --quiet --kernel "$kbuild/arch/x86/boot/bzImage" \
		--log "$out/$name.log" "$@" 2> "$out/$name.err"
	rc=$?
	echo "$rc" > "$out/$name.log.rc"
	echo "exit $rc, $(($(date +%s) - start))s"
	[ -s "$out/$name.err" ] && sed 's/^/    /' "$out/$name.err"
}

# Console at KERN_WARNING and above: every report reaches the log.  The
# tests that check behaviour, not speed or size: pipeline_env compares
# MemTotal with the guest's RAM (KASAN's shadow takes 1/8 of it), and
# token_protect's gain threshold assumes a kernel that is not several
# times slower.
debug_tests="token_grab token_hostile token_integrity token_keep token_lifecycle token_memcg token_size token_stress swap_token token_unmapped token_handoff"
# The guest keeps time with the HPET: in one run the TSC of the TCG guest
# jumped 25 hours ahead within a second ("clocksource: Long readout
# interval ... cs_nsec: 90830922828629 wd_nsec: 642743350"), and
# run-tests killed the test then running for its time limit.
clock=clocksource=hpet
# The scratch disk holds token_keep's and token_unmapped's files.  Each
# test's time limit (guest_test_timeout) covers the stress's own budget.
boot stress --lru mglru --swap disk --scratch 512 --timeout $((seconds + 3600)) \
	--append "$clock guest_stress_lifecycles=$lifecycles guest_stress_seconds=$seconds guest_test_timeout=$((seconds + 600))" \
	--job "dmesg -n 5; run-tests $debug_tests"
boot oom --lru classic --swap disk --swap-size 128 --timeout 2400 \
	--append "$clock kunit.enable=0 guest_oom_rounds=$rounds guest_test_timeout=1800" \
	--job "dmesg -n 5; run-tests token_oom_edge token_oom_time"

echo "check-debug: kernel reports"
sh "$top/host/kernel-reports.sh" "$out/stress.log" "$out/oom.log" > "$out/reports.txt"
reports=$?
cat "$out/reports.txt"
{
	echo "TAP version 13"
	echo "1..1"
	if [ $reports = 0 ]; then
		echo "ok 1 no BUG, WARNING, KASAN, lockdep, UBSAN or KFENCE report"
	else
		echo "not ok 1 kernel reports in the console logs (see above)"
	fi
} > "$out/reports.tap"

# The figures for docs/reliability.md.
# get LOG RE: \1 of RE in the log's last '# ...' line matching it; getok:
# the same for 'ok N ...' result lines.
get() { tr -d '\r' < "$1" | sed -n "s/^ *# $2/\\1/p" | tail -n 1; }
getok() { tr -d '\r' < "$1" | sed -n "s/^ *ok [0-9]* $2/\\1/p" | tail -n 1; }
{
	echo "| figure | value |"
	echo "| --- | --- |"
	echo "| kernel | $(sed -n 's/^\[ *[0-9.]*\] Linux version \([^ ]*\).*/\1/p' "$out/stress.log" | head -n 1), debug config: $(grep -v '^#' "$top/config/debug.config" | tr '\n' ' ') |"
	echo "| process lifecycles | $(get "$out/stress.log" '\([0-9]* lifecycles in [0-9.]* s\);.*') |"
	echo "| token taken / released at exit during the stress | $(get "$out/stress.log" '[0-9]* lifecycles in [0-9.]* s; \(.*\)') |"
	echo "| kernel reports (BUG, WARNING, KASAN, lockdep, UBSAN, KFENCE, ...) | $(grep -o '^kernel-reports: [0-9]*' "$out/reports.txt" | awk '{ s += $2 } END { print s + 0 }') |"
	echo "| bytes verified (stress), wrong | $(getok "$out/stress.log" '\([0-9]* bytes checked, [0-9]* wrong\)') |"
	echo "| OOM edge (classic LRU, 128 MB swap, $rounds rounds each) | $(get "$out/oom.log" 'OOM kills: \(token off [0-9]*, on [0-9]*\);.*') |"
	echo "| OOM edge bytes verified, wrong | $(getok "$out/oom.log" '\([0-9]* bytes checked, [0-9]* wrong\)') |"
} > "$out/figures.md"
cat "$out/figures.md"

echo "check-debug: results"
exec python3 "$top/host/results.py" stress="$out/stress.log" oom="$out/oom.log" reports="$out/reports.tap"
