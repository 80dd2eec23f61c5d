#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel code's standards as test points (run by "make check" on the host): the module
# builds without a warning at W=1 against the 6.12 and 6.1 headers, sparse finds nothing, and
# scripts/checkpatch.pl --strict finds nothing in any kernel source or header.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit
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

cores=$(nproc)

# A fresh object tree, so that every file is compiled (and its warnings seen) again. No
# KCFLAGS=-Werror: it would change every object's command line, and the next plain build
# (make install, the VM harness) would compile them all once more; any "warning:" fails.
build() {
	local kver=$1 log
	rm -rf "build/kmod/$kver/drivers"
	log=$(make -s -j"$cores" module KDIR="/lib/modules/$kver/build" 2>&1)
	report $? "$log"
}

# sparse over every source of the tree just built (C=2 checks without compiling again)
sparse() {
	local log
	log=$(make -s module KDIR="/lib/modules/$1/build" C=2 2>&1)
	report $? "$log"
}

# report STATUS LOG: a build fails on its status or on any warning in its log (sparse
# reports as warnings without failing the build)
report() {
	local rc=$1
	if [ "$rc" -eq 0 ] && printf '%s\n' "$2" | grep -q 'warning:'; then
		rc=1
	fi
	[ "$rc" -eq 0 ] || printf '%s\n' "$2" | sed 's/^/# /'
	return "$rc"
}

build "$K612"; point $? "metaroce.ko builds for $K612 at W=1 without a warning"
build "$K61"; point $? "metaroce.ko builds for $K61 at W=1 without a warning"
sparse "$K612"; point $? "sparse finds nothing (C=2, $K612)"

# checkpatch is one process per file: run them side by side, report in file order.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
for i in "${!files[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n; done
	("$checkpatch" --strict --no-tree --quiet --show-types -f "${files[$i]}" >"$results/$i.out" 2>&1
	 echo $? >"$results/$i.rc") &
done
wait
for i in "${!files[@]}"; do
	rc=$(cat "$results/$i.rc")
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$results/$i.out"
	point "$rc" "checkpatch --strict ${files[$i]}"
done
[ "$failed" -eq 0 ]
