#!/bin/sh
# Install every Debian package the pipeline needs.  Quiet and quick when
# everything is already present; runs apt-get only for what is missing.
set -eu

PKGS="linux-source-6.12 make gcc libc6-dev bc bison flex libelf-dev libssl-dev
cpio xz-utils gzip git perl python3 python3-ply python3-git qemu-system-x86 busybox-static ccache
gnuplot-nox coreutils binutils sqlite3"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
