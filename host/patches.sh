#!/bin/sh
# Regenerate patches/ from the commits on top of 'base' in build/linux:
# git format-patch with stable output (zero From ids, no signature), the
# series file rewritten, and the cover letter's prose kept from the old one
# (its shortlog and diffstat are regenerated).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/linux}
g() { git -C "$tree" "$@"; }

[ -z "$(g status --porcelain --untracked-files=no)" ] ||
	{ echo "patches: $tree has uncommitted changes; commit them first" >&2; exit 1; }
n=$(g rev-list --count base..HEAD)
[ "$n" -gt 0 ] || { echo "patches: no commits on top of base in $tree" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g format-patch -q --cover-letter --zero-commit --no-signature -o "$tmp" base..HEAD
python3 "$top/host/cover-letter.py" "$top/patches/0000-cover-letter.patch" "$tmp/0000-cover-letter.patch"

rm -f "$top"/patches/*.patch
cp "$tmp"/*.patch "$top/patches/"
{
	echo "# Order in which git am applies the series (see README)."
	(cd "$tmp" && ls [0-9]*.patch | grep -v '^0000-cover-letter.patch$')
} > "$top/patches/series"
# The tree now matches patches/: record it so 'make tree' keeps it.
debver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
sum=$(cd "$top/patches" && cat series $(grep -v '^#' series) | sha256sum | cut -c1-16)
echo "$debver $sum $(g rev-parse HEAD)" > "$tree/.git/swap-token-state"
echo "patches: wrote $n patches and the cover letter to patches/"
