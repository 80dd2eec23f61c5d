#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host test: the installed libibverbs loads libmetaroce from the build tree
# (RDMAV_DRIVERS) and, through it, lists exactly the MetaRoCE devices.
#
# There is no RDMA device on a build host, so the test fabricates one: a sysfs
# tree (SYSFS_PATH) with four uverbs devices, /dev/infiniband entries in a
# private mount namespace (unshare), and a preloaded shim (no_rdma_netlink.so)
# that makes NETLINK_RDMA unavailable so that libibverbs discovers devices
# from that sysfs tree, as it does on kernels without RDMA netlink. The
# devices, all without a driver_id as the sysfs path reports them:
#   mr0       MetaRoCE ABI tag, revision 1         -> claimed
#   renamed7  the same under another name          -> claimed
#   mr9       plain ABI version 1, name like ours  -> not claimed
#   mr5       MetaRoCE ABI tag, revision 2         -> not claimed, reported
# This exercises the real match/alloc path of libibverbs 44 against the
# layouts declared in verbs_private.h (abi_ver and driver_id are read from
# the library's own records).
#
# Uses $METAROCE_PROVIDER_DIR, or ../lib next to this script. Output is TAP;
# the exit status is non-zero if any test fails.

set -u

here=$(cd "$(dirname "$0")" && pwd)
dir=${METAROCE_PROVIDER_DIR:-$(cd "$here/../lib" 2>/dev/null && pwd)}
shim=${METAROCE_NETLINK_SHIM:-$here/.metaroce/no_rdma_netlink.so}
PLAN=6
TAG=$((0x4d520000))

n=0
failed=0
diag() {
	local text line
	for text in "$@"; do
		[ -n "$text" ] || continue
		while IFS= read -r line; do echo "  # $line"; done <<<"$text"
	done
}
tap() { # tap STATUS NAME [DIAG...]
	local status=$1 name=$2
	shift 2
	n=$((n + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		failed=$((failed + 1))
		diag "$@"
	fi
}
skip_all() {
	local i
	for i in $(seq 1 $PLAN); do echo "ok $i # SKIP $1"; done
	exit 0
}

echo "TAP version 13"
echo "1..$PLAN"

command -v ibv_devices >/dev/null || skip_all "ibv_devices not installed (ibverbs-utils)"
command -v unshare >/dev/null || skip_all "unshare not installed"
[ -r "$shim" ] || skip_all "no $shim (make unit builds it)"
[ -r "$dir/libmetaroce-rdmav34.so" ] || skip_all "no provider in $dir"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sys=$work/sys
mkdir -p "$sys/class/infiniband_verbs" "$sys/class/infiniband"
echo 6 >"$sys/class/infiniband_verbs/abi_version"

ndev=0
add_device() { # add_device NAME ABI_VERSION NODE_GUID
	local uv=$sys/class/infiniband_verbs/uverbs$ndev ib=$sys/class/infiniband/$1
	mkdir -p "$uv" "$ib"
	echo "$1" >"$uv/ibdev"
	echo "$2" >"$uv/abi_version"
	echo "231:$((192 + ndev))" >"$uv/dev"
	echo 1 >"$ib/node_type"
	echo "$3" >"$ib/node_guid"
	ndev=$((ndev + 1))
}
add_device mr0 $((TAG | 1)) 0200:00ff:fe00:0001
add_device renamed7 $((TAG | 1)) 0200:00ff:fe00:0007
add_device mr9 1 0200:00ff:fe00:0009
add_device mr5 $((TAG | 2)) 0200:00ff:fe00:0005

# in_ns OUT ERR COMMAND...: run COMMAND with the fake /dev/infiniband entries
in_ns() {
	local out=$1 err=$2
	shift 2
	# The script's own arguments: the number of uverbs entries, then COMMAND.
	# shellcheck disable=SC2016
	local script='n=$1; shift
		mount -t tmpfs none /dev && mkdir /dev/infiniband || exit 1
		i=0; while [ $i -lt $n ]; do mkdir /dev/infiniband/uverbs$i; i=$((i + 1)); done
		exec "$@"'
	local ns=(unshare -m --propagation private)
	[ "$(id -u)" -eq 0 ] || ns=(unshare -r -m --propagation private)
	"${ns[@]}" sh -c "$script" sh "$ndev" "$@" >"$out" 2>"$err"
}

# run_fake OUT ERR [VAR=VALUE...]: ibv_devices against the fake devices
run_fake() {
	local out=$1 err=$2
	shift 2
	in_ns "$out" "$err" env SYSFS_PATH="$sys" LD_PRELOAD="$shim" "$@" ibv_devices
}

if ! in_ns "$work/probe" "$work/probe.err" true; then
	skip_all "cannot make a private mount namespace: $(head -n 1 "$work/probe.err")"
fi

run_fake "$work/out" "$work/err" RDMAV_DRIVERS="$dir/libmetaroce"
rc=$?
out=$(cat "$work/out")
err=$(cat "$work/err")
tap $rc "ibv_devices runs with RDMAV_DRIVERS=$dir/libmetaroce" "$out" "$err"

grep -Eq '^[[:space:]]+mr0[[:space:]]+020000fffe000001$' <<<"$out"
tap $? "lists mr0 (MetaRoCE ABI revision 1) with its node GUID" "$out"

grep -Eq '^[[:space:]]+renamed7[[:space:]]' <<<"$out"
tap $? "lists renamed7: matching does not depend on the name" "$out"

# Not even a warning: match_device() must turn it down before libibverbs
# compares ABI versions.
! grep -Eq '^[[:space:]]+mr9[[:space:]]' <<<"$out" && ! grep -q '/mr9' <<<"$err"
tap $? "ignores mr9, a driver-less device without the MetaRoCE tag, silently" "$out" "$err"

! grep -Eq '^[[:space:]]+mr5[[:space:]]' <<<"$out" &&
	grep -q "metaroce does not support the kernel ABI of $((TAG | 2)).*mr5" <<<"$err"
tap $? "reports, and does not open, mr5 of an unsupported ABI revision" "$out" "$err"

if [ -e /etc/libibverbs.d/metaroce.driver ]; then
	echo "ok 6 # SKIP libmetaroce is installed system-wide"
	n=6
else
	run_fake "$work/out0" "$work/err0"
	! grep -Eq '^[[:space:]]+(mr0|renamed7)[[:space:]]' "$work/out0"
	tap $? "without libmetaroce the MetaRoCE devices are not listed" "$(cat "$work/out0")"
fi

[ "$n" -eq "$PLAN" ] && [ "$failed" -eq 0 ]
