#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a MetaRoCE ib_write_bw run spends its time, inside the test VM:
#   tools/testing/vm/run -- tools/bench/profile.sh
# Runs ib_write_bw between two MetaRoCE devices (two namespaces, one veth link) for
# BENCH_ITERS messages (2000) of BENCH_SIZE bytes (65536), BENCH_LOSS percent netem loss both
# ways (0), and prints where the vCPUs' time went meanwhile (user, system, softirq, idle from
# /proc/stat), the hottest core-kernel functions when the VM was booted with the tick profiler
#   tools/testing/vm/run --append profile=2 -- tools/bench/profile.sh
# the QPs' debugfs state (cwnd, srtt, retransmissions, ACKs) and the device counters.
# BENCH_DRIVERS=rxe profiles rxe instead. perf is not used: under TCG its cpu-clock samples
# land in the idle loop only (testing.rst, "Profiling the datapath").
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
. "$(dirname "$0")/setup.sh"
require_vm

drv=${BENCH_DRIVERS:-metaroce}
size=${BENCH_SIZE:-65536}
loss=${BENCH_LOSS:-0}
iters=${BENCH_ITERS:-2000}

"setup_$drv" || { echo "# $drv: cannot set up two devices"; exit 1; }
impair "$loss"
echo 0 >/proc/sys/kernel/kptr_restrict
mount -t debugfs none /sys/kernel/debug 2>/dev/null

[ -w /proc/profile ] && echo 0 >/proc/profile
read -r _ u0 n0 s0 i0 w0 q0 sq0 _ </proc/stat
bw_pair "$SRV" "$NSRV" "$GSRV" "$CLI" "$NCLI" "$GCLI" "$IP" "${EXTRA[@]}" \
	-s "$size" -n "$iters" >/tmp/profile-bw 2>/tmp/profile-err &
bw=$!
# The QPs' state halfway: perftest's setup takes seconds under emulation.
busy() { grep -qs '^qp .* user .* sq [0-9]*/[0-9]*/[1-9]' /sys/kernel/debug/metaroce/*/qps; }
if [ "$drv" = metaroce ] && wait_for 90 busy; then
	sleep "${BENCH_WARMUP:-2}"
	for f in /sys/kernel/debug/metaroce/*/qps; do
		[ -e "$f" ] && { echo "# $f"; sed 's/^/# /' "$f"; }
	done
fi
if wait "$bw"; then
	echo "BENCH driver=$drv test=bw size=$size loss=$loss gbps=$(cat /tmp/profile-bw)"
else
	sed 's/^/# /' /tmp/profile-err
fi
# Ticks of all vCPUs from setup to teardown of the two perftest processes.
read -r _ u1 n1 s1 i1 w1 q1 sq1 _ </proc/stat
echo "# vCPU ticks: user $((u1 + n1 - u0 - n0)) system $((s1 - s0))" \
	"softirq $((sq1 - sq0)) irq $((q1 - q0)) idle $((i1 + w1 - i0 - w0))"
if [ -r /proc/profile ]; then
	"$(dirname "$0")/readprofile" "${BENCH_PROFILE_LINES:-40}"
else
	echo "# no /proc/profile: boot with --append profile=2 for kernel functions"
fi
for f in /sys/kernel/debug/metaroce/*/counters; do
	[ -e "$f" ] && { echo "# $f"; grep -v '	0$' "$f" | sed 's/^/# /'; }
done
impair 0
