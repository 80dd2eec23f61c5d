// SPDX-License-Identifier: GPL-2.0
/*
 * Send window: window cap, ACK/SACK validation and application, loss detection under
 * spraying (no spurious retransmissions from path skew), same-path distance and time
 * rules, retransmit selection, tail-loss probe, RTO backoff and retry limit.
 */
#include "unit.h"
#include "txwin.h"
#include "rxwin.h"
#include "path.h"
#include "params.h"

#define US	1000ULL

struct lost_log {
	u32 n;
	u32 psn[MR_SACK_BITS];
};

static void log_lost(void *arg, u32 psn, const struct mr_txpkt *p)
{
	struct lost_log *l = arg;

	(void)p;
	l->psn[l->n++ % MR_SACK_BITS] = psn;
}

static void ack_of(const struct mr_rxwin *rx, u32 echo, struct mr_pkt_ack *a)
{
	memset(a, 0, sizeof(*a));
	a->cack = rx->cack;
	a->echo_psn = echo;
	mr_rxwin_sack(rx, a->sack);
}

/* ACK that cumulatively acks up to cack and selectively the listed PSNs. */
static void ack_list(u32 cack, const u32 *psns, unsigned int n, struct mr_pkt_ack *a)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->cack = cack;
	a->echo_psn = n ? psns[n - 1] : cack - 1;
	for (i = 0; i < n; i++) {
		u32 off = psns[i] - cack;

		a->sack[off / 64] |= 1ULL << (off % 64);
	}
}

static enum mr_tx_timer fire(struct mr_txwin *w, u64 now, u64 pto, u64 rto,
			     struct lost_log *lost, u32 *probe)
{
	return mr_txwin_timer(w, now, pto, rto, log_lost, lost, probe);
}

/* The RTO of a steady 200 us round trip: the probe's 2 x srtt + max_ack_delay. */
#define RTO_200US	(2 * 200 * US + MR_ACK_DELAY_NS)

/* A fresh window (200 us srtt) sends n packets at 0; its RTO fires. Returns the RTO. */
static u64 send_until_rto(struct mr_txwin *w, u32 n, struct lost_log *lost)
{
	u64 rto;
	u32 psn, i;

	mr_txwin_init(w, 0, 7);
	rto = mr_txwin_rto(w, 200 * US, 0);
	for (i = 0; i < n; i++)
		mr_txwin_send(w, 0, 0, 0, 0, 100);
	assert_int_equal(fire(w, rto, MR_PTO_NONE, rto, lost, &psn), MR_TMR_RTO);
	return rto;
}

static void test_window_cap(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	u32 i;

	(void)state;
	mr_txwin_init(&w, 0xffffff00, 7);
	for (i = 0; i < MR_SACK_BITS; i++) {
		assert_true(mr_txwin_can_send(&w));
		assert_int_equal(mr_txwin_send(&w, i, i % 4, 0, i, 4096), 0xffffff00 + i);
	}
	assert_false(mr_txwin_can_send(&w));
	assert_int_equal(w.in_flight, 256);
	/* Acknowledging the oldest opens exactly one slot, across 2^32. */
	ack_list(0xffffff01, NULL, 0, &a);
	assert_int_equal(mr_txwin_ack(&w, 1000, &a, NULL, NULL, &r), 0);
	assert_int_equal(r.newly_acked, 1);
	assert_true(r.una_advanced);
	assert_true(mr_txwin_can_send(&w));
	assert_int_equal(mr_txwin_send(&w, 2000, 0, 0, 0, 1), 0);
	assert_false(mr_txwin_can_send(&w));
}

static void test_ack_validation(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	u32 psns[1];
	u32 i;

	(void)state;
	mr_txwin_init(&w, 100, 7);
	for (i = 0; i < 10; i++)
		mr_txwin_send(&w, 0, 0, 0, 0, 100);
	/* cack beyond what was sent */
	ack_list(111, NULL, 0, &a);
	assert_int_equal(mr_txwin_ack(&w, 1, &a, NULL, NULL, &r), -EINVAL);
	/* a SACK bit for PSN 110, never sent: refused, nothing changes */
	psns[0] = 110;
	ack_list(101, psns, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, 1, &a, NULL, NULL, &r), -EINVAL);
	assert_int_equal(w.una, 100);
	assert_int_equal(w.in_flight, 10);
	/* the highest sent PSN is fine */
	psns[0] = 109;
	ack_list(110, NULL, 0, &a);
	assert_int_equal(mr_txwin_ack(&w, 1, &a, NULL, NULL, &r), 0);
	assert_int_equal(r.newly_acked, 10);
	assert_int_equal(w.una, 110);
	assert_int_equal(w.in_flight, 0);
}

/* SACK bits beyond the first word of the bitmap: the word-wise walks. */
static void test_ack_sack_words(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	u32 psns[3];
	u32 i;

	(void)state;
	mr_txwin_init(&w, 100, 7);
	for (i = 0; i < 200; i++)
		mr_txwin_send(&w, 0, 0, 0, 0, 100);
	/* PSN 300 (bit 200, third word) was never sent */
	psns[0] = 170;
	psns[1] = 300;
	ack_list(100, psns, 2, &a);
	assert_int_equal(mr_txwin_ack(&w, 1, &a, NULL, NULL, &r), -EINVAL);
	assert_int_equal(w.in_flight, 200);
	/* bits 63, 64 and 199: the last bit of a word, the first of the next, nxt - 1 */
	psns[0] = 163;
	psns[1] = 164;
	psns[2] = 299;
	ack_list(100, psns, 3, &a);
	assert_int_equal(mr_txwin_ack(&w, 1, &a, NULL, NULL, &r), 0);
	assert_int_equal(r.newly_acked, 3);
	assert_int_equal(w.una, 100);
	assert_int_equal(w.in_flight, 197);
	/* cumulative to 165: 63 more, PSNs 163 and 164 not counted twice */
	ack_list(165, NULL, 0, &a);
	assert_int_equal(mr_txwin_ack(&w, 1, &a, NULL, NULL, &r), 0);
	assert_int_equal(r.newly_acked, 63);
	assert_int_equal(w.una, 165);
	assert_int_equal(w.in_flight, 134);
}

static void test_dup_and_old_acks(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	u32 psns[] = { 5, 7 };
	u32 i;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	for (i = 0; i < 10; i++)
		mr_txwin_send(&w, 0, 0, 0, 0, 100);
	ack_list(3, psns, 2, &a);
	assert_int_equal(mr_txwin_ack(&w, 10, &a, NULL, NULL, &r), 0);
	assert_int_equal(r.newly_acked, 5);
	assert_int_equal(r.newly_bytes, 500);
	/* the same ACK again: nothing new */
	assert_int_equal(mr_txwin_ack(&w, 11, &a, NULL, NULL, &r), 0);
	assert_int_equal(r.newly_acked, 0);
	assert_false(r.una_advanced);
	/* an older ACK (cack 1) that arrives late still contributes its bit for 8 */
	psns[0] = 8;
	ack_list(1, psns, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, 12, &a, NULL, NULL, &r), 0);
	assert_int_equal(r.newly_acked, 1);
	assert_int_equal(w.una, 3);
	assert_int_equal(mr_txwin_pkt(&w, 8)->state, MR_TXP_ACKED);
	assert_int_equal(w.in_flight, 4);	/* 3, 4, 6, 9 */
}

/*
 * Spray 2000 packets over 4 paths whose one-way delays differ by up to 9 us. Deliver in
 * arrival order, ACK each arrival, run loss detection after every ACK. drop_every > 0
 * drops every drop_every-th packet (the first transmission only). stalled: what the
 * sender tells mr_txwin_detect() (it sends in rounds, so either is true to it). Returns
 * the number of ACKs that reported a hole, i.e. how much reordering the receiver saw.
 */
static u32 spray(u32 drop_every, bool stalled, struct lost_log *lost, struct mr_txwin *w)
{
	static const u64 delay[4] = { 10 * US, 13 * US, 16 * US, 19 * US };
	static u64 arrive[4000];
	static u32 order[4000];
	struct mr_rxwin rx;
	struct mr_paths ps;
	u32 sent = 0, i, j, holes = 0, rounds = 0;
	u64 now = 0;

	mr_txwin_init(w, 7, 7);
	mr_rxwin_init(&rx, 7);
	mr_paths_init(&ps, 4);

	while (w->una != 7 + 2000 && rounds++ < 1000) {
		u32 n = 0, psn;

		/* retransmissions first, then new packets, up to 64 per round */
		while (n < 64 && mr_txwin_next_lost(w, &psn)) {
			u8 path = mr_paths_pick_retx(&ps, now, mr_txwin_pkt(w, psn)->path);

			mr_txwin_retransmit(w, now, psn, path);
			arrive[n] = now + delay[path];
			order[n++] = psn;
			now += 100;
		}
		while (sent < 2000 && mr_txwin_can_send(w) && n < 64) {
			u8 path = mr_paths_pick(&ps, now);

			psn = mr_txwin_send(w, now, path, 0, sent, 4096);
			sent++;
			if (drop_every && (sent % drop_every) == 0) {
				now += 100;
				continue;
			}
			arrive[n] = now + delay[path];
			order[n++] = psn;
			now += 100;
		}
		/* sort this round by arrival time (insertion sort, small n) */
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && arrive[j] < arrive[j - 1]; j--) {
				u64 ta = arrive[j];
				u32 t = order[j];

				arrive[j] = arrive[j - 1];
				order[j] = order[j - 1];
				arrive[j - 1] = ta;
				order[j - 1] = t;
			}
		for (i = 0; i < n; i++) {
			u64 t = arrive[i] + 10 * US;	/* ACK comes back in 10 us */
			struct mr_txack_res r;
			struct mr_pkt_ack a;

			psn = order[i];
			if (mr_rxwin_check(&rx, psn) == MR_RX_NEW)
				mr_rxwin_record(&rx, psn);
			if (mr_rxwin_ooo(&rx))
				holes++;
			ack_of(&rx, psn, &a);
			if (mr_txwin_pkt(w, psn)->nretx)
				a.echo_flags = MR_ECHO_RETX;
			now = t > now ? t : now;
			assert_int_equal(mr_txwin_ack(w, now, &a, NULL, NULL, &r), 0);
			if (r.echo_rtt_valid) {
				u8 path = mr_txwin_pkt(w, psn)->path;

				mr_paths_on_echo(&ps, path, r.echo_rtt_ns, false, 1024);
			}
			mr_txwin_detect(w, now, mr_paths_reo_wnd(&ps), stalled, log_lost, lost);
		}
		/* nothing left to deliver: let the timers act */
		if (!n) {
			u64 pto = mr_txwin_pto(ps.conn.srtt, ps.conn.rttvar);
			u64 rto = mr_txwin_rto(w, ps.conn.srtt, ps.conn.rttvar);
			u64 d = mr_txwin_deadline(w, pto, rto);

			if (d == U64_MAX)
				break;
			now = d > now ? d : now;
			switch (mr_txwin_timer(w, now, pto, rto, log_lost, lost, &psn)) {
			case MR_TMR_REORDER:
				mr_txwin_detect(w, now, mr_paths_reo_wnd(&ps), stalled, log_lost, lost);
				break;
			case MR_TMR_TLP:
				mr_txwin_retransmit(w, now, psn, mr_paths_pick_retx(&ps, now, 0));
				break;
			default:
				break;
			}
		}
	}
	assert_int_equal(w->una, 7 + 2000);
	/* every path carried its share of new packets */
	for (i = 0; i < 4; i++)
		assert_true(w->path_seq[i] >= 500);
	/* the reorder window covers the skew between paths' RTTs */
	assert_true(mr_paths_reo_wnd(&ps) >= 9 * US);
	return holes;
}

/* A first-hole rule would retransmit constantly here; MetaRoCE must not at all. */
static void spray_clean(bool stalled)
{
	static struct mr_txwin w;
	struct lost_log lost = { 0 };

	assert_true(spray(0, stalled, &lost, &w) > 1000);
	assert_int_equal(lost.n, 0);
	assert_int_equal(w.stat_retx, 0);
	assert_int_equal(w.stat_rto, 0);
}

/* Real losses under the same spraying are all found, and nothing else is. */
static void spray_lossy(bool stalled)
{
	static struct mr_txwin w;
	struct lost_log lost = { 0 };
	u32 i;

	spray(97, stalled, &lost, &w);	/* 20 drops */
	assert_int_equal(lost.n, 2000 / 97);
	for (i = 0; i < lost.n; i++)
		assert_int_equal((lost.psn[i] - 7 + 1) % 97, 0);
	assert_int_equal(w.stat_spurious, 0);
	assert_int_equal(w.stat_rto, 0);
}

static void test_spraying_without_loss_is_not_loss(void **state)
{
	(void)state;
	spray_clean(false);
}

static void test_spraying_with_loss_finds_exactly_the_losses(void **state)
{
	(void)state;
	spray_lossy(false);
}

/* The stalled sender's shorter distance, on FIFO paths: no more verdicts, only sooner. */
static void test_spraying_stalled_sender(void **state)
{
	(void)state;
	spray_clean(true);
	spray_lossy(true);
}

static void test_same_path_distance(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u32 psns[3] = { 1, 2, 3 };

	(void)state;
	mr_txwin_init(&w, 0, 7);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);	/* psn 0, path 0: lost */
	mr_txwin_send(&w, 1, 0, 0, 0, 100);
	mr_txwin_send(&w, 2, 0, 0, 0, 100);
	mr_txwin_send(&w, 3, 0, 0, 0, 100);
	mr_txwin_send(&w, 4, 1, 0, 0, 100);	/* psn 4 on path 1 */

	/* Two later packets of path 0 delivered: not yet loss (huge reorder window). */
	ack_list(0, psns, 2, &a);
	assert_int_equal(mr_txwin_ack(&w, 50, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_detect(&w, 50, 1000 * US, false, log_lost, &lost), 0);
	/* The third one: loss, by distance alone, long before any timer. */
	ack_list(0, psns, 3, &a);
	assert_int_equal(mr_txwin_ack(&w, 51, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_detect(&w, 51, 1000 * US, false, log_lost, &lost), 1);
	assert_int_equal(lost.psn[0], 0);
	assert_int_equal(mr_txwin_pkt(&w, 0)->state, MR_TXP_LOST);
	/* psn 4 on the other path is not a suspect by distance */
	assert_int_equal(mr_txwin_pkt(&w, 4)->state, MR_TXP_INFLIGHT);
	assert_int_equal(w.nlost, 1);
	assert_int_equal(w.in_flight, 1);
}

/*
 * A stalled sender: lost once the newest packet of its path is acknowledged (up to the
 * default distance), whatever the adapted distance; a wrong verdict adapts nothing.
 */
static void test_stalled_sender_distance(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u32 one[] = { 1 }, later[] = { 1, 4 }, far[] = { 1, 4, 6, 7, 8 };

	(void)state;
	mr_txwin_init(&w, 0, 7);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);	/* psn 0, path 0 */
	mr_txwin_send(&w, 1, 0, 0, 0, 100);	/* psn 1, path 0 */
	mr_txwin_send(&w, 2, 1, 0, 0, 100);	/* psn 2, path 1: the newest there */
	mr_txwin_send(&w, 3, 2, 0, 0, 100);	/* psn 3, path 2 */
	mr_txwin_send(&w, 4, 2, 0, 0, 100);	/* psn 4, path 2 */
	mr_txwin_send(&w, 5, 2, 0, 0, 100);	/* psn 5, path 2 */

	ack_list(0, one, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, 50, &a, NULL, NULL, &r), 0);
	/* one later packet of path 0 delivered: not loss for a sender with more to send */
	assert_int_equal(mr_txwin_detect(&w, 50, 1000 * US, false, log_lost, &lost), 0);
	/* for a stalled one it is: the newest of its path arrived */
	assert_int_equal(mr_txwin_detect(&w, 50, 1000 * US, true, log_lost, &lost), 1);
	assert_int_equal(lost.psn[0], 0);
	assert_true(mr_txwin_pkt(&w, 0)->lost_stalled);
	/* nothing was sent after psn 2 on its path: the time rule's, or the probe's */
	assert_int_equal(mr_txwin_pkt(&w, 2)->state, MR_TXP_INFLIGHT);

	/* psn 3 has two later packets on path 2: the first of them is not enough */
	ack_list(0, later, 2, &a);
	assert_int_equal(mr_txwin_ack(&w, 51, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_detect(&w, 51, 1000 * US, true, log_lost, &lost), 0);
	assert_int_equal(mr_txwin_pkt(&w, 3)->state, MR_TXP_INFLIGHT);

	/* the original of psn 0 arrives after all: counted, but no more tolerance */
	mr_txwin_retransmit(&w, 52, 0, 3);
	ack_list(2, later + 1, 1, &a);
	a.echo_psn = 0;
	assert_int_equal(mr_txwin_ack(&w, 53, &a, NULL, NULL, &r), 0);
	assert_int_equal(w.stat_spurious, 1);
	assert_int_equal(w.reo_dup, MR_REO_PATH_DUP);
	assert_int_equal(w.reo_mult, 1);

	/*
	 * A fabric that did reorder (distance raised to 12): a stalled sender still uses 3.
	 * psn 6..8 go on path 2 after psns 3..5; psns 6, 7, 8 delivered put psn 5 three behind.
	 */
	w.reo_dup = 4 * MR_REO_PATH_DUP;
	mr_txwin_send(&w, 60, 2, 0, 0, 100);
	mr_txwin_send(&w, 61, 2, 0, 0, 100);
	mr_txwin_send(&w, 62, 2, 0, 0, 100);
	ack_list(2, far + 1, 4, &a);
	assert_int_equal(mr_txwin_ack(&w, 70, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_detect(&w, 70, 1000 * US, false, log_lost, &lost), 0);
	assert_int_equal(mr_txwin_detect(&w, 70, 1000 * US, true, log_lost, &lost), 2);
	assert_int_equal(mr_txwin_pkt(&w, 3)->state, MR_TXP_LOST);
	assert_int_equal(mr_txwin_pkt(&w, 5)->state, MR_TXP_LOST);
	assert_int_equal(mr_txwin_pkt(&w, 2)->state, MR_TXP_INFLIGHT);
}

static void test_time_rule_and_reorder_deadline(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u32 psns[1] = { 1 };
	u64 deadline;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	mr_txwin_send(&w, 0, 1, 0, 0, 100);	/* slow or lost path */
	mr_txwin_send(&w, 1 * US, 0, 0, 0, 100);
	mr_txwin_send(&w, 2 * US, 0, 0, 0, 100);	/* sent after the acked one */

	/* psn 1 acked at 21 us: rack_rtt = 20 us */
	ack_list(0, psns, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, 21 * US, &a, NULL, NULL, &r), 0);
	assert_true(r.echo_rtt_valid);
	assert_int_equal(r.echo_rtt_ns, 20 * US);

	/* psn 0 sent before psn 1: a suspect, lost at 0 + 20 + 5 us */
	assert_int_equal(mr_txwin_detect(&w, 21 * US, 5 * US, false, log_lost, &lost), 0);
	deadline = 25 * US;
	assert_int_equal(w.reo_deadline_ns, deadline);
	assert_int_equal(mr_txwin_deadline(&w, 1000 * US, 1000 * US), deadline);
	/* a suspected loss is scheduled work, not a timeout (spec, "Timer precision") */
	assert_int_equal(mr_txwin_reo_deadline(&w), deadline);
	assert_int_equal(mr_txwin_timeout(&w, 1000 * US, 1000 * US), 1000 * US);
	/* psn 2 was sent after psn 1: not a suspect, however long it takes */
	assert_int_equal(fire(&w, deadline - 1, 1000 * US, 1000 * US, &lost, psns), MR_TMR_NONE);
	assert_int_equal(fire(&w, deadline, 1000 * US, 1000 * US, &lost, psns), MR_TMR_REORDER);
	assert_int_equal(mr_txwin_detect(&w, deadline, 5 * US, false, log_lost, &lost), 1);
	assert_int_equal(lost.psn[0], 0);
	assert_int_equal(mr_txwin_pkt(&w, 2)->state, MR_TXP_INFLIGHT);
	assert_int_equal(w.reo_deadline_ns, 0);
}

static void test_retransmit_selection(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u32 psns[] = { 2, 4, 5, 6 };
	u32 psn;

	(void)state;
	mr_txwin_init(&w, 0xfffffffe, 7);	/* PSNs 0xfffffffe .. 5 cross the wrap */
	for (psn = 0; psn < 9; psn++)
		mr_txwin_send(&w, psn, 0, 0, 0, 100);
	/* acked: 0xfffffffe, 0xffffffff (cumulative), 2, 4, 5, 6; missing 0, 1, 3 */
	ack_list(0, psns, 4, &a);
	assert_int_equal(mr_txwin_ack(&w, 100, &a, NULL, NULL, &r), 0);
	assert_int_equal(w.una, 0);
	assert_int_equal(mr_txwin_detect(&w, 100, 1000 * US, false, log_lost, &lost), 3);

	/* lowest first, each once */
	assert_true(mr_txwin_next_lost(&w, &psn));
	assert_int_equal(psn, 0);
	mr_txwin_retransmit(&w, 200, 0, 1);
	assert_true(mr_txwin_next_lost(&w, &psn));
	assert_int_equal(psn, 1);
	mr_txwin_retransmit(&w, 201, 1, 1);
	assert_true(mr_txwin_next_lost(&w, &psn));
	assert_int_equal(psn, 3);
	mr_txwin_retransmit(&w, 202, 3, 2);
	assert_false(mr_txwin_next_lost(&w, &psn));
	assert_int_equal(mr_txwin_pkt(&w, 3)->nretx, 1);
	assert_int_equal(mr_txwin_pkt(&w, 3)->path, 2);
	assert_int_equal(w.stat_retx, 3);
	assert_int_equal(w.nlost, 0);
	assert_int_equal(w.in_flight, 3);	/* 0, 1, 3 */

	/* Retransmitting an acked packet is refused. */
	mr_txwin_retransmit(&w, 203, 2, 2);
	assert_int_equal(w.stat_retx, 3);
}

static void test_lost_retransmission_detected_again(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u32 psns[4] = { 1, 2, 3, 4 };
	u32 i;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	for (i = 0; i < 8; i++)
		mr_txwin_send(&w, i, 0, 0, 0, 100);
	ack_list(0, psns, 3, &a);
	mr_txwin_ack(&w, 100, &a, NULL, NULL, &r);
	assert_int_equal(mr_txwin_detect(&w, 100, 1000 * US, false, log_lost, &lost), 1);
	/* retransmit psn 0 on path 1, then send three more on path 1, all acked */
	mr_txwin_retransmit(&w, 200, 0, 1);
	for (i = 0; i < 3; i++)
		mr_txwin_send(&w, 201 + i, 1, 0, 0, 100);
	psns[0] = 8;
	psns[1] = 9;
	psns[2] = 10;
	ack_list(0, psns, 3, &a);
	mr_txwin_ack(&w, 300, &a, NULL, NULL, &r);
	/* the retransmission of 0 is lost again; 4..7 on path 0 are time suspects only */
	assert_int_equal(mr_txwin_detect(&w, 300, 1000 * US, false, log_lost, &lost), 1);
	assert_int_equal(lost.psn[1], 0);
	assert_int_equal(mr_txwin_pkt(&w, 0)->nretx, 1);
}

/*
 * ACKs that a host held back find the oldest packet lost just as the timeout is due: the
 * verdict restarts the timeout, which stays the last resort. Verdicts on later packets,
 * and on a repair of the oldest, do not: the oldest one is what the timeout waits for,
 * and a repair lost in turn is what timeouts in a row are for.
 */
static void test_verdict_on_una_restarts_rto(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u32 psns[9] = { 1, 2, 3, 5, 6, 7, 8, 9, 10 };
	u64 rto, t;
	u32 i, probe;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	rto = mr_txwin_rto(&w, 200 * US, 0);
	assert_int_equal(rto, RTO_200US);
	for (i = 0; i < 8; i++)
		mr_txwin_send(&w, 0, 0, 0, 0, 100);

	/* 1..3 acknowledged only now, at the timeout: 0 is lost by distance. */
	ack_list(0, psns, 3, &a);
	assert_int_equal(mr_txwin_ack(&w, rto, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_detect(&w, rto, 1000 * US, false, log_lost, &lost), 1);
	assert_int_equal(lost.psn[0], 0);
	assert_int_equal(w.rto_base_ns, rto);
	assert_int_equal(fire(&w, rto, MR_PTO_NONE, rto, &lost, &probe), MR_TMR_NONE);
	assert_int_equal(w.stat_rto, 0);

	/* Its repair goes out on path 1; a verdict on 4 (5..7 acknowledged) moves nothing. */
	mr_txwin_retransmit(&w, rto, 0, 1);
	ack_list(0, psns, 6, &a);
	assert_int_equal(mr_txwin_ack(&w, rto + 50 * US, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_detect(&w, rto + 50 * US, 1000 * US, false, log_lost, &lost),
			 1);
	assert_int_equal(lost.psn[1], 4);
	assert_int_equal(w.rto_base_ns, rto);

	/* Three packets sent after the repair on its path arrive, the repair not: lost too. */
	for (i = 0; i < 3; i++)
		mr_txwin_send(&w, rto + 60 * US, 1, 0, 0, 100);
	t = rto + 100 * US;
	ack_list(0, psns, 9, &a);
	assert_int_equal(mr_txwin_ack(&w, t, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_detect(&w, t, 1000 * US, false, log_lost, &lost), 1);
	assert_int_equal(lost.psn[2], 0);
	assert_int_equal(w.rto_base_ns, rto);

	/* Nothing repairs it: the timeout comes, a round of it after the first verdict. */
	mr_txwin_retransmit(&w, t, 0, 2);
	mr_txwin_retransmit(&w, t, 4, 2);
	assert_int_equal(fire(&w, 2 * rto - 1, MR_PTO_NONE, rto, &lost, &probe), MR_TMR_NONE);
	assert_int_equal(fire(&w, 2 * rto, MR_PTO_NONE, rto, &lost, &probe), MR_TMR_RTO);
	assert_int_equal(w.stat_rto, 1);
	assert_int_equal(mr_txwin_pkt(&w, 0)->lost_cause, MR_LOSS_RTO);
}

static void test_spurious_retransmission_counted(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	mr_txwin_retransmit(&w, 50, 0, 1);	/* a probe, say */
	/* the original arrives: echo without RETX */
	ack_list(1, NULL, 0, &a);
	a.echo_psn = 0;
	assert_int_equal(mr_txwin_ack(&w, 60, &a, NULL, NULL, &r), 0);
	assert_int_equal(w.stat_spurious, 1);
	/* ambiguous: no RTT sample from a retransmitted packet's echo without RETX */
	assert_false(r.echo_rtt_valid);

	/* an echo with RETX for a retransmitted packet is a valid sample */
	mr_txwin_retransmit(&w, 70, 1, 1);
	ack_list(2, NULL, 0, &a);
	a.echo_psn = 1;
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, 80, &a, NULL, NULL, &r), 0);
	assert_true(r.echo_rtt_valid);
	assert_int_equal(r.echo_rtt_ns, 10);
	assert_int_equal(w.stat_spurious, 1);

	/*
	 * Retransmitted twice: both copies carry RETX, so the echo cannot say which arrived.
	 * Taking the last send time would make a 1 ns "RTT" here (and a path minimum that
	 * passes any later RTT for queueing).
	 */
	mr_txwin_send(&w, 100, 0, 0, 0, 100);		/* PSN 2 */
	mr_txwin_retransmit(&w, 200, 2, 1);
	mr_txwin_retransmit(&w, 300, 2, 2);
	ack_list(3, NULL, 0, &a);
	a.echo_psn = 2;
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, 301, &a, NULL, NULL, &r), 0);
	assert_true(r.echo_acked);
	assert_false(r.echo_rtt_valid);
}

static void test_reordering_tolerance_adapts(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u32 psns[4] = { 1, 2, 3, 4 };
	u32 i;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	assert_int_equal(w.reo_dup, MR_REO_PATH_DUP);
	for (i = 0; i < 6; i++)
		mr_txwin_send(&w, i, 0, 0, 0, 100);
	ack_list(0, psns, 3, &a);
	mr_txwin_ack(&w, 10, &a, NULL, NULL, &r);
	assert_int_equal(mr_txwin_detect(&w, 10, 1000 * US, false, log_lost, &lost), 1);
	mr_txwin_retransmit(&w, 11, 0, 1);
	/* the original of 0 arrives after all (echo without RETX): it was reordering */
	ack_list(1, psns, 4, &a);
	a.echo_psn = 0;
	mr_txwin_ack(&w, 12, &a, NULL, NULL, &r);
	assert_int_equal(w.stat_spurious, 1);
	assert_int_equal(w.reo_dup, 2 * MR_REO_PATH_DUP);
	assert_int_equal(w.reo_mult, 2);

	/* now three later packets on the path no longer make a loss; six do */
	for (i = 0; i < 8; i++)
		mr_txwin_send(&w, 20 + i, 2, 0, 0, 100);	/* psn 6..13, path 2 */
	{
		u32 sk[] = { 7, 8, 9 };

		ack_list(5, sk, 3, &a);
		mr_txwin_ack(&w, 30, &a, NULL, NULL, &r);
		assert_int_equal(mr_txwin_detect(&w, 30, 1000 * US, false, log_lost, &lost), 0);
	}
	{
		u32 sk[] = { 7, 8, 9, 10, 11, 12 };

		ack_list(5, sk, 6, &a);
		mr_txwin_ack(&w, 31, &a, NULL, NULL, &r);
		assert_int_equal(mr_txwin_detect(&w, 31, 1000 * US, false, log_lost, &lost), 1);
	}

	/* a long calm relaxes the tolerance back towards the defaults */
	w.reo_calm = MR_REO_CALM_PKTS - 1;
	mr_txwin_retransmit(&w, 40, 5, 3);
	mr_txwin_retransmit(&w, 40, 6, 3);
	ack_list(14, NULL, 0, &a);
	a.echo_psn = 13;
	mr_txwin_ack(&w, 50, &a, NULL, NULL, &r);
	assert_int_equal(w.reo_dup, MR_REO_PATH_DUP);
	assert_int_equal(w.reo_mult, 1);
}

static void test_tail_loss_probe_then_rto(void **state)
{
	struct mr_txwin w;
	struct lost_log lost = { 0 };
	u64 pto = mr_txwin_pto(20 * US, 5 * US), rto;
	u32 probe = 0;

	(void)state;
	assert_int_equal(pto, 40 * US + MR_ACK_DELAY_NS);
	/* a varying RTT holds the probe back to srtt + 4 x rttvar */
	assert_int_equal(mr_txwin_pto(20 * US, 10 * US), 60 * US + MR_ACK_DELAY_NS);
	assert_int_equal(mr_txwin_pto(0, 0), MR_TLP_MIN_NS);
	mr_txwin_init(&w, 10, 7);
	assert_int_equal(mr_txwin_deadline(&w, pto, 1), U64_MAX);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	rto = mr_txwin_rto(&w, 20 * US, 5 * US);
	assert_int_equal(rto, MR_RTO_MIN_NS);	/* the PTO, 48 us, < 100 us */

	assert_int_equal(mr_txwin_deadline(&w, pto, rto), pto);
	assert_int_equal(mr_txwin_timeout(&w, pto, rto), pto);
	assert_int_equal(mr_txwin_reo_deadline(&w), U64_MAX);
	assert_int_equal(fire(&w, pto - 1, pto, rto, &lost, &probe), MR_TMR_NONE);
	assert_int_equal(fire(&w, pto, pto, rto, &lost, &probe), MR_TMR_TLP);
	assert_int_equal(probe, 12);	/* the tail */
	mr_txwin_retransmit(&w, pto, probe, 1);
	/* the probe restarted the timeout, which would otherwise come before its answer */
	assert_int_equal(w.rto_base_ns, pto);
	assert_int_equal(mr_txwin_timeout(&w, pto, rto), 2 * pto);	/* the second probe */
	assert_int_equal(fire(&w, rto, pto, rto, &lost, &probe), MR_TMR_TLP);
	mr_txwin_retransmit(&w, rto, probe, 2);
	/* two probes, then only the RTO is left, from the second */
	assert_int_equal(mr_txwin_deadline(&w, pto, rto), 2 * rto);
	assert_int_equal(fire(&w, 2 * rto - 1, pto, rto, &lost, &probe), MR_TMR_NONE);
	assert_int_equal(fire(&w, 2 * rto, pto, rto, &lost, &probe), MR_TMR_RTO);
	assert_int_equal(lost.n, 3);
	assert_int_equal(w.nlost, 3);
	assert_int_equal(w.stat_tlp, 2);
	assert_int_equal(w.backoff, 1);
	assert_int_equal(mr_txwin_rto(&w, 20 * US, 5 * US), 2 * MR_RTO_MIN_NS);
}

/*
 * The timeout never comes before the probe would (its floor is the PTO, ACK delay
 * included), but it runs from progress and the probe from the last send: a timeout that
 * comes first is a probe first (RFC 8985).
 */
static void test_probe_before_first_rto(void **state)
{
	struct mr_txwin w;
	struct lost_log lost = { 0 };
	u64 pto = mr_txwin_pto(1000 * US, 100 * US), rto;
	u32 probe = 0;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	/* the test VM's two modes: srtt 80 us, rttvar settled at 2 us on the faster */
	assert_int_equal(mr_txwin_rto(&w, 80 * US, 2 * US), mr_txwin_pto(80 * US, 2 * US));
	assert_true(mr_txwin_rto(&w, 80 * US, 2 * US) > 80 * US + 4 * 2 * US + MR_ACK_DELAY_NS);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	mr_txwin_send(&w, 500 * US, 0, 0, 0, 100);
	rto = mr_txwin_rto(&w, 1000 * US, 100 * US);
	assert_int_equal(rto, pto);			/* 2 x srtt + max_ack_delay */
	assert_int_equal(mr_txwin_deadline(&w, pto, rto), rto);	/* not 500 us + pto */
	assert_int_equal(fire(&w, rto, pto, rto, &lost, &probe), MR_TMR_TLP);
	assert_int_equal(probe, 1);
	assert_int_equal(lost.n, 0);
	assert_int_equal(w.stat_rto, 0);
	mr_txwin_retransmit(&w, rto, probe, 1);
	/* the timeout restarts from the probe; a second expiry is the timeout */
	assert_int_equal(mr_txwin_deadline(&w, pto, rto), 2 * rto);
	assert_int_equal(fire(&w, 2 * rto - 1, pto, rto, &lost, &probe), MR_TMR_NONE);
	assert_int_equal(fire(&w, 2 * rto, pto, rto, &lost, &probe), MR_TMR_RTO);
	assert_int_equal(lost.n, 2);
	assert_int_equal(w.stat_tlp, 1);

	/* without an RTT sample there is no probe: the first expiry is the timeout */
	mr_txwin_init(&w, 0, 7);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	assert_int_equal(fire(&w, MR_RTO_INIT_NS, MR_PTO_NONE, MR_RTO_INIT_NS, &lost, &probe),
			 MR_TMR_RTO);
	assert_int_equal(w.stat_tlp, 0);
}

/*
 * The first ACK of a probed packet echoes the probe's copy: the original, sent on its
 * first path, was lost (or its ACK was). Not when the original is echoed, nor for a copy
 * of a packet the loss rules had declared lost (counted then), nor once two copies went.
 */
static void test_probe_copy_answered_first(void **state)
{
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct mr_txwin w;
	u32 psn;

	(void)state;
	mr_txwin_init(&w, 0, 7);
	mr_txwin_send(&w, 0, 1, 0, 0, 100);		/* PSN 0 on path 1 */
	mr_txwin_retransmit(&w, 100 * US, 0, 2);	/* its probe, on path 2 */
	ack_list(1, NULL, 0, &a);
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, 150 * US, &a, NULL, NULL, &r), 0);
	assert_true(r.probe_found_loss);
	assert_int_equal(r.probe_lost_path, 1);
	assert_int_equal(r.probe_lost_psn, 0);

	/* the original echoed: the probe was early, nothing was lost */
	mr_txwin_send(&w, 200 * US, 1, 0, 0, 100);	/* PSN 1 */
	mr_txwin_retransmit(&w, 300 * US, 1, 2);
	ack_list(2, NULL, 0, &a);
	assert_int_equal(mr_txwin_ack(&w, 350 * US, &a, NULL, NULL, &r), 0);
	assert_false(r.probe_found_loss);

	/* declared lost by a NAK or the loss rules, then resent: already counted */
	mr_txwin_send(&w, 400 * US, 1, 0, 0, 100);	/* PSN 2 */
	assert_true(mr_txwin_mark_lost(&w, 2));
	assert_true(mr_txwin_next_lost(&w, &psn));
	mr_txwin_retransmit(&w, 500 * US, psn, 2);
	ack_list(3, NULL, 0, &a);
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, 550 * US, &a, NULL, NULL, &r), 0);
	assert_false(r.probe_found_loss);

	/* two probes: which copy arrived says nothing about the original */
	mr_txwin_send(&w, 600 * US, 1, 0, 0, 100);	/* PSN 3 */
	mr_txwin_retransmit(&w, 700 * US, 3, 2);
	mr_txwin_retransmit(&w, 800 * US, 3, 0);
	ack_list(4, NULL, 0, &a);
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, 850 * US, &a, NULL, NULL, &r), 0);
	assert_false(r.probe_found_loss);

	/* acknowledged without its echo: no evidence either way */
	mr_txwin_send(&w, 900 * US, 1, 0, 0, 100);	/* PSN 4 */
	mr_txwin_send(&w, 900 * US, 3, 0, 0, 100);	/* PSN 5 */
	mr_txwin_retransmit(&w, 1000 * US, 4, 2);
	psn = 5;
	ack_list(6, &psn, 0, &a);
	a.echo_psn = 5;
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, 1050 * US, &a, NULL, NULL, &r), 0);
	assert_false(r.probe_found_loss);
	assert_int_equal(w.una, 6);
}

/*
 * A stalled host: every packet arrived, the ACKs came after the RTO. The echo of an
 * original that the RTO declared lost proves the timeout spurious, once per episode;
 * each raises the RTO floor, which calm lowers again.
 */
static void test_spurious_rto(void **state)
{
	struct lost_log lost = { 0 };
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct mr_txwin w;
	u64 rto, now = 0;
	u32 psn, i;

	(void)state;
	rto = send_until_rto(&w, 4, &lost);
	while (mr_txwin_next_lost(&w, &psn))
		mr_txwin_retransmit(&w, rto, psn, 1);
	/* a SACK of the original of PSN 1, echoed without RETX */
	psn = 1;
	ack_list(0, &psn, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, rto + 10, &a, NULL, NULL, &r), 0);
	assert_true(r.spurious_rto);
	assert_int_equal(w.stat_spurious_rto, 1);
	assert_int_equal(w.rto_shift, 1);
	/* the same episode is undone once */
	psn = 2;
	ack_list(0, &psn, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, rto + 20, &a, NULL, NULL, &r), 0);
	assert_false(r.spurious_rto);
	assert_int_equal(w.stat_spurious_rto, 1);
	/* the floor doubles the next RTO on top of the backoff */
	assert_int_equal(mr_txwin_rto(&w, 200 * US, 0), RTO_200US << 2);
	ack_list(4, NULL, 0, &a);
	assert_int_equal(mr_txwin_ack(&w, rto + 30, &a, NULL, NULL, &r), 0);
	assert_int_equal(mr_txwin_rto(&w, 200 * US, 0), RTO_200US << 1);

	/* an episode whose first echo names a retransmission repaired a real loss */
	now = 10 * MR_NSEC_PER_MSEC;
	for (i = 0; i < 2; i++)
		mr_txwin_send(&w, now, 0, 0, 0, 100);		/* PSN 4, 5 */
	rto = mr_txwin_rto(&w, 200 * US, 0);
	assert_int_equal(fire(&w, now + rto, MR_PTO_NONE, rto, &lost, &psn), MR_TMR_RTO);
	while (mr_txwin_next_lost(&w, &psn))
		mr_txwin_retransmit(&w, now + rto, psn, 1);
	psn = 5;
	ack_list(4, &psn, 1, &a);
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, now + rto + 10, &a, NULL, NULL, &r), 0);
	assert_false(r.spurious_rto);
	/* ... and a later echo of an original proves nothing about it */
	ack_list(6, NULL, 0, &a);
	a.echo_psn = 4;
	assert_int_equal(mr_txwin_ack(&w, now + rto + 20, &a, NULL, NULL, &r), 0);
	assert_false(r.spurious_rto);
	assert_int_equal(w.stat_spurious_rto, 1);

	/* MR_RTO_CALM_PKTS packets acknowledged without one lower the floor */
	for (i = 0; i < MR_RTO_CALM_PKTS; i++) {
		mr_txwin_send(&w, now, 0, 0, 0, 100);
		ack_list(w.nxt, NULL, 0, &a);
		assert_int_equal(mr_txwin_ack(&w, now, &a, NULL, NULL, &r), 0);
	}
	assert_int_equal(w.rto_shift, 0);
}

/*
 * The ACK clock was late, not lost: after an RTO that declared 8 packets lost and resent
 * only the oldest (lost for real: its retransmission is echoed first), an ACK for one
 * that was never resent proves the timeout spurious all the same; the packets it
 * declared lost and that were not resent go back in flight, once per timeout.
 */
static void test_late_ack_after_rto(void **state)
{
	struct lost_log lost = { 0 };
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct mr_txwin w;
	u64 rto;
	u32 psn;

	(void)state;
	rto = send_until_rto(&w, 8, &lost);
	assert_int_equal(w.nlost, 8);
	assert_true(mr_txwin_next_lost(&w, &psn));
	assert_int_equal(psn, 0);
	mr_txwin_retransmit(&w, rto, 0, 1);

	/* the retransmission of PSN 0 is echoed first: a real loss, snd_una moves */
	ack_list(1, NULL, 0, &a);
	a.echo_psn = 0;
	a.echo_flags = MR_ECHO_RETX;
	assert_int_equal(mr_txwin_ack(&w, rto + 100 * US, &a, NULL, NULL, &r), 0);
	assert_false(r.spurious_rto);
	assert_true(r.una_advanced);
	assert_int_equal(w.nlost, 7);

	/* PSN 3 was never resent: its only copy left before the timeout, and arrived */
	psn = 3;
	ack_list(1, &psn, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, rto + 200 * US, &a, NULL, NULL, &r), 0);
	assert_true(r.spurious_rto);
	assert_int_equal(w.stat_spurious_rto, 1);
	assert_int_equal(w.rto_shift, 1);
	/* 1, 2 and 4-7 are in flight again, with nothing to resend */
	assert_int_equal(w.nlost, 0);
	assert_int_equal(w.in_flight, 6);
	assert_false(mr_txwin_next_lost(&w, &psn));

	/* once per timeout */
	psn = 4;
	ack_list(1, &psn, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, rto + 300 * US, &a, NULL, NULL, &r), 0);
	assert_false(r.spurious_rto);
	assert_int_equal(w.stat_spurious_rto, 1);

	/* the loss rules judge them again: 5-7 acknowledged on their path, 1 and 2 lost */
	{
		const u32 late[] = { 5, 6, 7 };

		ack_list(1, late, 3, &a);
		assert_int_equal(mr_txwin_ack(&w, rto + 400 * US, &a, NULL, NULL, &r), 0);
	}
	lost.n = 0;
	assert_int_equal(mr_txwin_detect(&w, rto + 400 * US, 0, false, log_lost, &lost), 2);
	assert_int_equal(lost.psn[0], 1);
	assert_int_equal(lost.psn[1], 2);

	/* a packet those rules declared lost, acknowledged unsent, says nothing of a timeout */
	psn = 1;
	ack_list(1, &psn, 1, &a);
	assert_int_equal(mr_txwin_ack(&w, rto + 500 * US, &a, NULL, NULL, &r), 0);
	assert_false(r.spurious_rto);
	assert_int_equal(w.stat_spurious_rto, 1);
}

static void test_rto_backoff_and_retry_limit(void **state)
{
	struct mr_txwin w;
	struct mr_txack_res r;
	struct mr_pkt_ack a;
	struct lost_log lost = { 0 };
	u64 now = 0, rto;
	u32 probe, i;

	(void)state;
	mr_txwin_init(&w, 0, 3);	/* retry_cnt 3 */
	/* no RTT sample yet: initial RTO */
	assert_int_equal(mr_txwin_rto(&w, 0, 0), MR_RTO_INIT_NS);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	mr_txwin_send(&w, 0, 0, 0, 0, 100);
	for (i = 0; i < 3; i++) {
		rto = mr_txwin_rto(&w, 200 * US, 0);
		assert_int_equal(rto, RTO_200US << i);
		now += rto;
		assert_int_equal(fire(&w, now, MR_PTO_NONE, rto, &lost, &probe), MR_TMR_RTO);
		assert_int_equal(w.retries, i + 1);
		/* retransmit everything, as the connection would */
		while (mr_txwin_next_lost(&w, &probe))
			mr_txwin_retransmit(&w, now, probe, 0);
	}
	/* progress resets the backoff and the retry count */
	ack_list(1, NULL, 0, &a);
	assert_int_equal(mr_txwin_ack(&w, now, &a, NULL, NULL, &r), 0);
	assert_int_equal(w.backoff, 0);
	assert_int_equal(w.retries, 0);
	/* four RTOs without progress exceed retry_cnt 3 */
	for (i = 0; i < 3; i++) {
		rto = mr_txwin_rto(&w, 200 * US, 0);
		now += rto;
		assert_int_equal(fire(&w, now - 1, MR_PTO_NONE, rto, &lost, &probe), MR_TMR_NONE);
		assert_int_equal(fire(&w, now, MR_PTO_NONE, rto, &lost, &probe), MR_TMR_RTO);
	}
	rto = mr_txwin_rto(&w, 200 * US, 0);
	now += rto;
	assert_int_equal(fire(&w, now, MR_PTO_NONE, rto, &lost, &probe), MR_TMR_FAILED);

	/* the RTO never exceeds its maximum */
	w.backoff = 16;
	assert_int_equal(mr_txwin_rto(&w, 10 * MR_NSEC_PER_MSEC, 0), MR_RTO_MAX_NS);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_window_cap),
	cmocka_unit_test(test_ack_validation),
	cmocka_unit_test(test_ack_sack_words),
	cmocka_unit_test(test_dup_and_old_acks),
	cmocka_unit_test(test_spraying_without_loss_is_not_loss),
	cmocka_unit_test(test_spraying_with_loss_finds_exactly_the_losses),
	cmocka_unit_test(test_spraying_stalled_sender),
	cmocka_unit_test(test_same_path_distance),
	cmocka_unit_test(test_stalled_sender_distance),
	cmocka_unit_test(test_time_rule_and_reorder_deadline),
	cmocka_unit_test(test_retransmit_selection),
	cmocka_unit_test(test_lost_retransmission_detected_again),
	cmocka_unit_test(test_verdict_on_una_restarts_rto),
	cmocka_unit_test(test_spurious_retransmission_counted),
	cmocka_unit_test(test_reordering_tolerance_adapts),
	cmocka_unit_test(test_tail_loss_probe_then_rto),
	cmocka_unit_test(test_probe_before_first_rto),
	cmocka_unit_test(test_probe_copy_answered_first),
	cmocka_unit_test(test_spurious_rto),
	cmocka_unit_test(test_late_ack_after_rto),
	cmocka_unit_test(test_rto_backoff_and_retry_limit),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
