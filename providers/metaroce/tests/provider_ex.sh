#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host test: the extended verbs of libmetaroce (extended CQs and QPs, the
# ibv_wr_* send API) through the installed libibverbs, against the stand-in
# kernel of fake_uverbs.c in its "ex" scenario.
#
# The verbs_ex helper creates extended CQs and QPs on one fabricated MetaRoCE
# device (see fake_rdma.sh), polls completions the fake kernel put in the CQ
# ring (and ones it adds itself) with ibv_start_poll/ibv_next_poll and the
# ibv_wc_read_* accessors and then ibv_poll_cq on the same ring, builds
# batches with ibv_wr_* and checks each WQE in the send ring, the published
# prod and the doorbells, wr_abort, and the refusals (flags MetaRoCE lacks,
# bad batches, RESET, a full ring). Needs root (to create the device node in
# a private mount namespace); skipped otherwise.
#
# Uses $METAROCE_PROVIDER_DIR, or ../lib next to this script. Output is TAP;
# the exit status is non-zero if any test fails.

set -u

here=$(cd "$(dirname "$0")" && pwd)
dir=${METAROCE_PROVIDER_DIR:-$(cd "$here/../lib" 2>/dev/null && pwd)}
FAKE_HELPERS=${METAROCE_TEST_HELPERS:-$here/.metaroce}
VERBS_CHECKS=48
BAD_YIELD_CHECKS=3
EX_CHECKS=$((VERBS_CHECKS + BAD_YIELD_CHECKS))
TAG=$((0x4d520000))

for d in "$FAKE_HELPERS" "$here"; do
	[ -r "$d/tap.sh" ] && . "$d/tap.sh" && break
done
tap_plan "$EX_CHECKS"

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

verbs_ex=(env RDMAV_DRIVERS="$dir/libmetaroce" FAKE_UVERBS_LOG="$work/log"
	FAKE_UVERBS_SCENARIO=ex "$FAKE_HELPERS/verbs_ex" mr0)
fake_checks "$work/ex" "$VERBS_CHECKS" "$work/log" "${verbs_ex[@]}"
# A separate process: METAROCE_POLL_YIELD is read when the device is opened.
fake_checks "$work/bad-yield" "$BAD_YIELD_CHECKS" "$work/log" "${verbs_ex[@]}" bad-yield
if [ "$failed" -ne 0 ]; then
	diag "fake kernel log:" "$(cat "$work/log" 2>/dev/null)"
fi

tap_done
