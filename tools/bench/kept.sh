#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What loss costs a transfer, measured inside one run ("make bench-kept", in the test VM):
# one ib_write_bw per driver, size and loss rate prints its rate every BENCH_SLICE seconds
# (perftest's --run_infinitely) while netem's loss on the link goes off and on: runs of
# three slices, lossless and lossy in turn, 2 * BENCH_PAIRS + 1 runs that start and end
# lossless. The first slice of a run is left out (the transport settles to the new loss rate
# in it) and each lossy run is taken as a share of the mean of the two lossless runs around
# it (stats.sh, bracket_shares). One line per point,
#   BENCH driver=metaroce test=kept size=4096 loss=1 kept_pct=98.2 kept_lo=95.1 kept_hi=101.0 pairs=10 slice_s=1 lossless_gbps=0.452 lossy_gbps=0.441 lossy_msgs=61200
# kept_pct the median of the shares, kept_lo and kept_hi a 90% bootstrap interval of it
# (which takes the pairs as independent: spells longer than a pair make it too narrow, and
# points of one boot minutes apart have differed by more than it allows), lossless_gbps and
# lossy_gbps the medians of the runs, lossy_msgs the messages counted in the lossy runs'
# kept slices (perftest counts completions by the hundred, -Q 100: a figure drawn from a few
# hundred messages is coarse). The same goes as CSV to $METAROCE_OUT/bench-kept.csv.
#
# Why: the build machine's speed changes by a factor of two in spells of a few seconds
# (testing.rst), so separate runs differ by that much: loss.sh brackets each lossy run with
# lossless ones too, but each is a fresh ib_write_bw some seconds from the next. Slices of
# one run follow each other at once, and a steady change of speed over three runs cancels
# out of the bracket. What this measures
# differs from loss.sh's in one way: loss comes and goes every few seconds. A transport that
# takes longer than a run to settle into its lossy (or lossless) state reads differently
# here than in a steady run: rxe at 10% moved 11-18 times as much in these runs as in
# loss.sh's (testing.rst, "Loss inside one run"). loss.sh's figures stand for what a driver
# does under lasting loss; this one is for the drivers that settle within a slice, and
# BENCH_SLICE shows whether one does: longer slices must not change its figure.
#
# Environment: BENCH_DRIVERS ("metaroce rxe siw"), BENCH_SIZES ("4096 65536"), BENCH_LOSSES
# ("1 10", percent, both directions of the link), BENCH_PAIRS (10), BENCH_SLICE (1 second),
# BENCH_CSV (the CSV file).
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
. "$(dirname "$0")/setup.sh"
require_vm

drivers=${BENCH_DRIVERS:-metaroce rxe siw}
sizes=${BENCH_SIZES:-4096 65536}
losses=${BENCH_LOSSES:-1 10}
pairs=${BENCH_PAIRS:-10}
slice=${BENCH_SLICE:-1}
csv=${BENCH_CSV:-${METAROCE_OUT:-/tmp}/bench-kept.csv}

check_positive BENCH_PAIRS "$pairs"
check_positive BENCH_SLICE "$slice"

echo "driver,size,loss_pct,kept_pct,kept_lo,kept_hi,pairs,lossless_gbps,lossy_gbps,lossy_msgs" >"$csv"
echo "# bench-kept on $(uname -r): ib_write_bw, loss off and on every $((3 * slice))s in one" \
	"run, $pairs lossy runs per point, each against the lossless runs around it"

setup_side_by_side "$drivers"

# sliced SIZE LOSS: one ib_write_bw of the selected driver (bench_use) through the whole
# schedule. Fills BASE and LOSSY with the runs' mean Gb/s (their kept slices) and MSGS
# with the messages of the kept lossy runs' kept slices; fewer runs if the transfer ended
# early (its last lines then go to stderr).
sliced() {
	local size=$1 loss=$2 port spid cfd k=0 want acc="" lossy msgs=0 m
	local -a xs xc f lmsgs=()
	local limit=$(((6 * pairs + 3) * slice + 60))

	BASE=() LOSSY=() MSGS=0
	want=$((3 * (2 * pairs + 1)))
	xs=(-d "$SRV" -F --report_gbits -s "$size" -D "$slice" --run_infinitely "${EXTRA[@]}")
	xc=(-d "$CLI" -F --report_gbits -s "$size" -D "$slice" --run_infinitely "${EXTRA[@]}")
	[ "$GSRV" = - ] || xs+=(-x "$GSRV")
	[ "$GCLI" = - ] || xc+=(-x "$GCLI")
	impair 0
	port=$(next_port)
	on_bg "$NSRV" timeout "$limit" ib_write_bw "${xs[@]}" -p "$port" >/tmp/kept-server 2>&1
	spid=$!
	wait_listen "$NSRV" "$port" "$spid" || return
	# Line-buffered: each slice's row must arrive when the slice ends, not with the last.
	exec {cfd}< <(on "$NCLI" stdbuf -oL timeout "$limit" ib_write_bw "${xc[@]}" -p "$port" \
		"$IP" 2>&1)
	while IFS= read -r -u "$cfd" line; do
		read -ra f <<<"$line"
		if ! [[ ${f[0]:-} =~ ^[0-9]+$ ]] || [ "${#f[@]}" -lt 5 ]; then
			echo "$line" >>/tmp/kept-client
			continue
		fi
		lossy=$(((k / 3) % 2))
		if [ $((k % 3)) != 0 ]; then
			# bytes x Mpps x 8 / 1000: the slice's Gb/s (bw_row's reason)
			acc+="$(awk -v b="${f[0]}" -v m="${f[4]}" 'BEGIN { printf "%.6f", b * m * 8 / 1000 }') "
			msgs=$((msgs + f[1]))
		fi
		k=$((k + 1))
		[ $((k % 3)) = 0 ] || continue
		read -ra f <<<"$acc"
		acc=$(awk -v a="${f[0]}" -v b="${f[1]}" 'BEGIN { printf "%.6f", (a + b) / 2 }')
		if [ "$lossy" = 0 ]; then
			BASE+=("$acc")
		else
			LOSSY+=("$acc") lmsgs+=("$msgs")
		fi
		acc="" msgs=0
		[ "$k" -lt "$want" ] || break
		# The next run: loss on after a lossless one, off after a lossy one.
		if [ "$lossy" = 0 ]; then impair "$loss"; else impair 0; fi
	done
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	pkill -f -- "ib_write_bw .*-p $port" 2>/dev/null
	exec {cfd}<&-
	if [ "$k" -lt "$want" ]; then
		echo "# $drv: the transfer ended after $k of $want slices" >&2
		tail -n 4 /tmp/kept-client | sed "s/^/# $drv: client: /" >&2
	fi
	# Whole pairs only: a lossy run needs the lossless run after it. Runs alternate from
	# a lossless one, so only a transfer that ended after a lossy run leaves one over.
	if [ "${#LOSSY[@]}" -gt 0 ] && [ "${#LOSSY[@]}" = "${#BASE[@]}" ]; then
		unset 'LOSSY[-1]'
	fi
	for m in "${lmsgs[@]:0:${#LOSSY[@]}}"; do
		MSGS=$((MSGS + m))
	done
	rm -f /tmp/kept-client /tmp/kept-server
}

for size in $sizes; do
	for loss in $losses; do
		for drv in "${READY[@]}"; do
			bench_use "$drv"
			sliced "$size" "$loss"
			if [ "${#LOSSY[@]}" -lt 2 ]; then
				echo "# $drv size=$size loss=$loss: fewer than two lossy runs; no figure"
				continue
			fi
			mapfile -t shares < <(bracket_shares "${BASE[*]}" "${LOSSY[*]}")
			echo "# $drv size=$size loss=$loss lossless runs: ${BASE[*]}"
			echo "# $drv size=$size loss=$loss lossy runs: ${LOSSY[*]}"
			echo "# $drv size=$size loss=$loss shares: ${shares[*]}"
			if [ "${#shares[@]}" -lt 2 ]; then
				echo "# $drv size=$size loss=$loss: lossless runs that moved nothing; no figure"
				continue
			fi
			kept=$(median "${shares[@]}" | awk '{ printf "%.1f", $1 }')
			read -r klo khi < <(median_interval "${shares[*]}")
			g0=$(median "${BASE[@]}" | awk '{ printf "%.3f", $1 }')
			g1=$(median "${LOSSY[@]}" | awk '{ printf "%.4f", $1 }')
			echo "BENCH driver=$drv test=kept size=$size loss=$loss kept_pct=$kept" \
				"kept_lo=$klo kept_hi=$khi pairs=${#shares[@]} slice_s=$slice" \
				"lossless_gbps=$g0 lossy_gbps=$g1 lossy_msgs=$MSGS"
			echo "$drv,$size,$loss,$kept,$klo,$khi,${#shares[@]},$g0,$g1,$MSGS" >>"$csv"
		done
	done
done
impair off
rdma_del_all
rootpair_cleanup
