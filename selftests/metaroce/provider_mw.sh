#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: memory windows and atomic write through libmetaroce between two nodes. A
# MetaRoCE device on each end of a veth pair (namespaces a and b); the helper provider_mw.c
# (built here with cc) runs as server in a and client in b. The server's MR grants no
# remote right; it binds a type 1 window (ibv_bind_mw) and three type 2 windows
# (ibv_wr_bind_mw twice, ibv_post_send IBV_WR_BIND_MW). The client's WRITE, READ and
# ATOMIC_WRITE inside the windows succeed (data read back and checked by the server), and
# fail with a remote access error across a window's end, before its start, from a QP that
# did not bind the type 2 window, and after LOCAL_INV (ibv_post_send, ibv_wr_local_inv).
# The server checks that nothing landed outside the windows, that dereg_mr refuses an MR
# with bound windows (EBUSY) and that a type 3 window is refused (EINVAL).
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/provider_mw.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

WORK=$(mktemp -d)
HELPER=$WORK/provider_mw
SERVER_CHECKS=13
CLIENT_CHECKS=13
GA='' GB=''
trap 'cleanup; rm -rf "$WORK"' EXIT

setup() {
	node_add a
	node_add b
	link_add a va 10.7.1.1 b vb 10.7.1.2
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b &&
		GA=$(gid_index mr_a 10.7.1.1) && GB=$(gid_index mr_b 10.7.1.2)
}

# points FILE WANT WHO: FILE's PASS/FAIL lines as test points; WANT of them expected.
points() {
	local file=$1 want=$2 who=$3 line seen=0
	while IFS= read -r line; do
		case $line in
		PASS\ *) seen=$((seen + 1)); ktap_ok "${line#PASS }" ;;
		FAIL\ *) seen=$((seen + 1)); ktap_fail "${line#FAIL }" ;;
		*) ktap_diag "$who: $line" ;;
		esac
	done <"$file"
	while [ "$seen" -lt "$want" ]; do
		seen=$((seen + 1))
		ktap_fail "$who: check $seen did not run"
	done
}

ktap_plan $((2 + SERVER_CHECKS + CLIENT_CHECKS + 1))
if setup; then
	ktap_ok "two nodes, a MetaRoCE device on each (GIDs $GA, $GB)"
else
	ktap_fail "two nodes, a MetaRoCE device on each"
	ktap_finish
fi
ktap_check "helper built" cc -O2 -Wall -Wextra -Werror -o "$HELPER" \
	"$TOP/selftests/metaroce/provider_mw.c" -libverbs || ktap_finish

on a timeout 150 "$HELPER" server mr_a "$GA" "$WORK" >"$WORK/server.out" 2>&1 &
spid=$!
on b timeout 150 "$HELPER" client mr_b "$GB" "$WORK" >"$WORK/client.out" 2>&1
crc=$?
wait "$spid"
src=$?
points "$WORK/client.out" "$CLIENT_CHECKS" client
points "$WORK/server.out" "$SERVER_CHECKS" server
ktap_diag "exit status: client $crc, server $src"
ktap_check "rdma link delete of both devices" rdma_del_all
ktap_finish
