# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Statistics of the benchmarks' repeated runs, sourced by tools/bench/setup.sh and checked on
# the host by tools/testing/bench_stats_check.sh. Values are plain decimals, one argument each.

# median X...: the middle value (mean of the two middle ones for an even count)
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# value_range V...: the smallest and the largest of the values, on one line
value_range() {
	printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi }'
}

# kept_interval "BASE..." "RUNS...": a 90% bootstrap interval of kept_pct, the median of RUNS
# as a share of the median of BASE (both space-separated lists): the 5th and 95th
# percentiles of that share over BENCH_RESAMPLES (2000) resamples of each list, drawn with
# a fixed seed so that the same runs always give the same interval. Prints "LO HI" with one
# decimal, or "nan nan" when a resampled BASE median can be 0. The runs of one point spread
# far on this build machine (testing.rst, "The build machine's own speed"), so a kept_pct
# without its interval is easily over-read; two points whose intervals overlap are not
# shown to differ.
kept_interval() {
	awk -v base="$1" -v runs="$2" -v n="${BENCH_RESAMPLES:-2000}" '
	# sort x[1..k] in place: k is small enough for a plain insertion sort
	function isort(x, k,	i, j, t) {
		for (i = 2; i <= k; i++) {
			t = x[i]
			for (j = i - 1; j >= 1 && x[j] > t; j--)
				x[j + 1] = x[j]
			x[j + 1] = t
		}
	}
	function resampled_median(src, k,	i, x) {
		for (i = 1; i <= k; i++)
			x[i] = src[int(rand() * k) + 1]
		isort(x, k)
		return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
	}
	BEGIN {
		nb = split(base, b, " ")
		nr = split(runs, r, " ")
		if (nb == 0 || nr == 0 || n < 1) {
			print "nan nan"
			exit
		}
		srand(1)
		for (s = 1; s <= n; s++) {
			m0 = resampled_median(b, nb)
			if (m0 <= 0) {
				print "nan nan"
				exit
			}
			share[s] = 100 * resampled_median(r, nr) / m0
		}
		isort(share, n)
		lo = int(0.05 * n) + 1
		hi = int(0.95 * n)
		if (hi < lo)
			hi = lo
		printf "%.1f %.1f\n", share[lo], share[hi]
	}'
}

# median_interval "RUNS...": a 90% bootstrap interval of the median of RUNS, printed as
# kept_interval prints it (RUNS over a base that is always 100: their own median)
median_interval() {
	kept_interval 100 "$1"
}

# bracket_shares "BASE..." "RUNS...": each of RUNS as a percentage of the mean of the two
# BASE values around it (BASE holds one more value than RUNS: base, run, base, run, ...,
# base). A change of speed that is steady over three runs then cancels out of the share.
# A BASE value of "-" is a run that was not measured (loss.sh: perftest failed twice): the
# other neighbour stands alone. Prints the shares, one per line with two decimals; a run
# whose neighbours are both 0 or both "-" has no share and is left out. Fails unless BASE
# has exactly one value more than RUNS.
bracket_shares() {
	awk -v base="$1" -v runs="$2" 'BEGIN {
		nb = split(base, b, " ")
		nr = split(runs, r, " ")
		if (nr == 0 || nb != nr + 1)
			exit 1
		for (i = 1; i <= nr; i++) {
			k = 0
			m = 0
			for (j = i; j <= i + 1; j++)
				if (b[j] != "-") {
					m += b[j]
					k++
				}
			if (k && m > 0)
				printf "%.2f\n", 100 * r[i] / (m / k)
		}
	}'
}
