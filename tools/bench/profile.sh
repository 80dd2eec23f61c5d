#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a MetaRoCE ib_write_bw run spends its time, inside the test VM:
#   tools/testing/vm/run -- tools/bench/profile.sh
# Runs ib_write_bw between two MetaRoCE devices (two namespaces, one veth link) for
# BENCH_ITERS messages (2000) of BENCH_SIZE bytes (65536), BENCH_LOSS percent netem loss both
# ways (0; the qdisc is there at 0% too, as in loss.sh: without it a lossless run is cheaper
# per packet by more than 1% loss costs, testing.rst "A fifteenth session"), and prints
# where the vCPUs' time went meanwhile (user, system, softirq, idle from /proc/stat), the
# hottest core-kernel functions when the VM was booted with the tick profiler
#   tools/testing/vm/run --append profile=2 -- tools/bench/profile.sh
# a BENCH_WINDOW seconds (2) window after BENCH_WARMUP (2) of the transfer (packets sent per
# second, each vCPU's user, system and softirq share, the perftest client's CPU, migrations
# and involuntary switches, timer and IPI interrupts per second, and the kernel's vCPUs and
# time per packet sent: "# window" lines; the transfer must outlast it),
# the QPs' debugfs state (cwnd, srtt, retransmissions, ACKs), BENCH_TRACE seconds (2) of
# the metaroce_qp_run tracepoint summed per QP (a "# runs" line each: runs per second, by
# context, packets read and sent per run, receive queue left, in flight, cwnd, srtt and the
# longest gap between two runs) and the device counters.
# BENCH_DRIVERS=rxe profiles rxe instead. perf is not used: under TCG its cpu-clock samples
# land in the idle loop only (testing.rst, "Profiling the datapath"). BENCH_IPSAMPLE=1 also
# loads the test module metaroce_ipsample.ko, which samples the interrupted kernel function
# on every vCPU (module code included, which /proc/profile cannot see) for BENCH_TRACE
# seconds before the tracepoint's, and prints the hottest BENCH_PROFILE_LINES of them (give
# the run enough BENCH_ITERS to last through both).
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
. "$(dirname "$0")/setup.sh"
. "$(dirname "$0")/window.sh"
require_vm

drv=${BENCH_DRIVERS:-metaroce}
size=${BENCH_SIZE:-65536}
loss=${BENCH_LOSS:-0}
iters=${BENCH_ITERS:-2000}

# trace_runs SECONDS: the metaroce_qp_run events of SECONDS, summed per QP. A run's context:
# softirq (after a receive batch), a kworker (the QP's work item) or another task (the
# doorbell of the process that posted).
trace_runs() {
	local ev=$TRACING/events/metaroce/metaroce_qp_run
	tracing_mount
	[ -e "$ev/enable" ] || { echo "# no metaroce_qp_run tracepoint"; return; }
	echo 8192 >"$TRACING/buffer_size_kb"
	echo >"$TRACING/trace"
	echo 1 >"$ev/enable"
	sleep "$1"
	echo 0 >"$ev/enable"
	awk "$RUN_CONTEXT_AWK"'
	/ metaroce_qp_run: / {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) {
				cpu = substr($i, 2, length($i) - 2) + 0
				ts = $(i + 2) + 0
			}
			if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
		}
		q = f["dev"] "/" f["qpn"]
		ctx = run_context()
		n[q]++; c[q, ctx]++; on[q, cpu]++; txc[q, ctx] += f["tx"]
		rx[q] += f["rx"]; tx[q] += f["tx"]; rxq[q] += f["rxq"]
		fl[q] += f["in_flight"]; cw[q] += f["cwnd"]; sr[q] += f["srtt_us"]
		if (q in last && ts - last[q] > gap[q]) gap[q] = ts - last[q]
		if (!(q in first)) first[q] = ts
		last[q] = ts
	}
	function per(q, ctx) { return c[q, ctx] ? txc[q, ctx] / c[q, ctx] : 0 }
	END {
		for (q in n) {
			span = last[q] - first[q]
			cpus = ""
			for (k in on) { split(k, kk, SUBSEP); if (kk[1] == q) cpus = cpus " cpu" kk[2] "=" on[k] }
			printf "# runs %s: %d in %.2f s (%.0f/s), softirq %d worker %d task %d;%s;" \
			       " per run rx %.1f tx %.1f, rxq %.1f in_flight %.0f cwnd %.0f" \
			       " srtt_us %.0f; longest gap %.1f ms; tx per run: softirq %.1f" \
			       " worker %.1f task %.1f\n", q, n[q], span,
			       (span > 0 ? n[q] / span : 0), c[q, "softirq"], c[q, "worker"],
			       c[q, "task"], cpus, rx[q] / n[q], tx[q] / n[q], rxq[q] / n[q],
			       fl[q] / n[q], cw[q] / n[q], sr[q] / n[q], gap[q] * 1000,
			       per(q, "softirq"), per(q, "worker"), per(q, "task")
		}
	}' "$TRACING/trace"
	echo >"$TRACING/trace"
}

# ip_sample_start / ip_sample_report: the kernel functions the vCPUs were in between the
# two, sampled by metaroce_ipsample.ko, per function with its share of all samples (user
# mode and the idle loop included).
ips=/sys/kernel/debug/metaroce_ipsample
ip_sample_start() {
	[ -d $ips ] || insmod "$METAROCE_KOBJ/tests/metaroce_ipsample.ko" ||
		{ echo "# ip_sample: cannot load metaroce_ipsample.ko"; return 1; }
	echo 1 >$ips/enable
}
ip_sample_report() {
	local samples
	echo 0 >$ips/enable
	samples=$(cat $ips/samples)
	rmmod metaroce_ipsample
	grep '^#' <<<"$samples"
	awk '!/^#/ { n = $1; $1 = ""; c[substr($0, 2)] += n; total += n }
		END { for (f in c) printf "%7d %5.1f%%  %s\n", c[f], 100 * c[f] / total, f }' \
		<<<"$samples" | sort -rn | head -n "${BENCH_PROFILE_LINES:-40}" | sed 's/^/# /'
}

"setup_$drv" || { echo "# $drv: cannot set up two devices"; exit 1; }
impair "$loss"
echo 0 >/proc/sys/kernel/kptr_restrict
mount -t debugfs none /sys/kernel/debug 2>/dev/null

rm -f /tmp/profile-ips
[ -w /proc/profile ] && echo 0 >/proc/profile
grep '^cpu' /proc/stat >/tmp/profile-stat0
bw_pair "$SRV" "$NSRV" "$GSRV" "$CLI" "$NCLI" "$GCLI" "$IP" "${EXTRA[@]}" \
	-s "$size" -n "$iters" >/tmp/profile-bw 2>/tmp/profile-err &
bw=$!
# The QPs' state halfway: perftest's setup takes seconds under emulation.
busy() { grep -qs '^qp .* user .* sq [0-9]*/[0-9]*/[1-9]' /sys/kernel/debug/metaroce/*/qps; }
if [ "$drv" = metaroce ] && wait_for 90 busy; then
	sleep "${BENCH_WARMUP:-2}"
	window_snap >/tmp/profile-win0
	sleep "${BENCH_WINDOW:-2}"
	window_snap >/tmp/profile-win1
	window_report /tmp/profile-win0 /tmp/profile-win1
	# First, before the tracepoint is switched on: TCG races on live kernel text
	# patching (testing.rst), and a sampled run hit that once while both happened.
	if [ "${BENCH_IPSAMPLE:-0}" = 1 ] && ip_sample_start; then
		sleep "${BENCH_TRACE:-2}"
		ip_sample_report >/tmp/profile-ips
	fi
	for f in /sys/kernel/debug/metaroce/*/qps; do
		[ -e "$f" ] && { echo "# $f"; sed 's/^/# /' "$f"; }
	done
	trace_runs "${BENCH_TRACE:-2}"
fi
if wait "$bw"; then
	echo "BENCH driver=$drv test=bw size=$size loss=$loss gbps=$(cat /tmp/profile-bw)"
else
	sed 's/^/# /' /tmp/profile-err
fi
# Ticks of all vCPUs, then of each (whether the one doing the kernel's work ever waits),
# from setup to teardown of the two perftest processes. Each line is a /proc/stat line
# (name user nice system idle iowait irq softirq ...) before, then after.
grep '^cpu' /proc/stat | paste -d' ' /tmp/profile-stat0 - | awk '{
	n = NF / 2
	for (i = 2; i <= 8; i++) d[i] = $(n + i) - $i
	if ($1 == "cpu")
		printf "# vCPU ticks: user %d system %d softirq %d irq %d idle %d\n",
			d[2] + d[3], d[4], d[8], d[7], d[5] + d[6]
	else
		printf "#   %s: user %d system %d softirq %d idle %d\n", $1,
			d[2] + d[3], d[4], d[8], d[5] + d[6]
}'
if [ -r /proc/profile ]; then
	"$(dirname "$0")/readprofile" "${BENCH_PROFILE_LINES:-40}"
else
	echo "# no /proc/profile: boot with --append profile=2 for kernel functions"
fi
[ -s /tmp/profile-ips ] && cat /tmp/profile-ips
for f in /sys/kernel/debug/metaroce/*/counters; do
	[ -e "$f" ] && { echo "# $f"; grep -v '	0$' "$f" | sed 's/^/# /'; }
done
impair off
