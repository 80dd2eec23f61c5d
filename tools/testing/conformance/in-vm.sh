#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of "make conformance" (tools/testing/conformance/run.sh boots the VM with
# it): runs pyverbs.sh against an rxe device, then against a metaroce device if one can be
# created, each alone on the same veth end. Every line meant for the host starts with
# "conformance: " or "CONFORMANCE ".
#
#   tools/testing/vm/run -- tools/testing/conformance/in-vm.sh [pyverbs.sh options]
#
# Exit status: 0 when every run that could start completed (whatever the tests' outcomes),
# 2 when the harness failed, 3 when rxe could not be set up.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../../selftests/metaroce/lib.sh
. "$here/../../../selftests/metaroce/lib.sh"
require_vm

# One veth end with an address: the suite talks from the device to its own GID. Not
# rootpair_setup: its policy routing sends traffic to 192.0.2.1 out of the other end.
IP=192.0.2.1
ip link add cf0 type veth peer name cf1
# lib.sh removes the devices at exit; the veth pair is ours to remove.
trap 'cleanup; ip link del cf0 2>/dev/null' EXIT
ip addr add "$IP/24" dev cf0
ip link set cf0 up
ip link set cf1 up

status=0

# suite TYPE NAME: pyverbs.sh on a new TYPE device NAME on cf0, which is removed afterwards.
# Returns 1 when the device cannot be created (an error is a harness failure: status=2).
suite() {
	local type=$1 name=$2 gid err rc=0
	shift 2
	if ! rdma_add "$type" "$name" - cf0 >/tmp/rdma-add.err 2>&1; then
		err=$(tr '\n' ' ' </tmp/rdma-add.err | sed 's/ *$//')
		echo "conformance: $type: cannot create a device: $err"
		return 1
	fi
	if ! rdma_wait_active "$name" || ! gid=$(gid_index "$name" "$IP"); then
		echo "conformance: $type: $name has no active port with a RoCE v2 GID for $IP"
		status=2
		return 0
	fi
	echo "conformance: $type: running the suite on $name, GID index $gid"
	"$here/pyverbs.sh" --driver "$type" "$@" "$name" "$gid" || rc=$?
	[ "$rc" -eq 0 ] || status=2
	rdma link delete "$name"
	# shellcheck disable=SC2034 # lib.sh's cleanup list: the device is gone already
	RDMA_LINKS=()
	return 0
}

suite rxe rxe0 "$@" || exit 3
if ! suite metaroce mr0 "$@"; then
	echo "conformance: metaroce: MetaRoCE has no device yet (rdma link add failed); not run"
fi
exit "$status"
