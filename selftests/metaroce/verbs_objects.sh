#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: verbs objects of a MetaRoCE device (PD, DMA/user/fast-reg MRs
# and the key look-up, CQ, AH), tested in the kernel by
# metaroce_verbs_test.ko (drivers/infiniband/sw/metaroce/tests/) on a device
# over a veth with 10.9.9.1/24.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/verbs_objects.sh
#
# The test module logs TAP lines; they are printed here as they are. The exit
# status is non-zero if a test failed or the module could not run.

# shellcheck source=selftests/metaroce/lib.sh
. "$(dirname "$0")/lib.sh"
require_vm

TEST_KO=${METAROCE_TEST_KO:-$METAROCE_KOBJ/tests/metaroce_verbs_test.ko}

verbs_cleanup() {
	rdma link delete mr0 2>/dev/null
	ip link del v0 2>/dev/null
	metaroce_unload 2>/dev/null
	cleanup
}
trap verbs_cleanup EXIT

ktap_header
metaroce_load || { ktap_skip_all "cannot load metaroce"; exit 1; }

ip link add v0 type veth peer name v1
ip link set v0 up
ip link set v1 up
ip addr add 10.9.9.1/24 dev v0
rdma link add mr0 type metaroce netdev v0 || { ktap_skip_all "rdma link add failed"; exit 1; }
# ib_core fills the GID table from a work queue.
wait_for 5 grep -qx 0000:0000:0000:0000:0000:ffff:0a09:0901 /sys/class/infiniband/mr0/ports/1/gids/*

# Read only what follows a marker: clearing the log (dmesg -c) would hide an earlier
# WARNING from the harness, which scans the whole log at the end of the run.
marker="metaroce-selftest: verbs_objects $$ $(date +%s%N)"
echo "$marker" >/dev/kmsg
insmod "$TEST_KO" dev=mr0
status=$?
log=$(dmesg | sed -n "/$marker/,\$p" | sed -n 's/^\[[ 0-9.]*\] metaroce_verbs_test: //p')
if [ -n "$log" ]; then
	echo "$log"
else
	ktap_skip_all "the test module printed nothing (insmod status $status)"
fi
# The module stays loaded only if every test passed.
rmmod metaroce_verbs_test 2>/dev/null

[ "$status" -eq 0 ] && ! grep -q '^not ok' <<<"$log"
