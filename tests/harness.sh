#!/bin/sh
# The pipeline's own tests (TAP): every way a run can go wrong must make
# 'make check' fail with a clear message.  Boots the real test kernel for
# the guest-side cases; parses canned console logs for the parser cases.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures
out=$top/build/check/harness
mkdir -p "$out"
run="sh $top/host/run-qemu.sh --quiet"
n=0 bad=0

result() {	# result COND-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; bad=1; fi
}
expect() {	# expect FILE PATTERN: FILE has a line matching PATTERN
	grep -q -- "$2" "$1" || { echo "# expected '$2' in $1:"; sed 's/^/#   /' "$1" | tail -n 15; return 1; }
}

echo "TAP version 13"
echo "1..13"

# 1. The runner rejects a bad option, naming it.
$run --mem lots > "$out/badopt.out" 2>&1
rc=$?
[ $rc = 2 ] && expect "$out/badopt.out" "--mem needs a positive number, got 'lots'"
result $? "runner rejects a bad option (exit $rc)"

# 2. A failing guest test fails the run and is named in the report.
$run --log "$out/failing.log" --append kunit.enable=0 \
	--add "$fix/failing_test.sh:/usr/lib/guest-tests/zz_failing" \
	--job "run-tests pipeline_env zz_failing" --timeout 300 2> "$out/failing.err"
echo $? > "$out/failing.log.rc"
python3 "$top/host/results.py" injected="$out/failing.log" > "$out/failing.out"
rc=$?
[ $rc = 1 ] && expect "$out/failing.out" "FAIL injected/guest: zz_failing.this one fails on purpose" &&
	expect "$out/failing.out" "^5 passed, 1 failed$"
result $? "a failing guest test fails the run (results exit $rc)"

# 3. A kernel panic after boot gives no result: runner exit 125 with the console tail.
$run --log "$out/panic.log" --append "kunit.enable=0 rdinit=/bin/busybox" --timeout 300 2> "$out/panic.err"
rc=$?
[ $rc = 125 ] && expect "$out/panic.err" "kernel panic, crash or boot failure" &&
	expect "$out/panic.err" "Kernel panic"
result $? "a guest kernel panic fails the run (runner exit $rc)"

# 4. A hung guest is killed at the timeout: runner exit 124.
$run --log "$out/hang.log" --append kunit.enable=0 --job "sleep 100000" --timeout 25 2> "$out/hang.err"
rc=$?
[ $rc = 124 ] && expect "$out/hang.err" "guest timed out after 25s"
result $? "a hung guest is killed at the timeout (runner exit $rc)"

# 5. A guest job's exit status reaches the host.
$run --log "$out/status.log" --append kunit.enable=0 --job "exit 7" --timeout 300 2>/dev/null
rc=$?
result $([ $rc = 7 ]; echo $?) "guest job exit status reaches the host (got $rc)"

# 6-9. The result parser: failing KUnit case, crash inside KUnit, missing
# guest results, a result file that does not exist.
parser() {	# parser NAME PATTERN FILE
	python3 "$top/host/results.py" "$1=$3" > "$out/$1.out"
	rc=$?
	[ $rc = 1 ] && expect "$out/$1.out" "$2" && expect "$out/$1.out" " [1-9][0-9]* failed$"
	result $? "parser: $1 fails the run (exit $rc)"
}
parser kunit-fail "FAIL kunit-fail/kunit: fake_suite.fake_fail" "$fix/kunit_fail.log"
parser kunit-crash "FAIL kunit-crash" "$fix/kunit_crash.log"
parser truncated "guest tests did not finish (runner exit 124)" "$fix/guest_truncated.log"
parser missing "no result file" "$out/does-not-exist.log"

# 10. make bench rejects bad options before booting anything, naming them.
sh "$top/host/bench.sh" --reps 0 > "$out/bench-badopt.out" 2>&1
rc1=$?
sh "$top/host/bench.sh" --scenarios "qs2 nosuch" > "$out/bench-badscen.out" 2>&1
rc2=$?
sh "$top/host/bench.sh" --cgroup --scenarios "qs2 cg2" > "$out/bench-badcg.out" 2>&1
rc3=$?
[ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ] &&
	expect "$out/bench-badopt.out" "--reps needs a positive number, got '0'" &&
	expect "$out/bench-badscen.out" "unknown scenario 'nosuch'" &&
	expect "$out/bench-badcg.out" "--cgroup: cg2 makes its own cgroups"
result $? "bench rejects a bad option, an unknown scenario, cg2 with --cgroup (exit $rc1, $rc2, $rc3)"

# 11-12. The bench report on canned console logs: medians, floor and ratios
# as computed by hand (also the huge scenario's small/big finish times), the
# plots; then one failed run fails the report.
rm -rf "$out/bench-ok" "$out/bench-fail"
cp -r "$fix/bench" "$out/bench-ok"
sh "$top/host/bench-report.sh" "$out/bench-ok" > "$out/bench-ok.out" 2>&1
rc=$?
[ $rc = 0 ] && expect "$out/bench-ok.out" "^Serial floor: 26.2 s" &&
	expect "$out/bench-ok.out" "^| mglru-on | 2 | 29.0 (28.0-30.0) | 1.11 | 0.76 | 15000 |" &&
	expect "$out/bench-ok.out" "^- headline, mglru-on vs mglru-off: 29.0 s vs 38.0 s: faster (met)" &&
	expect "$out/bench-ok.out" "^| mglru-on | 31.0 (30.0-32.0) | 0.55 | 51.0 (50.0-52.0) | 0.86 |" &&
	expect "$out/bench-ok.out" "^- huge, mglru-on: small ones 0.55 x token off (target <= 0.8), big one 0.86 x" &&
	[ -s "$out/bench-ok/time.png" ] && [ -s "$out/bench-ok/timeline-qs2.png" ]
result $? "bench report: medians, serial floor, ratios and plots (exit $rc)"
cp -r "$fix/bench" "$out/bench-fail"
cp "$fix/bench/rep2-failed.log" "$out/bench-fail/raw/rep2.log"
sh "$top/host/bench-report.sh" "$out/bench-fail" > "$out/bench-fail.out" 2>&1
rc=$?
[ $rc = 1 ] && expect "$out/bench-fail.out" "^| mglru-on | 2 (1 failed) |" &&
	expect "$out/bench-fail.out" "bench: 1 runs failed without an OOM kill, 0 run sets incomplete"
result $? "bench report: a failed run is marked and fails the report (exit $rc)"

# 13. The debug run's scan for kernel reports: a WARNING splat fails and is
# printed; a clean log (boot messages of KASAN and KFENCE, a test printing
# the word WARNING) passes.
sh "$top/host/kernel-reports.sh" "$fix/kernel_warning.log" > "$out/reports-warn.out" 2>&1
rc1=$?
sh "$top/host/kernel-reports.sh" "$fix/kernel_clean.log" > "$out/reports-clean.out" 2>&1
rc2=$?
[ $rc1 = 1 ] && [ $rc2 = 0 ] && expect "$out/reports-warn.out" "1 report line(s)" &&
	expect "$out/reports-warn.out" "| \[   12.345684\]  do_swap_page"
result $? "kernel report scan: a WARNING fails with its trace, a clean log passes (exit $rc1, $rc2)"
exit $bad
