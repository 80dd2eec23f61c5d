# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A window in the middle of a transfer, for tools/bench/profile.sh: snapshot the counters
# before and after it (window_snap, in the test VM), then say where the vCPUs' time went
# and what it bought (window_report, anywhere: tools/testing/bench_stats_check.sh checks
# it on the host from made-up snapshots).

# window_snap: what a window in the middle of the transfer is measured by: the time, each
# vCPU's ticks (USER_HZ), each perftest process's CPU time, migrations and involuntary
# switches, the timer and IPI interrupts and the devices' packet counters.
window_snap() {
	local p cpu sw
	echo "time $(date +%s.%N)"
	awk '/^cpu[0-9]/ { print "cpu", $1, $2 + $3, $4, $5 + $6, $8 }' /proc/stat
	# A process that exits meanwhile is left out, not given another's fields.
	for p in $(pgrep -x ib_write_bw); do
		cpu=$(awk '{ print $14, $15 }' "/proc/$p/stat" 2>/dev/null) || continue
		sw=$(awk '$1 ~ /nr_migrations$/ { m = $3 }
			$1 == "nr_involuntary_switches" { i = $3 }
			END { if (NR) print m + 0, i + 0 }' "/proc/$p/sched" 2>/dev/null) || continue
		[ -n "$cpu" ] && [ -n "$sw" ] && echo "proc $p $cpu $sw"
	done
	awk '$1 ~ /^(LOC|RES|CAL):$/ {
		printf "irq %s", substr($1, 1, 3)
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++)
			printf " %s", $i
		print ""
	}' /proc/interrupts
	cat /sys/kernel/debug/metaroce/*/counters 2>/dev/null |
		awk '$1 ~ /^(dp_tx_packets|retrans_fast|retrans_probe|retrans_timeout)$/ \
			{ c[$1] += $2 } END { for (k in c) print "cnt", k, c[k] }'
}

# window_report BEFORE AFTER: where the vCPUs' time went in the window and what it bought:
# the share of each vCPU in user, system and softirq time, the perftest processes' (the
# busy-polling client's), and the kernel's time (system and softirq of all vCPUs, less
# the processes' own system time) in vCPUs and per packet sent. With both ends in one
# VM the kernel's share is what moves the packets: a client that loses fewer ticks to
# the kernel's work leaves it less (testing.rst, "A twenty-eighth session").
window_report() {
	awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '
	FNR == 1 { f++ }
	$1 == "time" { t[f] = $2 }
	$1 == "cpu" { u[f, $2] = $3; sy[f, $2] = $4; id[f, $2] = $5; so[f, $2] = $6; cpus[$2] = 1 }
	$1 == "proc" { pu[f, $2] = $3; ps[f, $2] = $4; pm[f, $2] = $5; pi[f, $2] = $6; procs[$2] = 1 }
	$1 == "irq" { for (i = 3; i <= NF; i++) irq[f, $2, i - 3] = $i; irqs[$2] = NF - 2 }
	$1 == "cnt" { cnt[f, $2] = $3 }
	function d(a, k) { return a[2, k] - a[1, k] }
	END {
		span = t[2] - t[1]
		if (span <= 0) exit
		pkts = cnt[2, "dp_tx_packets"] - cnt[1, "dp_tx_packets"]
		printf "# window %.2f s: %.0f packets/s sent, %d fast retransmissions, %d probes, %d RTOs\n",
		       span, pkts / span, d(cnt, "retrans_fast"), d(cnt, "retrans_probe"),
		       d(cnt, "retrans_timeout")
		for (n = 0; ("cpu" n) in cpus; n++) {
			c = "cpu" n
			tot = d(u, c) + d(sy, c) + d(id, c) + d(so, c)
			if (!tot) continue
			ksum += d(sy, c) + d(so, c)
			printf "# window %s: user %d%% system %d%% softirq %d%% idle %d%%\n", c,
			       100 * d(u, c) / tot, 100 * d(sy, c) / tot, 100 * d(so, c) / tot,
			       100 * d(id, c) / tot
		}
		for (p in procs) {
			if (!((1, p) in pu) || !((2, p) in pu)) continue
			ksum -= d(ps, p)
			if (d(pu, p) + d(ps, p) == 0) continue
			seen++
			printf "# window perftest %s: user %.2f system %.2f vCPUs, %d migrations," \
			       " %d involuntary switches\n", p, d(pu, p) / hz / span,
			       d(ps, p) / hz / span, d(pm, p), d(pi, p)
		}
		if (!seen)
			print "# window: no perftest process ran through it (the transfer ended" \
			      " in it? more BENCH_ITERS)"
		split("LOC RES CAL", order)
		for (j = 1; j <= 3; j++) {
			k = order[j]
			if (!(k in irqs)) continue
			line = "# window " k " interrupts/s:"
			for (i = 0; i < irqs[k]; i++)
				line = line sprintf(" %.0f", (irq[2, k, i] - irq[1, k, i]) / span)
			print line
		}
		printf "# window kernel: %.2f vCPUs, %.1f us per packet sent\n", ksum / hz / span,
		       pkts ? 1e6 * ksum / hz / pkts : 0
	}' "$1" "$2"
}
