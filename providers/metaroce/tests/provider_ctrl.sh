#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host test: the control path of libmetaroce through the installed
# libibverbs, against a stand-in for the kernel driver.
#
# One fabricated MetaRoCE device, mr0 (see fake_rdma.sh), whose uverbs
# commands fake_uverbs.so answers. ibv_devinfo -v and the verbs_ctrl helper
# then go through the provider's alloc_context, query_device_ex, query_port,
# alloc_pd/dealloc_pd, reg_mr/dereg_mr, create_cq (its ring mapped from a
# memfd the fake kernel fills with two completions), poll_cq, req_notify_cq,
# destroy_cq, create_qp (its rings memfds too), modify_qp, post_recv (refused
# in RESET), post_send (the fake kernel checks the WQEs at the doorbell),
# destroy_qp, create_srq, modify_srq, query_srq, post_srq_recv (into the
# mapped ring, no system call), destroy_srq and free_context, each reached
# through the slot verbs_private.h gives it in verbs_context_ops; an op the
# provider leaves unset (alloc_mw)
# must fail with EOPNOTSUPP. Needs root (to create the device
# node in a private mount namespace); skipped otherwise.
#
# Uses $METAROCE_PROVIDER_DIR, or ../lib next to this script. Output is TAP;
# the exit status is non-zero if any test fails.

set -u

here=$(cd "$(dirname "$0")" && pwd)
dir=${METAROCE_PROVIDER_DIR:-$(cd "$here/../lib" 2>/dev/null && pwd)}
FAKE_HELPERS=${METAROCE_TEST_HELPERS:-$here/.metaroce}
VERBS_CHECKS=30
PLAN=$((6 + VERBS_CHECKS))
TAG=$((0x4d520000))

# TAP helpers: installed beside fake_rdma.sh, or next to this script in the source tree.
for d in "$FAKE_HELPERS" "$here"; do
	[ -r "$d/tap.sh" ] && . "$d/tap.sh" && break
done
tap_plan "$PLAN"

command -v ibv_devinfo >/dev/null || skip_all "ibv_devinfo not installed (ibverbs-utils)"
command -v unshare >/dev/null || skip_all "unshare not installed"
[ -r "$FAKE_HELPERS/fake_rdma.sh" ] || skip_all "no test helpers in $FAKE_HELPERS (make unit builds them)"
[ -r "$dir/libmetaroce-rdmav34.so" ] || skip_all "no provider in $dir"
# shellcheck source=fake_rdma.sh
. "$FAKE_HELPERS/fake_rdma.sh"
fake_can_open || skip_all "not root: cannot create the fake uverbs device node"

work=$(mktemp -d)
trap '[ -n "${METAROCE_TEST_KEEP:-}" ] || rm -rf "$work"' EXIT
fake_init "$work"
fake_add_device mr0 $((TAG | 2)) 0200:00ff:fe00:0001 openable
fake_add_gid mr0 0 fe80:0000:0000:0000:0000:00ff:fe00:0001 "RoCE v2"
fake_add_gid mr0 1 0000:0000:0000:0000:0000:ffff:0a09:0901 "RoCE v2"

fake_run "$work/probe" "$work/probe.err" true ||
	skip_all "cannot make a private mount namespace: $(head -n 1 "$work/probe.err")"

# 1-6: ibv_devinfo -v
fake_run "$work/info" "$work/info.err" \
	env RDMAV_DRIVERS="$dir/libmetaroce" FAKE_UVERBS_LOG="$work/log" \
	ibv_devinfo -v -d mr0
rc=$?
info=$(cat "$work/info")
err=$(cat "$work/info.err")
tap $rc "ibv_devinfo -v -d mr0 succeeds" "$info" "$err" "$(cat "$work/log" 2>/dev/null)"

grep -Eq '^[[:space:]]+fw_ver:[[:space:]]+1\.2\.3$' <<<"$info"
tap $? "fw_ver is formatted by query_device_ex" "$(grep fw_ver <<<"$info")"

grep -Eq '^[[:space:]]+max_pd:[[:space:]]+1024$' <<<"$info"
tap $? "device attributes come from QUERY_DEVICE" "$(grep max_pd <<<"$info")"

grep -Eq '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$' <<<"$info" &&
	grep -Eq '^[[:space:]]+link_layer:[[:space:]]+Ethernet$' <<<"$info"
tap $? "port 1 is PORT_ACTIVE on Ethernet (query_port)" "$(grep -E 'state|link_layer' <<<"$info")"

grep -Eq 'GID\[ *1\]:[[:space:]]+::ffff:10\.9\.9\.1, RoCE v2$' <<<"$info"
tap $? "shows the RoCE v2 GID ::ffff:10.9.9.1" "$(grep GID <<<"$info")"

# GET_CONTEXT must carry room for struct metaroce_alloc_ucontext_resp (8 + 8
# bytes); extended commands are refused on purpose (libibverbs falls back).
grep -q '^cmd 0 in=8 out=16: ok$' "$work/log" &&
	! grep -Eq 'Invalid argument|Function not implemented' "$work/log"
tap $? "GET_CONTEXT has the MetaRoCE response; no command was rejected" "$(cat "$work/log" 2>/dev/null)"

# 7-31: the verbs_ctrl helper, one TAP line per check it prints
: >"$work/log"
fake_checks "$work/ctrl" "$VERBS_CHECKS" "$work/log" \
	env RDMAV_DRIVERS="$dir/libmetaroce" FAKE_UVERBS_LOG="$work/log" \
	"$FAKE_HELPERS/verbs_ctrl" mr0
if [ "$failed" -ne 0 ]; then
	diag "fake kernel log:" "$(cat "$work/log")"
fi

tap_done
