#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: RC QPs between two MetaRoCE devices on two nodes, driven by the in-kernel
# test module metaroce_rc_test.ko (drivers/infiniband/sw/metaroce/tests/, krping style):
# every RC operation with data checked byte for byte, error completions, RNR, then UC QPs
# (what UC refuses; a stream of SENDs whose completed receives must be intact and in
# order: all of them on a clean link, some lost with uc_lossy=1); first on a clean link,
# then with 10% loss, reordering and duplication (netem) on both directions.
# Between the two, metaroce_cm_test.ko connects QPs with rdma_cm across the namespaces (CM
# MADs over the GSI QPs, MetaRoCE datagrams), sends and reads over the connection and
# disconnects.
# Then teardown while traffic runs: the link is deleted, the netdev removed and the module
# unloaded under a stream of sends.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/qp_rc.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

TEST_KO=${METAROCE_RC_TEST_KO:-$METAROCE_KOBJ/tests/metaroce_rc_test.ko}
CM_KO=$METAROCE_KOBJ/tests/metaroce_cm_test.ko

# rc_test NAME [KO] ARGS...: load a test module once, print its TAP lines as diagnostics
# and make them one point: all of its tests passed.
rc_test() {
	local name=$1 ko=$TEST_KO marker status log
	shift
	case ${1:-} in *.ko) ko=$1; shift ;; esac
	marker="metaroce-selftest: qp_rc $$ $(date +%s%N)"
	echo "$marker" >/dev/kmsg
	insmod "$ko" a=mr_a b=mr_b "$@"
	status=$?
	rmmod "$(basename "$ko" .ko)" 2>/dev/null
	log=$(dmesg | sed -n "/$marker/,\$p" | sed -n 's/^\[[ 0-9.]*\] metaroce_[a-z]*_test: //p')
	ktap_diag "$log"
	if [ "$status" -eq 0 ] && grep -q '^ok ' <<<"$log" && ! grep -q '^not ok' <<<"$log"; then
		ktap_ok "$name ($(grep -c '^ok ' <<<"$log") checks)"
	else
		ktap_fail "$name (insmod status $status)"
	fi
}

setup() {
	node_add a
	node_add b
	link_add a va 10.7.0.1 b vb 10.7.0.2
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b &&
		gid_index mr_a 10.7.0.1 >/dev/null && gid_index mr_b 10.7.0.2 >/dev/null
}

ktap_plan 7
modprobe rdma_cm
# In this shell, not in ktap_check's subshell: cleanup must know the nodes it made.
setup
rc=$?
ktap_result "two nodes, a MetaRoCE device on each" $rc
[ "$rc" -eq 0 ] || ktap_finish

rc_test "every RC operation, clean link"
rc_test "rdma_cm: connect, send, read, disconnect across namespaces" "$CM_KO" \
	addr_a=10.7.0.1 addr_b=10.7.0.2
netem a va loss 10% delay 1ms 1ms distribution normal duplicate 2%
netem b vb loss 10% delay 1ms 1ms distribution normal duplicate 2%
rc_test "every RC operation, 10% loss, reordering, duplication" count=1024 uc_lossy=1
ktap_check "retransmissions were counted" \
	sh -c '[ "$(rdma statistic show link mr_a/1 | tr " " "\n" | grep -A1 -x retrans_fast | tail -n1)" -gt 0 ]'

# Teardown under traffic: a long stream is running when the link goes.
insmod "$TEST_KO" a=mr_a b=mr_b count=100000 timeout_ms=3000 2>/dev/null &
loader=$!
sleep 3
ktap_check "rdma link delete while QPs carry traffic" on a rdma link delete mr_a
wait "$loader" 2>/dev/null
rmmod metaroce_rc_test 2>/dev/null
ktap_check "module unload with a device and QPs gone" \
	sh -c 'rdma link delete mr_b 2>/dev/null; ip netns exec b rdma link delete mr_b 2>/dev/null; modprobe -r metaroce'
RDMA_LINKS=()
ktap_finish
