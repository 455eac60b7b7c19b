#!/bin/sh
# Merge the parts of a bench run made in several sessions into one report.
# Each PART is a results directory of host/bench.sh (--out), made from the
# same series (the hash of patches/ in its setup), kernel, guest and order,
# with the same configurations; a scenario may come in several parts only
# with repetitions of different numbers (bench.sh --first-rep).  OUT gets
# the parts' console logs, repetition by repetition (OUT/raw/repN.log holds
# every part's repN.log, one after the other), their scenarios, plans and
# setups, and host/bench-report.sh then writes its report there.
# Usage: bench-merge.sh OUT PART...
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "bench-merge: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: bench-merge.sh OUT PART..."
out=$1
shift
for p in "$@"; do
	for f in setup scenarios configs plan; do
		[ -f "$p/$f" ] || die "$p: no $f (not a results directory of host/bench.sh, or an older one)"
	done
	ls "$p"/raw/rep*.log > /dev/null 2>&1 || die "$p: no console logs in $p/raw"
	[ "$(realpath "$p")" != "$(realpath -m "$out")" ] || die "$p: OUT must not be one of the parts"
done

# What must match: the series and its kernel, the guest, the order's design
# and the configurations.  The project's commit may differ (the harness can
# change between parts); it is listed.
field() { sed -n "s/^$1: //p" "$2/setup"; }
series() { field commit "$1" | sed -n 's/.*, \(patches\/: .*\)$/\1/p'; }
first=$1
for p in "$@"; do
	for what in kernel guest order; do
		[ "$(field $what "$p")" = "$(field $what "$first")" ] ||
			die "$p: $what differs from $first's: '$(field $what "$p")' against '$(field $what "$first")'"
	done
	[ -n "$(series "$p")" ] || die "$p: its setup does not record the series (patches/ hash)"
	[ "$(series "$p")" = "$(series "$first")" ] ||
		die "$p: made from another series ($(series "$p")) than $first ($(series "$first"))"
	[ "$(cat "$p/configs")" = "$(cat "$first/configs")" ] ||
		die "$p: configurations '$(cat "$p/configs")' differ from $first's '$(cat "$first/configs")'"
done

# A scenario in several parts: their repetitions must not overlap.
clash=$(for p in "$@"; do awk '{ for (i = 2; i <= NF; i++) print $1, $i }' "$p/plan"; done | sort | uniq -d | head -n 1)
[ -z "$clash" ] || die "repetition $(echo "$clash" | cut -d' ' -f2) of scenario $(echo "$clash" | cut -d' ' -f1) is in two parts (give the later part --first-rep)"

rm -rf "$out"
mkdir -p "$out/raw"
cp "$first/configs" "$out/configs"
for p in "$@"; do cat "$p/scenarios"; done | tr ' ' '\n' | awk 'NF && !seen[$1]++' | paste -sd' ' > "$out/scenarios"
for p in "$@"; do cat "$p/plan"; done |
	awk '{ if (!($1 in r)) o[++n] = $1; for (i = 2; i <= NF; i++) r[$1] = r[$1] " " $i }
	     END { for (i = 1; i <= n; i++) print o[i] r[o[i]] }' > "$out/plan"
{
	grep -v '^command:\|^date:\|^commit:' "$first/setup"
	echo "merged from $# parts (host/bench-merge.sh):"
	for p in "$@"; do
		echo "  part $(basename "$p"): $(field command "$p"); $(field date "$p"); commit $(field commit "$p")"
	done
	echo "commit: $(field commit "$first" | sed 's/^[^,]*, //;s/^/(parts above), /')"
} > "$out/setup"
for p in "$@"; do
	for f in "$p"/raw/rep*.log; do
		cat "$f" >> "$out/raw/${f##*/}"
	done
done
echo "bench-merge: $# parts, scenarios: $(cat "$out/scenarios")"
exec sh "$top/host/bench-report.sh" "$out"
