#!/bin/sh
# The full run of the series, made in parts (docs/bench/full/README.md):
# every part runs the same configurations, one repetition per part, and is
# kept whole in docs/bench/full/parts/PART so that the merge does not
# depend on a build directory.
#
# Usage: bench-full.sh list | run PART | keep PART | merge [DIR]
#   list       the parts of the plan, done or not
#   run PART   run one part (GROUP-rN: GROUP sweep, main, sqlite2 or zram,
#              N the repetition, 1-5) into build/full/PART, then keep it in
#              docs/bench/full/parts/PART; refused if that part is kept
#              already or the series is not the one of the kept parts
#   keep PART  keep build/full/PART, a part run by hand with host/bench.sh
#              (the same configurations, --reps 1 --first-rep N)
#   merge      merge the kept parts with host/bench-merge.sh, one report
#              per swap device (a merge refuses to mix guests): the zram
#              parts into DIR/zram, all others into DIR/disk (default DIR
#              build/full)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# BENCH_FULL_PARTS: another directory of parts (the harness's fixtures).
parts=${BENCH_FULL_PARTS:-$top/docs/bench/full/parts}
configs="classic-off classic-on mglru-off mglru-on mglru-ttl mglru-off2 classic-psi mglru-psi"
groups="sweep main sqlite2 zram"
reps=5
zram_scenarios="qs2 sweep-2-120 sweep-4-120 sweep-4-150 sweep-8-120 sweep-8-150"
die() { echo "bench-full: $*" >&2; exit 2; }
args() {
	case $1 in
	sweep) echo "--sweep" ;;
	main) echo "--scenarios 'qs2 qs4 qs8 file stream hogint huge sort2 fit fitfile faults'" ;;
	sqlite2) echo "--scenarios sqlite2" ;;
	# The headline and the sweep's points that the kernel without the
	# token finishes on zram (docs/bench/full/README.md: at 2 x RAM and
	# above it is OOM-killed, the compressed store filling the guest).
	zram) echo "--swap zram --scenarios '$zram_scenarios'" ;;
	esac
}
series() { ls "$top"/patches/*.patch | grep -v '/0000-' | xargs cat | sha256sum | cut -c1-12; }
kept_series() { sed -n 's/^commit: .*patches\/: \([0-9a-f]*\).*/\1/p' "$1/setup"; }

# check_part PART: a part of the plan, not kept yet.
check_part() {
	g=${1%-r*} r=${1##*-r}
	case " $groups " in *" $g "*) ;; *) die "unknown part '$1' (GROUP-rN, GROUP one of: $groups)" ;; esac
	case $r in [1-9]) [ "$r" -le $reps ] || die "part '$1': the repetition must be 1-$reps" ;;
	*) die "part '$1': the repetition must be 1-$reps" ;; esac
	[ ! -e "$parts/$1" ] || die "$1 is kept already in docs/bench/full/parts/$1"
}
# keep PART R: copy build/full/PART (repetition R) into docs/bench/full/parts
# and write its report there.
keep() {
	out=$top/build/full/$1
	[ -s "$out/raw/rep$2.log" ] || die "$1: no console log in $out/raw, nothing kept"
	mkdir -p "$parts/$1/raw"
	cp "$out/setup" "$out/configs" "$out/plan" "$out/scenarios" "$parts/$1/"
	cp "$out/raw/rep$2.log" "$parts/$1/raw/"
	sh "$top/host/bench-report.sh" "$parts/$1" > /dev/null || true
	rm -f "$parts/$1"/plot-* "$parts/$1"/timeline-*.dat "$parts/$1"/timeline-*.names
	echo "bench-full: kept $1 in docs/bench/full/parts/$1"
}

case ${1:-} in
list)
	for g in $groups; do
		for r in $(seq 1 $reps); do
			p=$g-r$r
			if [ -f "$parts/$p/setup" ]; then
				echo "$p: done ($(sed -n 's/^date: //p' "$parts/$p/setup"), series $(kept_series "$parts/$p"))"
			else
				echo "$p: to do"
			fi
		done
	done ;;
run)
	[ $# -eq 2 ] || die "usage: bench-full.sh run PART (for example sweep-r2)"
	p=$2 g=${2%-r*} r=${2##*-r}
	check_part "$p"
	want=$(series)
	for k in "$parts"/*/setup; do
		[ -f "$k" ] || continue
		[ "$(kept_series "${k%/setup}")" = "$want" ] ||
			die "the series in patches/ ($want) is not the one of the kept part ${k%/setup} ($(kept_series "${k%/setup}")): its parts cannot be merged"
	done
	git -C "$top" diff --quiet HEAD -- patches ||
		die "patches/ has uncommitted changes: a part must record the series it ran"
	eval "set -- $(args "$g")"
	# A failed run is data (the report lists it): the part is kept
	# whatever the bench says; a guest that stopped early leaves runs "not
	# run" in the report, and the part may then be removed and run again.
	# From the top, with a relative --out: the part's setup records the
	# command, which must not name this machine's paths.
	(cd "$top" && sh host/bench.sh "$@" --configs "$configs" --reps 1 --first-rep "$r" --out "build/full/$p") || rc=$?
	keep "$p" "$r"
	[ "${rc:-0}" = 0 ] || echo "bench-full: $p: the bench exited ${rc:-0}, see its report (failed or missing runs)" >&2
	exit "${rc:-0}" ;;
keep)
	[ $# -eq 2 ] || die "usage: bench-full.sh keep PART"
	p=$2
	check_part "$p"
	[ "$(cat "$top/build/full/$p/configs" 2>/dev/null)" = "$configs" ] ||
		die "build/full/$p: not run with the full run's configurations ($configs)"
	[ "$(kept_series "$top/build/full/$p")" = "$(series)" ] ||
		die "build/full/$p: made from another series than patches/ holds"
	# A finished run wrote its report after its last console line.
	[ -f "$top/build/full/$p/results.md" ] &&
		[ ! "$top/build/full/$p/raw/rep${p##*-r}.log" -nt "$top/build/full/$p/results.md" ] ||
		die "build/full/$p: not finished (no report newer than its console log)"
	keep "$p" "${p##*-r}" ;;
merge)
	[ $# -le 2 ] || die "usage: bench-full.sh merge [DIR]"
	dir=${2:-$top/build/full}
	disk=$(ls -d "$parts"/*/ 2>/dev/null | grep -v '/zram-r[0-9]*/$' || true)
	zram=$(ls -d "$parts"/zram-r*/ 2>/dev/null || true)
	[ -n "$disk$zram" ] || die "no part is kept yet"
	rc=0
	# shellcheck disable=SC2086
	[ -z "$disk" ] || sh "$top/host/bench-merge.sh" "$dir/disk" $disk || rc=$?
	# shellcheck disable=SC2086
	[ -z "$zram" ] || sh "$top/host/bench-merge.sh" "$dir/zram" $zram || rc=$?
	exit $rc ;;
*)
	die "usage: bench-full.sh list | run PART | keep PART | merge [DIR]" ;;
esac
