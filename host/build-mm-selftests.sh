#!/bin/sh
# Build the kernel's own mm selftests named in config/mm-selftests.list,
# statically (the guest has no libc), from the patched tree, the upstream
# way: tools/testing/selftests/mm/Makefile with OUTPUT= outside the tree.
# Nothing is written into the tree or into the kernel's build directory:
#   OUT/kheaders/usr/include  the tree's UAPI headers ('make headers' in a
#                             kbuild directory of their own; the selftests
#                             need 6.12's, Debian 12's libc headers are 6.1)
#   OUT/cfg/                  local_config.{h,mk}, which the selftests'
#                             Makefile would otherwise write into the tree
#   OUT/bin/                  the static test programs
#   OUT/list                  a copy of the list, for the guest
# Usage: build-mm-selftests.sh [OUT]   (default build/mm-selftests;
#        TREE= the patched tree, JOBS= make -j, default 1)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/linux}
list=$top/config/mm-selftests.list
out=${1:-$top/build/mm-selftests}
mkdir -p "$out/bin" "$out/cfg"
out=$(cd "$out" && pwd)
sel=$tree/tools/testing/selftests

# The programs: the third column of the list, once each.
progs=$(sed -e 's/#.*//' "$list" | awk 'NF >= 3 { print $3 }' | sort -u)
[ -n "$progs" ] || { echo "mm-selftests: no test in $list" >&2; exit 2; }

# UAPI headers: quick when up to date.
make -s -C "$tree" O="$out/kheaders" ARCH=x86_64 headers

# What check_config.sh would find: the guest kernel has no io_uring
# (CONFIG_IO_URING off), so build without liburing on every host alike.
# Written only when missing, so that a rebuild does not relink everything.
[ -f "$out/cfg/local_config.h" ] ||
	echo "// No liburing support: the guest kernel has no io_uring" > "$out/cfg/local_config.h"
[ -f "$out/cfg/local_config.mk" ] ||
	echo "IOURING_EXTRA_LIBS =" > "$out/cfg/local_config.mk"

# -I: make finds local_config.mk in cfg/, so the Makefile's rule that
# runs check_config.sh in the source directory never fires.
# LOCAL_HDRS: the headers every program depends on (the Makefile's list
# names local_config.h in the source directory).
targets=
for p in $progs; do targets="$targets $out/bin/$p"; done
# shellcheck disable=SC2086
make -s -C "$sel/mm" -j"${JOBS:-1}" -I "$out/cfg" OUTPUT="$out/bin" \
	KHDR_INCLUDES="-isystem $out/kheaders/usr/include" \
	EXTRA_CFLAGS="-I$out/cfg" USERLDFLAGS=-static \
	LOCAL_HDRS="$out/cfg/local_config.h $tree/mm/gup_test.h $sel/mm/mseal_helpers.h $sel/kselftest.h $sel/kselftest_harness.h" \
	$targets

# Every program must be static: the guest has no dynamic loader.  Those
# no longer in the list go, so that OUT/bin can be copied as it is.
for f in "$out"/bin/*; do
	echo "$progs" | grep -qx "$(basename "$f")" || rm -f "$f"
done
for p in $progs; do
	if readelf -l "$out/bin/$p" | grep -q 'INTERP'; then
		echo "mm-selftests: $p is not statically linked" >&2
		exit 1
	fi
done
cp "$list" "$out/list"
echo "mm-selftests: $(echo "$progs" | wc -l) static programs in $out/bin"
