#!/bin/sh
# Build every prefix of the series (patch 1, 1-2, ..., 1-N) to show that
# each patch builds on its own (and, from the patch that adds it, the
# series' kselftest), then the whole series with
# CONFIG_SWAP_TOKEN=n, CONFIG_SWAP=n, CONFIG_MEMCG=n and CONFIG_LRU_GEN=n.
# Uses a separate worktree and build dirs (build/series,
# build/kbuild-series*) so build/linux is left alone.  A prefix that has
# the KUnit option builds with test.config too, so the KUnit tests compile
# against every patch from theirs on; so does the build without memory
# cgroups.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/linux}
wt=$top/build/series
out=$top/build/kbuild-series

[ -d "$wt" ] || git -C "$tree" worktree add -q --detach "$wt" base
n=0
for c in $(git -C "$tree" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	git -C "$wt" checkout -q --detach "$c"
	echo "series: patch $n: $(git -C "$wt" log -1 --format=%s)"
	frags=$top/config/base.config
	! grep -q '^config SWAP_TOKEN_KUNIT_TEST' "$wt/mm/Kconfig" || frags="$frags $top/config/test.config"
	# shellcheck disable=SC2086
	TREE=$wt sh "$top/host/build-kernel.sh" "$out" $frags ||
		{ echo "series: patch $n does not build" >&2; exit 1; }
	# The series' kselftest, once a patch has added it, as the guest runs it.
	st=$wt/tools/testing/selftests/mm/swap_token.c
	if [ -f "$st" ]; then
		gcc -static -O2 -Wall -Wextra -Werror -I"$wt/tools/testing/selftests" \
			-o "$out/swap_token" "$st" -lpthread ||
			{ echo "series: patch $n: the swap_token selftest does not build" >&2; exit 1; }
	fi
done
for off in no-swap-token no-swap no-memcg no-lru-gen; do
	echo "series: whole series with config/$off.config"
	kunit=
	[ $off != no-memcg ] || kunit=$top/config/test.config
	# shellcheck disable=SC2086
	TREE=$wt sh "$top/host/build-kernel.sh" "$out-$off" "$top"/config/base.config $kunit "$top/config/$off.config" ||
		{ echo "series: does not build with config/$off.config" >&2; exit 1; }
done
echo "series: all $n patches build one after another, and without the token, swap, memory cgroups or the multi-gen LRU"
