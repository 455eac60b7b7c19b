#!/bin/sh
# The README's tables from a bench report: bench-summary.sh DIR reads
# DIR/results.md (host/bench-report.sh's) and prints, in markdown,
#  1. time / serial floor per scenario and configuration (the medians of
#     the report's scenario tables; "no finish" where no run finished);
#  2. the paired ratios of the token against the kernel without it and
#     against the userspace peer, and the A/A pair, each as
#     "median (95% interval), faster/slower pairs", per measure.
# It only copies what the report computed: every figure in the README's
# tables is a line of results.md, which says how it was computed.
set -eu

die() { echo "bench-summary: $*" >&2; exit 2; }
[ $# = 1 ] || die "usage: bench-summary.sh DIR (a bench report's directory)"
md=$1/results.md
[ -s "$md" ] || die "no report $md"

awk -F' *[|] *' '
BEGIN { split("classic-off classic-on classic-psi mglru-off mglru-on mglru-psi mglru-off2 mglru-ttl", c, " ") }
function cell(k) { return (k in v) ? v[k] : "-" }
/^## / {
	s = $0; sub(/^## /, "", s)
	scen = (s ~ /^[a-z0-9-]+: /) ? substr(s, 1, index(s, ":") - 1) : ""
	paired = (s == "Paired comparisons")
	if (scen != "") order[++n] = scen
	next
}
scen != "" && /^Serial floor: / { split($0, w, " "); floor[scen] = w[3] }
# The first table of a section, and its "x floor" column if it has one.
scen != "" && /^[|] configuration [|]/ {
	tables[scen]++
	xcol = 0
	for (i = 2; i < NF; i++)
		if ($i == "x floor") xcol = i
}
scen != "" && tables[scen] == 1 && /^[|] [a-z]+-[a-z0-9]+ [|]/ {
	v[scen SUBSEP $2] = ($4 ~ /^no finish/) ? "no finish" : xcol ? $xcol : "-"
}
paired && /^[|] [a-z0-9-]+ [|] / {
	split($3, xy, " vs ")
	y = xy[2]; sub(/ \(A\/A.*/, "", y)
	key = $2 SUBSEP xy[1] SUBSEP y SUBSEP $4
	fs = $8; gsub(/ /, "", fs)
	p[key] = $6 " (" $7 "), " fs
	if (!(($2 SUBSEP $4) in seen)) { seen[$2 SUBSEP $4] = 1; meas[$2] = meas[$2] "\t" $4 }
}
function pr(s, x, y, m,    key) { key = s SUBSEP x SUBSEP y SUBSEP m; return (key in p) ? p[key] : "-" }
END {
	if (!n) { print "bench-summary: no scenario in the report" > "/dev/stderr"; exit 2 }
	print "| scenario | floor s | classic off | classic on | classic peer | MGLRU off | MGLRU on | MGLRU peer | MGLRU off (A/A) | MGLRU `min_ttl_ms` |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= n; i++) {
		s = order[i]
		if (!(s in floor))
			continue	# no serial floor (hogint: latencies)
		printf "| `%s` | %s", s, floor[s]
		for (j = 1; j <= 8; j++)
			printf " | %s", cell(s SUBSEP c[j])
		print " |"
	}
	print ""
	print "| scenario | measure | classic: on / off | MGLRU: on / off | classic: on / peer | MGLRU: on / peer | A/A: MGLRU off / off |"
	print "| --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= n; i++) {
		s = order[i]
		k = split(substr(meas[s], 2), ms, "\t")
		for (j = 1; j <= k; j++) {
			m = ms[j]
			printf "| `%s` | %s | %s | %s | %s | %s | %s |\n", s, m,
				pr(s, "classic-on", "classic-off", m), pr(s, "mglru-on", "mglru-off", m),
				pr(s, "classic-on", "classic-psi", m), pr(s, "mglru-on", "mglru-psi", m),
				pr(s, "mglru-off2", "mglru-off", m)
		}
	}
}' "$md"
