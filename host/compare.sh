#!/bin/sh
# Token off/on under the classic LRU and MGLRU, interleaved (classic off,
# classic on, MGLRU off, MGLRU on, then again), each run in a fresh guest,
# with a Markdown table of wall times (median, min, max) at the end.  A
# stopgap for 'make bench'.  Usage: compare.sh [REPS [MB [PROCS]]]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-3} mb=${2:-150} procs=${3:-2}
for v in "$reps" "$mb" "$procs"; do
	case $v in ''|*[!0-9]*|0) echo "compare: REPS, MB and PROCS must be positive numbers, got '$v'" >&2; exit 2 ;; esac
done
out=$top/build/compare
mkdir -p "$out"
: > "$out/times"
for r in $(seq "$reps"); do
	for lru in classic mglru; do
		for tok in 0 1; do
			log=$out/$lru-$tok-$r.log
			printf 'compare: run %s/%s, %s, token %s ... ' "$r" "$reps" "$lru" "$tok"
			sh "$top/host/run-qemu.sh" --quiet --lru "$lru" --timeout 1200 --log "$log" \
				--append kunit.enable=0 \
				--job "echo $tok > /proc/sys/vm/swap_token && run-main $mb $procs" || true
			t=$(sed -n "s/^qsbench: $procs x $mb MB: \([0-9.]*\) s\(.*\)$/\1\2/p" "$log")
			oom=$(grep -c "Out of memory: Killed" "$log" || true)
			echo "${t:-no result} (OOM kills: $oom)"
			echo "$lru $tok ${t:-nan} $oom" | sed 's/ (FAILED)/ failed/' >> "$out/times"
		done
	done
done
echo
echo "| LRU | token | runs | median s | min s | max s | OOM kills |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for lru in classic mglru; do
	for tok in 0 1; do
		awk -v l=$lru -v t=$tok '$1 == l && $2 == t { print $3 }' "$out/times" | sort -n |
		awk -v l=$lru -v t=$tok -v oom="$(awk -v l=$lru -v t=$tok '$1 == l && $2 == t { s += $NF } END { print s + 0 }' "$out/times")" '
			{ v[NR] = $1 }
			END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			      printf "| %s | %s | %d | %.1f | %.1f | %.1f | %d |\n", l, t ? "on" : "off", NR, m, v[1], v[NR], oom }'
	done
done
