#!/bin/sh
# Scan QEMU console logs for kernel reports: BUG (among them "Bad
# rss-counter state"), WARNING, Oops, panics, "Bad page", swap entry and
# swap I/O errors, KASAN, UBSAN, KFENCE, lockdep and RCU-stall/hung-task/
# lockup reports.  Kernel lines carry a printk timestamp, on the console
# itself or after '# kernel: ' where guest/run-tests copies a test's
# kernel log of level warning and worse; program output cannot fake either.
# Prints each report with the lines after it and exits 1 if there is any.
# With --tap, prints one TAP point per log instead (for 'make check').
# Usage: kernel-reports.sh [--tap] LOG...
set -u
tap=0
[ "${1:-}" = --tap ] && { tap=1; shift; }
[ $# -gt 0 ] || { echo "usage: $0 [--tap] LOG..." >&2; exit 2; }

pattern='BUG:|WARNING:|Oops|Kernel panic|general protection fault|KASAN:|UBSAN:|KFENCE:'
pattern="$pattern|possible recursive locking|possible circular locking|inconsistent lock state"
pattern="$pattern|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked for more than"
pattern="$pattern|soft lockup|hard LOCKUP|rcu_.*detected stall|list_(add|del) corruption|Bad page"
# Swap's own errors: entries that point nowhere, I/O errors on the device.
pattern="$pattern|(Bad|Unused) swap (file|offset) entry|(Read|Write)-error on swap-device"
pattern="^(# kernel: )?\[ *[0-9]+\.[0-9]+\] .*($pattern)"

[ $tap = 1 ] && { echo "TAP version 13"; echo "1..$#"; }
found=0 i=0
for log in "$@"; do
	i=$((i + 1))
	name=$(basename "$log" .log)
	if [ ! -f "$log" ]; then
		[ $tap = 1 ] && echo "not ok $i $name: no kernel reports # no log $log" ||
			echo "kernel-reports: no log $log" >&2
		found=1
		continue
	fi
	n=$(tr -d '\r' < "$log" | grep -cE "$pattern")
	if [ "$n" = 0 ]; then
		[ $tap = 1 ] && echo "ok $i $name: no kernel reports"
		continue
	fi
	found=1
	# In TAP the report goes before its result line, whose log it is.
	if [ $tap = 1 ]; then
		echo "# $n report line(s) in $log:"
		prefix='# | '
	else
		echo "kernel-reports: $n report line(s) in $log:"
		prefix='  | '
	fi
	tr -d '\r' < "$log" | grep -E -A 25 "$pattern" | head -n 120 | sed "s/^/$prefix/"
	[ $tap = 1 ] && echo "not ok $i $name: no kernel reports"
done
exit $found
