#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host test: the shape of the built provider, read with readelf.
#   - it depends on libibverbs.so.1 and libc.so.6 only, with no RPATH/RUNPATH;
#   - it defines no dynamic symbol (registration happens in a constructor) but the
#     direct verbs of metaroce_dv.h, all at version METAROCE_1.0;
#   - every symbol it imports is versioned from libibverbs (IBVERBS_*) or glibc,
#     apart from the weak hooks every toolchain emits;
#   - it imports verbs_register_driver_34@IBVERBS_PRIVATE_34;
#   - metaroce.driver names it.
# The build directory is $METAROCE_PROVIDER_DIR, or ../lib next to this script.
# Output is TAP; the exit status is non-zero if any test fails.

set -u

dir=${METAROCE_PROVIDER_DIR:-$(cd "$(dirname "$0")/../lib" 2>/dev/null && pwd)}
so=$dir/libmetaroce-rdmav34.so
drv=$dir/metaroce.driver

here=$(cd "$(dirname "$0")" && pwd)
# TAP helpers: installed in the test helper directory, or next to this script in the source tree.
for d in "${METAROCE_TEST_HELPERS:-$here/.metaroce}" "$here"; do
	[ -r "$d/tap.sh" ] && . "$d/tap.sh" && break
done
tap_plan 7
command -v readelf >/dev/null || skip_all "readelf not installed"

header=$(readelf -h "$so" 2>&1)
echo "$header" | grep -q 'Type:[[:space:]]*DYN' &&
	echo "$header" | grep -q 'Machine:[[:space:]]*Advanced Micro Devices X86-64'
tap $? "$so is an x86-64 shared object" "$(echo "$header" | head -n 3)"

dynamic=$(readelf -d -W "$so" 2>/dev/null)
needed=$(echo "$dynamic" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
[ "$needed" = "libc.so.6 libibverbs.so.1 " ]
tap $? "links only libibverbs.so.1 and libc.so.6" "NEEDED: $needed"

! echo "$dynamic" | grep -Eq '\((RPATH|RUNPATH)\)'
tap $? "has no RPATH or RUNPATH"

syms=$(readelf --dyn-syms -W "$so" 2>/dev/null)
# Columns: Num: Value Size Type Bind Vis Ndx Name [(version index)]
defined=$(echo "$syms" | awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") { print $8 }')
stray=$(echo "$defined" | grep -Ev '^(metaroce_dv_[a-z_]+@@METAROCE_1\.0|METAROCE_1\.0)$')
[ -z "$stray" ] && [ "$(echo "$defined" | grep -c '^metaroce_dv_')" -eq 6 ]
tap $? "exports the six metaroce_dv_* functions at METAROCE_1.0 and nothing else" "$defined"

stray=$(echo "$syms" | awk '$1 ~ /^[0-9]+:$/ && $7 == "UND" && $8 != "" { print $5, $8 }' |
	grep -Ev '^(GLOBAL|WEAK) [^@]+@(IBVERBS_[0-9A-Z_.]+|GLIBC_[0-9.]+)$' |
	grep -Ev '^WEAK (__gmon_start__|_ITM_registerTMCloneTable|_ITM_deregisterTMCloneTable)$')
[ -z "$stray" ]
tap $? "imports only versioned libibverbs and glibc symbols" "$stray"

echo "$syms" | grep -q ' verbs_register_driver_34@IBVERBS_PRIVATE_34 '
tap $? "imports verbs_register_driver_34@IBVERBS_PRIVATE_34"

[ -r "$drv" ] && [ "$(grep -v '^[[:space:]]*#' "$drv")" = "driver metaroce" ]
tap $? "metaroce.driver says \"driver metaroce\"" "$(cat "$drv" 2>&1)"

tap_done
