#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host test: the installed libibverbs loads libmetaroce from the build tree
# (RDMAV_DRIVERS) and, through it, lists exactly the MetaRoCE devices.
#
# The devices are fabricated (see fake_rdma.sh); all have no driver_id, as
# devices found through sysfs do:
#   mr0       MetaRoCE ABI tag, revision 2         -> claimed
#   renamed7  the same under another name          -> claimed
#   mr9       plain ABI version 1, name like ours  -> ignored, silently
#   mr5       MetaRoCE ABI tag, revision 3         -> not claimed, reported
# This runs libibverbs' own match and alloc_device path against the layouts
# declared in verbs_private.h (abi_ver and driver_id are read from the
# library's records).
#
# Uses $METAROCE_PROVIDER_DIR, or ../lib next to this script. Output is TAP;
# the exit status is non-zero if any test fails.

set -u

here=$(cd "$(dirname "$0")" && pwd)
dir=${METAROCE_PROVIDER_DIR:-$(cd "$here/../lib" 2>/dev/null && pwd)}
FAKE_HELPERS=${METAROCE_TEST_HELPERS:-$here/.metaroce}
PLAN=6
TAG=$((0x4d520000))

# TAP helpers: installed beside fake_rdma.sh, or next to this script in the source tree.
for d in "$FAKE_HELPERS" "$here"; do
	[ -r "$d/tap.sh" ] && . "$d/tap.sh" && break
done
tap_plan "$PLAN"

command -v ibv_devices >/dev/null || skip_all "ibv_devices not installed (ibverbs-utils)"
command -v unshare >/dev/null || skip_all "unshare not installed"
[ -r "$FAKE_HELPERS/fake_rdma.sh" ] || skip_all "no test helpers in $FAKE_HELPERS (make unit builds them)"
[ -r "$dir/libmetaroce-rdmav34.so" ] || skip_all "no provider in $dir"
# shellcheck source=fake_rdma.sh
. "$FAKE_HELPERS/fake_rdma.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fake_init "$work"
fake_add_device mr0 $((TAG | 2)) 0200:00ff:fe00:0001
fake_add_device renamed7 $((TAG | 2)) 0200:00ff:fe00:0007
fake_add_device mr9 1 0200:00ff:fe00:0009
fake_add_device mr5 $((TAG | 3)) 0200:00ff:fe00:0005

fake_run "$work/probe" "$work/probe.err" true ||
	skip_all "cannot make a private mount namespace: $(head -n 1 "$work/probe.err")"

fake_run "$work/out" "$work/err" env RDMAV_DRIVERS="$dir/libmetaroce" ibv_devices
rc=$?
out=$(cat "$work/out")
err=$(cat "$work/err")
tap $rc "ibv_devices runs with RDMAV_DRIVERS=$dir/libmetaroce" "$out" "$err"

grep -Eq '^[[:space:]]+mr0[[:space:]]+020000fffe000001$' <<<"$out"
tap $? "lists mr0 (MetaRoCE ABI revision 2) with its node GUID" "$out"

grep -Eq '^[[:space:]]+renamed7[[:space:]]' <<<"$out"
tap $? "lists renamed7: matching does not depend on the name" "$out"

# Not even a warning: match_device() must turn it down before libibverbs
# compares ABI versions.
! grep -Eq '^[[:space:]]+mr9[[:space:]]' <<<"$out" && ! grep -q '/mr9' <<<"$err"
tap $? "ignores mr9, a driver-less device without the MetaRoCE tag, silently" "$out" "$err"

! grep -Eq '^[[:space:]]+mr5[[:space:]]' <<<"$out" &&
	grep -q "metaroce does not support the kernel ABI of $((TAG | 3)).*mr5" <<<"$err"
tap $? "reports, and does not open, mr5 of an unsupported ABI revision" "$out" "$err"

if [ -e /etc/libibverbs.d/metaroce.driver ]; then
	n=$((n + 1))
	echo "ok $n # SKIP libmetaroce is installed system-wide"
else
	fake_run "$work/out0" "$work/err0" ibv_devices
	! grep -Eq '^[[:space:]]+(mr0|renamed7)[[:space:]]' "$work/out0"
	tap $? "without libmetaroce the MetaRoCE devices are not listed" "$(cat "$work/out0")"
fi

tap_done
