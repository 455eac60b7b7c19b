#!/bin/sh
# Make build/linux: Debian's linux-source-6.12 as a git tree with the base
# tagged 'base' and the series in patches/ applied on top with git am.
#
# The tree is re-made when Debian's tarball or patches/ changed, unless it
# holds commits that are not in patches/ yet (run 'make patches' first, or
# FORCE=1 to throw them away).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/linux}
tarball=/usr/src/linux-source-6.12.tar.xz
state=$tree/.git/swap-token-state

die() { echo "tree: $*" >&2; exit 1; }
[ -f "$tarball" ] || die "$tarball missing (make deps)"

debver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
series_sum=$(cd "$top/patches" && cat series $(grep -v '^#' series) | sha256sum | cut -c1-16)
want="$debver $series_sum"

g() { git -C "$tree" "$@"; }

if [ -f "$state" ]; then
	read -r have_deb have_sum have_head < "$state"
	if [ "$have_deb $have_sum" = "$want" ]; then
		echo "tree: $tree up to date ($(make -s -C "$tree" kernelversion), Debian $debver)"
		exit 0
	fi
	if [ "$(g rev-parse HEAD)" != "$have_head" ] || [ -n "$(g status --porcelain --untracked-files=no)" ]; then
		[ "${FORCE:-0}" = 1 ] ||
			die "$tree has work not in patches/ and patches/ changed; run 'make patches' or 'make tree FORCE=1'"
	fi
	[ "$have_deb" = "$debver" ] || { echo "tree: Debian source moved to $debver, re-extracting"; rm -rf "$tree"; }
fi

if [ ! -d "$tree/.git" ]; then
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	echo "tree: extracting $tarball"
	tar -C "$tree.tmp" -xf "$tarball"
	mv "$tree.tmp"/linux-source-6.12 "$tree"
	rmdir "$tree.tmp"
	g init -q -b base-tree
	# One author for the series, whoever builds it (git am keeps the
	# patches' own From: lines; this names the base commit's author).
	g config user.name "swap token series"
	g config user.email "swap-token@localhost"
	# Debian's .gitignore ignores every top-level entry ('/*'), which
	# would hide new files such as mm/swap_token.c from git: drop that
	# packaging-only rule in the base commit.
	sed -i '/^# Debian packaging/,/^!\/debian\//d' "$tree/.gitignore"
	g add -A
	# Fixed dates make the base commit id the same on every machine.
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		g commit -q -m "Linux $(make -s -C "$tree" kernelversion) from Debian linux-source-6.12 $debver"
	g tag base
fi

g am --abort >/dev/null 2>&1 || true
g checkout -q -B swap-token base
g reset -q --hard base
for p in $(grep -v '^#' "$top/patches/series"); do
	if ! g am -q "$top/patches/$p" >/dev/null 2>&1; then
		g am --abort >/dev/null 2>&1 || true
		die "patches/$p does not apply to Linux $(make -s -C "$tree" kernelversion) (Debian $debver)"
	fi
done
echo "$want $(g rev-parse HEAD)" > "$state"
echo "tree: applied $(grep -vc '^#' "$top/patches/series") patches to Linux $(make -s -C "$tree" kernelversion) (Debian linux-source-6.12 $debver)"
