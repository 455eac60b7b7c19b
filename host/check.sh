#!/bin/sh
# 'make check': boot the test kernel in the configurations below, run the
# KUnit suites (at boot) and the guest tests, the harness's own tests and
# checkpatch, then merge everything into one 'N passed, N failed' line.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/check
rm -rf "$out"
mkdir -p "$out"
results=

# boot NAME RUNNER-OPTIONS...: one QEMU boot running the guest tests
boot() {
	name=$1; shift
	printf 'check: boot %-12s %s ... ' "$name" "$*"
	start=$(date +%s)
	sh "$top/host/run-qemu.sh" --quiet --log "$out/$name.log" "$@" 2> "$out/$name.err"
	rc=$?
	echo "$rc" > "$out/$name.log.rc"
	echo "exit $rc, $(($(date +%s) - start))s"
	[ -s "$out/$name.err" ] && sed 's/^/    /' "$out/$name.err"
	results="$results $name=$out/$name.log"
}

# KUnit runs once, in the first boot; later boots pass kunit.enable=0.
boot mglru   --lru mglru   --swap disk --scratch 512 --timeout 1200
boot classic --lru classic --swap disk --scratch 512 --timeout 1200 --append kunit.enable=0
boot zram    --lru mglru   --swap zram --swap-size 256 --timeout 300 \
	--append kunit.enable=0 --job "run-tests pipeline_env"
# The OOM edge needs RAM + swap nearly full: a small swap, both LRUs.
for lru in classic mglru; do
	boot oom-$lru --lru $lru --swap disk --swap-size 128 --timeout 900 \
		--append kunit.enable=0 --job "run-tests token_oom_edge"
done

echo "check: harness self-tests"
sh "$top/tests/harness.sh" > "$out/harness.tap" 2> "$out/harness.err"
results="$results harness=$out/harness.tap"

echo "check: checkpatch --strict on patches/"
sh "$top/host/checkpatch.sh" --tap > "$out/checkpatch.tap" 2>&1
results="$results checkpatch=$out/checkpatch.tap"

echo "check: results"
# shellcheck disable=SC2086
exec python3 "$top/host/results.py" $results
