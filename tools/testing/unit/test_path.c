// SPDX-License-Identifier: GPL-2.0
/*
 * Path health and selection: even spreading, load moving off a marked or lossy path,
 * retirement after consecutive losses when the path loses clearly more than the others
 * (not for loss they share), probing with backoff, recovery, retransmission on
 * another path, the reorder window from measured skew.
 */
#include "unit.h"
#include "path.h"
#include "params.h"

#define US	1000ULL
#define MS	(1000 * US)

static void count_picks(struct mr_paths *ps, u64 now, u32 n, u32 *hist)
{
	u32 i;

	memset(hist, 0, sizeof(u32) * MR_MAX_PATHS);
	for (i = 0; i < n; i++)
		hist[mr_paths_pick(ps, now)]++;
}


/* Send MR_PATH_PROBE_GAP packets when no probe is due: the next due probe may go. */
static void gap(struct mr_paths *ps, u64 now)
{
	u32 i;

	for (i = 0; i < MR_PATH_PROBE_GAP; i++)
		assert_true(ps->p[mr_paths_pick(ps, now)].up);
}
static void test_rtt_estimator(void **state)
{
	struct mr_rtt r = { 0 };
	u32 i;

	(void)state;
	mr_rtt_sample(&r, 80 * US);
	assert_int_equal(r.srtt, 80 * US);
	assert_int_equal(r.rttvar, 40 * US);
	assert_int_equal(r.min, 80 * US);
	for (i = 0; i < 200; i++)
		mr_rtt_sample(&r, 20 * US);
	assert_in_range(r.srtt, 20 * US, 21 * US);
	assert_true(r.rttvar < 1 * US);
	assert_int_equal(r.min, 20 * US);
	/* a zero sample still counts as a (tiny) sample */
	r.srtt = 0;
	mr_rtt_sample(&r, 0);
	assert_int_equal(r.srtt, 1);
}

static void test_even_spread(void **state)
{
	struct mr_paths ps;
	u32 hist[MR_MAX_PATHS], i;

	(void)state;
	mr_paths_init(&ps, 8);
	count_picks(&ps, 0, 8000, hist);
	for (i = 0; i < 8; i++)
		assert_int_equal(hist[i], 1000);
	/* strictly interleaved, not in runs: every window of 8 picks covers all 8 paths */
	{
		u32 seen = 0;

		for (i = 0; i < 8; i++)
			seen |= 1u << mr_paths_pick(&ps, 0);
		assert_int_equal(seen, 0xff);
	}
	mr_paths_init(&ps, 0);	/* clamped to one path */
	assert_int_equal(ps.n, 1);
	assert_int_equal(mr_paths_pick(&ps, 0), 0);
}

static void test_ecn_moves_load(void **state)
{
	struct mr_paths ps;
	u32 hist[MR_MAX_PATHS], i;

	(void)state;
	mr_paths_init(&ps, 4);
	/* path 2 keeps echoing CE, the others do not */
	for (i = 0; i < 40; i++) {
		mr_paths_on_echo(&ps, 0, 10 * US, false, 1024);
		mr_paths_on_echo(&ps, 1, 10 * US, false, 1024);
		mr_paths_on_echo(&ps, 2, 10 * US, true, 1024);
		mr_paths_on_echo(&ps, 3, 10 * US, false, 1024);
	}
	assert_int_equal(ps.p[2].weight, MR_PATH_W_MIN);
	assert_true(ps.p[2].ce_frac > MR_FP_ONE * 9 / 10);
	assert_true(ps.p[2].up);	/* marked, not dead: it keeps a trickle */
	count_picks(&ps, 0, 3088, hist);
	assert_int_equal(hist[2], 16);	/* 16 / (3 x 1024 + 16) of the packets */
	assert_int_equal(hist[0], 1024);
	/* once the marks stop, the path earns its weight back */
	for (i = 0; i < 100; i++)
		mr_paths_on_echo(&ps, 2, 10 * US, false, 1024);
	assert_int_equal(ps.p[2].weight, MR_PATH_W_MAX);
}

static void test_slow_path_sheds_load(void **state)
{
	struct mr_paths ps;
	u32 hist[MR_MAX_PATHS], i;

	(void)state;
	mr_paths_init(&ps, 3);
	for (i = 0; i < 40; i++) {
		mr_paths_on_echo(&ps, 0, 10 * US, false, 1024);
		mr_paths_on_echo(&ps, 1, 29 * US, false, 1024);	/* slower, within a factor 3 */
		mr_paths_on_echo(&ps, 2, 45 * US, false, 1024);	/* beyond three times the fastest */
	}
	assert_int_equal(ps.p[1].weight, MR_PATH_W_MAX);
	assert_int_equal(ps.p[2].weight, MR_PATH_W_MIN);
	assert_true(ps.p[2].up);
	count_picks(&ps, 0, 2 * 1024 + 16, hist);
	assert_int_equal(hist[2], 16);
	/* the path recovers when it is no longer slow */
	for (i = 0; i < 200; i++)
		mr_paths_on_echo(&ps, 2, 12 * US, false, 1024);
	assert_int_equal(ps.p[2].weight, MR_PATH_W_MAX);
}

static void test_loss_retires_and_probe_recovers(void **state)
{
	struct mr_paths ps;
	u32 hist[MR_MAX_PATHS], i;
	u64 now = 0;

	(void)state;
	mr_paths_init(&ps, 4);
	/* three losses: weight halves each time, still up */
	for (i = 0; i < MR_PATH_FAIL_LOSSES - 1; i++)
		mr_paths_on_loss(&ps, now, 1, 1024);
	assert_true(ps.p[1].up);
	assert_int_equal(ps.p[1].weight, MR_PATH_W_MAX >> 3);
	/* an echo in between resets the run of losses */
	mr_paths_on_echo(&ps, 1, 10 * US, false, 1024);
	for (i = 0; i < MR_PATH_FAIL_LOSSES - 1; i++)
		mr_paths_on_loss(&ps, now, 1, 1024);
	assert_true(ps.p[1].up);
	/* the fourth consecutive loss retires it */
	mr_paths_on_loss(&ps, now, 1, 1024);
	assert_false(ps.p[1].up);
	assert_int_equal(mr_paths_up(&ps), 3);
	count_picks(&ps, now, 3000, hist);
	assert_int_equal(hist[1], 0);
	assert_int_equal(hist[0], 1000);

	/* 1 ms later the next packet probes it, once */
	now += MR_PATH_PROBE_NS;
	assert_int_equal(mr_paths_pick(&ps, now), 1);
	assert_true(ps.p[1].probing);
	count_picks(&ps, now, 300, hist);
	assert_int_equal(hist[1], 0);
	/* the probe is lost: the next probe waits twice as long */
	mr_paths_on_loss(&ps, now, 1, 1024);
	assert_false(ps.p[1].probing);
	assert_int_equal(ps.p[1].probe_ival_ns, 2 * MR_PATH_PROBE_NS);
	count_picks(&ps, now + 2 * MR_PATH_PROBE_NS - 1, 300, hist);
	assert_int_equal(hist[1], 0);
	now += 2 * MR_PATH_PROBE_NS;
	assert_int_equal(mr_paths_pick(&ps, now), 1);
	/* this probe is acknowledged: the path is back, at reduced weight */
	mr_paths_on_echo(&ps, 1, 12 * US, false, 1024);
	assert_true(ps.p[1].up);
	assert_int_equal(ps.p[1].weight, MR_PATH_W_UP + MR_PATH_W_INC);
	assert_int_equal(ps.p[1].probe_ival_ns, MR_PATH_PROBE_NS);
	count_picks(&ps, now, 3 * 1024 + 272, hist);
	assert_int_equal(hist[1], 272);
}

/*
 * A probe that nothing answers or declares lost (a retransmission overtaken by another
 * copy of its packet) fails once its interval has passed: the path is probed again,
 * later, instead of staying retired for good.
 */
static void test_unanswered_probe_fails(void **state)
{
	struct mr_paths ps;
	u64 now = 0;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 4);
	for (i = 0; i < MR_PATH_FAIL_LOSSES; i++)
		mr_paths_on_loss(&ps, now, 3, 1024);
	assert_false(ps.p[3].up);
	now += MR_PATH_PROBE_NS;
	assert_int_equal(mr_paths_pick(&ps, now), 3);
	assert_true(ps.p[3].probing);
	/* within its interval it is still awaited: no second probe */
	for (i = 0; i < 8; i++)
		assert_int_not_equal(mr_paths_pick(&ps, now + MR_PATH_PROBE_NS - 1), 3);
	/* then it failed; the next waits twice as long */
	now += MR_PATH_PROBE_NS;
	assert_int_not_equal(mr_paths_pick(&ps, now), 3);
	assert_false(ps.p[3].probing);
	assert_int_equal(ps.p[3].probe_ival_ns, 2 * MR_PATH_PROBE_NS);
	gap(&ps, now);
	now += 2 * MR_PATH_PROBE_NS;
	assert_int_equal(mr_paths_pick(&ps, now), 3);
	/* a packet sent before this probe, acknowledged now, answers nothing */
	mr_paths_on_acked(&ps, 3, now - 1, 1024);
	assert_false(ps.p[3].up);
	mr_paths_on_acked(&ps, 3, now, 1024);
	assert_true(ps.p[3].up);
}

/*
 * Losses that tail-loss probes found (a sparse sender's only kind) retire a path as
 * verdicts do, and a retired path's lost probe backs off the same, but they leave the
 * weights alone: where loss is random they skewed the spray.
 */
static void test_probe_losses_retire_without_shedding(void **state)
{
	struct mr_paths ps;
	u32 i;
	u64 now = 0;

	(void)state;
	mr_paths_init(&ps, 4);
	for (i = 0; i < MR_PATH_FAIL_LOSSES - 1; i++)
		mr_paths_on_probe_loss(&ps, now, 2, 1024);
	assert_true(ps.p[2].up);
	assert_int_equal(ps.p[2].weight, MR_PATH_W_MAX);
	assert_int_equal(ps.p[2].losses, MR_PATH_FAIL_LOSSES - 1);
	mr_paths_on_probe_loss(&ps, now, 2, 1024);
	assert_false(ps.p[2].up);
	now += MR_PATH_PROBE_NS;
	assert_int_equal(mr_paths_pick(&ps, now), 2);
	mr_paths_on_probe_loss(&ps, now, 2, 1024);
	assert_false(ps.p[2].probing);
	assert_int_equal(ps.p[2].probe_ival_ns, 2 * MR_PATH_PROBE_NS);
	/* random loss on every path, found by probes: none retired, none shed */
	mr_paths_init(&ps, 8);
	for (i = 0; i < 64; i++)
		mr_paths_on_probe_loss(&ps, now, i % 8, 1024);
	assert_int_equal(mr_paths_up(&ps), 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(ps.p[i].weight, MR_PATH_W_MAX);
}

/*
 * A path that loses only large packets (a link narrower than the segments, its ICMP
 * filtered) carries a message's short last packet: answered, such a probe proves
 * nothing, and the next one is due at once; a full-size answer brings the path back.
 * Nor does an echo of a short packet. What the path must carry is capped by the
 * segment in use (mr_paths_set_seg): a connection that went down to smaller segments
 * revives a path with them.
 */
static void test_small_answer_proves_nothing(void **state)
{
	struct mr_paths ps;
	u64 now = 1000 * US;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 4);
	mr_paths_set_seg(&ps, 1376);
	for (i = 0; i < MR_PATH_FAIL_LOSSES; i++)
		mr_paths_on_loss(&ps, now, 2, 1376);
	assert_false(ps.p[2].up);
	now += MR_PATH_PROBE_NS;
	assert_int_equal(mr_paths_pick(&ps, now), 2);
	/* the probe was a message's last packet, 864 bytes: answered, no verdict */
	mr_paths_on_acked(&ps, 2, now, 864);
	assert_false(ps.p[2].up);
	assert_false(ps.p[2].probing);
	mr_paths_on_echo(&ps, 2, 10 * US, false, 864);
	assert_false(ps.p[2].up);
	assert_int_equal(ps.stat_revived, 0);
	/* due again at once, without backoff, after the spacing of probes */
	gap(&ps, now + 1);
	assert_int_equal(mr_paths_pick(&ps, now + 1), 2);
	assert_true(ps.p[2].probing);
	assert_int_equal(ps.p[2].probe_ival_ns, MR_PATH_PROBE_NS);
	/* a full-size probe answered */
	mr_paths_on_acked(&ps, 2, now + 1, 1376);
	assert_true(ps.p[2].up);
	assert_int_equal(ps.stat_revived, 1);

	/* lost at 1376 again; the connection then takes 1024-byte segments */
	for (i = 0; i < MR_PATH_FAIL_LOSSES; i++)
		mr_paths_on_loss(&ps, now, 2, 1376);
	assert_false(ps.p[2].up);
	mr_paths_on_echo(&ps, 2, 10 * US, false, 1024);
	assert_false(ps.p[2].up);
	mr_paths_set_seg(&ps, 1024);
	mr_paths_on_echo(&ps, 2, 10 * US, false, 1024);
	assert_true(ps.p[2].up);
	assert_int_equal(ps.p[2].lost_len, 0);
}

/*
 * A probe acknowledged by an ACK that echoes another packet (the receiver read more
 * before answering) still brings its path back; a packet sent before the path was
 * retired, acknowledged late, does not.
 */
static void test_probe_acked_without_echo_revives(void **state)
{
	struct mr_paths ps;
	u64 now = 1000 * US;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 4);
	for (i = 0; i < MR_PATH_FAIL_LOSSES; i++)
		mr_paths_on_loss(&ps, now, 2, 1024);
	assert_false(ps.p[2].up);
	/* a packet from before the retirement is acknowledged: no news about the path now */
	mr_paths_on_acked(&ps, 2, now - 1, 1024);
	assert_false(ps.p[2].up);
	/* nor anything before a probe went out */
	now += MR_PATH_PROBE_NS;
	mr_paths_on_acked(&ps, 2, now, 1024);
	assert_false(ps.p[2].up);
	assert_int_equal(mr_paths_pick(&ps, now), 2);
	assert_true(ps.p[2].probing);
	/* the probe, sent now, is acknowledged selectively */
	mr_paths_on_acked(&ps, 2, now, 1024);
	assert_true(ps.p[2].up);
	assert_false(ps.p[2].probing);
	assert_int_equal(ps.p[2].weight, MR_PATH_W_UP);
	assert_int_equal(ps.stat_revived, 1);
	assert_int_equal(mr_paths_up(&ps), 4);
}

/*
 * Loss all paths share (a burst on the first hop) retires none of them; a path that
 * fails on its own is still retired within a few losses.
 */
static void test_shared_loss_retires_no_path(void **state)
{
	struct mr_paths ps;
	u32 i, k, n;

	(void)state;
	mr_paths_init(&ps, 8);
	for (i = 0; i < 100; i++)
		for (k = 0; k < 8; k++)
			mr_paths_on_acked(&ps, k, 0, 1024);
	/* a burst of 48 packets sprayed over 8 paths: six consecutive losses on each */
	for (i = 0; i < 6; i++)
		for (k = 0; k < 8; k++)
			mr_paths_on_loss(&ps, 0, k, 1024);
	assert_int_equal(mr_paths_up(&ps), 8);
	/* load is still spread evenly: the weights fell alike */
	for (k = 0; k < 8; k++) {
		assert_int_equal(ps.p[k].consec_losses, 6);
		assert_int_equal(ps.p[k].weight, MR_PATH_W_MIN);
	}
	/* then path 5 dies while the others deliver again */
	for (k = 0; k < 8; k++)
		mr_paths_on_echo(&ps, k, 10 * US, false, 1024);
	for (n = 0; n < 100 && ps.p[5].up; n++) {
		for (i = 0; i < 7; i++)
			for (k = 0; k < 8; k++)
				if (k != 5)
					mr_paths_on_acked(&ps, k, 0, 1024);
		mr_paths_on_loss(&ps, 0, 5, 1024);
	}
	assert_false(ps.p[5].up);
	assert_true(n <= 2 * MR_PATH_FAIL_LOSSES);
	assert_int_equal(mr_paths_up(&ps), 7);
	/* a path alone has nothing to compare with: four losses retire it */
	mr_paths_init(&ps, 1);
	for (i = 0; i < MR_PATH_FAIL_LOSSES; i++)
		mr_paths_on_loss(&ps, 0, 0, 1024);
	assert_false(ps.p[0].up);
}

/*
 * 10% random loss on every path: a run of four losses on one path is bad luck, not a
 * failure; only a path that keeps losing far more than the others goes.
 */
static void test_random_loss_retires_no_path(void **state)
{
	struct mr_paths ps;
	u32 i, k, n;

	(void)state;
	mr_paths_init(&ps, 8);
	for (i = 0; i < 1000; i++) {
		for (k = 0; k < 8; k++) {
			if ((i + k) % 10 == 0)
				mr_paths_on_loss(&ps, 0, k, 1024);
			else
				mr_paths_on_acked(&ps, k, 0, 1024);
		}
		if (i % 4 == 0)
			for (k = 0; k < 8; k++)
				mr_paths_on_echo(&ps, k, 10 * US, false, 1024);
	}
	for (k = 0; k < 8; k++)
		assert_in_range(ps.p[k].loss_rate, MR_FP_ONE / 20, MR_FP_ONE / 5);
	for (i = 0; i < MR_PATH_FAIL_LOSSES; i++)
		mr_paths_on_loss(&ps, 0, 2, 1024);
	assert_int_equal(mr_paths_up(&ps), 8);
	/* it keeps losing while the others do not: it goes */
	for (n = 0; n < 100 && ps.p[2].up; n++)
		mr_paths_on_loss(&ps, 0, 2, 1024);
	assert_false(ps.p[2].up);
	assert_true(n <= 2 * MR_PATH_FAIL_LOSSES);
	assert_true(ps.p[2].loss_rate >= MR_PATH_FAIL_RATIO * (MR_FP_ONE / 10));
}

/*
 * Random loss with rare echoes, as from a receiver that answers a batch of packets with
 * one ACK (one echo, of one path): between two echoes of a path it can lose more than
 * MR_PATH_FAIL_LOSSES packets, yet it is not clearly worse than the others and stays up.
 * A path that delivers nothing still goes.
 */
static void test_random_loss_rare_echoes_retires_no_path(void **state)
{
	struct mr_paths ps;
	u32 i, k, n;

	(void)state;
	mr_paths_init(&ps, 8);
	for (i = 0; i < 4000; i++) {
		for (k = 0; k < 8; k++) {
			if ((i * 7 + k * 13) % 37 == 0)
				mr_paths_on_loss(&ps, 0, k, 1024);
			else
				mr_paths_on_acked(&ps, k, 0, 1024);
		}
		if (i % 32 == 0)
			mr_paths_on_echo(&ps, (i / 32) % 8, 10 * US, false, 1024);
	}
	assert_int_equal(ps.stat_retired, 0);
	assert_int_equal(mr_paths_up(&ps), 8);
	/* path 5 stops delivering: its losses are consecutive now, and it goes */
	for (n = 0; n < 100 && ps.p[5].up; n++) {
		for (k = 0; k < 8; k++) {
			if (k == 5)
				mr_paths_on_loss(&ps, 0, k, 1024);
			else
				mr_paths_on_acked(&ps, k, 0, 1024);
		}
	}
	assert_false(ps.p[5].up);
	assert_true(n <= 2 * MR_PATH_FAIL_LOSSES);
	assert_int_equal(mr_paths_up(&ps), 7);
}

/*
 * Random loss as it comes, not evenly spaced: 10% on each of 8 paths, each packet's fate
 * drawn on its own, and one echo per 32 rounds (a receiver that answers a batch with one
 * ACK). A path's loss rate then swings well above the others' now and then, and its
 * losses between two echoes often pass MR_PATH_FAIL_LOSSES; but packets of it delivered
 * between those losses show that it works. Counted from echoes alone, 233-362 paths went
 * in such a run (six seeds); counted from deliveries, 0-5 (twelve seeds): four losses in
 * a row, which come about 16 times in 160,000 packets at 10%, at a moment when the
 * path's rate is also four times the others'.
 */
static void test_random_loss_drawn_retires_no_path(void **state)
{
	struct mr_paths ps;
	u64 rng = 0x9e3779b97f4a7c15ULL;
	u32 i, k, n, lost = 0;

	(void)state;
	mr_paths_init(&ps, 8);
	for (i = 0; i < 20000; i++) {
		for (k = 0; k < 8; k++) {
			if (mr_unit_rand(&rng) % 10 == 0) {
				mr_paths_on_loss(&ps, 0, k, 1024);
				lost++;
			} else {
				mr_paths_on_acked(&ps, k, 0, 1024);
			}
		}
		if (i % 32 == 0)
			mr_paths_on_echo(&ps, (i / 32) % 8, 10 * US, false, 1024);
	}
	assert_in_range(lost, 15000, 17000);
	assert_true(ps.stat_retired <= 8);
	/*
	 * Path 3 stops delivering: it goes once its loss rate is four times that of half
	 * the others (from about 10%, 5 losses with these draws).
	 */
	for (n = 0; n < 100 && ps.p[3].up; n++)
		mr_paths_on_loss(&ps, 0, 3, 1024);
	assert_false(ps.p[3].up);
	assert_in_range(n, MR_PATH_FAIL_LOSSES, 16);
}

/*
 * An RTO that hit most paths retires only the clearly worse of them; one that spared
 * most paths retires those it hit.
 */
static void test_rto_retires_only_worse_paths(void **state)
{
	struct mr_paths ps;
	u32 i;

	(void)state;
	/* two paths of eight timed out, nothing lost before: they go, the rest stay */
	mr_paths_init(&ps, 8);
	mr_paths_on_rto(&ps, 0, 0x3);
	assert_int_equal(mr_paths_up(&ps), 6);
	assert_false(ps.p[0].up || ps.p[1].up);
	/* five of eight: shared, nobody clearly worse, nobody retired */
	mr_paths_init(&ps, 8);
	mr_paths_on_rto(&ps, 0, 0x1f);
	assert_int_equal(mr_paths_up(&ps), 8);
	/* a clean connection loses everything at once: shared, nobody retired */
	mr_paths_init(&ps, 4);
	mr_paths_on_rto(&ps, 0, 0xf);
	assert_int_equal(mr_paths_up(&ps), 4);
	/* path 1 has been losing, the others not: it goes; path 3 (losing too) had nothing
	 * outstanding and stays
	 */
	for (i = 0; i < 3; i++) {
		mr_paths_on_loss(&ps, 0, 1, 1024);
		mr_paths_on_loss(&ps, 0, 3, 1024);
		mr_paths_on_echo(&ps, 3, 10 * US, false, 1024);
	}
	mr_paths_on_rto(&ps, 0, 0x7);
	assert_false(ps.p[1].up);
	assert_true(ps.p[0].up && ps.p[2].up && ps.p[3].up);
	/* decided before retiring: two paths equally bad against two clean ones both go */
	mr_paths_init(&ps, 4);
	for (i = 0; i < 3; i++) {
		mr_paths_on_loss(&ps, 0, 0, 1024);
		mr_paths_on_loss(&ps, 0, 1, 1024);
	}
	mr_paths_on_rto(&ps, 0, 0xf);
	assert_int_equal(mr_paths_up(&ps), 2);
	assert_false(ps.p[0].up || ps.p[1].up);
	/* a path alone is retired, as before */
	mr_paths_init(&ps, 1);
	mr_paths_on_rto(&ps, 0, 0x1);
	assert_int_equal(mr_paths_up(&ps), 0);
}

static void test_probe_backoff_is_capped(void **state)
{
	struct mr_paths ps;
	u64 now = 0;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 2);
	mr_paths_retire(&ps, now, 0);
	mr_paths_retire(&ps, now, 0);	/* idempotent */
	for (i = 0; i < 20; i++) {
		gap(&ps, now);
		now = ps.p[0].probe_at_ns;
		assert_int_equal(mr_paths_pick(&ps, now), 0);
		mr_paths_on_loss(&ps, now, 0, 1024);
	}
	assert_int_equal(ps.p[0].probe_ival_ns, MR_PATH_PROBE_MAX_NS);
}

/*
 * However many retired paths are due, a probe goes at most once in MR_PATH_PROBE_GAP
 * packets: each costs a sparse sender a tail-loss probe's wait when its path is dead.
 */
static void test_probes_are_spaced(void **state)
{
	struct mr_paths ps;
	u64 now = MR_PATH_PROBE_NS;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 4);
	mr_paths_retire(&ps, 0, 1);
	mr_paths_retire(&ps, 0, 2);
	mr_paths_retire(&ps, 0, 3);
	/* the first goes at once */
	assert_int_equal(mr_paths_pick(&ps, now), 1);
	/* the others wait their turn behind MR_PATH_PROBE_GAP packets each */
	for (i = 0; i < MR_PATH_PROBE_GAP; i++)
		assert_int_equal(mr_paths_pick(&ps, now), 0);
	assert_int_equal(mr_paths_pick(&ps, now), 2);
	assert_true(ps.p[3].probe_at_ns <= now && !ps.p[3].probing);
	/* retransmissions count, and probe too (lost on path 1: the healthiest is 0) */
	for (i = 0; i < MR_PATH_PROBE_GAP; i++)
		assert_int_equal(mr_paths_pick_retx(&ps, now, 1), 0);
	assert_int_equal(mr_paths_pick_retx(&ps, now, 1), 3);

	/* the longest due goes first, whatever its number */
	mr_paths_init(&ps, 4);
	mr_paths_retire(&ps, 2 * US, 1);
	mr_paths_retire(&ps, 1 * US, 3);
	assert_int_equal(mr_paths_pick(&ps, now + 2 * US), 3);
}

static void test_all_paths_down_round_robin(void **state)
{
	struct mr_paths ps;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 3);
	for (i = 0; i < 3; i++)
		mr_paths_retire(&ps, 0, i);
	assert_int_equal(mr_paths_up(&ps), 0);
	/* before any probe is due, still send somewhere: every path in turn */
	assert_int_equal(mr_paths_pick(&ps, 1), 0);
	assert_int_equal(mr_paths_pick(&ps, 1), 1);
	assert_int_equal(mr_paths_pick(&ps, 1), 2);
	assert_int_equal(mr_paths_pick(&ps, 1), 0);
}

static void test_retransmit_goes_elsewhere(void **state)
{
	struct mr_paths ps;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 4);
	mr_paths_on_echo(&ps, 0, 30 * US, false, 1024);
	mr_paths_on_echo(&ps, 1, 10 * US, false, 1024);
	mr_paths_on_echo(&ps, 2, 20 * US, false, 1024);
	mr_paths_on_echo(&ps, 3, 5 * US, true, 1024);	/* fast but marked */
	/* equal weights 0..2: lowest RTT wins, and never the path that lost it */
	assert_int_equal(mr_paths_pick_retx(&ps, 0, 0), 1);
	assert_int_equal(mr_paths_pick_retx(&ps, 0, 1), 2);
	mr_paths_on_loss(&ps, 0, 1, 1024);
	assert_int_equal(mr_paths_pick_retx(&ps, 0, 0), 2);
	/* a single path has nowhere else to go */
	mr_paths_init(&ps, 1);
	for (i = 0; i < 3; i++)
		assert_int_equal(mr_paths_pick_retx(&ps, 0, 0), 0);
	/* a due probe of a retired path takes the retransmission */
	mr_paths_init(&ps, 3);
	mr_paths_retire(&ps, 0, 2);
	assert_int_equal(mr_paths_pick_retx(&ps, MR_PATH_PROBE_NS, 0), 2);
	/* ...unless the retired path is the one that lost it */
	mr_paths_init(&ps, 3);
	mr_paths_retire(&ps, 0, 2);
	assert_int_equal(mr_paths_pick_retx(&ps, MR_PATH_PROBE_NS, 2), 0);
	assert_false(ps.p[2].probing);
}

/*
 * A tail-loss probe is a ping-pong's only repair before the timeout: it takes the
 * healthiest other up path even when a retired path's probe is due, and the probe waits.
 */
static void test_tail_probe_never_probes(void **state)
{
	struct mr_paths ps;

	(void)state;
	mr_paths_init(&ps, 4);
	mr_paths_on_echo(&ps, 0, 30 * US, false, 1024);
	mr_paths_on_echo(&ps, 1, 10 * US, false, 1024);
	mr_paths_on_echo(&ps, 2, 20 * US, false, 1024);
	mr_paths_retire(&ps, 0, 3);
	assert_int_equal(mr_paths_pick_tlp(&ps, MR_PATH_PROBE_NS, 1), 2);
	assert_false(ps.p[3].probing);
	assert_int_equal(mr_paths_pick_tlp(&ps, MR_PATH_PROBE_NS, 0), 1);
	/* the next new packet still probes it */
	assert_int_equal(mr_paths_pick(&ps, MR_PATH_PROBE_NS), 3);
	/* the only up path is the one it left: back there, not on the due probe */
	mr_paths_init(&ps, 2);
	mr_paths_retire(&ps, 0, 1);
	assert_int_equal(mr_paths_pick_tlp(&ps, MR_PATH_PROBE_NS, 0), 0);
	assert_false(ps.p[1].probing);
}

/*
 * An ACK goes on our path of the echoed packet's number, or the next up one after it:
 * never on a path our own data found dead.
 */
static void test_ack_path(void **state)
{
	struct mr_paths ps;
	u8 i;

	(void)state;
	mr_paths_init(&ps, 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(mr_paths_pick_ack(&ps, i), i);
	/* a peer with more paths than ours: wrapped */
	assert_int_equal(mr_paths_pick_ack(&ps, 6), 2);
	mr_paths_retire(&ps, 0, 1);
	mr_paths_retire(&ps, 0, 2);
	assert_int_equal(mr_paths_pick_ack(&ps, 1), 3);
	assert_int_equal(mr_paths_pick_ack(&ps, 2), 3);
	mr_paths_retire(&ps, 0, 3);
	assert_int_equal(mr_paths_pick_ack(&ps, 2), 0);
	/* none up: the echoed number, as if all were */
	mr_paths_retire(&ps, 0, 0);
	assert_int_equal(mr_paths_pick_ack(&ps, 2), 2);
}

static void test_reorder_window(void **state)
{
	struct mr_paths ps;
	u32 i;

	(void)state;
	mr_paths_init(&ps, 3);
	/* no samples: the window is the minimum, plus the receiver's ACK delay */
	assert_int_equal(mr_paths_reo_wnd(&ps), MR_REO_MIN_NS + MR_ACK_DELAY_NS);
	mr_paths_on_echo(&ps, 0, 20 * US, false, 1024);
	/* paths 1 and 2 unmeasured: wait two srtt (and the ACK delay) */
	assert_int_equal(mr_paths_reo_wnd(&ps), 40 * US + MR_ACK_DELAY_NS);
	for (i = 0; i < 100; i++) {
		mr_paths_on_echo(&ps, 0, 20 * US, false, 1024);
		mr_paths_on_echo(&ps, 1, 24 * US, false, 1024);
		mr_paths_on_echo(&ps, 2, 28 * US, false, 1024);
	}
	/* min_rtt / 4 + slowest (srtt + 4 rttvar) - fastest + ACK delay, rttvar ~0 here */
	assert_in_range(mr_paths_reo_wnd(&ps), 13 * US + MR_ACK_DELAY_NS - 300,
			13 * US + MR_ACK_DELAY_NS + 300);
	/* a retired path's RTT no longer widens it */
	mr_paths_retire(&ps, 0, 2);
	assert_in_range(mr_paths_reo_wnd(&ps), 9 * US + MR_ACK_DELAY_NS - 300,
			9 * US + MR_ACK_DELAY_NS + 300);
	/* a path with variable RTT widens it by twice its variance */
	for (i = 0; i < 100; i++)
		mr_paths_on_echo(&ps, 1, (i & 1 ? 16 : 32) * US, false, 1024);
	assert_true(mr_paths_reo_wnd(&ps) > 20 * US + MR_ACK_DELAY_NS);
	/* but never beyond 2 srtt + ACK delay */
	mr_paths_init(&ps, 2);
	mr_paths_on_echo(&ps, 0, 2 * US, false, 1024);
	mr_paths_on_echo(&ps, 1, 400 * US, false, 1024);
	assert_true(mr_paths_reo_wnd(&ps) <= 2 * ps.conn.srtt + MR_ACK_DELAY_NS);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_rtt_estimator),
	cmocka_unit_test(test_even_spread),
	cmocka_unit_test(test_ecn_moves_load),
	cmocka_unit_test(test_slow_path_sheds_load),
	cmocka_unit_test(test_loss_retires_and_probe_recovers),
	cmocka_unit_test(test_probe_losses_retire_without_shedding),
	cmocka_unit_test(test_unanswered_probe_fails),
	cmocka_unit_test(test_probe_acked_without_echo_revives),
	cmocka_unit_test(test_small_answer_proves_nothing),
	cmocka_unit_test(test_shared_loss_retires_no_path),
	cmocka_unit_test(test_random_loss_retires_no_path),
	cmocka_unit_test(test_random_loss_rare_echoes_retires_no_path),
	cmocka_unit_test(test_random_loss_drawn_retires_no_path),
	cmocka_unit_test(test_rto_retires_only_worse_paths),
	cmocka_unit_test(test_probe_backoff_is_capped),
	cmocka_unit_test(test_probes_are_spaced),
	cmocka_unit_test(test_all_paths_down_round_robin),
	cmocka_unit_test(test_retransmit_goes_elsewhere),
	cmocka_unit_test(test_tail_probe_never_probes),
	cmocka_unit_test(test_ack_path),
	cmocka_unit_test(test_reorder_window),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
