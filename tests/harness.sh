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
tap=$out/results.tap
: > "$tap"

# Results are kept until the end, where the plan is known and printed first
# (a hand-kept plan fell behind once: the parser reads no further than the
# plan).  Each result is also shown on stderr as it comes.
result() {	# result COND-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then line="ok $n $2"; else line="not ok $n $2"; bad=1; fi
	echo "$line" | diag
}
diag() {	# diag < LINES: '#' lines for the next result, kept with it
	tee -a "$tap" >&2
}
expect() {	# expect FILE PATTERN: FILE has a line matching PATTERN
	grep -q -- "$2" "$1" && return
	{ echo "# expected '$2' in $1:"; sed 's/^/#   /' "$1" | tail -n 15; } | diag
	return 1
}

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
sh "$top/host/bench.sh" --shuffle abc > "$out/bench-badseed.out" 2>&1
rc4=$?
sh "$top/host/bench.sh" --configs "mglru-on mglru-prio" > "$out/bench-badexp.out" 2>&1
rc5=$?
sh "$top/host/bench.sh" --configs "mglru-on mglru-psi" --cgroup > "$out/bench-badpsi.out" 2>&1
rc6=$?
sh "$top/host/bench.sh" --configs "mglru-ttl classic-t0" > "$out/bench-badtmo.out" 2>&1
rc7=$?
[ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ] && [ $rc4 = 2 ] && [ $rc5 = 2 ] && [ $rc6 = 2 ] && [ $rc7 = 2 ] &&
	expect "$out/bench-badopt.out" "--reps needs a positive number, got '0'" &&
	expect "$out/bench-badscen.out" "unknown scenario 'nosuch'" &&
	expect "$out/bench-badcg.out" "--cgroup: cg2 makes its own cgroups" &&
	expect "$out/bench-badseed.out" "--shuffle needs a number (the seed), got 'abc'" &&
	expect "$out/bench-badexp.out" "mglru-prio: the priority policy is an experiment, not in the series; add --experiments" &&
	expect "$out/bench-badpsi.out" "the -psi configurations run each job in a cgroup of their own: not with --cgroup" &&
	expect "$out/bench-badtmo.out" "bad configuration 'classic-t0' (X-tS: the token with a timeout of S seconds, 1-3600)"
result $? "bench rejects a bad option, an unknown scenario, cg2 with --cgroup, a bad seed, an experiment without --experiments, -psi with --cgroup, a timeout of 0 s (exit $rc1, $rc2, $rc3, $rc4, $rc5, $rc6, $rc7)"

# 11-12. The bench report on canned console logs: medians, floor and ratios
# as computed by hand (also the huge scenario's small/big finish times), the
# plots, no verdict on 2 repetitions; then one failed run fails the report.
rm -rf "$out/bench-ok" "$out/bench-fail"
cp -r "$fix/bench" "$out/bench-ok"
sh "$top/host/bench-report.sh" "$out/bench-ok" > "$out/bench-ok.out" 2>&1
rc=$?
[ $rc = 0 ] && expect "$out/bench-ok.out" "^Serial floor: 26.2 s" &&
	expect "$out/bench-ok.out" "^| mglru-on | 2 | 29.0 (28.0-30.0) | 1.11 | 0.76 | 15000 |" &&
	expect "$out/bench-ok.out" "^- headline, mglru-on vs mglru-off: 0.76 (95% interval 0.75-0.78; 2 faster, 0 slower of 2 pairs; target < 1): too few pairs (n < 5) for a claim" &&
	expect "$out/bench-ok.out" "^| mglru-on | 31.0 (30.0-32.0) | 0.55 | 51.0 (50.0-52.0) | 0.86 |" &&
	expect "$out/bench-ok.out" "^- huge, mglru-on: small ones 0.55 x token off (target <= 0.8), big one 0.86 x" &&
	[ -s "$out/bench-ok/time.png" ] && [ -s "$out/bench-ok/timeline-qs2.png" ]
result $? "bench report: medians, serial floor, ratios and plots (exit $rc)"
# 11'. A part of a full run holds one repetition's log, not always rep1's:
# the timeline comes from the first repetition present.
rm -rf "$out/bench-rep2"
cp -r "$fix/bench" "$out/bench-rep2"
rm "$out/bench-rep2/raw/rep1.log"
sh "$top/host/bench-report.sh" "$out/bench-rep2" > "$out/bench-rep2.out" 2>&1
rc=$?
[ $rc = 0 ] && [ -s "$out/bench-rep2/timeline-qs2.png" ] && ! grep -q "cannot open" "$out/bench-rep2.out"
result $? "bench report: the timeline of a part holding only repetition 2 (exit $rc)"
# 11''. A kernel with the X-wait experiment adds waited=N to its bench
# lines: results.tsv carries it and results.md gives its median per
# configuration that has it (here mglru-on: 100 and 300), no other.
rm -rf "$out/bench-waited"
cp -r "$fix/bench" "$out/bench-waited"
sed -i '/^#### bench s=qs2 c=mglru-on r=1 /s/$/ waited=100/' "$out/bench-waited/raw/rep1.log"
sed -i '/^#### bench s=qs2 c=mglru-on r=2 /s/$/ waited=300/' "$out/bench-waited/raw/rep2.log"
sh "$top/host/bench-report.sh" "$out/bench-waited" > "$out/bench-waited.out" 2>&1
rc=$?
[ $rc = 0 ] && expect "$out/bench-waited.out" "^Faults that waited for the holder (swap_token_waited), median per run: mglru-on 200\.$" &&
	[ "$(grep -c '^Faults that waited' "$out/bench-waited.out")" = 1 ] &&
	[ "$(head -1 "$out/bench-waited/results.tsv" | cut -f17)" = waited ] &&
	[ "$(awk -F '\t' '$1 == "qs2" && $2 == "mglru-on" { print $17 }' "$out/bench-waited/results.tsv" | paste -sd' ')" = "100 300" ]
result $? "bench report: the X-wait experiment's wait count, per run and its median (exit $rc)"
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

# 14. A configuration whose every run was OOM-killed, in every scenario: the
# report still completes (exit 0), says "no finish" for it, counts its
# pairs as infinitely slow (never "met"), and draws every plot.
rm -rf "$out/bench-nofinish"
cp -r "$fix/bench-nofinish" "$out/bench-nofinish"
sh "$top/host/bench-report.sh" "$out/bench-nofinish" > "$out/bench-nofinish.out" 2>&1
rc=$?
[ $rc = 0 ] && expect "$out/bench-nofinish.out" "^| mglru-ttl | 2 (2 failed) | no finish, 2 OOM kills |" &&
	expect "$out/bench-nofinish.out" "^- headline, mglru-on vs mglru-ttl: 0.00 (95% interval 0.00-0.00; 2 faster, 0 slower of 2 pairs, 2 of them 0 (mglru-ttl no finish); target < 1): too few pairs (n < 5) for a claim$" &&
	expect "$out/bench-nofinish.out" "^| qs2 | mglru-ttl vs mglru-off | time | 2 | inf | inf-inf | 0 / 2 | 2 / 0 / 0 |$" &&
	! grep -q "^- .*mglru-ttl.*met" "$out/bench-nofinish.out" &&
	[ -s "$out/bench-nofinish/time.png" ] && [ -s "$out/bench-nofinish/headline.png" ] &&
	[ -s "$out/bench-nofinish/timeline-qs2.png" ]
result $? "bench report: a configuration with no finished run is no finish, never met, plotted (exit $rc)"
# 14'. The smallest run, one scenario and one configuration, all finished
# (make bench BENCHFLAGS="--scenarios fit --configs mglru-on"): the report
# completes and draws time.png (gnuplot crashed on its label plot, every
# point undefined in a one-line file).
rm -rf "$out/bench-one"
cp -r "$fix/bench-one" "$out/bench-one"
sh "$top/host/bench-report.sh" "$out/bench-one" > "$out/bench-one.out" 2>&1
rc=$?
[ $rc = 0 ] && [ -s "$out/bench-one/time.png" ] && ! grep -q "gnuplot failed" "$out/bench-one.out"
result $? "bench report: one scenario, one configuration: time.png drawn (exit $rc)"

# 15-21. make check holds each boot to host/manifest: on a canned console
# log (a KUnit suite of 3 cases, tests alpha and beta, one skip the fixture
# manifest allows), the manifest as it is passes with the skip counted
# apart; a listed test or suite that did not report, a short suite, a skip
# the manifest does not allow, a test it does not list and a test with
# fewer points than listed each fail.
manifest_case() {	# manifest_case NAME EXIT PATTERN...: results on $out/NAME.manifest
	name=$1 want=$2
	shift 2
	python3 "$top/host/results.py" --manifest "$out/$name.manifest" \
		fake="$fix/manifest_ok.log" > "$out/$name.out" 2>&1
	rc=$?
	ok=$([ $rc = "$want" ]; echo $?)
	for p in "$@"; do [ $ok = 0 ] && { expect "$out/$name.out" "$p"; ok=$?; }; done
	result $ok "manifest: $name (exit $rc)"
}
cp "$fix/manifest" "$out/as-listed.manifest"
manifest_case as-listed 0 "^1 skipped, each allowed by host/manifest$" "^6 passed, 0 failed$"
{ cat "$fix/manifest"; printf 'fake\ttest\tgamma\n'; } > "$out/missing-test.manifest"
manifest_case missing-test 1 "^FAIL fake: guest test gamma did not report$"
{ cat "$fix/manifest"; printf 'fake\tkunit\tother_suite\t2\n'; } > "$out/missing-suite.manifest"
manifest_case missing-suite 1 "^FAIL fake: KUnit suite other_suite did not report"
sed 's/^fake\tkunit\tfake_suite\t3$/fake\tkunit\tfake_suite\t4/' "$fix/manifest" > "$out/short-suite.manifest"
manifest_case short-suite 1 "^FAIL fake: KUnit suite fake_suite reported 3 cases, host/manifest expects 4$"
grep -v '^fake	skip' "$fix/manifest" > "$out/unexpected-skip.manifest"
manifest_case unexpected-skip 1 "^FAIL fake/guest: beta.needs a scratch disk, none here: skipped, and host/manifest allows no such skip$"
grep -v '^fake	test	alpha' "$fix/manifest" > "$out/unlisted-test.manifest"
manifest_case unlisted-test 1 "^FAIL fake: guest test alpha ran but is not in host/manifest$"
sed 's/^fake\ttest\talpha$/fake\ttest\talpha\t3/' "$fix/manifest" > "$out/short-test.manifest"
manifest_case short-test 1 "^FAIL fake: guest test alpha reported 2 points, host/manifest expects 3$"

# 22-24. Isolation and kernel reports, in one boot: a test that hangs (with
# a child, after changing vm.swappiness) fails alone at the per-test
# timeout, its child is killed and the sysctl put back before the next test
# runs, the boot goes on; a test that passes but makes the kernel WARN
# (LKDTM) passes, and the scan for kernel reports fails the run with it.
iso=$out/isolation
$run --log "$iso.log" --append "kunit.enable=0 guest_test_timeout=15" \
	--add "$fix/hanging_test.sh:/usr/lib/guest-tests/zz_hang" \
	--add "$fix/swappiness_test.sh:/usr/lib/guest-tests/zz_after" \
	--add "$fix/warn_test.sh:/usr/lib/guest-tests/zz_warn" \
	--job "run-tests zz_hang zz_after zz_warn pipeline_env" --timeout 300 2> "$iso.err"
echo $? > "$iso.log.rc"
printf 'isolation\ttest\t%s\n' zz_hang zz_after zz_warn pipeline_env > "$iso.manifest"
python3 "$top/host/results.py" --manifest "$iso.manifest" isolation="$iso.log" > "$iso.out" 2>&1
rc=$?
[ $rc = 1 ] && expect "$iso.log" "^not ok 1 zz_hang # timed out after 15s" &&
	expect "$iso.log" "^# run-tests: killing what zz_hang left running: [0-9]* [0-9]*" &&
	expect "$iso.out" "^FAIL isolation/guest: zz_hang.no result: the test ended first" &&
	expect "$iso.out" "^8 passed, 1 failed$"
result $? "a hanging test fails alone at its timeout (results exit $rc)"
expect "$iso.log" "^# run-tests: zz_hang left vm/swappiness = 17: restored" &&
	expect "$iso.log" "^    ok 1 vm.swappiness put back" &&
	expect "$iso.log" "^    ok 2 no process of the hung test left" &&
	expect "$iso.log" "^    ok 3 the hung test's cgroup is gone" &&
	expect "$iso.log" "^# run-tests: zz_hang left cgroup zz_left: removed" &&
	expect "$iso.log" "^ok 4 pipeline_env"
result $? "the runner kills a hung test's children, puts its sysctls back, removes its cgroup; the boot goes on"
sh "$top/host/kernel-reports.sh" --tap "$iso.log" > "$iso-reports.tap"
python3 "$top/host/results.py" reports="$iso-reports.tap" > "$iso-reports.out" 2>&1
rc=$?
[ $rc = 1 ] && expect "$iso.log" "^ok 3 zz_warn" &&
	expect "$iso-reports.out" "^FAIL reports: isolation: no kernel reports" &&
	expect "$iso-reports.out" "# kernel: \[ *[0-9.]*\] WARNING: .*lkdtm"
result $? "a WARN in a passing test's kernel log fails make check (results exit $rc)"

# 25. The bench report's statistics, on 6 canned repetitions with an A/A
# configuration (mglru-off2), an OOM-killed run and a repetition whose guest
# stopped: the paired rows (ratio, bootstrap interval, pairs each way) as
# python3 computes them from the raw logs with the same generator and seed,
# the noise floor beside the effect, the verdicts, the failed runs with
# their causes, the order of the runs; the incomplete repetition fails the
# report.
rm -rf "$out/bench-stats"
cp -r "$fix/bench-stats" "$out/bench-stats"
sh "$top/host/bench-report.sh" "$out/bench-stats" > "$out/bench-stats.out" 2>&1
rc=$?
cat > "$out/bench-pairs.py" <<'PY'
# The paired rows of the scenarios argv[2:] from the raw logs in argv[1]: a
# failed run counts as inf against a finished one (0 the other way round), a
# pair where neither finished is left out and counted; no pair without the
# serial floor of that repetition.
import glob, sys
t, failed, reps = {}, set(), set()  # (config, rep): time of the finished run; floor: its jobs summed
for scen in sys.argv[2:]:
    t.clear(); failed.clear(); reps.clear()
    for f in glob.glob(sys.argv[1] + '/raw/rep*.log'):
        for line in open(f):
            if line.startswith('#### bench '):
                v = dict(w.split('=', 1) for w in line.split()[2:])
                if v['s'] != scen:
                    continue
                reps.add(v['r'])
                if v['rc'] == '0':
                    t[v['c'], v['r']] = t.get((v['c'], v['r']), 0) + float(v['time'])
                else:
                    failed.add((v['c'], v['r']))
    for r in reps:
        if ('floor', r) in failed:
            t.pop(('floor', r), None)
    def state(c, r):
        return 1 if (c, r) in t else 0 if c != 'floor' and (c, r) in failed else -1
    def median(a):
        a = sorted(a)
        return (a[(len(a) - 1) // 2] + a[len(a) // 2]) / 2
    def row(x, y, label):
        p, nf = [], [0, 0, 0]
        for r in reps:
            a, b = state(x, r), state(y, r)
            if a < 0 or b < 0:
                continue
            if a and b:
                p.append(t[x, r] / t[y, r])
            elif b:
                p.append(float('inf')); nf[0] += 1
            elif a:
                p.append(0.0); nf[1] += 1
            else:
                nf[2] += 1
        p.sort()
        n, seed, meds = len(p), 1, []
        for _ in range(2000):  # resamples of the pairs, Park-Miller from seed 1
            draw = []
            for _ in range(n):
                seed = seed * 16807 % 2147483647
                draw.append(p[int(seed / 2147483647 * n)])
            meds.append(median(draw))
        meds.sort()
        print('| %s | %s | time | %d | %.2f | %.2f-%.2f | %d / %d | %d / %d / %d |' % (scen, label, n, median(p),
              meds[49], meds[1949], sum(q < 1 for q in p), sum(q > 1 for q in p), nf[0], nf[1], nf[2]))
    row('mglru-on', 'mglru-off', 'mglru-on vs mglru-off')
    row('mglru-off2', 'mglru-off', 'mglru-off2 vs mglru-off (A/A: noise)')
    if scen == 'qs2':
        row('mglru-on', 'floor', 'mglru-on vs serial floor')
PY
python3 "$out/bench-pairs.py" "$fix/bench-stats" qs2 > "$out/bench-stats.want"
ok=$([ $rc = 1 ] && [ -s "$out/bench-stats.want" ]; echo $?)
while read -r line; do
	[ $ok = 0 ] && { grep -qxF -- "$line" "$out/bench-stats.out" || { echo "# expected '$line'" | diag; ok=1; }; }
done < "$out/bench-stats.want"
[ $ok = 0 ] && expect "$out/bench-stats.out" "^Serial floor: 26.1 s (each job alone, under mglru-off)" &&
	expect "$out/bench-stats.out" "^  - qs2, time: 1.01, 95% interval 0.98-inf, 6 pairs, 1 of them inf (mglru-off2 no finish)$" &&
	expect "$out/bench-stats.out" "^- headline, mglru-on vs mglru-off: 0.76 (95% interval 0.69-0.81; 5 faster, 0 slower of 5 pairs; target < 1; noise floor of this run 0.98-inf): met$" &&
	expect "$out/bench-stats.out" "^- headline, mglru-on: 1.12 x serial floor (95% interval 1.03-1.15, 5 pairs; target <= 1.25): met$" &&
	expect "$out/bench-stats.out" "^| 4 | qs2 | mglru-off2 | 1 | 1 | Out of memory: Killed process 4242 (qsbench) |$" &&
	expect "$out/bench-stats.out" "^| 6 | qs2 | not run: mglru-on | - | - | bench: qs2, mglru-on: reset or setup failed |$" &&
	expect "$out/bench-stats.out" "^| 2 | rotation | mglru-on mglru-off2 mglru-off |$" &&
	expect "$out/bench-stats.out" "bench: 0 runs failed without an OOM kill, 1 run sets incomplete"
ok=$?
# And on 12 repetitions in a Williams order (bench-oom): in qs2 mglru-on
# finishes faster in 5 and is OOM-killed in 6 (mglru-off in 2, both in one),
# which must not be met: its interval reaches inf; in qs4 the A/A run is 5%
# slower, so no target there is met; OOM kills are compared per run.
rm -rf "$out/bench-oom"
cp -r "$fix/bench-oom" "$out/bench-oom"
sh "$top/host/bench-report.sh" "$out/bench-oom" > "$out/bench-oom.out" 2>&1
rc2=$?
python3 "$out/bench-pairs.py" "$fix/bench-oom" qs2 qs4 > "$out/bench-oom.want"
[ $ok = 0 ] && ok=$([ $rc2 = 0 ] && [ -s "$out/bench-oom.want" ]; echo $?)
while read -r line; do
	[ $ok = 0 ] && { grep -qxF -- "$line" "$out/bench-oom.out" || { echo "# expected '$line'" | diag; ok=1; }; }
done < "$out/bench-oom.want"
[ $ok = 0 ] && expect "$out/bench-oom.out" "^- headline, mglru-on vs mglru-off: 0.81 (95% interval 0.75-inf; 6 faster, 5 slower of 11 pairs, 5 of them inf (mglru-on no finish) and 1 of them 0 (mglru-off no finish); 1 pair where neither finished, left out; target < 1; noise floor of this run 0.98-1.01): not shown (the interval crosses the target)$" &&
	expect "$out/bench-oom.out" "^- headline, mglru-on: inf x serial floor (95% interval 1.11-inf, 12 pairs, 6 of them inf (mglru-on no finish); target <= 1.25): not shown" &&
	! grep -q "^ *- .*mglru-on.*: met$" "$out/bench-oom.out" &&
	expect "$out/bench-oom.out" "^  - qs4, time: 1.05, 95% interval 1.05-1.05, 12 pairs: differs from 1, so no target in qs4 is met$" &&
	expect "$out/bench-oom.out" "^  - qs4, mglru-on: time 0.80 x token off (95% interval 0.79-0.80, 12 pairs; noise floor of this run 1.05-1.05): not shown (the A/A run differs from 1: noise floor 1.05-1.05)$" &&
	expect "$out/bench-oom.out" "^- OOM kills per run (kills / runs, all scenarios), mglru-on: 6 / 24 = 0.25, mglru-off: 2 / 24 = 0.08: MORE with the token (missed)$" &&
	expect "$out/bench-oom.out" "^| 4 | williams | mglru-off2 mglru-on mglru-off |$" &&
	expect "$out/bench-oom.out" "This run: 12 repetitions, 2 full cycles: balanced.$"
result $? "bench report: paired ratios with bootstrap intervals, A/A noise floor, failed runs as inf, the A/A rule, order (exit $rc, $rc2)"
# 26. Two boots paired with 'compare' in the manifest (the mm selftests with
# the token on and off) pass where every point ends the same in both (a
# point skipped in both counts as neither pass nor failure), and a point
# that passes in one and fails in the other fails the run, named.
printf 'fake\ttest\t%s\nother\ttest\t%s\n' alpha alpha beta beta > "$out/compare.manifest"
printf 'fake\tcompare\tother\n' >> "$out/compare.manifest"
sed 's/^    ok 2 the other point/    not ok 2 the other point/' "$fix/manifest_ok.log" > "$out/compare-other.log"
echo 0 > "$out/compare-other.log.rc"
python3 "$top/host/results.py" --manifest "$out/compare.manifest" fake="$fix/manifest_ok.log" \
	other="$fix/manifest_ok.log" > "$out/compare-same.out" 2>&1
rc1=$?
python3 "$top/host/results.py" --manifest "$out/compare.manifest" fake="$fix/manifest_ok.log" \
	other="$out/compare-other.log" > "$out/compare-differ.out" 2>&1
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 1 ] &&
	expect "$out/compare-same.out" "skipped in fake and other alike: beta.needs a scratch disk, none here" &&
	expect "$out/compare-same.out" "^0 skipped, each allowed by host/manifest; 1 skipped and 0 failed in the compared boots alike, counted as neither$" &&
	expect "$out/compare-same.out" "^6 passed, 0 failed$" &&
	expect "$out/compare-differ.out" "^FAIL fake vs other: beta.the other point: success in fake, failure in other$"
result $? "compared boots: the same results pass, a point that differs fails (exit $rc1, $rc2)"
# 26b. A point whose text changes from run to run (mrelease_test prints the
# size it settled on) is compared under its manifest 'vary' pattern: the
# pair passes with the pattern, and fails, naming both texts, without it.
sed 's/^    ok 1 first point$/    ok 1 first point with 1MB/' "$fix/manifest_ok.log" > "$out/vary-1.log"
sed 's/^    ok 1 first point$/    ok 1 first point with 2MB/' "$fix/manifest_ok.log" > "$out/vary-2.log"
echo 0 > "$out/vary-1.log.rc"
echo 0 > "$out/vary-2.log.rc"
cp "$out/compare.manifest" "$out/vary.manifest"
printf 'fake\tvary\talpha.first point with *MB -- size chosen at run time\n' >> "$out/vary.manifest"
printf 'other\tvary\talpha.first point with *MB -- as in fake\n' >> "$out/vary.manifest"
python3 "$top/host/results.py" --manifest "$out/vary.manifest" fake="$out/vary-1.log" \
	other="$out/vary-2.log" > "$out/vary.out" 2>&1
rc1=$?
python3 "$top/host/results.py" --manifest "$out/compare.manifest" fake="$out/vary-1.log" \
	other="$out/vary-2.log" > "$out/novary.out" 2>&1
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 1 ] &&
	expect "$out/vary.out" "^6 passed, 0 failed$" &&
	expect "$out/novary.out" "^FAIL fake vs other: alpha.first point with 1MB: success in fake, missing in other$" &&
	expect "$out/novary.out" "^FAIL fake vs other: alpha.first point with 2MB: missing in fake, success in other$"
result $? "compared boots: a point named by a 'vary' pattern is compared under it (exit $rc1, $rc2)"
# 26c. The overcommit sweep: sweep-N-PCT scenarios get their titles and
# sweep.png (a point with no finished run marked, not dropped); a sweep
# point outside the grid's rules is refused, naming it.
rm -rf "$out/bench-sweep"
cp -r "$fix/bench-sweep" "$out/bench-sweep"
sh "$top/host/bench-report.sh" "$out/bench-sweep" > "$out/bench-sweep.out" 2>&1
rc1=$?
sh "$top/host/bench.sh" --scenarios "qs2 sweep-2-200" > "$out/bench-badsweep.out" 2>&1
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 2 ] &&
	expect "$out/bench-sweep.out" "^## sweep-4-250: overcommit sweep: qsbench, 4 processes, 2.5 x RAM in total$" &&
	expect "$out/bench-sweep/plot-sweep.dat" "^2.5 NaN NaN NaN 1$" &&
	expect "$out/bench-sweep/plot-sweep.dat" "^1.5 1.247 1.231 1.262 0$" &&
	[ -s "$out/bench-sweep/sweep.png" ] &&
	expect "$out/bench-sweep.out" "^- sweep, mglru-on: time vs serial floor at every point (target <= 1.3): too few pairs (n < 5) for a claim$" &&
	expect "$out/bench-sweep.out" "^  - sweep-4-250: 1.44 x serial floor (95% interval 1.43-1.45, 2 pairs): too few pairs (n < 5) for a claim$" &&
	expect "$out/bench-sweep.out" "^| sweep-4-150 | mglru-on vs serial floor | time | 2 | 1.25 | 1.23-1.26 | 0 / 2 | 0 / 0 / 0 |$" &&
	expect "$out/bench-badsweep.out" "sweep point 'sweep-2-200': each process would be 100% of RAM, above the 70% the sweep allows"
result $? "bench: the overcommit sweep's report, its target and plot, and a refused sweep point (exit $rc1, $rc2)"
# 26c''. The A/A rule needs an A/A run that says something: with 4 A/A
# pairs (the token-off twin dropped from two of the canned repetitions) the
# headline's targets, met with 5 pairs, are not shown, and say why.
p=$out/bench-aa4
rm -rf "$p"
cp -r "$fix/bench-stats" "$p"
sed -i '/^#### bench.* c=mglru-off2 /d' "$p/raw/rep1.log" "$p/raw/rep2.log"
sh "$top/host/bench-report.sh" "$p" > "$p.out" 2>&1
rc=$?
[ $rc = 1 ] &&
	expect "$p.out" "^  - qs2, time: 1.01, 95% interval 0.99-inf, 4 pairs, 1 of them inf (mglru-off2 no finish) (too few pairs to tell)$" &&
	expect "$p.out" "^- headline, mglru-on: 1.12 x serial floor (95% interval 1.03-1.15, 5 pairs; target <= 1.25): not shown (the A/A run has 4 pairs, too few to know the noise)$"
result $? "bench: no target met where the A/A run has fewer than 5 pairs (exit $rc)"
# 26c'''. The full run's parts: a part outside the plan, a repetition out
# of range, a part kept already and a bad command are refused, naming
# why; list shows a kept part.
f=$out/bench-full
sh "$top/host/bench-full.sh" run foo-r1 > "$f.1" 2>&1; rc1=$?
sh "$top/host/bench-full.sh" run sweep-r6 > "$f.2" 2>&1; rc2=$?
sh "$top/host/bench-full.sh" run sweep-r1 > "$f.3" 2>&1; rc3=$?
sh "$top/host/bench-full.sh" list > "$f.4" 2>&1; rc4=$?
sh "$top/host/bench-full.sh" frob > "$f.5" 2>&1; rc5=$?
[ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ] && [ $rc4 = 0 ] && [ $rc5 = 2 ] &&
	expect "$f.1" "unknown part 'foo-r1' (GROUP-rN, GROUP one of: sweep main sqlite2 zram)" &&
	expect "$f.2" "part 'sweep-r6': the repetition must be 1-5" &&
	expect "$f.3" "sweep-r1 is kept already in docs/bench/full/parts/sweep-r1" &&
	expect "$f.4" "^sweep-r1: done (2026-12-05, series [0-9a-f]*)$" &&
	expect "$f.5" "usage: bench-full.sh list | run PART | keep PART | merge"
result $? "bench-full: the full run's parts, bad names refused (exit $rc1 $rc2 $rc3 $rc4 $rc5)"
# 26c'. The token against the userspace peer: the canned sweep with the
# token off renamed the peer (mglru-psi) gets the paired rows X-on vs X-psi
# and the target "faster than the peer", a pair where only the token
# finished counted as 0, not dropped.
p=$out/bench-peer
rm -rf "$p"
cp -r "$fix/bench-sweep" "$p"
sed -i 's/c=mglru-off r=/c=mglru-psi r=/; s/by=williams mglru-off mglru-on/by=williams mglru-psi mglru-on/' "$p"/raw/*.log
echo "mglru-psi mglru-on" > "$p/configs"
sh "$top/host/bench-report.sh" "$p" > "$p.out" 2>&1
rc=$?
[ $rc = 0 ] &&
	expect "$p.out" "^- mglru-on faster than the userspace peer mglru-psi in every scenario (target < 1): too few pairs (n < 5) for a claim$" &&
	expect "$p.out" "^  - sweep-2-120: time 0.75 x the peer (95% interval 0.74-0.75; 2 faster, 0 slower of 2 pairs): too few pairs (n < 5) for a claim$" &&
	expect "$p.out" "^| sweep-4-250 | mglru-on vs mglru-psi | time | 2 | 0.00 | 0.00-0.00 | 2 / 0 | 0 / 2 / 0 |$"
result $? "bench: the token against the userspace peer, paired and judged (exit $rc)"
# 26d. A run made in parts: the canned sweep split by scenario into two
# parts merges into the same tables as the whole; parts from two series,
# or with the same repetition of a scenario, are refused, naming why.
m=$out/merge
rm -rf "$m"
for part in a b; do mkdir -p "$m/$part/raw"; cp "$fix/bench-sweep/setup" "$fix/bench-sweep/configs" "$m/$part/"; done
echo "sweep-2-120 sweep-4-150" > "$m/a/scenarios"
echo "sweep-4-250" > "$m/b/scenarios"
grep -v 250 "$fix/bench-sweep/plan" > "$m/a/plan"
grep 250 "$fix/bench-sweep/plan" > "$m/b/plan"
for r in 1 2; do
	grep -v "s=sweep-4-250" "$fix/bench-sweep/raw/rep$r.log" > "$m/a/raw/rep$r.log"
	grep -v "s=sweep-2-120\|s=sweep-4-150" "$fix/bench-sweep/raw/rep$r.log" > "$m/b/raw/rep$r.log"
done
sh "$top/host/bench-merge.sh" "$m/ab" "$m/a" "$m/b" > "$m/ab.out" 2>&1
rc1=$?
sh "$top/host/bench-merge.sh" "$m/aa" "$m/a" "$m/a" > "$m/aa.out" 2>&1
rc2=$?
sed -i 's/patches\/: [0-9a-f]*/patches\/: ffffffffffff/' "$m/b/setup"
sh "$top/host/bench-merge.sh" "$m/ab2" "$m/a" "$m/b" > "$m/ab2.out" 2>&1
rc3=$?
[ $rc1 = 0 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ] &&
	sed -n '/^## sweep/,$p' "$m/ab/results.md" > "$m/ab.tables" &&
	sed -n '/^## sweep/,$p' "$out/bench-sweep/results.md" > "$m/whole.tables" &&
	cmp -s "$m/ab.tables" "$m/whole.tables" && [ -s "$m/ab/sweep.png" ] &&
	expect "$m/aa.out" "repetition 1 of scenario sweep-2-120 is in two parts" &&
	expect "$m/ab2.out" "made from another series"
result $? "bench runs in parts merge into the report of the whole; mismatched parts are refused (exit $rc1, $rc2, $rc3)"
# 26d'. The full run's merge: one report per swap device, the zram parts
# (zram-rN) apart from the others, which bench-merge.sh would refuse to mix.
f=$m/full
mkdir -p "$f/parts"
cp -r "$m/a" "$f/parts/sweep-r1"
cp -r "$m/a" "$f/parts/zram-r1"
sed -i 's/swap on disk/swap on zram (qsbench -d 4: compressible data)/' "$f/parts/zram-r1/setup"
BENCH_FULL_PARTS=$f/parts sh "$top/host/bench-full.sh" merge "$f" > "$f.out" 2>&1
rc1=$?
cp -r "$m/a" "$f/parts/zram-r2"
BENCH_FULL_PARTS=$f/parts sh "$top/host/bench-full.sh" merge "$f/2" > "$f.out2" 2>&1
rc2=$?
[ $rc1 = 0 ] && [ $rc2 != 0 ] &&
	expect "$f/disk/setup" "^guest: .*swap on disk$" &&
	expect "$f/disk/setup" "^  part sweep-r1: " && ! grep -q "part zram" "$f/disk/setup" &&
	expect "$f/zram/setup" "^guest: .*swap on zram " &&
	expect "$f/zram/setup" "^  part zram-r1: " && ! grep -q "part sweep" "$f/zram/setup" &&
	[ -s "$f/disk/results.md" ] && [ -s "$f/zram/results.md" ] &&
	expect "$f.out2" "zram-r2/: guest differs"
result $? "bench-full: merge writes one report per swap device; a zram part on another guest is refused (exit $rc1, $rc2)"
# 27. A kernel message printed on the marker's line (the serial console
# interleaves them) does not hide the guest's results: the canned log with
# '#### guest-up' followed by kernel text on the same line still passes.
sed 's/^#### guest-up$/#### guest-up[    1.832331] input: ImExPS\/2 Generic Explorer Mouse/' \
	"$fix/manifest_ok.log" > "$out/interleaved.log"
echo 0 > "$out/interleaved.log.rc"
python3 "$top/host/results.py" --manifest "$fix/manifest" fake="$out/interleaved.log" > "$out/interleaved.out" 2>&1
rc=$?
[ $rc = 0 ] && expect "$out/interleaved.log" "^#### guest-up\[" && expect "$out/interleaved.out" "^6 passed, 0 failed$"
result $? "a kernel message on the guest-up marker's line is read past (exit $rc)"
# 28. A kernel message printed between a KUnit suite's 'KTAP version' and
# '# Subtest' lines (another CPU printing while KUnit runs at boot) does
# not cost the suite its name: the kernel's parser alone reads it as a
# suite named '' and the manifest check fails.
sed '/^\[    0.512000\]     KTAP version 1$/a [    0.512000] input: AT Translated Set 2 keyboard as /devices/platform/i8042/serio0/input/input1' \
	"$fix/manifest_ok.log" > "$out/kunit-interleaved.log"
echo 0 > "$out/kunit-interleaved.log.rc"
python3 "$top/host/results.py" --manifest "$fix/manifest" fake="$out/kunit-interleaved.log" \
	> "$out/kunit-interleaved.out" 2>&1
rc=$?
[ $rc = 0 ] && expect "$out/kunit-interleaved.log" "^\[    0.512000\] input: AT" &&
	expect "$out/kunit-interleaved.out" "^6 passed, 0 failed$"
result $? "a kernel message inside the KUnit output is read past (exit $rc)"
# 29. A TAP file with more results than its plan fails the run: the
# kernel's parser stops at the plan and would drop the rest unread.
printf 'TAP version 13\n1..1\nok 1 one\nnot ok 2 two\n' > "$out/past-plan.tap"
python3 "$top/host/results.py" past="$out/past-plan.tap" > "$out/past-plan.out" 2>&1
rc=$?
[ $rc = 1 ] && expect "$out/past-plan.out" "^FAIL past: 2 results, but the plan says 1: the rest went unread$"
result $? "results past the plan fail the run (exit $rc)"

# 30. The README's tables from a report: bench-summary.sh on the peer's
# report above copies its x floor medians and its paired ratios (a pair
# only the token finished shown as 0.00), and refuses a directory with no
# report, naming it.
sh "$top/host/bench-summary.sh" "$out/bench-peer" > "$out/bench-summary.out" 2>&1
rc1=$?
sh "$top/host/bench-summary.sh" "$out/no-such-report" > "$out/bench-summary-bad.out" 2>&1
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 2 ] &&
	expect "$out/bench-summary.out" "^| \`sweep-2-120\` | 20.0 | - | - | - | - | 1.18 | 1.57 | - | - |$" &&
	expect "$out/bench-summary.out" "^| \`sweep-2-120\` | time | - | - | - | 0.75 (0.74-0.75), 2/0 | - |$" &&
	expect "$out/bench-summary.out" "^| \`sweep-4-250\` | 40.0 | - | - | - | - | 1.44 | no finish | - | - |$" &&
	expect "$out/bench-summary.out" "^| \`sweep-4-250\` | time | - | - | - | 0.00 (0.00-0.00), 2/0 | - |$" &&
	expect "$out/bench-summary-bad.out" "^bench-summary: no report .*/no-such-report/results.md$"
result $? "bench-summary: the README's tables copied from a report; no report refused (exit $rc1, $rc2)"

echo "TAP version 13"
echo "1..$n"
cat "$tap"
exit $bad
