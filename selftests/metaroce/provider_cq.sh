#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: CQs, QPs and AHs of a MetaRoCE device through libibverbs and libmetaroce,
# whose rings the kernel allocates and the provider maps (rdma/metaroce-abi.h, "Rings").
#
# On mr0 over a veth, the helper provider_cq.c (built here with cc, the tree being read-only
# in the VM) checks: CQs of 1 to 65536 entries are created, polled empty (ibv_poll_cq returns
# 0, no system call) and destroyed; a CQ on a completion channel can be armed and has no event
# without a completion; resize_cq keeps it usable; an RC QP is created with its send and
# receive rings mapped and the kernel's capacities reported, goes to INIT, takes a receive,
# and post_send refuses what the ring cannot carry; an AH is created and destroyed; no ring
# stays mapped after destroy. Then: 200 rounds of create/destroy do not grow VmallocUsed (the
# rings are vmalloc memory); a process that exits holding CQs, a QP and an AH leaves nothing
# behind. Then metaroce_verbs_test.ko posts 5 completions with metaroce_cq_post(), as the
# transport will, to the helper's armed 4-entry CQ: the helper gets the completion event on
# its channel, polls the 4 that fit with every field translated, and gets IBV_EVENT_CQ_ERR
# for the 5th. Last, the device and module go away.
#
# While the kernel has no user QPs (create_qp fails with EOPNOTSUPP), the QP checks are
# SKIPped with that reason and the rest runs without QPs.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/provider_cq.sh
# shellcheck source=selftests/metaroce/lib.sh
. "$(dirname "$0")/lib.sh"
require_vm

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$TOP/selftests/metaroce/provider_cq.c
WORK=$(mktemp -d)
HELPER=$WORK/provider_cq
DEV=mr0
ADDR=10.9.8.1
HELPER_CHECKS=29
EVENT_CHECKS=6
TEST_KO=$METAROCE_KOBJ/tests/metaroce_verbs_test.ko
LOOPS=200
# VmallocUsed may move a little for reasons of its own; a leak of the rings of 200 rounds
# (a 4096-entry CQ is 256 KiB) would be far more.
SLACK_KB=2048

use_build_provider

trap 'exec 3>&-; cleanup; ip link del v0 2>/dev/null; rm -rf "$WORK"; rmmod metaroce_verbs_test 2>/dev/null; modprobe -r metaroce 2>/dev/null' EXIT

vmalloc_kb() { awk '$1 == "VmallocUsed:" { print $2 }' /proc/meminfo; }

# vmalloc_back BASE: VmallocUsed is within SLACK_KB of BASE, within a few seconds (the
# kernel frees a closed file's objects as the last reference goes).
vmalloc_back() {
	local _ now
	for _ in $(seq 30); do
		now=$(vmalloc_kb)
		[ "$now" -le $(($1 + SLACK_KB)) ] && return 0
		sleep 0.2
	done
	echo "VmallocUsed ${now} kB, was $1 kB"
	return 1
}

ktap_plan $((4 + HELPER_CHECKS + 5 + EVENT_CHECKS + 2))

ktap_check "modprobe metaroce" modprobe metaroce || ktap_finish
modprobe ib_uverbs 2>/dev/null
ktap_check "veth v0/v1 up with $ADDR/24, rdma link add $DEV" sh -c "
	ip link add v0 type veth peer name v1 &&
	ip link set v0 up && ip link set v1 up &&
	ip addr add $ADDR/24 dev v0 &&
	rdma link add $DEV type metaroce netdev v0" || ktap_finish
RDMA_LINKS+=("-:$DEV")
rdma_wait_active "$DEV"
ktap_check "helper built" cc -O2 -Wall -Wextra -Werror -o "$HELPER" "$SRC" -libverbs || ktap_finish
gid=$(gid_index "$DEV" "$ADDR")
ktap_check "RoCE v2 GID of $ADDR on $DEV (index ${gid:-none})" test -n "$gid" || ktap_finish

# helper_points FILE UNTIL: the helper's lines in FILE as test points, then failures up to
# point UNTIL for the checks it did not reach. (A file: the VM has no /dev/fd.)
helper_points() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) ktap_ok "${line#ok }" ;;
		"not ok "*) ktap_fail "${line#not ok }" ;;
		"skip "*) line=${line#skip }; ktap_skip "${line%%: *}" "${line#*: }" ;;
		"ready "*) ;;
		*) ktap_diag "$line" ;;
		esac
	done <"$1"
	while [ "$KTAP_NUM" -lt "$2" ]; do
		ktap_fail "helper check not reached"
	done
}

"$HELPER" "$DEV" "$gid" checks >"$WORK/checks" 2>&1
helper_points "$WORK/checks" $((4 + HELPER_CHECKS))

"$HELPER" "$DEV" "$gid" loop 5 >/dev/null 2>&1	# warm-up: caches, xarray nodes
base=$(vmalloc_kb)
ktap_check "$LOOPS rounds of create and destroy" "$HELPER" "$DEV" "$gid" loop "$LOOPS"
ktap_check "VmallocUsed back to ${base} kB (+${SLACK_KB}) after them" vmalloc_back "$base"

out=$("$HELPER" "$DEV" "$gid" hold 2>&1)
rc=$?
ktap_diag "$out"
ktap_check "a process exits holding CQs and an AH (and a QP, if the kernel has them)" \
	sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^ready"' - "$rc" "$out"
ktap_check "VmallocUsed back to ${base} kB (+${SLACK_KB}) after its exit" vmalloc_back "$base"

# Completions from the kernel, as the transport will post them: the test module posts 5 to
# the helper's armed 4-entry CQ; the helper gets the event, polls 4 and sees the overflow.
mkfifo "$WORK/in"
"$HELPER" "$DEV" "$gid" events <"$WORK/in" >"$WORK/events" 2>&1 &
hpid=$!
exec 3>"$WORK/in"
for _ in $(seq 100); do
	grep -q '^ready' "$WORK/events" && break
	sleep 0.1
done
cqn=$(rdma -j resource show cq dev "$DEV" 2>/dev/null | python3 -c '
import json, sys
pid = int(sys.argv[1])
print(next(c["cqn"] for c in json.load(sys.stdin) if c.get("pid") == pid))' "$hpid" 2>/dev/null)
marker="metaroce-selftest: provider_cq $$ $(date +%s%N)"
echo "$marker" >/dev/kmsg
ktap_check "the kernel posts 5 completions to the helper's CQ ${cqn:-(not found)}" \
	insmod "$TEST_KO" dev="$DEV" inject_cq="${cqn:--1}" inject=5
ktap_diag "$(dmesg | sed -n "/$marker/,\$p" | sed -n 's/^\[[ 0-9.]*\] metaroce_verbs_test: //p')"
rmmod metaroce_verbs_test 2>/dev/null
exec 3>&-
wait "$hpid"
helper_points "$WORK/events" $((4 + HELPER_CHECKS + 5 + EVENT_CHECKS))

ktap_check "rdma link delete $DEV" rdma_del_all
ktap_check "modprobe -r metaroce" modprobe -r metaroce

ktap_finish
