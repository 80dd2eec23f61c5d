// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control: additive increase, ECN cuts proportional to alpha and at most once
 * per RTT, a mild cut on loss only with congestion evidence (marks or queueing delay in
 * the same window), RTO reset and slow start back to half the window, the receiver's rate
 * hint as a cap, robustness to reordered ACKs and 16-bit counter wrap.
 */
#include "unit.h"
#include "cc.h"
#include "params.h"

#define US	1000ULL
#define SRTT	(20 * US)
/* A path's RTT estimates: smoothed, minimum, variation. */
#define PATH(s, m, v)	(&(struct mr_rtt){ .srtt = (s), .min = (m), .rttvar = (v) })

static u32 pkts(const struct mr_cc *cc)
{
	return cc->cwnd >> MR_FP_SHIFT;
}

/* A fresh controller whose window is w packets. */
static void cc_with_window(struct mr_cc *cc, u32 w)
{
	mr_cc_init(cc, 4096);
	cc->cwnd = w << MR_FP_SHIFT;
}

static void test_init_and_additive_increase(void **state)
{
	struct mr_cc cc;
	u16 rx = 0;
	u64 now = 0;
	u32 w0, i;

	(void)state;
	mr_cc_init(&cc, 4096);
	assert_int_equal(mr_cc_window(&cc, SRTT), MR_CWND_INIT);
	assert_int_equal(cc.alpha, MR_FP_ONE);
	/* one window of ACKs without marks grows cwnd by about one packet */
	w0 = cc.cwnd;
	for (i = 0; i < MR_CWND_INIT; i++) {
		rx++;
		now += SRTT / MR_CWND_INIT;
		mr_cc_on_ack(&cc, now, SRTT, 0, rx, 0, 1);
	}
	assert_in_range(cc.cwnd - w0, MR_FP_ONE * 9 / 10, MR_FP_ONE);
	/* and it never exceeds the bitmap */
	for (i = 0; i < 100000; i++) {
		rx++;
		now += 100;
		mr_cc_on_ack(&cc, now, SRTT, 0, rx, 0, 4);
	}
	assert_int_equal(mr_cc_window(&cc, SRTT), MR_CWND_MAX);
	assert_int_equal(cc.cwnd, MR_CWND_MAX << MR_FP_SHIFT);
	/* alpha decayed towards 0 with no marks */
	assert_true(cc.alpha < MR_FP_ONE / 100);
}

static void test_ecn_cut_scales_with_alpha_once_per_rtt(void **state)
{
	struct mr_cc cc;
	u16 ce = 0, rx = 0;
	u64 now = 0;
	u32 i, before;

	(void)state;
	cc_with_window(&cc, 200);
	/* first mark with the initial alpha of 1: halve */
	rx++;
	ce++;
	mr_cc_on_ack(&cc, now += SRTT, SRTT, ce, rx, 0, 1);
	assert_int_equal(pkts(&cc), 100);
	/* more marks within the same RTT: no further cut */
	rx++;
	ce++;
	mr_cc_on_ack(&cc, now += SRTT / 4, SRTT, ce, rx, 0, 1);
	assert_int_equal(pkts(&cc), 100);

	/* many RTTs with 10% marking: alpha converges near 0.1 */
	for (i = 0; i < 4000; i++) {
		rx++;
		if (i % 10 == 0)
			ce++;
		mr_cc_on_ack(&cc, now += SRTT / 10, SRTT, ce, rx, 0, 1);
	}
	assert_in_range(cc.alpha, MR_FP_ONE / 20, MR_FP_ONE / 5);
	/* a cut now removes about alpha / 2 of the window */
	cc.cwnd = 200 << MR_FP_SHIFT;
	before = cc.cwnd;
	rx++;
	ce++;
	mr_cc_on_ack(&cc, now += 2 * SRTT, SRTT, ce, rx, 0, 1);
	assert_int_equal(cc.cwnd, before - (u32)(((u64)before * cc.alpha) >> (MR_FP_SHIFT + 1)));
	assert_in_range(pkts(&cc), 180, 195);
}

static void test_full_marking_drives_window_to_one(void **state)
{
	struct mr_cc cc;
	u16 rx = 0;
	u64 now = 0;
	u32 i;

	(void)state;
	mr_cc_init(&cc, 4096);
	for (i = 0; i < 2000; i++) {
		rx++;
		mr_cc_on_ack(&cc, now += SRTT, SRTT, rx, rx, 0, 1);
	}
	assert_int_equal(cc.alpha, MR_FP_ONE);
	assert_int_equal(mr_cc_window(&cc, SRTT), MR_CWND_MIN);
}

static void test_reordered_ack_and_counter_wrap(void **state)
{
	struct mr_cc cc;
	u32 w;

	(void)state;
	mr_cc_init(&cc, 4096);
	mr_cc_on_ack(&cc, SRTT, SRTT, 10, 65530, 0, 1);
	w = cc.cwnd;
	/* an older ACK (counters behind) carrying more marks must not cut */
	mr_cc_on_ack(&cc, 3 * SRTT, SRTT, 9, 65520, 0, 0);
	assert_int_equal(cc.cwnd, w);
	/* counters wrap at 2^16: 65530 -> 4 is 10 packets, none marked: growth */
	mr_cc_on_ack(&cc, 4 * SRTT, SRTT, 10, 4, 0, 10);
	assert_true(cc.cwnd > w);
	assert_int_equal(cc.rx_cnt, 4);
	/* marks across the wrap cut */
	w = cc.cwnd;
	mr_cc_on_ack(&cc, 6 * SRTT, SRTT, 12, 8, 0, 4);
	assert_true(cc.cwnd < w);
	/* a receiver claiming more marks than packets cannot push alpha above 1 */
	mr_cc_on_ack(&cc, 8 * SRTT, SRTT, 1000, 9, 0, 1);
	assert_true(cc.alpha <= MR_FP_ONE);
}

/*
 * Random loss: a long run at 10% loss with neither marks nor queueing delay. The old rule
 * (1/8 per RTT on any loss) took the window from 128 to single digits; now it only grows.
 */
static void test_random_loss_does_not_cut(void **state)
{
	struct mr_cc cc;
	u32 i, lost = 0;
	u16 rx = 0;
	u64 now = 0;

	(void)state;
	cc_with_window(&cc, 128);
	for (i = 0; i < 20000; i++) {
		now += SRTT / 128;
		if (i % 10 == 9) {
			/* the packet sent one RTT ago did not arrive; its path: jitter, no queue */
			assert_false(mr_cc_on_loss(&cc, now, SRTT, now - SRTT,
						   PATH(SRTT + 2 * US, SRTT, 0), 0, 0));
			lost++;
			continue;
		}
		rx++;
		mr_cc_on_ack(&cc, now, SRTT, 0, rx, 0, 1);
		assert_true(pkts(&cc) >= 128);
	}
	assert_int_equal(cc.stat_loss_random, lost);
	assert_int_equal(cc.stat_loss_cong, 0);
	/* additive increase went on: 18000 ACKs take 128 packets to about 229 */
	assert_true(pkts(&cc) >= 220);
}

/* Loss in a window that also carried CE marks is congestion: 1/8 off, once per RTT. */
static void test_loss_with_ce_cuts(void **state)
{
	struct mr_cc cc;
	u64 t = 10 * SRTT;
	u32 w;

	(void)state;
	cc_with_window(&cc, 128);
	/* every packet marked at t: the ECN cut with alpha still 1 halves the window */
	mr_cc_on_ack(&cc, t, SRTT, 11, 11, 0, 1);
	assert_int_equal(pkts(&cc), 64);
	w = cc.cwnd;
	/* a loss from the same window within the RTT: the same event, no second cut */
	assert_true(mr_cc_on_loss(&cc, t + SRTT / 2, SRTT, t - SRTT / 2, PATH(SRTT, SRTT, 0), 0, 0));
	assert_int_equal(cc.cwnd, w);
	/* a packet sent before the mark, found lost an RTT later: congestive, 1/8 off */
	assert_true(mr_cc_on_loss(&cc, t + 2 * SRTT, SRTT, t - SRTT / 4, PATH(SRTT, SRTT, 0), 0, 0));
	assert_int_equal(pkts(&cc), 56);
	w = cc.cwnd;
	/* a packet sent after the last mark: random, no cut however late */
	assert_false(mr_cc_on_loss(&cc, t + 5 * SRTT, SRTT, t + 1, PATH(SRTT, SRTT, 0), 0, 0));
	assert_int_equal(cc.cwnd, w);
	/* a mark reported at the very time the packet was sent still counts */
	mr_cc_on_ack(&cc, t + 6 * SRTT, SRTT, 12, 12, 0, 1);
	cc.cwnd = 128 << MR_FP_SHIFT;
	assert_true(mr_cc_on_loss(&cc, t + 8 * SRTT, SRTT, t + 6 * SRTT, PATH(SRTT, SRTT, 0), 0, 0));
	assert_int_equal(pkts(&cc), 112);
	assert_int_equal(cc.stat_loss_cong, 3);
	assert_int_equal(cc.stat_loss_random, 1);
}

/* Without marks, the lost packet's path queueing (smoothed RTT well above its minimum). */
static void test_loss_with_queueing_delay_cuts(void **state)
{
	struct mr_cc cc;

	(void)state;
	cc_with_window(&cc, 128);
	/* min 20 us: the threshold is min / 2 = 10 us of queueing */
	assert_false(mr_cc_on_loss(&cc, 120 * US, SRTT, 90 * US, PATH(30 * US, 20 * US, 0), 0, 0));
	assert_int_equal(pkts(&cc), 128);
	assert_true(mr_cc_on_loss(&cc, 150 * US, SRTT, 110 * US,
				  PATH(30 * US + 1, 20 * US, 0), 0, 0));
	assert_int_equal(pkts(&cc), 112);
	/* min 4 us: the floor of 4 us applies, not min / 2 */
	cc_with_window(&cc, 128);
	assert_false(mr_cc_on_loss(&cc, 120 * US, SRTT, 90 * US, PATH(8 * US, 4 * US, 0), 0, 0));
	assert_true(mr_cc_on_loss(&cc, 150 * US, SRTT, 110 * US, PATH(8 * US + 1, 4 * US, 0), 0, 0));
	assert_int_equal(pkts(&cc), 112);
	/* jitter: srtt 2 ms above a 20 us minimum, but rttvar 1.4 ms, is no queue */
	cc_with_window(&cc, 128);
	assert_false(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US,
				   PATH(2000 * US, 20 * US, 1400 * US), 0, 0));
	assert_int_equal(pkts(&cc), 128);
	/* a standing queue of 1 ms with 100 us of variation is one */
	assert_true(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US,
				  PATH(1020 * US, 20 * US, 100 * US), 0, 0));
	assert_int_equal(pkts(&cc), 112);
	/* no minimum yet: no opinion */
	mr_cc_init(&cc, 4096);
	assert_false(mr_cc_on_loss(&cc, 120 * US, SRTT, 0, PATH(1000 * US, 0, 0), 0, 0));
}

/*
 * A queue that every path has (a receiver slower than its link: the VM's 1.3 ms with
 * 1% random loss) is no evidence; only what one path queues beyond the others is.
 */
static void test_shared_queue_is_no_evidence(void **state)
{
	const struct mr_rtt *queued = PATH(1300 * US, 100 * US, 200 * US);
	struct mr_cc cc;

	(void)state;
	cc_with_window(&cc, 128);
	/* alone, the path's 1.2 ms over its minimum with 200 us of variation is a queue */
	assert_true(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, queued, 0, 0));
	assert_int_equal(pkts(&cc), 112);
	/* the fastest path's srtt carries the same queue: shared, no cut */
	cc_with_window(&cc, 128);
	assert_false(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, queued, 1000 * US, 0));
	/* the path itself is the fastest: nothing beyond the shared queue */
	assert_false(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, queued, 1300 * US, 0));
	assert_int_equal(pkts(&cc), 128);
	/* 400 us (2 rttvar) beyond the shared 900 us is still no queue of its own ... */
	assert_false(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, queued, 900 * US, 0));
	/* ... 1 ns more is */
	assert_true(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, queued, 900 * US - 1, 0));
	assert_int_equal(pkts(&cc), 112);
	/* a shared base below the path's minimum leaves the minimum as the base */
	cc_with_window(&cc, 128);
	assert_true(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, queued, 50 * US, 0));
	assert_int_equal(cc.stat_loss_cong, 1);
	assert_int_equal(cc.stat_loss_random, 0);
}

/*
 * Jitter every path sees scatters the paths' smoothed RTTs around the shared level by
 * about the connection's variation (the VM at 10% loss: srtts near 1 ms, the
 * connection's rttvar 0.5-1 ms): a path above the fastest by less than twice that is
 * no queue of its own, however steady its own samples; one that stands out further is.
 */
static void test_shared_jitter_is_no_evidence(void **state)
{
	const struct mr_rtt *high = PATH(1300 * US, 100 * US, 100 * US);
	struct mr_cc cc;

	(void)state;
	cc_with_window(&cc, 128);
	/* 600 us over the fastest path, 2 x its own 100 us: a queue, without jitter */
	assert_true(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, high, 700 * US, 0));
	assert_int_equal(pkts(&cc), 112);
	/* with the connection's 400 us of variation it is scatter: no cut */
	cc_with_window(&cc, 128);
	assert_false(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, high, 700 * US, 400 * US));
	/* twice 300 us of it, exactly the distance, is still no queue of its own ... */
	assert_false(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, high, 700 * US, 300 * US));
	assert_int_equal(pkts(&cc), 128);
	/* ... 1 ns more distance is */
	assert_true(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US, high, 700 * US - 1,
				  300 * US));
	assert_int_equal(pkts(&cc), 112);
	/* a path that stands out beyond the scatter: a queue */
	cc_with_window(&cc, 128);
	assert_true(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US,
				  PATH(3000 * US, 100 * US, 100 * US), 700 * US, 400 * US));
	/* the path's own variation still counts where it is the larger */
	cc_with_window(&cc, 128);
	assert_false(mr_cc_on_loss(&cc, 9000 * US, SRTT, 8000 * US,
				   PATH(1300 * US, 100 * US, 300 * US), 700 * US, 100 * US));
	assert_int_equal(cc.stat_loss_cong, 0);
	assert_int_equal(cc.stat_loss_random, 1);
}

/* A retired path's delay is what retired it: no evidence; CE marks still are. */
static void test_retired_path_delay_is_no_evidence(void **state)
{
	struct mr_cc cc;
	u64 t = 10 * SRTT;

	(void)state;
	cc_with_window(&cc, 128);
	/* the same 1.2 ms queue that cuts on an up path (above) */
	assert_true(mr_cc_on_loss(&cc, t, SRTT, t - SRTT,
				  PATH(1300 * US, 100 * US, 200 * US), 0, 0));
	assert_int_equal(pkts(&cc), 112);
	/* on a retired path: random */
	cc_with_window(&cc, 128);
	assert_false(mr_cc_on_loss(&cc, t, SRTT, t - SRTT, NULL, 0, 0));
	assert_int_equal(pkts(&cc), 128);
	assert_int_equal(cc.stat_loss_random, 1);
	/* marks reported since the packet was sent count whatever its path */
	mr_cc_on_ack(&cc, t, SRTT, 1, 100, 0, 1);
	assert_true(mr_cc_on_loss(&cc, t + 2 * SRTT, SRTT, t - SRTT, NULL, 0, 0));
	assert_int_equal(cc.stat_loss_cong, 1);
}

static void test_congestive_loss_once_per_rtt_and_rto(void **state)
{
	struct mr_cc cc;

	(void)state;
	cc_with_window(&cc, 128);
	/* losses on a path with a 90 us queue */
	mr_cc_on_loss(&cc, SRTT, SRTT, 0, PATH(100 * US, 10 * US, 0), 0, 0);
	assert_int_equal(pkts(&cc), 112);	/* 1/8 off */
	/* same RTT: one episode */
	mr_cc_on_loss(&cc, SRTT + 1, SRTT, 0, PATH(100 * US, 10 * US, 0), 0, 0);
	assert_int_equal(pkts(&cc), 112);
	mr_cc_on_loss(&cc, 2 * SRTT + 1, SRTT, 0, PATH(100 * US, 10 * US, 0), 0, 0);
	assert_int_equal(pkts(&cc), 98);
	/* an RTO resets the window whatever the evidence */
	mr_cc_on_rto(&cc, true);
	assert_int_equal(mr_cc_window(&cc, SRTT), 1);
	/* never below one packet */
	mr_cc_on_loss(&cc, 10 * SRTT, SRTT, 0, PATH(100 * US, 10 * US, 0), 0, 0);
	assert_int_equal(mr_cc_window(&cc, SRTT), 1);
}

/* After an RTO the window doubles per RTT back to half what it was, then grows by one. */
static void test_slow_start_after_rto(void **state)
{
	struct mr_cc cc;
	u16 rx = 0;
	u64 now = 0;
	u32 i;

	(void)state;
	cc_with_window(&cc, 128);
	mr_cc_on_rto(&cc, true);
	mr_cc_on_rto(&cc, false);	/* a second RTO before any ACK keeps the target */
	assert_int_equal(mr_cc_window(&cc, SRTT), 1);
	assert_int_equal(cc.ssthresh, 64 << MR_FP_SHIFT);
	/* 63 acknowledged packets take the window from 1 to 64, not to ~12 */
	for (i = 0; i < 63; i++)
		mr_cc_on_ack(&cc, now += 100, SRTT, 0, ++rx, 0, 1);
	assert_int_equal(cc.cwnd, 64 << MR_FP_SHIFT);
	/* then additive increase: 64 more packets add about one */
	for (i = 0; i < 64; i++)
		mr_cc_on_ack(&cc, now += 100, SRTT, 0, ++rx, 0, 1);
	assert_in_range(cc.cwnd - (64 << MR_FP_SHIFT), MR_FP_ONE * 9 / 10, MR_FP_ONE);
	/* a mark during slow start ends it */
	mr_cc_on_rto(&cc, true);
	assert_int_equal(cc.ssthresh >> MR_FP_SHIFT, 32);
	mr_cc_on_ack(&cc, now += 100, SRTT, 0, ++rx, 0, 4);
	assert_int_equal(pkts(&cc), 5);
	mr_cc_on_ack(&cc, now += 2 * SRTT, SRTT, 1, ++rx, 0, 1);
	assert_int_equal(cc.ssthresh, 0);
	/* four more packets: additive increase (4 / cwnd), not slow start (4) */
	i = cc.cwnd;
	mr_cc_on_ack(&cc, now += 100, SRTT, 1, ++rx, 0, 4);
	assert_true(cc.cwnd - i < 2 * MR_FP_ONE);
}

/* A spurious timeout gives back the window of before the episode, not of its last RTO. */
static void test_undo_spurious_rto(void **state)
{
	struct mr_cc cc;

	(void)state;
	cc_with_window(&cc, 100);
	mr_cc_on_rto(&cc, true);
	mr_cc_on_rto(&cc, false);
	assert_int_equal(mr_cc_window(&cc, SRTT), 1);
	mr_cc_undo_rto(&cc);
	assert_int_equal(pkts(&cc), 100);
	assert_int_equal(cc.ssthresh, 0);
	/* once only: a second undo of the same episode changes nothing */
	cc.cwnd = 40 << MR_FP_SHIFT;
	mr_cc_undo_rto(&cc);
	assert_int_equal(pkts(&cc), 40);
	/* a window that grew past the prior one since is kept */
	mr_cc_on_rto(&cc, true);
	cc.cwnd = 60 << MR_FP_SHIFT;
	mr_cc_undo_rto(&cc);
	assert_int_equal(pkts(&cc), 60);
}

static void test_rate_hint_caps_window_and_pace(void **state)
{
	struct mr_cc cc;
	u64 gap;

	(void)state;
	cc_with_window(&cc, 256);
	/* no hint: twice the window rate, 20 us / (2 x 256 packets) */
	assert_int_equal(mr_cc_gap_ns(&cc, SRTT, 4096), SRTT / (MR_PACE_GAIN * 256));
	/*
	 * 10 Gbit/s fair share, srtt 20 us: 25000 bytes in flight = 6 packets of 4 KiB;
	 * 4096 bytes every 3276 ns.
	 */
	mr_cc_on_ack(&cc, SRTT, SRTT, 0, 1, 10000, 1);
	assert_int_equal(mr_cc_window(&cc, SRTT), 6);
	assert_int_equal(pkts(&cc), 6);
	/* paced by the slower of the two: the 3277 ns hint, not 12 packets per 20 us */
	gap = mr_cc_gap_ns(&cc, SRTT, 4096);
	assert_int_equal(gap, 4096ULL * 8000 / 10000);
	assert_true(gap >= 4096ULL * 8000 / 10000);
	/* with a full window the hint is what paces */
	cc.cwnd = 256 << MR_FP_SHIFT;
	assert_int_equal(mr_cc_gap_ns(&cc, SRTT, 4096), 4096ULL * 8000 / 10000);
	mr_cc_on_ack(&cc, SRTT + 1, SRTT, 0, 1, 10000, 0);
	assert_int_equal(pkts(&cc), 6);
	/* a tiny hint still allows one packet */
	mr_cc_on_ack(&cc, 2 * SRTT, SRTT, 0, 2, 1, 1);
	assert_int_equal(mr_cc_window(&cc, SRTT), 1);
	/* hint withdrawn (0): the window may grow again */
	mr_cc_on_ack(&cc, 3 * SRTT, SRTT, 0, 3, 0, 64);
	assert_true(mr_cc_window(&cc, SRTT) > 1);
	assert_int_equal(mr_cc_gap_ns(&cc, 0, 4096), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_init_and_additive_increase),
	cmocka_unit_test(test_ecn_cut_scales_with_alpha_once_per_rtt),
	cmocka_unit_test(test_full_marking_drives_window_to_one),
	cmocka_unit_test(test_reordered_ack_and_counter_wrap),
	cmocka_unit_test(test_random_loss_does_not_cut),
	cmocka_unit_test(test_loss_with_ce_cuts),
	cmocka_unit_test(test_loss_with_queueing_delay_cuts),
	cmocka_unit_test(test_shared_queue_is_no_evidence),
	cmocka_unit_test(test_shared_jitter_is_no_evidence),
	cmocka_unit_test(test_retired_path_delay_is_no_evidence),
	cmocka_unit_test(test_congestive_loss_once_per_rtt_and_rto),
	cmocka_unit_test(test_slow_start_after_rto),
	cmocka_unit_test(test_undo_spurious_rto),
	cmocka_unit_test(test_rate_hint_caps_window_and_pace),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
