#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make install" into staging directories (DESTDIR), as a distribution package would: the
# module where Debian keeps out-of-tree modules, built for the kernel asked for; the
# provider where libibverbs looks; its .driver file; another PREFIX named by absolute path.
# TAP output; run by tools/testing/run-tests on the host.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit
CACHE=${METAROCE_CACHE:-/var/cache/metaroce}
. "$CACHE/kernels.env"
multiarch=$(cc -print-multiarch)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
n=0
failed=0

check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@" >/dev/null 2>&1; then
		echo "ok $n $name"
	else
		failed=$((failed + 1))
		echo "not ok $n $name"
	fi
}

vermagic_is() {
	[ "$(modinfo -F vermagic "$1" | cut -d' ' -f1)" = "$2" ]
}

echo "TAP version 13"
echo "1..10"
for kver in "$K612" "$K61"; do
	d=$stage/$kver
	check "make install DESTDIR= for $kver" \
		make -s install DESTDIR="$d" KDIR="/lib/modules/$kver/build"
	check "metaroce.ko in /lib/modules/$kver/updates, built for $kver" \
		vermagic_is "$d/lib/modules/$kver/updates/metaroce.ko" "$kver"
done
d=$stage/$K612
check "provider where libibverbs looks" \
	test -f "$d/usr/lib/$multiarch/libibverbs/libmetaroce-rdmav34.so"
check "its .driver file in /etc/libibverbs.d" \
	grep -qx 'driver metaroce' "$d/etc/libibverbs.d/metaroce.driver"
check "infiniband/metaroce_dv.h in /usr/include" \
	test -f "$d/usr/include/infiniband/metaroce_dv.h"
check "libmetaroce.so for -lmetaroce, exporting metaroce_dv_create_qp@@METAROCE_1.0" \
	sh -c "readelf --dyn-syms -W '$d/usr/lib/$multiarch/libmetaroce.so' |
		grep -q ' metaroce_dv_create_qp@@METAROCE_1.0\$'"
d=$stage/opt
make -s install DESTDIR="$d" PREFIX=/opt/metaroce >/dev/null 2>&1
check "PREFIX=/opt/metaroce: .driver names the library by absolute path" \
	grep -qx "driver /opt/metaroce/lib/$multiarch/libibverbs/libmetaroce" \
	"$d/etc/libibverbs.d/metaroce.driver"
check "nothing but metaroce.ko among the installed modules" \
	test "$(find "$stage/$K612/lib/modules" -name '*.ko' | wc -l)" -eq 1
[ "$failed" -eq 0 ]
