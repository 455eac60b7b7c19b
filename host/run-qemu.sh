#!/bin/sh
# Boot a kernel and the guest initramfs in QEMU (TCG), run one job in the
# guest and exit with the job's status.  A guest that panics, fails to boot
# or outlives --timeout is a failure (exit 124 timeout, 125 no result), and
# the last console lines are shown.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	cat <<USAGE
usage: $0 [options]
  --kernel FILE       bzImage (default build/kbuild/arch/x86/boot/bzImage)
  --initrd FILE       initramfs (default build/initramfs.cpio.gz)
  --mem MB            guest RAM (default 256)
  --cpus N            vCPUs (default 2)
  --swap KIND         disk, zram or none (default disk)
  --swap-size MB      swap size (default 1024)
  --swap-mbps MB      throttle writes to the swap disk to MB per second
                      (QEMU's block throttling; default: not throttled)
  --lru MODE          mglru or classic (default mglru)
  --scratch MB        add an ext2 scratch disk, mounted at /mnt/scratch
  --append ARGS       extra kernel command line
  --job CMD           shell command run in the guest (default: run-tests)
  --add SRC:DST       copy host file SRC to DST in the guest (repeatable)
  --timeout SEC       hard limit for the whole boot (default 600)
  --log FILE          console log (default build/run/console.log)
  --quiet             do not copy the console to stdout
  --interactive       console on this terminal (for make shell)
USAGE
	exit 2
}
die() { echo "run-qemu: $*" >&2; exit 2; }
num() { case $2 in ''|*[!0-9]*) die "$1 needs a positive number, got '$2'" ;; esac; [ "$2" -gt 0 ] || die "$1 must be > 0"; }

kernel=$top/build/kbuild/arch/x86/boot/bzImage
initrd=$top/build/initramfs.cpio.gz
mem=256 cpus=2 swap=disk swap_mb=1024 swap_mbps= lru=mglru scratch_mb=0 append= job=run-tests
timeout=600 log=$top/build/run/console.log quiet=0 interactive=0 adds=

while [ $# -gt 0 ]; do
	opt=$1
	case $opt in
	--quiet) quiet=1; shift; continue ;;
	--interactive) interactive=1; shift; continue ;;
	-h|--help) usage ;;
	--*) [ $# -ge 2 ] || die "$opt needs a value" ;;
	*) echo "run-qemu: unknown argument '$opt'" >&2; usage ;;
	esac
	val=$2; shift 2
	case $opt in
	--kernel) kernel=$val ;;
	--initrd) initrd=$val ;;
	--mem) num "$opt" "$val"; mem=$val ;;
	--cpus) num "$opt" "$val"; cpus=$val ;;
	--swap) case $val in disk|zram|none) swap=$val ;; *) die "--swap must be disk, zram or none, got '$val'" ;; esac ;;
	--swap-size) num "$opt" "$val"; swap_mb=$val ;;
	--swap-mbps) num "$opt" "$val"; swap_mbps=$val ;;
	--lru) case $val in mglru|classic) lru=$val ;; *) die "--lru must be mglru or classic, got '$val'" ;; esac ;;
	--scratch) num "$opt" "$val"; scratch_mb=$val ;;
	--append) append=$val ;;
	--job) job=$val ;;
	--add) case $val in *:/*) adds="$adds $val" ;; *) die "--add needs SRC:/guest/path, got '$val'" ;; esac ;;
	--timeout) num "$opt" "$val"; timeout=$val ;;
	--log) log=$val ;;
	*) echo "run-qemu: unknown option '$opt'" >&2; usage ;;
	esac
done
[ -f "$kernel" ] || die "no kernel $kernel (make kernel)"
[ -f "$initrd" ] || die "no initramfs $initrd (make initramfs)"
[ "$swap" = none ] && swap_mb=0
[ -z "$swap_mbps" ] || [ "$swap" = disk ] || die "--swap-mbps needs --swap disk"

mkdir -p "$(dirname "$log")" "$top/build/run"
work=$(mktemp -d "$top/build/run/qemu.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The job and any extra files travel in a second cpio archive appended to
# the initramfs; the kernel unpacks both.
mkdir -p "$work/root/etc"
printf '%s\n' "$job" > "$work/root/etc/job"
for a in $adds; do
	src=${a%%:*} dst=${a#*:}
	[ -f "$src" ] || die "--add: no file $src"
	mkdir -p "$work/root$(dirname "$dst")"
	cp "$src" "$work/root$dst"
done
(cd "$work/root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$work/job.cpio.gz"
cat "$initrd" "$work/job.cpio.gz" > "$work/initrd"

drives=
if [ "$swap" = disk ]; then
	truncate -s "${swap_mb}M" "$work/swap.img"
	drives="-drive file=$work/swap.img,format=raw,if=virtio,cache=none,aio=threads"
	[ -z "$swap_mbps" ] || drives="$drives,throttling.bps-write=$((swap_mbps << 20))"
fi
if [ "$scratch_mb" -gt 0 ]; then
	truncate -s "${scratch_mb}M" "$work/scratch.img"
	drives="$drives -drive file=$work/scratch.img,format=raw,if=virtio,cache=none,aio=threads"
fi
scratch=$((scratch_mb > 0))
cmdline="console=ttyS0 panic=-1 oops=panic guest_mem=$mem guest_cpus=$cpus guest_swap=$swap guest_swap_mb=$swap_mb guest_lru=$lru guest_scratch=$scratch $append"

set -- qemu-system-x86_64 -nodefaults -no-reboot -display none \
	-accel tcg,thread=multi -cpu max -smp "$cpus" -m "$mem" \
	-kernel "$kernel" -initrd "$work/initrd" -append "$cmdline" $drives

if [ "$interactive" = 1 ]; then
	exec "$@" -serial mon:stdio
fi

start=$(date +%s)
rc=0
if [ "$quiet" = 1 ]; then
	timeout -k 5 "$timeout" "$@" -serial stdio < /dev/null > "$log" 2>&1 || rc=$?
else
	: > "$log"
	timeout -k 5 "$timeout" "$@" -serial stdio < /dev/null > "$log" 2>&1 &
	qpid=$!
	tail -n +1 -f --pid=$qpid "$log" &
	tpid=$!
	wait $qpid || rc=$?
	wait $tpid 2>/dev/null || true
fi
secs=$(($(date +%s) - start))

result=$(tr -d '\r' < "$log" | sed -n 's/^#### guest-exit rc=\([0-9]*\).*/\1/p' | tail -n 1)
if [ -n "$result" ]; then
	[ "$quiet" = 1 ] || echo "run-qemu: guest job exited $result after ${secs}s"
	exit "$result"
fi
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	msg="guest timed out after ${timeout}s"
	rc=124
else
	msg="guest gave no result (QEMU exit $rc after ${secs}s: kernel panic, crash or boot failure)"
	rc=125
fi
{
	echo "run-qemu: $msg; last console lines ($log):"
	tr -d '\r' < "$log" | tail -n 25 | sed 's/^/  | /'
} >&2
exit $rc
