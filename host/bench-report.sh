#!/bin/sh
# Turn the console logs of host/bench.sh (DIR/raw/rep*.log) into
# DIR/results.tsv (one line per run), DIR/results.md (the tables and the
# verdict on the targets, also printed) and PNG plots: DIR/time.png (every
# scenario relative to its serial floor), DIR/headline.png (the qs2 times)
# and DIR/timeline-qs2.png, DIR/timeline-hogint.png (resident memory of each
# process, token holder marked).  Exit status 1 if a run is missing or failed
# for another reason than an OOM kill (OOM kills are results: reported).
# Usage: bench-report.sh DIR
set -eu

dir=${1:?usage: bench-report.sh DIR}
scenarios=$(cat "$dir/scenarios") configs=$(cat "$dir/configs")
tsv=$dir/results.tsv md=$dir/results.md

# One line per run, fields in a fixed order.
cols="s c r rc time majflt pswpin pswpout psi_full_ms oom taken p50 p99 hog small big"
{
	echo "scenario config rep rc time majflt pswpin pswpout psi_full_ms oom taken p50_ms p99_ms hog_MBps small_s big_s" | tr ' ' '\t'
	cat "$dir"/raw/rep*.log | tr -d '\r' | awk -v cols="$cols" '
		$1 == "####" && $2 == "bench" {
			delete v
			for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			n = split(cols, c, " ")
			for (i = 1; i <= n; i++) printf "%s%s", (c[i] in v ? v[c[i]] : "-"), i < n ? "\t" : "\n"
		}'
} > "$tsv"

rm -f "$dir"/*.png "$dir"/timeline-*

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

summary=$(awk -F '\t' -v scenarios="$scenarios" -v configs="$configs" -v setup="$(cat "$dir/setup")" "$stats_awk"'
function base(c) { if (c ~ /-off$/ || c == "floor") return ""; sub(/-[a-z]+$/, "-off", c); return c }
function add(key, val) { if (val != "-" && val != "") L[key] = L[key] " " val }
function ratio(a, b) { return (b + 0 > 0 && a != "nan" && b != "nan") ? sprintf("%.2f", a / b) : "-" }
NR == 1 { next }
{
	s = $1; c = $2; r = $3
	if (c == "floor") {
		fl[s, r] += $5; flrep[s] = flrep[s] " " r
		add(s SUBSEP "floor" SUBSEP "p50", $12); add(s SUBSEP "floor" SUBSEP "p99", $13)
		if ($4 != 0) bad[s, "floor"]++
		next
	}
	runs[s, c]++; oom[s, c] += $10
	# A run that failed (a process OOM-killed, a wrong result) has no
	# meaningful time: it is counted, not measured.
	if ($4 != 0) { bad[s, c]++; next }
	add(s SUBSEP c SUBSEP "time", $5); add(s SUBSEP c SUBSEP "majflt", $6)
	add(s SUBSEP c SUBSEP "pswpin", $7); add(s SUBSEP c SUBSEP "pswpout", $8)
	add(s SUBSEP c SUBSEP "psi", $9 / 1000)
	add(s SUBSEP c SUBSEP "taken", $11); add(s SUBSEP c SUBSEP "p50", $12)
	add(s SUBSEP c SUBSEP "p99", $13); add(s SUBSEP c SUBSEP "hog", $14)
	add(s SUBSEP c SUBSEP "small", $15); add(s SUBSEP c SUBSEP "big", $16)
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
	title["huge"] = "qsbench, one big process (0.8 x RAM) and three small ones (0.25 x RAM each)"
	title["cg2"] = "two memory cgroups limited to 0.35 x RAM each, qsbench with 2 processes in each, 1.2 x its limit"
	print "# make bench results\n"
	n = split(setup, SU, "\n"); for (i = 1; i <= n; i++) print "    " SU[i]
	print "\nMedian of the repetitions with (min-max); every run starts from dropped caches"
	print "and empty swap. *x floor*: time / serial floor (each job alone, times summed)."
	print "*vs off*: median / median of the same LRU with the token off (mglru-ttl: vs"
	print "mglru-off). Faults and swap are counts per run (pages), PSI is memory *full* time."
	print "A failed run (a process OOM-killed or a wrong result) is counted in *runs* and"
	print "*OOM kills* but left out of the medians.\n"
	for (i = 1; i <= ns; i++) {
		s = S[i]
		nf = split(flrep[s], FR, " "); fls = ""
		for (j = 1; j <= nf; j++) if (!seen[s, FR[j]]++) fls = fls " " fl[s, FR[j]]
		floor[s] = median(fls)
		printf "## %s: %s\n\n", s, title[s]
		if (s == "hogint") {
			printf "Interactive process alone: p50 %s ms, p99 %s ms.\n\n", median(L[s, "floor", "p50"]), median(L[s, "floor", "p99"])
			floor50[s] = median(L[s, "floor", "p50"]); floor99[s] = median(L[s, "floor", "p99"])
			print "| configuration | runs | p50 ms | p99 ms (min-max) | p99 vs off | hog MB/s | major faults | PSI full s | OOM kills | handoffs |"
			print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		} else {
			printf "Serial floor: %.1f s.\n\n", floor[s]
			print "| configuration | runs | time s (min-max) | x floor | vs off | major faults | swap-ins | swap-outs | PSI full s | OOM kills | handoffs |"
			print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		}
		for (j = 1; j <= nc; j++) {
			c = C[j]
			t = median(L[s, c, "time"]); med[s, c] = t
			p50[s, c] = median(L[s, c, "p50"]); p99[s, c] = median(L[s, c, "p99"])
			b = base(c)
			note = bad[s, c] ? sprintf(" (%d failed)", bad[s, c]) : ""
			if (L[s, c, s == "hogint" ? "p99" : "time"] == "") {
				printf "| %s | %d%s |%s %d | - |\n", c, runs[s, c], note,
					s == "hogint" ? " - | - | - | - | - | - |" : " - | - | - | - | - | - | - |", oom[s, c]
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
		if (s != "huge") continue
		print "When each kind of process finished (seconds after the start, median (min-max)):\n"
		print "| configuration | last small one done | vs off | big one done | vs off |"
		print "| --- | --- | --- | --- | --- |"
		for (j = 1; j <= nc; j++) {
			c = C[j]; b = base(c)
			sm[c] = median(L[s, c, "small"]); bg[c] = median(L[s, c, "big"])
			if (L[s, c, "small"] == "") { printf "| %s | - | - | - | - |\n", c; continue }
			printf "| %s | %.1f (%.1f-%.1f) | %s | %.1f (%.1f-%.1f) | %s |\n", c,
				sm[c], minmax(L[s, c, "small"], "min"), minmax(L[s, c, "small"], "max"),
				b ? ratio(sm[c], median(L[s, b, "small"])) : "-",
				bg[c], minmax(L[s, c, "big"], "min"), minmax(L[s, c, "big"], "max"),
				b ? ratio(bg[c], median(L[s, b, "big"])) : "-"
		}
		print ""
	}
	# The targets of the bench issue, judged on these numbers.
	print "## Targets\n"
	if ("qs2" SUBSEP "mglru-off" in runs || "qs2" SUBSEP "classic-off" in runs) {
		for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/) {
			c = C[j]; x = med["qs2", c] / floor["qs2"]
			printf "- headline, %s: %.2f x serial floor (target <= 1.25): %s\n", c, x, x <= 1.25 ? "met" : "MISSED"
			for (k = 1; k <= nc; k++) if (C[k] ~ /^mglru-(off|ttl)$/) {
				if (med["qs2", C[k]] == "nan")
					printf "- headline, %s vs %s: %.1f s; %s finished no run (OOM kills: %d)\n", c, C[k],
						med["qs2", c], C[k], oom["qs2", C[k]]
				else
					printf "- headline, %s vs %s: %.1f s vs %.1f s: %s\n", c, C[k], med["qs2", c], med["qs2", C[k]],
						med["qs2", c] < med["qs2", C[k]] ? "faster (met)" : "NOT faster (missed)"
			}
		}
	}
	for (i = 1; i <= ns; i++) for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/) {
		s = S[i]; c = C[j]; b = base(c)
		if (!((s, b) in runs)) continue
		compared++
		if (s == "hogint") {
			x = p99[s, c] / p99[s, b]; y = p50[s, c] / p50[s, b]
			if (y > x) x = y
			what = "p50/p99 latency"
		} else {
			x = med[s, c] / med[s, b]; what = "time"
		}
		if (x > 1.02) slow = slow sprintf("\n  - %s, %s: %s %.2f x token off", s, c, what, x)
	}
	if (compared)
		printf "- no scenario more than 2%% slower with the token: %s\n", slow ? "MISSED" slow : "met"
	else
		print "- none comparable: this run has no token-off configuration"
	# The size limit (issue 6): the small processes of "huge" finish much
	# sooner (at most 0.8 x token off), the big one no later (at most 1.02 x).
	for (j = 1; j <= nc; j++) if (("huge", C[j]) in runs && C[j] ~ /-(on|nolimit)$/) {
		c = C[j]; b = base(c)
		if (!(("huge", b) in runs) || sm[c] == "nan" || sm[b] == "nan") continue
		x = sm[c] / sm[b]; y = bg[c] / bg[b]
		printf "- huge, %s: small ones %.2f x token off (target <= 0.8), big one %.2f x (target <= 1.02): %s\n",
			c, x, y, x <= 0.8 && y <= 1.02 ? "met" : "MISSED"
	}
	for (j = 1; j <= nc; j++) if (C[j] ~ /-on$/ && (" " configs " ") ~ (" " base(C[j]) " ")) {
		c = C[j]; b = base(c); kon = koff = 0
		for (i = 1; i <= ns; i++) { kon += oom[S[i], c]; koff += oom[S[i], b] }
		printf "- OOM kills, %s: %d, %s: %d: %s\n", c, kon, b, koff, kon <= koff ? "no more with the token (met)" : "MORE with the token (missed)"
	}
}' "$tsv")
echo "$summary" > "$md"
echo "$summary"

# Plot data: per scenario, per configuration median/min/max relative to the
# floor (hogint: p99 latency relative to the interactive process alone).
awk -F '\t' -v scenarios="$scenarios" -v configs="$configs" "$stats_awk"'
NR == 1 { next }
$4 != 0 { next }	# failed runs have no comparable time
{ col = $1 == "hogint" ? $13 : $5 }
$2 == "floor" { if ($1 == "hogint") f[$1] = f[$1] " " col; else fs[$1, $3] += col; next }
{ v[$1, $2] = v[$1, $2] " " col }
END {
	ns = split(scenarios, S, " "); nc = split(configs, C, " ")
	for (i = 1; i <= ns; i++) {
		s = S[i]
		if (s != "hogint") for (k in fs) { split(k, kk, SUBSEP); if (kk[1] == s) f[s] = f[s] " " fs[k] }
		fl = median(f[s])
		printf "%s", s
		for (j = 1; j <= nc; j++) {
			m = median(v[s, C[j]])
			if (m == "nan" || fl == "nan" || fl == 0) printf " NaN NaN NaN"
			else printf " %.3f %.3f %.3f", m / fl, minmax(v[s, C[j]], "min") / fl,
				    minmax(v[s, C[j]], "max") / fl
		}
		printf "\n"
	}
}' "$tsv" > "$dir/plot-time.dat"

awk -F '\t' 'NR > 1 && $1 == "qs2" && $2 != "floor" { print $2, $5, $4 == 0 }' "$tsv" > "$dir/plot-headline.dat"
hfloor=$(awk '/^## qs2:/ { q = 1 } q && /^Serial floor:/ { print $3; exit }' "$md")

cd "$dir"
gnuplot <<GNUPLOT
set terminal pngcairo size 1000,560 font ",11"
set output "time.png"
set title "make bench: median time relative to the serial floor (bars: min-max)"
set ylabel "time / serial floor, log scale   (hogint: p99 latency / alone)"
set logscale y
set xlabel "scenario"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set boxwidth 0.9
set key top left
set grid ytics
configs = "$configs"
plot for [i = 1:words(configs)] "plot-time.dat" using (column(3 * i - 1)):(column(3 * i)):(column(3 * i + 1)):xtic(1) title word(configs, i), \
     1 with lines dt 2 lw 2 lc rgb "black" title "serial floor"
GNUPLOT
case " $scenarios " in *" qs2 "*) ;; *) hfloor= ;; esac
[ -z "$hfloor" ] || gnuplot <<GNUPLOT
set terminal pngcairo size 1000,560 font ",11"
set output "headline.png"
set title "Headline: qsbench, 2 processes, 1.2 x RAM (each point one run)"
set ylabel "wall time (s)"
set xlabel "configuration"
set yrange [0:*]
set xtics ($(i=0; for c in $configs; do printf '"%s" %d, ' "$c" $i; i=$((i + 1)); done | sed 's/, $//'))
set xrange [-0.5:$(($(echo $configs | wc -w) - 1)).5]
idx(c) = $(i=0; for c in $configs; do printf '(c eq "%s") ? %d : ' "$c" $i; i=$((i + 1)); done) -1
plot "plot-headline.dat" using (idx(strcol(1))):(\$3 > 0 ? \$2 : 1/0) with points pt 7 ps 1.5 title "run", \
     "plot-headline.dat" using (idx(strcol(1))):(\$3 > 0 ? 1/0 : \$2) with points pt 2 ps 1.5 lw 2 title "failed run (OOM kill)", \
     $hfloor with lines dt 2 lw 2 lc rgb "black" title sprintf("serial floor %.1f s", $hfloor)
GNUPLOT
cd - >/dev/null

# timeline S TITLE: from the first repetition of scenario S, one data file
# per configuration with a block per process (gnuplot 'index': seconds, MB,
# holder) and its names, then DIR/timeline-S.png with a panel per
# configuration.
timeline() {
	tl=
	for c in $configs; do
		tr -d '\r' < "$dir/raw/rep1.log" | awk -v want="#### timeline s=$1 c=$c r=1" -v names="$dir/timeline-$1-$c.names" '
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
	(cd "$dir" && gnuplot) <<GNUPLOT
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

awk -F '\t' -v reps="$(ls "$dir"/raw/rep*.log | wc -l)" -v scenarios="$scenarios" -v configs="$configs" '
	NR > 1 { n[$1, $2]++; if ($4 != 0 && $10 == 0) bad++ }
	END { ns = split(scenarios, S, " "); nc = split(configs, C, " ")
	      for (i = 1; i <= ns; i++) for (j = 1; j <= nc; j++) if (n[S[i], C[j]] < reps) { missing++ }
	      if (bad || missing) { printf "bench: %d runs failed without an OOM kill, %d run sets incomplete\n", bad, missing; exit 1 } }' "$tsv"
