#!/bin/sh
# Scan QEMU console logs for kernel reports: BUG, WARNING, Oops, panics,
# KASAN, UBSAN, KFENCE, lockdep and RCU/hung-task/lockup reports.  Prints
# each report with the lines after it and exits 1 if there is any, so that
# a debug run fails on the first sign of a kernel bug.
# Usage: kernel-reports.sh LOG...
set -u
[ $# -gt 0 ] || { echo "usage: $0 LOG..." >&2; exit 2; }

pattern='BUG:|WARNING:|Oops|Kernel panic|general protection fault|KASAN:|UBSAN:|KFENCE:'
pattern="$pattern|possible recursive locking|possible circular locking|inconsistent lock state"
pattern="$pattern|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked for more than"
pattern="$pattern|soft lockup|hard LOCKUP|rcu_.*detected stall|list_(add|del) corruption|Bad page"

found=0
for log in "$@"; do
	[ -f "$log" ] || { echo "kernel-reports: no log $log" >&2; found=1; continue; }
	# Kernel lines carry a printk timestamp; program output cannot fake one.
	n=$(tr -d '\r' < "$log" | grep -cE "^\[ *[0-9]+\.[0-9]+\] .*($pattern)")
	[ "$n" -gt 0 ] || continue
	found=1
	echo "kernel-reports: $n report line(s) in $log:"
	tr -d '\r' < "$log" | grep -E -A 25 "^\[ *[0-9]+\.[0-9]+\] .*($pattern)" | head -n 120 | sed 's/^/  | /'
done
exit $found
