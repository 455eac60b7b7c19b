#!/bin/sh
# make bench: does the swap token make a thrashing guest finish sooner?
# Boots one fresh guest per repetition; inside it, guest/jobs/bench runs
# every scenario alone (serial floor, always under mglru-off) and contended
# under each configuration, interleaved, in the order of a Williams design
# (or with --shuffle shuffled) per repetition.  Then
# host/bench-report.sh turns the console logs into results.tsv, a Markdown
# table (also printed) and PNG plots in the output directory.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
all_scenarios="qs2 qs4 qs8 file stream hogint huge cg2 sort2 sqlite2 fit fitfile faults"
all_configs="classic-off classic-on mglru-off mglru-on mglru-ttl"
# Also known, not run by default: the token without its size limit; the
# token off a second time, as a separate run (the A/A comparison that
# measures the noise of a run; --full adds mglru-off2); the userspace peer
# (X-psi: the token off, guest/workloads/psifreeze freezing all but one of
# the job's processes in turn while memory is full-stalled); and two
# experiments that only the kernel with patches/experiments has
# (--experiments): the priority policy of 2.6.20 (X-prio), and other
# processes' faults waiting 20 ms while the holder pages in (X-wait,
# vm.swap_token_wait_ms).  X-tS is the token with vm.swap_token_timeout_ms
# set to S seconds (for example classic-t15): the timeout's default against
# shorter ones.
# The overcommit sweep (--sweep): qsbench over 1.2 to 2.5 x RAM in total,
# split over 2, 4 and 8 processes, where each is at most 70% of RAM (below
# the token's size limit, 75%, so that the token may serve each of them):
# sweep-N-PCT is N processes, PCT% of RAM together.
sweep_scenarios="sweep-2-120 sweep-4-120 sweep-4-150 sweep-4-200 sweep-4-250 sweep-8-120 sweep-8-150 sweep-8-200 sweep-8-250"
more_configs="classic-nolimit mglru-nolimit classic-psi mglru-psi classic-prio mglru-prio classic-wait mglru-wait classic-off2 mglru-off2"
usage() {
	cat <<USAGE
usage: $0 [options]
  --full              every scenario ($all_scenarios),
                      and an A/A run: mglru-off2 (or X-off2 for the first
                      X-off configuration) added unless an -off2 is given
  --scenarios LIST    scenarios to run (default: qs2, the headline);
                      sweep-N-PCT is qsbench with N processes over PCT% of
                      RAM in total (N 2-16, PCT 100-400, each process at
                      most 70% of RAM)
  --sweep             the overcommit sweep: $sweep_scenarios
                      (added to --scenarios, or alone); sweep.png plots it
  --configs LIST      configurations (default: $all_configs;
                      also known: $more_configs,
                      and X-tS: the token with a timeout of S seconds)
  --reps N            repetitions, each in a fresh guest (default 3; at
                      least 5 for a verdict on a target; for a fully
                      balanced order a multiple of the rows of the
                      Williams design: the number of configurations if
                      it is even, twice that if it is odd)
  --first-rep N       number the repetitions from N (default 1): a later
                      part of a run made in parts (host/bench-merge.sh)
                      goes on where the earlier one stopped, in the
                      Williams design too
  --shuffle SEED      shuffle the order of the configurations in each
                      repetition, seeded by SEED (a number) and the
                      repetition (default: a Williams design, repetition
                      r takes row (r - 1) mod rows of a Latin square in
                      which each configuration runs right after each
                      other one equally often)
  --swap KIND         disk or zram (default disk)
  --mem MB            guest RAM (default 256)
  --out DIR           results directory (default build/bench)
  --cgroup            run every job inside a memory cgroup without a limit
                      (not with cg2, which makes its own)
  --experiments       boot the kernel with patches/experiments applied on
                      top of the series (host/experiments.sh kernel builds
                      it), for every configuration; needed by X-prio
                      and X-wait
USAGE
	exit 2
}
die() { echo "bench: $*" >&2; exit 2; }
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

args="$*"
scenarios=qs2 configs=$all_configs reps=3 first=1 swap=disk mem=256 out=$top/build/bench cgroup= full= seed=
experiments= sweep= given=
while [ $# -gt 0 ]; do
	opt=$1
	case $opt in
	--full) scenarios=$all_scenarios full=1; shift; continue ;;
	--sweep) sweep=1; shift; continue ;;
	--cgroup) cgroup=-g; shift; continue ;;
	--experiments) experiments=1; shift; continue ;;
	-h|--help) usage ;;
	--*) [ $# -ge 2 ] || die "$opt needs a value" ;;
	*) echo "bench: unknown argument '$opt'" >&2; usage ;;
	esac
	val=$2; shift 2
	case $opt in
	--scenarios) scenarios=$val given=1 ;;
	--configs) configs=$val ;;
	--reps) case $val in ''|*[!0-9]*|0) die "--reps needs a positive number, got '$val'" ;; esac; reps=$val ;;
	--first-rep) case $val in ''|*[!0-9]*|0) die "--first-rep needs a positive number, got '$val'" ;; esac; first=$val ;;
	--swap) case $val in disk|zram) swap=$val ;; *) die "--swap must be disk or zram, got '$val'" ;; esac ;;
	--mem) case $val in ''|*[!0-9]*) die "--mem needs a number of MB, got '$val'" ;; esac
	       [ "$val" -ge 128 ] || die "--mem must be at least 128"; mem=$val ;;
	--out) out=$val ;;
	--shuffle) case $val in ''|*[!0-9]*) die "--shuffle needs a number (the seed), got '$val'" ;; esac
	       [ ${#val} -le 9 ] || die "--shuffle: the seed has at most 9 digits, got '$val'"; seed=$val ;;
	*) echo "bench: unknown option '$opt'" >&2; usage ;;
	esac
done
if [ -n "$sweep" ]; then
	if [ -n "$given$full" ]; then scenarios="$scenarios $sweep_scenarios"; else scenarios=$sweep_scenarios; fi
fi
[ -n "$scenarios" ] || die "no scenario given"
[ -n "$configs" ] || die "no configuration given"
for s in $scenarios; do
	case $s in
	sweep-*)
		n=${s#sweep-} pct=${s##*-}
		n=${n%-*}
		case $s in sweep-*-*-*|sweep-*-) n=x ;; esac
		case $n$pct in ''|*[!0-9]*) die "bad sweep point '$s' (sweep-N-PCT, for example sweep-4-200)" ;; esac
		[ "$n" -ge 2 ] && [ "$n" -le 16 ] && [ "$pct" -ge 100 ] && [ "$pct" -le 400 ] ||
			die "sweep point '$s': N must be 2-16 and PCT 100-400"
		[ $((pct * 10 / n)) -le 700 ] ||
			die "sweep point '$s': each process would be $((pct / n))% of RAM, above the 70% the sweep allows"
		;;
	*) in_list "$s" "$all_scenarios" || die "unknown scenario '$s' (known: $all_scenarios, sweep-N-PCT)" ;;
	esac
done
for c in $configs; do
	case $c in
	classic-t[0-9]*|mglru-t[0-9]*)
		t=${c#*-t}
		case $t in ''|*[!0-9]*|0*) die "bad configuration '$c' (X-tS: the token with a timeout of S seconds, 1-3600)" ;; esac
		[ "$t" -le 3600 ] || die "configuration '$c': the timeout may be at most 3600 seconds" ;;
	*) in_list "$c" "$all_configs $more_configs" ||
		die "unknown configuration '$c' (known: $all_configs $more_configs, X-tS)" ;;
	esac
	case $c in
	*-prio) [ -n "$experiments" ] ||
		die "$c: the priority policy is an experiment, not in the series; add --experiments" ;;
	*-wait) [ -n "$experiments" ] ||
		die "$c: the waits are an experiment, not in the series; add --experiments" ;;
	esac
done
# A full run measures its own noise: the token off twice in each boot.
case " $configs " in
*-off2" "*) ;;
*)	if [ -n "$full" ]; then
		aa=
		for c in $configs; do case $c in mglru-off) aa=$c; break ;; *-off) aa=${aa:-$c} ;; esac; done
		[ -z "$aa" ] || configs="$configs ${aa}2"
	fi ;;
esac
scenarios=$(echo $scenarios) configs=$(echo $configs)
[ -z "$cgroup" ] || ! in_list cg2 "$scenarios" || die "--cgroup: cg2 makes its own cgroups, leave it out"
case " $configs " in
*-psi" "*)
	[ -z "$cgroup" ] || die "the -psi configurations run each job in a cgroup of their own: not with --cgroup"
	! in_list cg2 "$scenarios" || die "the -psi configurations do not run cg2, which makes its own cgroups" ;;
esac

scratch=
case " $scenarios " in
*" file "*|*" fitfile "*|*" faults "*|*" stream "*|*" sort2 "*|*" sqlite2 "*) scratch="--scratch 1024" ;;
esac
# The real programs (sort2, sqlite2: guest/jobs/real), from this machine's
# Debian packages, with the libraries they load at the same paths.
real=
case " $scenarios " in
*" sort2 "*|*" sqlite2 "*)
	for p in /usr/bin/sort /usr/bin/sqlite3; do
		[ -x $p ] || die "$p is missing (make deps installs it)"
		real="$real --add $p:/opt/real/${p##*/}"
		for l in $(ldd $p | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u); do
			real="$real --add $l:$l"
		done
	done ;;
esac
# Generous: a thrashing run takes about a minute here; a hung guest still fails.
# A sweep point at 2 x RAM or more counts three times.
nsc=0
for s in $scenarios; do
	case $s in sweep-*) [ "${s##*-}" -lt 200 ] || nsc=$((nsc + 2)) ;; esac
	nsc=$((nsc + 1))
done
ncf=$(echo $configs | wc -w)
timeout=$((300 + nsc * (ncf + 8) * 150))

# The kernel and the guest of this tree: run by hand or by bench-full.sh,
# the bench would otherwise boot whatever an earlier make left (make bench
# has built both just before, and says so with BENCH_BUILT=1).
if [ -n "$experiments" ]; then
	sh "$top/host/experiments.sh" kernel ||
		{ echo "bench: cannot build the kernel with patches/experiments" >&2; exit 1; }
elif [ -z "${BENCH_BUILT:-}" ]; then
	make -s -C "$top" kernel ||
		{ echo "bench: cannot build the kernel (make kernel)" >&2; exit 1; }
fi
if [ -z "${BENCH_BUILT:-}" ]; then
	make -s -C "$top" initramfs ||
		{ echo "bench: cannot build the initramfs (make initramfs)" >&2; exit 1; }
fi

mkdir -p "$out/raw"
rm -f "$out"/raw/*.log
echo "$scenarios" > "$out/scenarios"
echo "$configs" > "$out/configs"
# The repetitions each scenario must have: host/bench-report.sh counts a
# scenario short of one as incomplete (several parts merge their plans).
last=$((first + reps - 1))
for s in $scenarios; do echo "$s $(seq "$first" "$last" | paste -sd' ')"; done > "$out/plan"
{
	echo "command: host/bench.sh $args"
	echo "kernel: $(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p' "$top/build/linux/Makefile" | paste -sd.)" \
		"(Debian $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo '?')) + patches/${experiments:+ + patches/experiments/}"
	echo "guest: $mem MB RAM, 2 vCPUs (QEMU TCG), swap on $swap$([ $swap = disk ] || echo ' (qsbench -d 4: compressible data)')${cgroup:+, jobs in a memory cgroup without a limit}"
	[ -z "$real" ] || echo "real programs: $(/usr/bin/sort --version | head -n 1), SQLite $(/usr/bin/sqlite3 --version | cut -d' ' -f1)"
	if [ -n "$seed" ]; then echo "order: shuffled per repetition, seed $seed"
	else echo "order: a Williams design per repetition (a Latin square balanced for carryover)"; fi
	echo "date: $(date -u +%Y-%m-%d)"
	# The project's commit, and the series it holds (its patches, not the
	# cover letter's prose), so that results of runs made in parts can be
	# told apart and merged only when they match (host/bench-merge.sh).
	echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$top" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')," \
		"patches/: $(ls "$top"/patches/*.patch | grep -v '/0000-' | xargs cat | sha256sum | cut -c1-12)${experiments:+, patches/experiments/: $(cat "$top"/patches/experiments/*.patch | sha256sum | cut -c1-12)}"
} > "$out/setup"
echo "bench: $reps repetition(s) of: $scenarios; configurations: $configs"

start=$(date +%s)
failed=0
cr=$(printf '\r')
for r in $(seq "$first" "$last"); do
	log=$out/raw/rep$r.log
	: > "$log"
	# shellcheck disable=SC2086
	sh "$top/host/run-qemu.sh" --quiet --mem "$mem" --swap "$swap" --lru mglru $scratch $real \
		${experiments:+--kernel "$top/build/kbuild-exp/arch/x86/boot/bzImage"} \
		--timeout "$timeout" --log "$log" --append kunit.enable=0 \
		--job "bench -r $r -c '$configs' $cgroup ${seed:+-S $seed} $scenarios" 2> "$out/raw/rep$r.err" &
	qpid=$!
	# Progress: one line per run, with the elapsed time of the whole bench.
	tail -n +1 -F --pid=$qpid "$log" 2>/dev/null | while read -r tag a b c d e; do
		e=${e%"$cr"}
		case $tag in
		'####') ;;
		*) continue ;;
		esac
		el=$(($(date +%s) - start))
		case $a in
		bench-order) echo "bench: rep $r/$last order: $(echo "$d $e" | sed 's/^by=//')" ;;
		bench-start) printf 'bench: [%2d:%02d] rep %s/%s  %-8s %-12s ... ' \
			$((el / 60)) $((el % 60)) "$r" "$last" "${b#s=}" "${c#c=}" ;;
		bench) echo "$e" | sed 's/^rc=\([0-9]*\) time=\([0-9.]*\) .* oom=\([0-9]*\) taken=\([0-9]*\).*/\2 s, \4 token handoffs, \3 OOM kills, exit \1/' ;;
		esac
	done
	if wait $qpid; then
		:
	else
		rc=$?
		failed=1
		echo
		echo "bench: repetition $r failed (run-qemu exit $rc), see $log:" >&2
		{ tr -d '\r' < "$log" | grep '^bench: ' | tail -n 3; cat "$out/raw/rep$r.err"; } | sed 's/^/  /' >&2
	fi
done
el=$(($(date +%s) - start))
echo "bench: finished in $((el / 60))m$((el % 60))s"
echo
sh "$top/host/bench-report.sh" "$out" || failed=1
exit $failed
