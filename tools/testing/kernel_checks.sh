#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel code's standards as test points (run by "make check" on the host): the module
# builds without a warning at W=1 against the 6.12 and 6.1 headers, sparse finds nothing, and
# scripts/checkpatch.pl --strict finds nothing in any kernel source or header.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
CACHE=${METAROCE_CACHE:-/var/cache/metaroce}
. "$CACHE/kernels.env"
checkpatch=$CACHE/linux-source-6.12/scripts/checkpatch.pl
mapfile -t files < <(git ls-files 'drivers/*.[ch]' 'include/*.h')

echo "TAP version 13"
echo "1..$((3 + ${#files[@]}))"
n=0
failed=0
point() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		echo "not ok $n $2"
	fi
}

# A fresh object tree, so that every file is compiled (and checked) again.
build() {
	local kver=$1 log
	shift
	rm -rf "build/kmod/$kver/drivers"
	log=$(make -s module KDIR="/lib/modules/$kver/build" KCFLAGS=-Werror "$@" 2>&1)
	local rc=$?
	# sparse reports as warnings without failing the build
	if [ $rc -eq 0 ] && printf '%s\n' "$log" | grep -q 'warning:'; then
		rc=1
	fi
	[ $rc -eq 0 ] || printf '%s\n' "$log" | sed 's/^/# /'
	return $rc
}

build "$K612"; point $? "metaroce.ko builds for $K612 at W=1 without a warning"
build "$K61"; point $? "metaroce.ko builds for $K61 at W=1 without a warning"
build "$K612" C=1; point $? "sparse finds nothing (C=1, $K612)"

for f in "${files[@]}"; do
	out=$("$checkpatch" --strict --no-tree --quiet --show-types -f "$f" 2>&1)
	rc=$?
	[ $rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
	point $rc "checkpatch --strict $f"
done
[ "$failed" -eq 0 ]
