#!/bin/sh
# Run the kernel's scripts/checkpatch.pl --strict on every patch of the
# series.  With --tap print one TAP result per patch (for make check).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-$top/build/linux}
# checkpatch runs scripts/spdxcheck.py with the python3 on PATH: use the
# system one, which has the Debian modules it needs (python3-ply, python3-git).
PATH=/usr/bin:$PATH
tap=0
[ "${1:-}" = --tap ] && tap=1

# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is a question, not a
# finding: every file the series adds is under an F: line of the MEMORY
# MANAGEMENT entry already (mm/, and the headers and the admin guide that
# patches 1 and 4 add there).
ignore=FILE_PATH_CHANGES

set -- $(grep -v '^#' "$top/patches/series")
[ $tap = 1 ] && { echo "TAP version 13"; echo "1..$(($# + 1))"; }
n=0 bad=0
for p in "$@"; do
	n=$((n + 1))
	if report=$(cd "$tree" && perl scripts/checkpatch.pl --strict --terse --no-summary --ignore $ignore "$top/patches/$p" 2>&1) &&
	   [ -z "$report" ]; then
		[ $tap = 1 ] && echo "ok $n checkpatch $p"
	else
		bad=1
		if [ $tap = 1 ]; then
			echo "$report" | sed 's/^/# /'
			echo "not ok $n checkpatch $p"
		else
			echo "$report"
		fi
	fi
done
# The cover letter must exist and describe the series.
n=$((n + 1))
if grep -q '^Subject: \[PATCH 0*0/' "$top/patches/0000-cover-letter.patch" 2>/dev/null || [ $# = 0 ]; then
	[ $tap = 1 ] && echo "ok $n cover letter present"
else
	bad=1
	[ $tap = 1 ] && echo "not ok $n cover letter present" || echo "patches/0000-cover-letter.patch missing"
fi
[ $tap = 1 ] || [ $bad = 1 ] || echo "checkpatch: $# patches clean"
exit $bad
