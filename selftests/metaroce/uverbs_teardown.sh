#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: user verbs objects on a MetaRoCE device, and removal of the
# device while a process holds them: "rdma link delete" and module unload
# must complete, ib_core destroys the objects (disassociation), and the
# process sees later verbs fail and exits cleanly.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/uverbs_teardown.sh
#
# Needs libmetaroce (build/lib, else installed) and a C compiler: the helper
# uverbs_holder.c is built into a temporary directory (the tree is read-only
# in the VM). Output is TAP; the exit status is non-zero if a test failed.

# shellcheck source=selftests/metaroce/lib.sh
. "$(dirname "$0")/lib.sh"
require_vm

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$TOP/selftests/metaroce/uverbs_holder.c
WORK=$(mktemp -d)
HOLDER=$WORK/uverbs_holder

[ -e "$TOP/build/lib/libmetaroce-rdmav34.so" ] && export RDMAV_DRIVERS=$TOP/build/lib/libmetaroce

dev_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }
info_has() { grep -qx "$2:	$3" "/sys/kernel/debug/metaroce/$1/info"; }
info_val() { sed -n "s/^$2:\t//p" "/sys/kernel/debug/metaroce/$1/info"; }

uverbs_cleanup() {
	exec 3>&- 2>/dev/null
	rdma link delete mr0 2>/dev/null
	ip link del v0 2>/dev/null
	modprobe -r metaroce 2>/dev/null
	rm -rf "$WORK"
	cleanup
}
trap uverbs_cleanup EXIT

# start_holder: runs the helper with its stdin on fd 3, waits for "ready";
# its checks become test points.
start_holder() {
	mkfifo "$WORK/in"
	"$HOLDER" mr0 <"$WORK/in" >"$WORK/out" 2>&1 &
	holder=$!
	exec 3>"$WORK/in"
	rm -f "$WORK/in"
	wait_for 20 grep -qx ready "$WORK/out"
}
holder_results() { # the helper's check lines, as test points
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) ktap_result "${line#ok }" 0 ;;
		"not ok "*) ktap_result "${line#not ok }" 1 ;;
		esac
	done <"$WORK/out"
}
# stop_holder: closes its stdin and waits; "after:" line in $after
stop_holder() {
	exec 3>&-
	wait "$holder"
	holder_status=$?
	after=$(sed -n 's/^after: //p' "$WORK/out")
}

ktap_plan 16

ktap_check "helper built" cc -O2 -Wall -Wextra -Werror -o "$HOLDER" "$SRC" -libverbs

modprobe metaroce
modprobe ib_uverbs
ip link add v0 type veth peer name v1
ip link set v0 up
ip link set v1 up
ip addr add 10.9.9.1/24 dev v0
ktap_check "rdma link add" rdma link add mr0 type metaroce netdev v0

# 1: objects, then rdma link delete with the context open. The MAD layer holds a PD, a CQ
# and an MR of its own for the GSI QP: the user's come on top.
pds=$(info_val mr0 pds)
mrs=$(info_val mr0 mrs)
start_holder
holder_results
ktap_check "the kernel holds the user's PD" info_has mr0 pds $((pds + 1))
ktap_check "the kernel holds the user's MR" info_has mr0 mrs $((mrs + 1))
ktap_check "rdma link delete with a context open" timeout 20 rdma link delete mr0
ktap_check "device gone" dev_gone mr0
stop_holder
ktap_check "later verbs fail after the device is gone" test "$after" = "alloc_pd failed"
ktap_check "the process releases everything and exits" test "$holder_status" -eq 0

# 2: module unload with a context open.
rdma link add mr0 type metaroce netdev v0
start_holder
ktap_check "module unload with a context open" timeout 20 modprobe -r metaroce
ktap_check "module gone" bash -c '! grep -q "^metaroce " /proc/modules'
stop_holder
ktap_check "the process exits cleanly after unload" test "$holder_status" -eq 0

ktap_finish
