#!/bin/sh
# Pack the guest initramfs: busybox-static, /init, the test runner, the
# guest tests (/usr/lib/guest-tests) and workloads (/usr/bin).
# Usage: build-initramfs.sh OUT.cpio.gz GUESTBUILDDIR
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$1 guest=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/bin "$root"/sbin "$root"/usr/bin "$root"/usr/lib/guest-tests \
	"$root"/etc "$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/root
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 755 "$top/guest/init" "$root/init"
install -m 755 "$top/guest/run-tests" "$root/usr/bin/run-tests"
install -m 755 "$top/guest/mm-selftest" "$root/usr/bin/mm-selftest"
for f in "$top"/guest/jobs/*; do
	[ -f "$f" ] && install -m 755 "$f" "$root/usr/bin/$(basename "$f")"
done
[ -d "$guest/tests" ] && cp "$guest"/tests/* "$root/usr/lib/guest-tests/"
[ -d "$guest/bin" ] && cp "$guest"/bin/* "$root/usr/bin/"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -6) > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -k "$out" | cut -f1) kB, $(ls "$root/usr/lib/guest-tests" | wc -l) tests)"
