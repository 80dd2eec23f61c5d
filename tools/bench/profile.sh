#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a MetaRoCE ib_write_bw run spends its time, inside the test VM:
#   tools/testing/vm/run -- tools/bench/profile.sh
# Runs ib_write_bw between two MetaRoCE devices (two namespaces, one veth link) for
# BENCH_ITERS messages (2000) of BENCH_SIZE bytes (65536), BENCH_LOSS percent netem loss both ways (0);
# while it runs, samples every CPU with perf (cpu-clock, the only clock TCG gives) for
# BENCH_PERF_SECONDS (4) and prints the hottest symbols, the QPs' debugfs state (cwnd, srtt,
# retransmissions, ACKs) and the device counters. BENCH_DRIVERS=rxe profiles rxe instead.
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
. "$(dirname "$0")/setup.sh"
require_vm

drv=${BENCH_DRIVERS:-metaroce}
size=${BENCH_SIZE:-65536}
loss=${BENCH_LOSS:-0}
iters=${BENCH_ITERS:-2000}
psec=${BENCH_PERF_SECONDS:-4}
perf=$(command -v perf) || { echo "# perf is not installed (Debian: linux-perf)"; exit 1; }

"setup_$drv" || { echo "# $drv: cannot set up two devices"; exit 1; }
impair "$loss"
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
mount -t debugfs none /sys/kernel/debug 2>/dev/null

bw_pair "$SRV" "$NSRV" "$GSRV" "$CLI" "$NCLI" "$GCLI" "$IP" "${EXTRA[@]}" \
	-s "$size" -n "$iters" >/tmp/profile-bw 2>/tmp/profile-err &
bw=$!
# Sample once data moves: perftest's setup takes seconds under emulation.
busy() {
	case $drv in
	metaroce) grep -qs '^qp .* user .* sq [0-9]*/[0-9]*/[1-9]' /sys/kernel/debug/metaroce/*/qps ;;
	*) [ "$(pgrep -c -x ib_write_bw)" -ge 2 ] && sleep 4 ;;
	esac
}
wait_for 90 busy || echo "# no traffic seen"
sleep "${BENCH_WARMUP:-2}"
"$perf" record -q -a -g -e cpu-clock -o /tmp/perf.data -- sleep "$psec" 2>/dev/null &
perfpid=$!
sleep $((psec / 2))
for f in /sys/kernel/debug/metaroce/*/qps; do
	[ -e "$f" ] && { echo "# $f"; sed 's/^/# /' "$f"; }
done
wait "$perfpid"
if wait "$bw"; then
	echo "BENCH driver=$drv test=bw size=$size loss=$loss gbps=$(cat /tmp/profile-bw)"
else
	sed 's/^/# /' /tmp/profile-err
fi
echo "# perf: hottest symbols, all CPUs (self time)"
"$perf" report -i /tmp/perf.data --stdio --no-children --sort sym 2>/dev/null |
	grep -E '^ +[0-9.]+%' | head -n "${BENCH_PERF_LINES:-45}" | sed 's/^/# /'
echo "# perf: by command"
"$perf" report -i /tmp/perf.data --stdio --no-children --sort comm 2>/dev/null |
	grep -E '^ +[0-9.]+%' | head -n 12 | sed 's/^/# /'
for f in /sys/kernel/debug/metaroce/*/counters; do
	[ -e "$f" ] && { echo "# $f"; grep -v '	0$' "$f" | sed 's/^/# /'; }
done
impair 0
