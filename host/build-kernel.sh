#!/bin/sh
# Configure and build bzImage out of tree:
#   tinyconfig + config/<fragments> (merge_config.sh) -> olddefconfig -> check
# Usage: build-kernel.sh OUTDIR FRAGMENT...
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/linux}
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR FRAGMENT..." >&2; exit 2; }
out=$1; shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
frags=
for f in "$@"; do
	[ -f "$f" ] || { echo "kernel: no config fragment $f" >&2; exit 2; }
	frags="$frags $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
done
# shellcheck disable=SC2086
set -- $frags

# Reproducible build: fixed timestamp/user/host keep ccache hits across builds.
export KBUILD_BUILD_TIMESTAMP="2000-01-01" KBUILD_BUILD_USER=swaptoken KBUILD_BUILD_HOST=qemu
export CCACHE_DIR=${CCACHE_DIR:-$top/build/ccache} CCACHE_BASEDIR=$top
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
jobs=${JOBS:-$(nproc)}
mk() { make -s -C "$tree" O="$out" ARCH=x86_64 CC="$cc" HOSTCC="$cc" "$@"; }

# Reconfigure only when a fragment or the tree's Kconfig changed.
stamp=$out/.fragments.sum
sum=$(cat "$@" | sha256sum | cut -c1-16)-$(git -C "$tree" rev-parse HEAD)
if [ ! -f "$out/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
	echo "kernel: configuring $out from tinyconfig +$(for f in "$@"; do printf ' %s' "${f#"$top"/}"; done)"
	mk tinyconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$@") >/dev/null
	mk olddefconfig >/dev/null
	# Expected options: every fragment's lines, a later fragment overriding
	# an earlier one (as merge_config.sh does).
	for f in "$@"; do
		grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$f" |
			sed "s|\$| ${f#"$top"/}|"
	done | awk '{ opt = $1 == "#" ? $2 : substr($1, 1, index($1, "=") - 1); last[opt] = $0; order[opt] = NR }
		END { for (o in last) print order[o], last[o] }' | sort -n | cut -d' ' -f2- |
	while read -r line; do
		src=${line##* }; line=${line% *}
		opt=${line#"# "}; opt=${opt%%[= ]*}
		case $line in
		"# "*)	grep -q "^$opt=" "$out/.config" || continue ;;
		*)	grep -qxF "$line" "$out/.config" && continue ;;
		esac
		have=$(grep -E "^(# )?$opt[= ]" "$out/.config" || echo "nothing (unknown or dependency missing)")
		echo "kernel: option did not stick: '$line' from $src; .config has: $have" >&2
		echo "$opt"
	done > "$out/.config.bad"
	if [ -s "$out/.config.bad" ]; then
		rm -f "$stamp"
		echo "kernel: configuration failed" >&2
		exit 1
	fi
	echo "$sum" > "$stamp"
fi

echo "kernel: building $(mk -s kernelversion) in $out (-j$jobs, CC=$cc)"
mk -j"$jobs" bzImage
