#!/bin/sh
# Turn the console logs of host/bench.sh (DIR/raw/rep*.log) into
# DIR/results.tsv (one line per run), DIR/results.md (the tables, the paired
# comparisons with their bootstrap intervals, the verdict on the targets, the
# failed runs and the order of the runs; also printed) and PNG plots:
# DIR/time.png (every scenario relative to its serial floor),
# DIR/sweep.png (the overcommit sweep, if it ran),
# DIR/headline.png (the qs2 times) and DIR/timeline-qs2.png,
# DIR/timeline-hogint.png (resident memory of each process, token holder
# marked).  A configuration with no finished run (every run OOM-killed, say)
# is reported and plotted as "no finish".  Exit status 1 if a run is missing
# or failed for another reason than an OOM kill (OOM kills are results:
# reported), 2 if gnuplot failed on a plot.
# Usage: bench-report.sh DIR
set -eu

dir=${1:?usage: bench-report.sh DIR}
scenarios=$(cat "$dir/scenarios") configs=$(cat "$dir/configs")
tsv=$dir/results.tsv md=$dir/results.md

# One line per run, fields in a fixed order.
# waited: faults that waited for the holder, in the X-wait experiment's
# kernels only.
cols="s c r rc time majflt pswpin pswpout psi_full_ms oom taken p50 p99 hog small big waited"
{
	echo "scenario config rep rc time majflt pswpin pswpout psi_full_ms oom taken p50_ms p99_ms hog_MBps small_s big_s waited" | tr ' ' '\t'
	cat "$dir"/raw/rep*.log | tr -d '\r' | awk -v cols="$cols" '
		$1 == "####" && $2 == "bench" {
			delete v
			for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			n = split(cols, c, " ")
			for (i = 1; i <= n; i++) printf "%s%s", (c[i] in v ? v[c[i]] : "-"), i < n ? "\t" : "\n"
		}'
} > "$tsv"

rm -f "$dir"/*.png "$dir"/timeline-*

# The serial floor's configuration, as the guest names it on its
# '#### bench-order' lines (none in logs of an older guest/jobs/bench).
floorcfg=$(cat "$dir"/raw/rep*.log | tr -d '\r' |
	sed -n 's/^#### bench-order .*floor=\([^ ]*\).*/\1/p' | sort -u | paste -sd' ')

# Median and min/max of a space-separated list: shared by the awk programs below.
stats_awk='function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	if (n == 0) return "nan"
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function minmax(list, which,    n, a, i, m) {
	n = split(list, a, " "); m = a[1] + 0
	for (i = 2; i <= n; i++) if (which == "min" ? a[i] + 0 < m : a[i] + 0 > m) m = a[i] + 0
	return m
}
'

# The summary, and DIR/plot-time.dat for time.png: a line per scenario and
# configuration (their indexes, median, min and max relative to the floor or
# NaN, OOM kills, and "-" or why there is no bar).  A median of no finished
# run is "nan" (see median()): every use of one is guarded, as arithmetic or
# comparisons on it give nonsense (mawk: nan <= 1.25 is true).
summary=$(awk -F '\t' -v scenarios="$scenarios" -v configs="$configs" -v setup="$(cat "$dir/setup")" \
	-v plot="$dir/plot-time.dat" -v floorcfg="$floorcfg" "$stats_awk"'
# base(c): the configuration c is measured against: its LRU with the token
# off (X-off2, the A/A run, too; mglru-ttl: mglru-off); none for -off;
# X-prio and X-wait, the experiments: X-on, the series.
function base(c) { if (c ~ /-off$/ || c == "floor") return ""; if (c ~ /-(prio|wait)$/) { sub(/-[a-z]+$/, "-on", c); return c }; sub(/-[a-z]+[0-9]*$/, "-off", c); return c }
function inc(c) { return index(" " configs " ", " " c " ") > 0 }	# c is in this run
# peer(c): the userspace peer on the LRU of c (X-psi), which X-on must beat.
function peer(c) { sub(/-[a-z]+[0-9]*$/, "-psi", c); return c }
function add(key, val) { if (val != "-" && val != "") L[key] = L[key] " " val }
function ratio(a, b) { return (b + 0 > 0 && a != "nan" && b != "nan") ? sprintf("%.2f", a / b) : "-" }
# fin(s, c): c (or the serial floor, c = "floor") finished a run of s.
function fin(s, c) {
	if (c == "floor") return (s == "hogint" ? floor99[s] : floor[s]) != "nan"
	return (s == "hogint" ? p99[s, c] : med[s, c]) != "nan"
}
function nofinish(s, c) { return runs[s, c] ? sprintf("no finish, %d OOM kills", oom[s, c]) : "no run" }
# nodata(s, c): the verdict on a target that needs c, which has no finished run in s.
function nodata(s, c) {
	return sprintf("no data (%s: no finished run, %d OOM kills)", c == "floor" ? "serial floor" : c, oom[s, c])
}
# Paired comparisons: a pair is the runs of x and y in one repetition (one
# boot); V[s, c, r, m] holds measure m (time, p50, p99, small, big) of the
# finished run of c in repetition r, F[s, c, r] marks a run that failed.
# Leaving the failed runs out would keep only the lucky ones (5 runs
# OOM-killed and 5 faster would look faster), so a failed run is the worst
# result: where only y finished the ratio is INF (worse than any), where
# only x finished it is 0 (better than any); where neither finished the pair
# is left out and counted in NB[k].  A serial floor short of a job (one
# failed, or its guest stopped) is missing, not a failure of a
# configuration: no pair.  state(s, c, r, m): 1 finished (with a value of
# m), 0 failed, -1 no run or no value.
function state(s, c, r, m) {
	if ((s, c, r, m) in V) return 1
	return c != "floor" && (s, c, r) in F ? 0 : -1
}
# pairs(s, m, x, y, k) puts the ratios x / y of the pairs into P[1..n],
# sorted, counts in XF[k] and YF[k] the pairs where only y or only x
# finished, in NB[k] those where neither did, and returns n.
function pairs(s, m, x, y, k,    r, n, a, b, i, j, t) {
	n = 0
	for (r in REP) {
		a = state(s, x, r, m); b = state(s, y, r, m)
		if (a < 0 || b < 0) continue
		if (a && b) { if (V[s, y, r, m] > 0) P[++n] = V[s, x, r, m] / V[s, y, r, m] }
		else if (b) { P[++n] = INF; XF[k]++ }
		else if (a) { P[++n] = 0; YF[k]++ }
		else NB[k]++
	}
	for (i = 2; i <= n; i++) { t = P[i]; for (j = i - 1; j >= 1 && P[j] > t; j--) P[j + 1] = P[j]; P[j + 1] = t }
	return n
}
# INF stands for infinity (a number, the same in every awk); avg(a, b) of
# two ratios is INF if either is; fmt(x) prints a ratio, INF as "inf".
function avg(a, b) { return a >= INF || b >= INF ? INF : (a + b) / 2 }
function fmt(x) { return x >= INF ? "inf" : sprintf("%.2f", x) }
# rnd(): the Park-Miller generator, exact in any awk (mawk, gawk and
# busybox give the same intervals, unlike their rand()).
function rnd() { RNG = RNG * 16807 % 2147483647; return RNG / 2147483647 }
# compare(s, m, x, y): the comparison of x with y on measure m in s, under
# the key it returns: N[k] pairs, MED[k] the median of their ratios, LO[k]
# and HI[k] its 95% percentile bootstrap interval (2000 resamples of the
# pairs, the generator seeded with 1 for each comparison), FAST[k] and
# SLOW[k] the pairs with a ratio below and above 1 (a pair where only one
# finished is one of them); XF[k], YF[k], NB[k] as pairs() counts them.
function compare(s, m, x, y,    k, n, i, b, cnt, c, a, lo, hi, T, t, az, nt, DV, DC, u, w) {
	k = s SUBSEP m SUBSEP x SUBSEP y
	if (k in N) return k
	n = N[k] = pairs(s, m, x, y, k)
	if (!n) return k
	lo = int((n + 1) / 2); hi = int(n / 2) + 1	# the median is P[lo] and P[hi] averaged
	MED[k] = avg(P[lo], P[hi])
	for (i = 1; i <= n; i++) { FAST[k] += P[i] < 1; SLOW[k] += P[i] > 1 }
	# A resample draws n of the sorted indexes; its median is found by
	# counting the draws of each index up to the ranks lo and hi; T counts
	# the resamples per (index at lo, index at hi).
	RNG = 1
	for (b = 1; b <= 2000; b++) {
		split("", cnt)
		for (i = 1; i <= n; i++) cnt[int(rnd() * n) + 1]++
		c = a = 0
		for (i = 1; c < hi; i++) { c += cnt[i]; if (!a && c >= lo) a = i }
		T[a, i - 1]++
	}
	# The distinct medians, sorted; the interval runs from the 50th to the
	# 1950th of the 2000 (the 2.5th and 97.5th percentiles).
	nt = 0
	for (t in T) { split(t, az, SUBSEP); DV[++nt] = avg(P[az[1]], P[az[2]]); DC[nt] = T[t] }
	for (i = 2; i <= nt; i++) {
		u = DV[i]; w = DC[i]
		for (b = i - 1; b >= 1 && DV[b] > u; b--) { DV[b + 1] = DV[b]; DC[b + 1] = DC[b] }
		DV[b + 1] = u; DC[b + 1] = w
	}
	c = 0
	for (i = 1; i <= nt; i++) { c += DC[i]; if (!(k in LO) && c >= 50) LO[k] = DV[i]; if (c >= 1950) { HI[k] = DV[i]; break } }
	return k
}
# verdict(k, t, below): the claim "ratio <= t" (below: "< t") on comparison
# k: met only if the whole interval is on the right side of t (never if it
# reaches inf), MISSED if it is all on the wrong side.
function verdict(k, t, below) {
	if (N[k] < 5) return "too few pairs (n < 5) for a claim"
	if (HI[k] < INF && (below ? HI[k] < t : HI[k] <= t)) return "met"
	if (below ? LO[k] >= t : LO[k] > t) return "MISSED"
	return "not shown (the interval crosses the target)"
}
# aadiff(s): "" or why this run cannot tell an effect in s from its own
# noise: the A/A comparison of s differs from 1 on a measure of s (its
# interval excludes 1), or has fewer than 5 pairs (an interval of 1 to 4
# pairs says nothing about the noise).
function aadiff(s,    M, nm, i, k) {
	if (aa == "") return ""
	nm = split(measures(s), M, " ")
	for (i = 1; i <= nm; i++) {
		k = compare(s, M[i], aa, base(aa))
		if (!N[k]) continue
		if (N[k] < 5) return sprintf("the A/A run has %s, too few to know the noise", np(N[k]))
		if (LO[k] > 1 || HI[k] < 1) return "the A/A run differs from 1: noise floor " (M[i] == "time" ? "" : what(M[i]) " ") ival(k)
	}
	return ""
}
# judge(k, t, below, s): verdict() on k, a comparison in s, with the A/A
# rule: no "met" in a scenario whose A/A run differs from 1 or has fewer
# than 5 pairs.
function judge(k, t, below, s) { return aajudge(verdict(k, t, below), s) }
function aajudge(v, s,    d) {
	return v == "met" && (d = aadiff(s)) != "" ? "not shown (" d ")" : v
}
# overall(missed, no data, unclear, few pairs): the verdict on a target judged in
# several places (scenarios, sweep points), from what was found in them
# (counts or lists, each empty or 0 if none): met only if met everywhere.
function overall(mis, nod, unc, fw) {
	return mis ? "MISSED" : nod ? "no data" : unc ? "not shown (see below)" : \
		fw ? "too few pairs (n < 5) for a claim" : "met"
}
function ival(k) { return fmt(LO[k]) "-" fmt(HI[k]) }
function np(n) { return n (n == 1 ? " pair" : " pairs") }
# pdesc(k, x, y): "N pairs", and how many of them had a failed run, and the
# pairs where neither finished.
function pdesc(k, x, y,    t) {
	t = np(N[k])
	if (XF[k] || YF[k])
		t = t (XF[k] ? sprintf(", %d of them inf (%s no finish)", XF[k], x) : "") \
			(YF[k] ? sprintf("%s%d of them 0 (%s no finish)", XF[k] ? " and " : ", ", YF[k], y) : "")
	return t (NB[k] ? "; " np(NB[k]) " where neither finished, left out" : "")
}
# nopair(k): the verdict on a comparison with no pair.
function nopair(k) {
	return NB[k] ? "no data (" np(NB[k]) " where neither finished)" : "no data (no repetition with a run of both)"
}
# noise(s, m): "; noise floor of this run A-B", the interval of the A/A
# comparison (aa vs its -off) on measure m in s, if there is one.
function noise(s, m,    k) {
	if (aa == "") return ""
	k = compare(s, m, aa, base(aa))
	return N[k] ? "; noise floor of this run " ival(k) : ""
}
# measures(s): what is compared in s.
function measures(s) { return s == "hogint" ? "p99 p50" : s == "huge" ? "time small big" : "time" }
function what(m) {
	return m == "time" ? "time" : m ~ /^p/ ? m " latency" : m == "small" ? "last small one done" : "big one done"
}
# row(s, x, y): the lines of the paired table for x against y in s.
function row(s, x, y,    M, nm, i, k) {
	nm = split(y == "floor" ? "time" : measures(s), M, " ")
	for (i = 1; i <= nm; i++) {
		k = compare(s, M[i], x, y); rows++
		printf "| %s | %s vs %s%s | %s | %d | %s | %s | %s | %s |\n", s, x, y == "floor" ? "serial floor" : y,
			x ~ /-off2$/ ? " (A/A: noise)" : "", what(M[i]), N[k], N[k] ? fmt(MED[k]) : "-",
			N[k] ? ival(k) : "-", N[k] ? FAST[k] " / " SLOW[k] : "-", (XF[k] + 0) " / " (YF[k] + 0) " / " (NB[k] + 0)
	}
}
BEGIN { INF = 1e300 }
NR == 1 { next }
{
	s = $1; c = $2; r = $3
	if (c == "floor") {
		# The floor of a repetition sums its jobs alone: one failed job
		# leaves that repetition out of the floor.
		runs[s, c]++; oom[s, c] += $10; flrep[s] = flrep[s] " " r
		if ($4 != 0) { flbad[s, r] = 1; next }
		fl[s, r] += $5; fln[s, r]++; if (fln[s, r] > flmax[s]) flmax[s] = fln[s, r]
		if ($12 != "-") V[s, c, r, "p50"] = $12
		if ($13 != "-") V[s, c, r, "p99"] = $13
		add(s SUBSEP "floor" SUBSEP "p50", $12); add(s SUBSEP "floor" SUBSEP "p99", $13)
		next
	}
	runs[s, c]++; oom[s, c] += $10
	# A run that failed (a process OOM-killed, a wrong result) has no
	# meaningful time: it is counted, not measured.
	REP[r] = 1
	if ($4 != 0) { bad[s, c]++; F[s, c, r] = 1; next }
	V[s, c, r, "time"] = $5
	if ($12 != "-") V[s, c, r, "p50"] = $12
	if ($13 != "-") V[s, c, r, "p99"] = $13
	if ($15 != "-") V[s, c, r, "small"] = $15
	if ($16 != "-") V[s, c, r, "big"] = $16
	add(s SUBSEP c SUBSEP "time", $5); add(s SUBSEP c SUBSEP "majflt", $6)
	add(s SUBSEP c SUBSEP "pswpin", $7); add(s SUBSEP c SUBSEP "pswpout", $8)
	add(s SUBSEP c SUBSEP "psi", $9 / 1000)
	add(s SUBSEP c SUBSEP "taken", $11); add(s SUBSEP c SUBSEP "p50", $12)
	add(s SUBSEP c SUBSEP "p99", $13); add(s SUBSEP c SUBSEP "hog", $14)
	add(s SUBSEP c SUBSEP "small", $15); add(s SUBSEP c SUBSEP "big", $16)
	add(s SUBSEP c SUBSEP "waited", $17)
}
END {
	ns = split(scenarios, S, " "); nc = split(configs, C, " ")
	title["qs2"] = "qsbench, 2 processes, 1.2 x RAM in total (the headline)"
	title["qs4"] = "qsbench, 4 processes, 1.2 x RAM in total"
	title["qs8"] = "qsbench, 8 processes, 1.2 x RAM in total"
	title["file"] = "file-backed: 2 processes reading mmap-ed files in scrambled order, 1.2 x RAM in total, 2 passes"
	title["stream"] = "qsbench, 2 processes, 1.2 x RAM in total, beside a reader streaming through a cold file of RAM size"
	title["hogint"] = "hog (1.1 x RAM) + interactive (32 MB, wakes every 2 s, 15 times)"
	title["fit"] = "no pressure: qsbench, 2 processes, 0.6 x RAM in total"
	title["fitfile"] = "no pressure: file-backed, scrambled, 2 processes, 0.6 x RAM in total, 2 passes"
	title["sort2"] = "real programs: GNU sort, 2 instances in memory, 1.2 x RAM together"
	title["sqlite2"] = "real programs: SQLite building an index, 2 instances in memory, 1.2 x RAM together"
	title["faults"] = "no pressure, a major fault per page: file-backed from a cold cache (MADV_RANDOM, the cache dropped after each pass), 2 processes, 0.6 x RAM in total, 3 passes"
	title["huge"] = "qsbench, one big process (0.8 x RAM) and three small ones (0.25 x RAM each)"
	title["cg2"] = "two memory cgroups limited to 0.35 x RAM each, qsbench with 2 processes in each, 1.2 x its limit"
	print "# make bench results\n"
	n = split(setup, SU, "\n"); for (i = 1; i <= n; i++) print "    " SU[i]
	print "\nMedian of the repetitions with (min-max); every run starts from dropped caches"
	print "and empty swap. *x floor*: time / serial floor (each job alone, times summed)."
	print "*vs off*: median / median of the same LRU with the token off (mglru-ttl: vs"
	print "mglru-off; X-off2, the token off again in the same boots: vs X-off, the A/A;"
	print "X-prio and X-wait, the experiments: vs X-on, the series)."
	print "Faults and swap are counts per run (pages), PSI is memory *full* time."
	print "A failed run (a process OOM-killed or a wrong result) is counted in *runs* and"
	print "*OOM kills* but left out of these medians. The verdicts on the targets rest on"
	print "the paired comparisons after these tables, which count a failed run as the"
	print "worst result.\n"
	# The A/A configuration: the first X-off2 whose X-off ran too.
	for (j = 1; j <= nc; j++) if (aa == "" && C[j] ~ /-off2$/ && inc(base(C[j]))) aa = C[j]
	for (i = 1; i <= ns; i++) {
		s = S[i]
		nf = split(flrep[s], FR, " "); fls = ""
		# A repetition whose floor is short of a job (its guest stopped)
		# has no floor either.
		for (j = 1; j <= nf; j++) if (!seen[s, FR[j]]++ && !flbad[s, FR[j]] && fln[s, FR[j]] == flmax[s]) {
			fls = fls " " fl[s, FR[j]]; V[s, "floor", FR[j], "time"] = fl[s, FR[j]]
		}
		floor[s] = median(fls)
		if (!(s in title) && s ~ /^sweep-/) {
			split(s, sw, "-")
			title[s] = sprintf("overcommit sweep: qsbench, %d processes, %.1f x RAM in total", sw[2], sw[3] / 100)
		}
		printf "## %s: %s\n\n", s, title[s]
		if (s == "hogint") {
			floor50[s] = median(L[s, "floor", "p50"]); floor99[s] = median(L[s, "floor", "p99"])
			if (fin(s, "floor"))
				printf "Interactive process alone: p50 %s ms, p99 %s ms.\n\n", floor50[s], floor99[s]
			else
				printf "Interactive process alone: no finished run (%d OOM kills).\n\n", oom[s, "floor"]
			print "| configuration | runs | p50 ms | p99 ms (min-max) | p99 vs off | hog MB/s | major faults | PSI full s | OOM kills | handoffs |"
			print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		} else {
			if (fin(s, "floor")) printf "Serial floor: %.1f s%s.\n\n", floor[s], floorcfg == "" ? "" : " (each job alone, under " floorcfg ")"
			else printf "Serial floor: no finished run (%d OOM kills).\n\n", oom[s, "floor"]
			print "| configuration | runs | time s (min-max) | x floor | vs off | major faults | swap-ins | swap-outs | PSI full s | OOM kills | handoffs |"
			print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		}
		for (j = 1; j <= nc; j++) {
			c = C[j]
			t = median(L[s, c, "time"]); med[s, c] = t
			p50[s, c] = median(L[s, c, "p50"]); p99[s, c] = median(L[s, c, "p99"])
			b = base(c)
			note = bad[s, c] ? sprintf(" (%d failed)", bad[s, c]) : ""
			# time.png: time (hogint: p99 latency) relative to the floor.
			v = s == "hogint" ? "p99" : "time"; f = s == "hogint" ? floor99[s] : floor[s]
			if (!fin(s, c))
				printf "%d %d NaN NaN NaN %d \"%s\"\n", i, j, oom[s, c], nofinish(s, c) > plot
			else if (!fin(s, "floor") || f + 0 <= 0)
				printf "%d %d NaN NaN NaN %d \"no serial floor\"\n", i, j, oom[s, c] > plot
			else
				printf "%d %d %.4g %.4g %.4g %d \"-\"\n", i, j, median(L[s, c, v]) / f,
					minmax(L[s, c, v], "min") / f, minmax(L[s, c, v], "max") / f, oom[s, c] > plot
			if (!fin(s, c)) {
				printf "| %s | %d%s | %s |%s %d | - |\n", c, runs[s, c], note, nofinish(s, c),
					s == "hogint" ? " - | - | - | - | - |" : " - | - | - | - | - | - |", oom[s, c]
				continue
			}
			if (s == "hogint")
				printf "| %s | %d%s | %s | %s (%s-%s) | %s | %s | %d | %.1f | %d | %d |\n", c, runs[s, c], note,
					p50[s, c], p99[s, c], minmax(L[s, c, "p99"], "min"), minmax(L[s, c, "p99"], "max"),
					b ? ratio(p99[s, c], median(L[s, b, "p99"])) : "-", median(L[s, c, "hog"]),
					median(L[s, c, "majflt"]), median(L[s, c, "psi"]), oom[s, c], median(L[s, c, "taken"])
			else
				printf "| %s | %d%s | %.1f (%.1f-%.1f) | %s | %s | %d | %d | %d | %.1f | %d | %d |\n", c, runs[s, c], note,
					t, minmax(L[s, c, "time"], "min"), minmax(L[s, c, "time"], "max"), ratio(t, floor[s]),
					b ? ratio(t, median(L[s, b, "time"])) : "-", median(L[s, c, "majflt"]),
					median(L[s, c, "pswpin"]), median(L[s, c, "pswpout"]), median(L[s, c, "psi"]),
					oom[s, c], median(L[s, c, "taken"])
		}
		print ""
		# The X-wait experiment: how often a fault slept for the holder.
		w = ""
		for (j = 1; j <= nc; j++)
			if (L[s, C[j], "waited"] != "")
				w = w sprintf("%s%s %d", w == "" ? "" : ", ", C[j], median(L[s, C[j], "waited"]))
		if (w != "") printf "Faults that waited for the holder (swap_token_waited), median per run: %s.\n\n", w
		if (s != "huge") continue
		print "When each kind of process finished (seconds after the start, median (min-max)):\n"
		print "| configuration | last small one done | vs off | big one done | vs off |"
		print "| --- | --- | --- | --- | --- |"
		for (j = 1; j <= nc; j++) {
			c = C[j]; b = base(c)
			sm[c] = median(L[s, c, "small"]); bg[c] = median(L[s, c, "big"])
			if (L[s, c, "small"] == "") { printf "| %s | %s | - | - | - |\n", c, nofinish(s, c); continue }
			printf "| %s | %.1f (%.1f-%.1f) | %s | %.1f (%.1f-%.1f) | %s |\n", c,
				sm[c], minmax(L[s, c, "small"], "min"), minmax(L[s, c, "small"], "max"),
				b ? ratio(sm[c], median(L[s, b, "small"])) : "-",
				bg[c], minmax(L[s, c, "big"], "min"), minmax(L[s, c, "big"], "max"),
				b ? ratio(bg[c], median(L[s, b, "big"])) : "-"
		}
		print ""
	}
	# The paired comparisons: each configuration against its base, each -on
	# against mglru-ttl and, in the headline, against mglru-off and the
	# serial floor.
	print "## Paired comparisons\n"
	print "A pair is the runs of X and Y in the same repetition (the same boot). A failed"
	print "run (a process OOM-killed, a wrong result) is not left out, which would keep"
	print "only the lucky runs: where only Y finished the pair counts as inf (worse than"
	print "any ratio), where only X finished as 0 (better than any); where neither"
	print "finished the pair is left out, and counted. A repetition without a run of X or"
	print "Y, or without its serial floor, has no pair. *ratio*: the median over the"
	print "pairs of X / Y; *95% interval*: a percentile bootstrap interval of that median"
	print "(2000 resamples of the pairs, a fixed seed: the same numbers every time these"
	print "logs are reported). With 5 pairs it is [min, max] of the pairs, which holds the"
	print "true median with a probability of 1 - 2/2^5, about 94%: the interval is wide,"
	print "not wrong. *faster / slower*: the pairs with a ratio below / above 1; *no"
	print "finish*: the pairs where only X, only Y, or neither finished (the first two"
	print "are among the pairs, as inf and 0). A/A: the token off twice in each boot; its"
	print "interval is the noise floor of this run. A claim needs at least 5 pairs.\n"
	print "| scenario | X vs Y | measure | pairs | ratio | 95% interval | faster / slower | no finish: X / Y / neither |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= ns; i++) {
		s = S[i]
		for (j = 1; j <= nc; j++) {
			c = C[j]; b = base(c)
			if (b != "" && inc(b)) row(s, c, b)
			if (c !~ /-on$/) continue
			if (s == "qs2" && b != "mglru-off" && inc("mglru-off")) row(s, c, "mglru-off")
			if (inc("mglru-ttl")) row(s, c, "mglru-ttl")
			if (inc(peer(c))) row(s, c, peer(c))
			if (s == "qs2" || s ~ /^sweep-/) row(s, c, "floor")
		}
	}
	if (!rows) print "| - | no comparison: one configuration per LRU | - | - | - | - | - | - |"
	print ""
	# The targets of the bench issue, judged on the paired comparisons: met
	# only when the 95% interval is on the right side of the target (never
	# when it reaches inf) and the A/A run of the scenario does not differ
	# from 1; a target with no pair is "no data", never met nor missed.
	print "## Targets\n"
	print "A target is met only when the whole 95% interval of its ratio is on its side"
	print "(an interval that reaches inf never is), MISSED when it is all on the other"
	print "side. The A/A rule: where the A/A comparison of a scenario (X-off2 vs X-off, on"
	print "any of its measures) has an interval that excludes 1, or fewer than 5 pairs,"
	print "this run cannot tell an effect there from its own noise, and no target in that"
	print "scenario is met: each becomes \"not shown (the A/A run ...)\". OOM kills are compared per"
	print "run (kills / runs, over all scenarios), not as totals, so that a configuration"
	print "with fewer runs does not look better; the A/A rule does not apply to them.\n"
	if (aa == "")
		print "- noise floor of this run: not measured (no A/A configuration such as mglru-off2; make bench FULL=1 adds one)"
	else {
		printf "- noise floor of this run (A/A: %s vs %s; an effect inside it is not told apart from noise):\n", aa, base(aa)
		for (i = 1; i <= ns; i++) {
			s = S[i]; nm = split(measures(s), M, " ")
			for (l = 1; l <= nm; l++) {
				k = compare(s, M[l], aa, base(aa))
				if (N[k]) printf "  - %s, %s: %s, 95%% interval %s, %s%s\n", s, what(M[l]), fmt(MED[k]), ival(k),
					pdesc(k, aa, base(aa)), N[k] < 5 ? " (too few pairs to tell)" : (LO[k] > 1 || HI[k] < 1) ? ": differs from 1, so no target in " s " is met" : ""
				else printf "  - %s, %s: %s\n", s, what(M[l]), nopair(k)
			}
		}
	}
	if ("qs2" SUBSEP "mglru-off" in runs || "qs2" SUBSEP "classic-off" in runs) {
		for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/) {
			c = C[j]
			if (!fin("qs2", "floor"))
				printf "- headline, %s: time vs serial floor (target <= 1.25): %s\n", c, nodata("qs2", "floor")
			else if (!N[k = compare("qs2", "time", c, "floor")])
				printf "- headline, %s: time vs serial floor (target <= 1.25): %s\n", c, nopair(k)
			else
				printf "- headline, %s: %s x serial floor (95%% interval %s, %s; target <= 1.25): %s\n",
					c, fmt(MED[k]), ival(k), pdesc(k, c, "the serial floor"), judge(k, 1.25, 0, "qs2")
			for (l = 1; l <= nc; l++) if (C[l] ~ /^mglru-(off|ttl)$/) {
				if (!N[k = compare("qs2", "time", c, C[l])])
					printf "- headline, %s vs %s: %s\n", c, C[l], nopair(k)
				else
					printf "- headline, %s vs %s: %s (95%% interval %s; %d faster, %d slower of %s; target < 1%s): %s\n",
						c, C[l], fmt(MED[k]), ival(k), FAST[k], SLOW[k], pdesc(k, c, C[l]), noise("qs2", "time"),
						judge(k, 1, 1, "qs2")
			}
		}
	}
	for (i = 1; i <= ns; i++) for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/) {
		s = S[i]; c = C[j]; b = base(c)
		if (!((s, b) in runs)) continue
		compared++
		nm = split(s == "hogint" ? "p99 p50" : "time", M, " ")
		for (l = 1; l <= nm; l++) {
			if (!N[k = compare(s, M[l], c, b)]) { nd = nd sprintf("\n  - %s, %s: %s %s", s, c, what(M[l]), nopair(k)); continue }
			v = judge(k, 1.02, 0, s)
			t = sprintf("\n  - %s, %s: %s %s x token off (95%% interval %s, %s%s): %s",
				s, c, what(M[l]), fmt(MED[k]), ival(k), pdesc(k, c, b), noise(s, M[l]), v)
			if (v == "MISSED") slow = slow t; else if (v ~ /^not/) unclear = unclear t; else if (v ~ /^too/) few = few t
		}
	}
	if (compared)
		printf "- no scenario more than 2%% slower with the token: %s%s%s%s%s\n",
			overall(slow, nd, unclear, few), slow, nd, unclear, few
	else
		print "- none comparable: this run has no token-off configuration"
	# The overcommit sweep: with the token, at most 1.3 x the serial floor
	# at every point, under both LRUs; met only if met at every point.
	for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/) {
		c = C[j]; wp = wb = wu = wf = wn = 0; wt = ""
		for (i = 1; i <= ns; i++) if ((s = S[i]) ~ /^sweep-/) {
			wp++
			if (!fin(s, "floor")) { wn++; wt = wt sprintf("\n  - %s: %s", s, nodata(s, "floor")); continue }
			if (!N[k = compare(s, "time", c, "floor")]) { wn++; wt = wt sprintf("\n  - %s: %s", s, nopair(k)); continue }
			v = judge(k, 1.3, 0, s)
			wb += v == "MISSED"; wu += v ~ /^not/; wf += v ~ /^too/
			wt = wt sprintf("\n  - %s: %s x serial floor (95%% interval %s, %s): %s", s, fmt(MED[k]), ival(k), pdesc(k, c, "the serial floor"), v)
		}
		if (wp)
			printf "- sweep, %s: time vs serial floor at every point (target <= 1.3): %s%s\n", c,
				overall(wb, wn, wu, wf), wt
	}
	# The userspace peer (X-psi, token off): the token must beat it, in
	# every scenario where both ran.
	for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/ && inc(peer(C[j]))) {
		c = C[j]; q = peer(c); wb = wu = wf = wn = 0; wt = ""
		for (i = 1; i <= ns; i++) {
			s = S[i]
			if (!((s, c) in runs) || !((s, q) in runs)) continue
			m = s == "hogint" ? "p99" : "time"
			if (!N[k = compare(s, m, c, q)]) { wn++; wt = wt sprintf("\n  - %s: %s", s, nopair(k)); continue }
			v = judge(k, 1, 1, s)
			wb += v == "MISSED"; wu += v ~ /^not/; wf += v ~ /^too/
			wt = wt sprintf("\n  - %s: %s %s x the peer (95%% interval %s; %d faster, %d slower of %s%s): %s",
				s, what(m), fmt(MED[k]), ival(k), FAST[k], SLOW[k], pdesc(k, c, q), noise(s, m), v)
		}
		if (wt != "")
			printf "- %s faster than the userspace peer %s in every scenario (target < 1): %s%s\n", c, q,
				overall(wb, wn, wu, wf), wt
	}
	# The size limit (issue 6): the small processes of "huge" finish much
	# sooner (at most 0.8 x token off), the big one no later (at most 1.02 x).
	for (j = 1; j <= nc; j++) if (("huge", C[j]) in runs && C[j] ~ /-(on|nolimit)$/) {
		c = C[j]; b = base(c)
		if (!(("huge", b) in runs)) continue
		k = compare("huge", "small", c, b); k2 = compare("huge", "big", c, b)
		if (!N[k] || !N[k2]) {
			printf "- huge, %s: small and big ones vs token off: %s\n", c, nopair(N[k] ? k2 : k)
			continue
		}
		v = verdict(k, 0.8, 0); w = verdict(k2, 1.02, 0)
		v = v ~ /^too/ || w ~ /^too/ ? v : v == "MISSED" || w == "MISSED" ? "MISSED" : v == "met" && w == "met" ? "met" : \
			"not shown (an interval crosses the target)"
		printf "- huge, %s: small ones %s x token off (target <= 0.8), big one %s x (target <= 1.02); 95%% intervals %s and %s, %s: %s\n",
			c, fmt(MED[k]), fmt(MED[k2]), ival(k), ival(k2), pdesc(k, c, b), aajudge(v, "huge")
	}
	# OOM kills are counts, defined whether or not a run finished: per run,
	# as configurations can have different numbers of runs (a repetition
	# that stopped early).
	for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/ && inc(base(C[j]))) {
		c = C[j]; b = base(c); kon = koff = ron = roff = 0
		for (i = 1; i <= ns; i++) { kon += oom[S[i], c]; koff += oom[S[i], b]; ron += runs[S[i], c]; roff += runs[S[i], b] }
		if (!ron || !roff) { printf "- OOM kills per run, %s vs %s: no data (%s: no run)\n", c, b, ron ? b : c; continue }
		printf "- OOM kills per run (kills / runs, all scenarios), %s: %d / %d = %.2f, %s: %d / %d = %.2f: %s\n",
			c, kon, ron, kon / ron, b, koff, roff, koff / roff,
			kon * roff <= koff * ron ? "no more with the token (met)" : "MORE with the token (missed)"
	}
}' "$tsv")

# The failed runs from the console logs: each run that failed (rc not 0),
# with its cause: the kernel's OOM kill line or the workload's error line
# during the run; then the runs a repetition never reached (its guest
# stopped), with the guest's last 'bench: ' error line or why it stopped.
# And the order of the runs, from the '#### bench-order' lines.
runs_md=$(awk -v scenarios="$scenarios" -v configs="$configs" '
function kv(f,    t) { t = f; sub(/^[^=]*=/, "", t); return t }
function cell(t) { gsub(/\|/, "/", t); return t }
# done_rep(): the missing runs of the repetition just read.
function done_rep(    i, j, miss, why) {
	why = lastb != "" ? lastb : gerr != "" ? "guest: " gerr : gexit != "" ? "the guest job exited " gexit : \
		"the guest gave no result (timed out or crashed, see raw/rep" rep ".err)"
	for (i = 1; i <= ns; i++) {
		miss = ((S[i], "floor") in seen) ? "" : " floor"
		for (j = 1; j <= nc; j++) if (!((S[i], C[j]) in seen)) miss = miss " " C[j]
		if (miss != "") out[rep] = out[rep] sprintf("| %s | %s | not run:%s | - | - | %s |\n", rep, S[i], miss, cell(why))
	}
}
BEGIN { ns = split(scenarios, S, " "); nc = split(configs, C, " ") }
FNR == 1 {
	if (NR > 1) done_rep()
	rep = FILENAME; sub(/.*rep/, "", rep); sub(/\.log$/, "", rep); rep += 0
	split("", seen); lastb = gerr = gexit = ""; inrun = 0; if (rep > nrep) nrep = rep
}
{ sub(/\r$/, "") }
$1 == "####" && $2 == "bench-order" {
	order[rep] = sprintf("| %s | %s |", kv($5), substr($0, index($0, $5) + length($5) + 1))
	# A merged log holds one line per part: the repetition counts once.
	t = kv($5); sub(/:.*/, "", t); if (!((rep, t) in byrep)) by[t]++; byrep[rep, t] = 1
}
$1 == "####" && $2 == "bench-start" { inrun = 1; oomline = errline = ""; next }
$1 == "####" && $2 == "bench" {
	inrun = 0; split("", v)
	for (i = 3; i <= NF; i++) v[substr($i, 1, index($i, "=") - 1)] = kv($i)
	seen[v["s"], v["c"]] = 1
	if (v["rc"] + 0 != 0)
		out[rep] = out[rep] sprintf("| %s | %s | %s | %s | %s | %s |\n", rep, v["s"], v["c"], v["rc"], v["oom"],
			cell(oomline != "" ? oomline : errline != "" ? errline : "-"))
	next
}
$1 == "####" && $2 == "guest-error" { gerr = substr($0, 18) }
$1 == "####" && $2 == "guest-exit" { gexit = kv($3) }
inrun && oomline == "" && /Killed process/ { oomline = $0; sub(/^\[[ 0-9.]*\] */, "", oomline); sub(/\).*/, ")", oomline) }
inrun && errline == "" && /^  \| / && /FAILED|[Ff]ailed|not sorted|wrong|never|[Ee]rror|[Kk]illed|[Cc]annot/ { errline = substr($0, 5) }
/^bench: / && !/^bench: jobs run in/ { lastb = $0 }
END {
	if (NR) done_rep()
	print "## Failed runs\n"
	for (r = 1; r <= nrep; r++) n += out[r] != ""
	if (!n) print "None: every run of every repetition finished.\n"
	else {
		print "| rep | scenario | configuration | rc | OOM kills | cause |"
		print "| --- | --- | --- | --- | --- | --- |"
		for (r = 1; r <= nrep; r++) printf "%s", out[r]
		print ""
	}
	print "## Order of the runs\n"
	for (r = 1; r <= nrep; r++) if (r in order) m++
	if (!m) { print "Not recorded in these logs (from an older guest/jobs/bench)."; exit }
	print "In each repetition and scenario the serial floor first, then the configurations in this order:\n"
	print "| rep | order | configurations |"
	print "| --- | --- | --- |"
	for (r = 1; r <= nrep; r++) print ((r in order) ? "| " r " " order[r] : "| " r " | not recorded | - |")
	# What each design balances.
	rows = nc % 2 ? 2 * nc : nc
	if ("williams" in by) {
		printf "\n*williams*: a Williams design, a Latin square balanced for carryover: over a\n"
		printf "full cycle of %d repetitions (%s) each\n", rows, nc % 2 ? "twice the " nc " configurations, an odd number" : "one per configuration"
		printf "configuration runs in each position equally often and right after each other\n"
		printf "configuration equally often; repetition r takes row (r - 1) mod %d.\n", rows
		if (by["williams"] % rows == 0)
			printf "This run: %d repetitions, %d full cycle%s: balanced.\n", by["williams"], by["williams"] / rows, (by["williams"] / rows > 1 ? "s" : "")
		else
			printf "This run: %d repetitions, not a multiple of %d: the balance is partial%s.\n", by["williams"], rows,
				by["williams"] % nc == 0 ? " (each configuration runs in each position equally often)" : ""
	}
	if ("rotation" in by) {
		print "\n*rotation* (an older guest/jobs/bench): the order rotated by one per repetition,"
		print "a Latin square (each configuration once in each position per " nc " repetitions),"
		print "but each configuration right after the same one whenever it is not first: not"
		print "balanced for carryover."
	}
	if ("shuffle" in by)
		print "\n*shuffle:SEED*: shuffled per repetition, seeded by SEED and the repetition: balanced only on average."
}' "$dir"/raw/rep*.log)
summary="$summary

$runs_md"
echo "$summary" > "$md"
echo "$summary"

awk -F '\t' 'NR > 1 && $1 == "qs2" && $2 != "floor" { print $2, $5, $4 == 0 }' "$tsv" > "$dir/plot-headline.dat"

# draw NAME: run the gnuplot script on stdin in DIR to draw DIR/NAME.  A
# failure is named and fails the report at the end (exit 2), after the other
# plots.
plotfail=
draw() {
	if (cd "$dir" && gnuplot) && [ -s "$dir/$1" ]; then return 0; fi
	echo "bench: gnuplot failed to draw $1" >&2
	rm -f "$dir/$1"
	plotfail="$plotfail $1"
}
# xtics LIST FIRST: gnuplot's "set xtics" list of the words of LIST at FIRST, FIRST + 1, ...
xtics() { i=$2; for w in $1; do printf '"%s" %d, ' "$w" $i; i=$((i + 1)); done | sed 's/, $//'; }

# time.png: per scenario a box per configuration from the bottom of the graph
# to its median, a bar from min to max (vectors: yerrorbars leave a gap at the
# median); a cross on a square of its colour and a label instead where no
# run finished.  The y range is fixed, whole decades around the data and the
# floor at 1, so that gnuplot draws even when no run finished at all.
set -- $(awk '
	function fl(x) { return x == int(x) || x > 0 ? int(x) : int(x) - 1 }	# floor(x)
	$3 != "NaN" { if (!n++ || $4 < lo) lo = $4; if ($5 > hi) hi = $5 }
	END {
		if (!n || lo > 1) lo = 1
		if (hi < 1) hi = 1
		printf "%g %g\n", 10 ^ fl(log(lo / 1.5) / log(10)), 10 ^ -fl(-log(hi * 1.5) / log(10))
	}' "$dir/plot-time.dat")
ylo=$1 yhi=$2
# A key entry for the crosses, when there are any (an empty title has none).
crosstitle=
! grep -qv '"-"$' "$dir/plot-time.dat" || crosstitle="no finished run"
# Their labels, only then: gnuplot 5.4 crashes on "with labels" when every
# point is undefined and the file has one line (one scenario, one
# configuration).
labels=
[ -z "$crosstitle" ] || labels=', \
     "plot-time.dat" using (x($1, $2)):(strcol(7) eq "-" ? 1/0 : ymark):7 \
	with labels rotate by 90 left offset 0,1 font ",9" boxed notitle'
draw time.png <<GNUPLOT
set terminal pngcairo size 1000,560 font ",11"
set output "time.png"
set title "make bench: median time relative to the serial floor (bars: min-max)"
set ylabel "time / serial floor, log scale   (hogint: p99 latency / alone)"
set logscale y
set yrange [$ylo:$yhi]
set xlabel "scenario"
set xrange [0.5:$(echo $scenarios | wc -w).5]
set xtics ($(xtics "$scenarios" 1)) scale 0
set style fill solid 0.6 border -1
set key top left
set grid ytics
set style textbox opaque noborder margins 0.5,0.5	# the labels hide the floor line
configs = "$configs"
nc = words(configs)
w = 0.8 / (nc < 4 ? 4 : nc)	# slot width, not too wide for a few configurations
x(s, c) = s + (c - (nc + 1) / 2.0) * w
ymark = $ylo * ($yhi / $ylo) ** 0.04
# plot-time.dat: scenario, configuration, median, min, max, OOM kills, "-" or why no box
plot for [j = 1:nc] "plot-time.dat" using (x(\$1, j)):(\$2 == j ? \$3 : 1/0):(x(\$1, j) - 0.45 * w):(x(\$1, j) + 0.45 * w):($ylo):(\$2 == j ? \$3 : 1/0) \
	with boxxyerror lc j title word(configs, j), \
     "plot-time.dat" using (x(\$1, \$2)):4:(0):(\$5 - \$4) with vectors heads size screen 0.006,90 lc rgb "black" notitle, \
     for [j = 1:nc] "plot-time.dat" using (x(\$1, j)):(\$2 == j && strcol(7) ne "-" ? ymark : 1/0) \
	with points pt 5 ps 1.6 lc j notitle, \
     "plot-time.dat" using (x(\$1, \$2)):(strcol(7) eq "-" ? 1/0 : ymark) with points pt 2 ps 1.5 lw 2 lc rgb "black" title "$crosstitle", \
     1 with lines dt 2 lw 2 lc rgb "black" title "serial floor"$labels
GNUPLOT

# headline.png: every qs2 run; the floor line only if the floor finished.
case " $scenarios " in
*" qs2 "*)
	hfloor=$(awk '/^## qs2:/ { q = 1 } q && /^Serial floor: [0-9]/ { print $3; exit }' "$md")
	floorline=
	[ -z "$hfloor" ] || floorline=", $hfloor with lines dt 2 lw 2 lc rgb \"black\" title \"serial floor $hfloor s\""
	ymax=$(awk -v m="${hfloor:-0}" '$2 > m + 0 { m = $2 } END { print (m > 0 ? m * 1.1 : 1) }' "$dir/plot-headline.dat")
	draw headline.png <<GNUPLOT
set terminal pngcairo size 1000,560 font ",11"
set output "headline.png"
set title "Headline: qsbench, 2 processes, 1.2 x RAM (each point one run)"
set ylabel "wall time (s)"
set xlabel "configuration"
set yrange [0:$ymax]
set xtics ($(xtics "$configs" 0))
set xrange [-0.5:$(($(echo $configs | wc -w) - 1)).5]
idx(c) = $(i=0; for c in $configs; do printf '(c eq "%s") ? %d : ' "$c" $i; i=$((i + 1)); done) -1
plot "plot-headline.dat" using (idx(strcol(1))):(\$3 > 0 ? \$2 : 1/0) with points pt 7 ps 1.5 title "run", \
     "plot-headline.dat" using (idx(strcol(1))):(\$3 > 0 ? 1/0 : \$2) with points pt 2 ps 1.5 lw 2 title "failed run (OOM kill)"$floorline
GNUPLOT
esac

# sweep.png: the overcommit sweep (scenarios sweep-N-PCT), time relative to
# the serial floor against the overcommit, a line per configuration and
# number of processes (colour: configuration; point and dash: processes),
# bars min-max; a cross at the bottom where no run finished.
awk -v scenarios="$scenarios" -v configs="$configs" '
	BEGIN { split(scenarios, S, " "); nc = split(configs, C, " ") }
	S[$1] ~ /^sweep-/ { split(S[$1], w, "-"); key = $2 " " w[2]; x[key] = x[key] sprintf("%g %s %s %s %d\n", w[3] / 100, $3, $4, $5, $3 == "NaN"); n[w[2]] = 1 }
	END {
		for (j = 1; j <= nc; j++) for (p = 1; p <= 64; p++) if ((j " " p) in x) {
			printf "%s\n\n", x[j " " p] > "/dev/stdout"
			titles = titles sprintf(" %s,%dp", C[j], p); cols = cols " " j
			k = 0; for (q = 1; q <= p; q++) if (q in n) k++
			pts = pts " " k; lru = lru " " (C[j] ~ /^classic-/ ? 1 : 2)
		}
		print titles > "/dev/stderr"; print cols > "/dev/stderr"; print pts > "/dev/stderr"; print lru > "/dev/stderr"
	}' "$dir/plot-time.dat" > "$dir/plot-sweep.dat" 2> "$dir/plot-sweep.keys"
# One panel per LRU in the run (the fourth line of the keys: 1 classic, 2 MGLRU).
lrus=$(sed -n 4p "$dir/plot-sweep.keys" | tr ' ' '\n' | grep . | sort -u | paste -sd' ')
nlru=$(echo $lrus | wc -w)
if [ -s "$dir/plot-sweep.dat" ]; then
	draw sweep.png <<GNUPLOT
set terminal pngcairo size $((200 + 600 * nlru)),800 font ",11"
set output "sweep.png"
set multiplot layout 1,$nlru title "Overcommit sweep: median time / serial floor (bars: min-max; x at 0.1: no run finished)"
set xlabel "memory the processes need together / RAM"
set ylabel "time / serial floor"
set key below font ",9"
set grid
set xrange [1.1:2.6]
set yrange [0:*]
T = system("sed -n 1p plot-sweep.keys")
C = system("sed -n 2p plot-sweep.keys")
P = system("sed -n 3p plot-sweep.keys")
L = system("sed -n 4p plot-sweep.keys")
do for [w in "$lrus"] {
	lru = int(w)
	set title (lru == 1 ? "classic LRU" : "MGLRU")
	plot for [b = 1:words(T)] "plot-sweep.dat" index (b - 1) using 1:(int(word(L, b)) == lru ? \$2 : NaN):3:4 \
		with yerrorlines lc int(word(C, b)) pt int(word(P, b)) + 4 dt int(word(P, b)) lw 2 \
		title (int(word(L, b)) == lru ? word(T, b) : ""), \
	     for [b = 1:words(T)] "plot-sweep.dat" index (b - 1) using 1:(int(word(L, b)) == lru && \$5 > 0 ? 0.1 : NaN) \
		with points lc int(word(C, b)) pt 2 ps 2 lw 2 notitle, \
	     1 with lines dt 2 lw 2 lc rgb "black" title "serial floor", \
	     1.3 with lines dt 3 lw 1 lc rgb "red" title "target with the token"
}
unset multiplot
GNUPLOT
fi

# timeline S TITLE: from the first repetition of scenario S, one data file
# per configuration with a block per process (gnuplot 'index': seconds, MB,
# holder) and its names, then DIR/timeline-S.png with a panel per
# configuration.  The first repetition is the lowest-numbered console log
# (a part of a full run holds only its own).
timeline() {
	tl=
	r1=$(ls "$dir"/raw/rep*.log 2>/dev/null | sed 's/.*rep\([0-9]*\)\.log$/\1/' | sort -n | head -n 1)
	[ -n "$r1" ] || return 0
	for c in $configs; do
		tr -d '\r' < "$dir/raw/rep$r1.log" | awk -v want="#### timeline s=$1 c=$c r=$r1" -v names="$dir/timeline-$1-$c.names" '
			$0 == want { on = 1; next }
			on && /^#### timeline-end/ { on = 0; next }
			on { if (!($2 in id)) { id[$2] = ++n; name[n] = $3 } line[id[$2]] = line[id[$2]] $1 " " $4 " " $5 "\n" }
			END { for (i = 1; i <= n; i++) { printf "# %s\n%s\n\n", name[i], line[i]; printf "%s-%d ", name[i], i > names } }' \
			> "$dir/timeline-$1-$c.dat"
		if [ -s "$dir/timeline-$1-$c.dat" ]; then
			tl="$tl $c"
		else
			rm -f "$dir/timeline-$1-$c.dat" "$dir/timeline-$1-$c.names"
		fi
	done
	[ -n "$tl" ] || return 0
	draw "timeline-$1.png" <<GNUPLOT
set terminal pngcairo size 1000,$((250 * $(echo $tl | wc -w) + 60)) font ",10"
set output "timeline-$1.png"
set multiplot layout $(echo $tl | wc -w),1 title "$2, first repetition: resident memory per process; black dots: it holds the swap token"
set xlabel "time (s)"
set ylabel "resident (MB)"
set key outside right
set yrange [0:*]
L = "$tl"
do for [i = 1:words(L)] {
	f = "timeline-$1-" . word(L, i) . ".dat"
	N = system("cat timeline-$1-" . word(L, i) . ".names")
	set title word(L, i)
	plot for [k = 0:words(N) - 1] f index k using 1:2 with lines lw 2 title word(N, k + 1), \
	     for [k = 0:words(N) - 1] f index k using 1:(\$3 > 0 ? \$2 : 1/0) with points pt 7 ps 0.6 lc rgb "black" \
	     title (k == 0 ? "holds the token" : "")
}
unset multiplot
GNUPLOT
}
timeline qs2 "Headline (qs2)"
timeline hogint "hog + interactive"
echo "bench: wrote $md, $tsv and the plots $(cd "$dir" && ls *.png | tr '\n' ' ')"

# Each scenario must have a run per configuration in each repetition that
# DIR/plan lists for it (every repetition without a plan).
status=0
plan=
[ ! -f "$dir/plan" ] || plan=$(awk '{ printf "%s %d ", $1, NF - 1 }' "$dir/plan")
awk -F '\t' -v reps="$(ls "$dir"/raw/rep*.log | wc -l)" -v scenarios="$scenarios" -v configs="$configs" -v plan="$plan" '
	NR > 1 { n[$1, $2]++; if ($4 != 0 && $10 == 0) bad++ }
	END { ns = split(scenarios, S, " "); nc = split(configs, C, " ")
	      np = split(plan, P, " "); for (i = 1; i < np; i += 2) want[P[i]] = P[i + 1]
	      for (i = 1; i <= ns; i++) for (j = 1; j <= nc; j++)
		if (n[S[i], C[j]] < (S[i] in want ? want[S[i]] : reps)) { missing++ }
	      if (bad || missing) { printf "bench: %d runs failed without an OOM kill, %d run sets incomplete\n", bad, missing; exit 1 } }' "$tsv" || status=1
[ -z "$plotfail" ] || { echo "bench: gnuplot failed on:$plotfail" >&2; status=2; }
exit $status
