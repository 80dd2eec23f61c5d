#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: the direct-verbs extension of libmetaroce (infiniband/metaroce_dv.h)
# between two nodes. A MetaRoCE device on each end of a veth pair (namespaces a and b),
# created with the module parameter paths=5; the helper provider_dv.c (built here with cc
# against build/include and build/lib/libmetaroce.so) runs as server in a and client in b.
# Both create an RC QP with metaroce_dv_create_qp(): 4 paths, 3 streams. The client sends
# 16 messages with immediate data on each stream, interleaved (streams 0 and 1 with
# metaroce_dv_post_send(), stream 2 with ibv_wr_* and metaroce_dv_wr_set_stream()), and an
# RDMA write on each stream before its last message; the server checks every byte, the order
# within each stream and that a stream's write is there when its last message completes;
# the client checks its send completions (in order per stream), that a stream >= 3 is
# refused, and its per-path statistics (metaroce_dv_query_path_stats: 4 paths, 4 distinct
# source ports, packets adding up to the QP's). The server checks that a plain QP gets the
# device's 5 paths and 1 stream and that bad paths and streams are refused. This script
# checks that debugfs shows 4 paths for the client's QP and the same packets sent. All of
# it twice: on a clean link, then with 5% netem loss both ways.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/provider_dv.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

WORK=$(mktemp -d)
HELPER=$WORK/provider_dv
DEV_PATHS=5
SERVER_CHECKS=7
CLIENT_CHECKS=7
PARAM=/sys/module/metaroce/parameters/paths
OLD_PATHS=
GA='' GB=''

finish() {
	[ -n "$OLD_PATHS" ] && [ -w "$PARAM" ] && echo "$OLD_PATHS" >"$PARAM"
	cleanup
	rm -rf "$WORK"
}
trap finish EXIT

setup() {
	node_add a
	node_add b
	link_add a va 10.7.0.1 b vb 10.7.0.2
	modprobe metaroce || return
	# Latched by "rdma link add": the devices below have DEV_PATHS paths.
	OLD_PATHS=$(cat "$PARAM") && echo "$DEV_PATHS" >"$PARAM" || return
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b &&
		GA=$(gid_index mr_a 10.7.0.1) && GB=$(gid_index mr_b 10.7.0.2)
}

# points FILE WANT WHO: FILE's PASS/FAIL lines as test points; WANT of them expected.
points() {
	local file=$1 want=$2 who=$3 line seen=0
	while IFS= read -r line; do
		case $line in
		PASS\ *) seen=$((seen + 1)); ktap_ok "$who: ${line#PASS }" ;;
		FAIL\ *) seen=$((seen + 1)); ktap_fail "$who: ${line#FAIL }" ;;
		*) ktap_diag "$who: $line" ;;
		esac
	done <"$file"
	while [ "$seen" -lt "$want" ]; do
		seen=$((seen + 1))
		ktap_fail "$who: check $seen did not run"
	done
}

# qp_block QPN: the lines debugfs shows for QP QPN of mr_b.
qp_block() {
	awk -v q="qp $1:" '$0 ~ /^qp / { on = index($0, q) == 1 } on' \
		/sys/kernel/debug/metaroce/mr_b/qps
}

debugfs_paths() {
	local n
	n=$(qp_block "$1" | grep -c '^  path ')
	[ "$n" -eq 4 ] || { echo "QP $1: $n path lines"; qp_block "$1"; return 1; }
}

debugfs_sent() {
	local sent
	sent=$(qp_block "$1" | sed -n 's/^  sent: pkts \([0-9]*\) .*/\1/p')
	[ "$sent" = "$2" ] || { echo "debugfs pkts '$sent', statistics $2"; qp_block "$1"; return 1; }
}

# stats_or_gone FILE PID: FILE written, or PID (which would write it) gone.
stats_or_gone() {
	[ -s "$1" ] || ! kill -0 "$2" 2>/dev/null
}

# run LABEL: one exchange between the two nodes, its points labelled LABEL.
run() {
	local label=$1 dir=$WORK/$1 qpn='' tx='' spid cpid src crc
	mkdir -p "$dir"
	on a timeout 240 "$HELPER" server mr_a "$GA" "$dir" "$DEV_PATHS" \
		>"$dir/server.out" 2>&1 &
	spid=$!
	on b timeout 240 "$HELPER" client mr_b "$GB" "$dir" "$DEV_PATHS" \
		>"$dir/client.out" 2>&1 &
	cpid=$!
	if wait_for 200 stats_or_gone "$dir/client-stats" "$cpid" >/dev/null &&
	   [ -s "$dir/client-stats" ]; then
		read -r qpn tx <"$dir/client-stats"
	fi
	ktap_check "$label: debugfs shows the 4 paths of the client's QP ${qpn:-?}" \
		debugfs_paths "${qpn:-none}"
	ktap_check "$label: debugfs shows the packets sent that its statistics add up to" \
		debugfs_sent "${qpn:-none}" "${tx:-none}"
	touch "$dir/stats-read"
	wait "$cpid"
	crc=$?
	wait "$spid"
	src=$?
	points "$dir/client.out" "$CLIENT_CHECKS" "$label client"
	points "$dir/server.out" "$SERVER_CHECKS" "$label server"
	ktap_diag "$label: exit status client $crc, server $src"
}

ktap_plan $((2 + 2 * (SERVER_CHECKS + CLIENT_CHECKS + 2) + 1))
if setup; then
	ktap_ok "two nodes, a MetaRoCE device with $DEV_PATHS paths on each (GIDs $GA, $GB)"
else
	ktap_fail "two nodes, a MetaRoCE device with $DEV_PATHS paths on each"
	ktap_finish
fi
ktap_check "helper built against infiniband/metaroce_dv.h and -lmetaroce" \
	cc -O2 -Wall -Wextra -Werror -I"$TOP/build/include" -o "$HELPER" \
	"$TOP/selftests/metaroce/provider_dv.c" -L"$TOP/build/lib" \
	-Wl,-rpath,"$TOP/build/lib" -lmetaroce -libverbs || ktap_finish

run clean
netem a va loss 5%
netem b vb loss 5%
run loss
retx=$(sed -n 's/^# stats: .* qp tx_pkts [0-9]* retx \([0-9]*\) .*/\1/p' "$WORK/loss/client.out")
ktap_result "loss: the client's paths report retransmissions (${retx:-none})" \
	"$([ "${retx:-0}" -gt 0 ]; echo $?)"
ktap_finish
