#!/bin/sh
# The experiments: patches/experiments/, a patch set applied on top of the
# series only for comparison builds (it is not for merging).  Today it holds
# the priority policy of 2.6.20 to 3.4 (vm.swap_token_policy = 1) and
# other faults waiting while the holder pages in (vm.swap_token_wait_ms).
#
# Usage: experiments.sh tree | patches | kernel | check
#   tree     build/linux-exp: a worktree of build/linux on the branch
#            'experiments', the series' HEAD with patches/experiments/series
#            applied by git am; re-made when either changed, unless it holds
#            commits not in patches/experiments yet (FORCE=1 drops them)
#   patches  regenerate patches/experiments/ from those commits
#   kernel   tree, then build it into build/kbuild-exp (the guest config)
#   check    kernel, then boot it: its KUnit suite and the experiments'
#            guest tests that host/manifest.experiments lists
#            (guest/experiments/, built by make); ends with
#            'N passed, N failed' like make check
set -eu

top=$(cd "$(dirname "$0")/.." && pwd -P)
main=$top/build/linux
tree=$top/build/linux-exp
dir=$top/patches/experiments
kbuild=$top/build/kbuild-exp

state=$main/.git/swap-token-experiments-state

die() { echo "experiments: $*" >&2; exit 1; }
g() { git -C "$tree" "$@"; }
sum() { (cd "$dir" && cat series $(grep -v '^#' series) | sha256sum | cut -c1-16); }
dirty() { [ -n "$(g status --porcelain --untracked-files=no)" ]; }
# A worktree of its own (not a directory that git would take for part of
# the project's repository above it).
is_tree() {
	[ -e "$tree/.git" ] && [ "$(g rev-parse --show-toplevel 2>/dev/null)" = "$tree" ] &&
		[ "$(g rev-parse --path-format=absolute --git-common-dir)" = "$main/.git" ]
}

make_tree() {
	[ -d "$main/.git" ] || die "no $main (make tree)"
	base=$(git -C "$main" rev-parse swap-token)
	want="$base $(sum)"
	have_base= have_sum= have_head=
	[ ! -s "$state" ] || read -r have_base have_sum have_head < "$state" || true
	# The branch holds work of its own unless it is the series or what
	# this script last made: keep it unless FORCE=1.
	branch=$(git -C "$main" rev-parse -q --verify experiments || true)
	if [ -n "$branch" ] && [ "$branch" != "$base" ] && [ "$branch" != "$have_head" ] &&
	   [ "${FORCE:-0}" != 1 ]; then
		die "the branch 'experiments' has work not in patches/experiments; run '$0 patches' or FORCE=1 $0 tree"
	fi
	if ! is_tree; then
		# Gone, or left over from a tree that was re-made: start afresh.
		rm -rf "$tree"
		git -C "$main" worktree prune
		git -C "$main" worktree add -q --detach "$tree" swap-token
	elif dirty && [ "${FORCE:-0}" != 1 ]; then
		die "$tree has uncommitted changes; commit them and run '$0 patches', or FORCE=1 $0 tree"
	elif [ "$have_base $have_sum" = "$want" ] && [ "$(g rev-parse HEAD)" = "$have_head" ]; then
		echo "experiments: $tree up to date"
		return
	fi
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f -B experiments swap-token
	for p in $(grep -v '^#' "$dir/series"); do
		if ! g am -q "$dir/$p" > "$tree.am.log" 2>&1; then
			g am --abort >/dev/null 2>&1 || true
			g reset -q --hard swap-token
			sed 's/^/    /' "$tree.am.log" >&2
			die "patches/experiments/$p does not apply on top of the series"
		fi
	done
	rm -f "$tree.am.log"
	echo "$want $(g rev-parse HEAD)" > "$state"
	echo "experiments: applied $(grep -vc '^#' "$dir/series") patch(es) on top of the series in $tree"
}

make_patches() {
	is_tree || die "no $tree ($0 tree)"
	! dirty || die "$tree has uncommitted changes; commit them first"
	g merge-base --is-ancestor swap-token HEAD ||
		die "$tree is not on top of the series (build/linux's swap-token); rebase it first"
	n=$(g rev-list --count swap-token..HEAD)
	[ "$n" -gt 0 ] || die "no commits on top of the series in $tree"
	# Made beside patches/experiments and swapped in whole.
	tmp=$(mktemp -d "$top/patches/.experiments.XXXXXX")
	trap 'rm -rf "$tmp" "$dir.old"' EXIT
	trap 'exit 130' INT TERM
	g format-patch -q --zero-commit --no-signature -o "$tmp" swap-token..HEAD
	{
		echo "# Applied by git am on top of the series (patches/series): comparison builds only."
		(cd "$tmp" && ls [0-9]*.patch)
	} > "$tmp/series"
	rm -rf "$dir.old"
	mv "$dir" "$dir.old"
	mv "$tmp" "$dir"
	echo "$(git -C "$main" rev-parse swap-token) $(sum) $(g rev-parse HEAD)" > "$state"
	echo "experiments: wrote $n patch(es) to patches/experiments/"
}

make_kernel() {
	make_tree
	TREE=$tree sh "$top/host/build-kernel.sh" "$kbuild" "$top/config/base.config" "$top/config/test.config"
}

check() {
	make_kernel
	out=$top/build/check-exp
	mkdir -p "$out"
	# The experiments' guest tests that host/manifest.experiments lists,
	# built by make (make experiments).
	tests=$(awk '$1 == "exp" && $2 == "test" { print $3 }' "$top/host/manifest.experiments")
	adds=
	for t in $tests; do
		make -s -C "$top" "build/guest/experiments/$t" >/dev/null
		adds="$adds --add $top/build/guest/experiments/$t:/usr/lib/guest-tests/$t"
	done
	echo "experiments: booting $kbuild (KUnit and $(echo $tests))"
	rc=0
	# shellcheck disable=SC2086
	sh "$top/host/run-qemu.sh" --quiet --kernel "$kbuild/arch/x86/boot/bzImage" --lru mglru \
		--swap disk --timeout 1200 --log "$out/exp.log" $adds \
		--append "guest_test_timeout=600 log_buf_len=1M" \
		--job "dmesg -n 5; run-tests $(echo $tests)" 2> "$out/exp.err" || rc=$?
	echo "$rc" > "$out/exp.log.rc"
	sh "$top/host/kernel-reports.sh" --tap "$out/exp.log" > "$out/kernel-reports.tap" || true
	python3 "$top/host/results.py" --manifest "$top/host/manifest.experiments" \
		"exp=$out/exp.log" "kernel-reports=$out/kernel-reports.tap"
}

case ${1:-} in
tree) make_tree ;;
patches) make_patches ;;
kernel) make_kernel ;;
check) check ;;
*) echo "usage: $0 tree | patches | kernel | check" >&2; exit 2 ;;
esac
