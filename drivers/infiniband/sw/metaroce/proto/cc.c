// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE congestion control.
 *
 * ECN is the congestion signal: switches mark before their buffers overflow. On a fabric
 * without PFC a drop is as likely a corrupted frame or a dead link as congestion, so a
 * loss costs 1/8 of the window only when it comes with congestion evidence (CE marks in
 * the same window, or a queue on the lost packet's path that the other paths do not
 * have); other losses cost nothing here (the path module moves load off a lossy path).
 * Only the RTO resets the window.
 */
#include "cc.h"
#include "params.h"
#include "seq.h"

#define MR_CWND_FP_MIN	(MR_CWND_MIN << MR_FP_SHIFT)
#define MR_CWND_FP_MAX	(MR_CWND_MAX << MR_FP_SHIFT)

void mr_cc_init(struct mr_cc *cc, u32 mtu)
{
	memset(cc, 0, sizeof(*cc));
	cc->cwnd = MR_CWND_INIT << MR_FP_SHIFT;
	/* As DCTCP: assume the worst until the first RTT of marks is measured. */
	cc->alpha = MR_FP_ONE;
	cc->mtu = mtu ? mtu : MR_MAX_PAYLOAD;
}

/* At most one reduction per RTT: the marks of one window are one congestion event. */
static bool mr_cc_may_cut(const struct mr_cc *cc, u64 now, u64 srtt_ns)
{
	return !cc->cut_once || now - cc->last_cut_ns >= srtt_ns;
}

static void mr_cc_cut(struct mr_cc *cc, u64 now, u32 new_cwnd)
{
	cc->ssthresh = 0;	/* congestion again: no more slow start */
	cc->cwnd = max_t(u32, new_cwnd, MR_CWND_FP_MIN);
	cc->last_cut_ns = now;
	cc->cut_once = true;
}

/* The window the receiver's rate hint allows: rate x srtt / (8 x MTU), at least 1. */
static u32 mr_cc_hint_wnd(const struct mr_cc *cc, u64 srtt_ns)
{
	u64 bits, pkts;

	if (!cc->rate_hint || !srtt_ns)
		return MR_CWND_MAX;
	/* Mbit/s x ns = 10^-3 bits */
	bits = div_u64((u64)cc->rate_hint * srtt_ns, 1000);
	pkts = div64_u64(bits, (u64)cc->mtu * 8);
	return clamp_t(u64, pkts, MR_CWND_MIN, MR_CWND_MAX);
}

void mr_cc_on_ack(struct mr_cc *cc, u64 now, u64 srtt_ns, u16 ce_cnt, u16 rx_cnt,
		  u32 rate_hint, u32 newly_acked)
{
	u16 d_ce = 0, d_rx = 0;
	u32 i, cap;

	cc->rate_hint = rate_hint;

	/* Running counters: an ACK behind the last accepted one carries no new ECN news. */
	if (!cc->have_cnt) {
		d_ce = ce_cnt;
		d_rx = rx_cnt;
		cc->have_cnt = true;
		cc->ce_cnt = ce_cnt;
		cc->rx_cnt = rx_cnt;
	} else if (mr_seq16_after(rx_cnt, cc->rx_cnt)) {
		d_ce = ce_cnt - cc->ce_cnt;
		d_rx = rx_cnt - cc->rx_cnt;
		cc->ce_cnt = ce_cnt;
		cc->rx_cnt = rx_cnt;
	}
	if (d_ce > d_rx)
		d_ce = d_rx;	/* a broken receiver must not drive alpha above 1 */
	if (d_ce) {
		cc->last_ce_ns = now;
		cc->ce_seen = true;
	}
	cc->acc_ce += d_ce;
	cc->acc_rx += d_rx;

	/* alpha += g (F - alpha), with F the marked fraction of the last RTT's packets */
	if (cc->acc_rx && (!srtt_ns || now - cc->last_alpha_ns >= srtt_ns)) {
		u32 f = (u32)div_u64((u64)cc->acc_ce << MR_FP_SHIFT, cc->acc_rx);
		u32 g = 1U << MR_ALPHA_G_SHIFT;

		/* Round the step away from zero so that alpha reaches F, 0 and 1 included. */
		if (f >= cc->alpha)
			cc->alpha += (f - cc->alpha + g - 1) >> MR_ALPHA_G_SHIFT;
		else
			cc->alpha -= (cc->alpha - f + g - 1) >> MR_ALPHA_G_SHIFT;
		cc->alpha = min_t(u32, cc->alpha, MR_FP_ONE);
		cc->acc_ce = 0;
		cc->acc_rx = 0;
		cc->last_alpha_ns = now;
	}

	if (d_ce) {
		if (mr_cc_may_cut(cc, now, srtt_ns)) {
			u64 cut = ((u64)cc->cwnd * max_t(u32, cc->alpha, 1)) >> (MR_FP_SHIFT + 1);

			mr_cc_cut(cc, now, cc->cwnd - (u32)cut);
		}
	} else {
		/*
		 * Slow start back to half the window an RTO took away: one packet per
		 * acknowledged packet. Then additive increase: one packet per window.
		 */
		for (i = 0; i < newly_acked && cc->cwnd < MR_CWND_FP_MAX; i++) {
			if (cc->cwnd < cc->ssthresh)
				cc->cwnd = min_t(u32, cc->cwnd + MR_FP_ONE, cc->ssthresh);
			else
				cc->cwnd += max_t(u32, (MR_FP_ONE << MR_FP_SHIFT) / cc->cwnd, 1);
		}
	}

	cap = mr_cc_hint_wnd(cc, srtt_ns) << MR_FP_SHIFT;
	cc->cwnd = clamp_t(u32, cc->cwnd, MR_CWND_FP_MIN, min_t(u32, cap, MR_CWND_FP_MAX));
}

/*
 * Congestion evidence for a packet sent at sent_ns on a path: marks reported since it was
 * sent, or the path's smoothed RTT well above its base (a queue on that path, marked or
 * not). The base is its minimum, or the smallest smoothed RTT of all up paths if more:
 * a queue every path has is at an end (a host that processes packets more slowly than
 * its link brings them) and does not make a random loss an overflow. Smoothed, so that
 * jitter and the spread of the reverse paths the ACKs take do not pass for a queue; and
 * by more than twice the RTT's variation, the path's and the connection's: jitter lifts
 * a path's smoothed RTT by about its own variation, and scatters the paths' smoothed
 * RTTs (each rests on its share of the samples) by about the connection's.
 */
static bool mr_cc_congested(const struct mr_cc *cc, u64 sent_ns, const struct mr_rtt *path,
			    u64 shared_ns, u64 shared_var_ns)
{
	u64 q;

	if (cc->ce_seen && cc->last_ce_ns >= sent_ns)
		return true;
	if (!path)
		return false;
	q = max_t(u64, path->min / 2, MR_CC_QDELAY_MIN_NS);
	q = max_t(u64, q, 2 * max_t(u64, path->rttvar, shared_var_ns));
	return path->min && path->srtt > max_t(u64, path->min, shared_ns) + q;
}

bool mr_cc_on_loss(struct mr_cc *cc, u64 now, u64 srtt_ns, u64 sent_ns,
		   const struct mr_rtt *path, u64 shared_ns, u64 shared_var_ns)
{
	if (!mr_cc_congested(cc, sent_ns, path, shared_ns, shared_var_ns)) {
		cc->stat_loss_random++;
		return false;
	}
	cc->stat_loss_cong++;
	if (mr_cc_may_cut(cc, now, srtt_ns))
		mr_cc_cut(cc, now, cc->cwnd - (cc->cwnd >> MR_LOSS_BETA_SHIFT));
	return true;
}

void mr_cc_on_rto(struct mr_cc *cc, bool first)
{
	if (first) {
		cc->cwnd_prior = cc->cwnd;
		cc->ssthresh_prior = cc->ssthresh;
	}
	/* Repeated RTOs keep the first one's target, not half of 1. */
	if (!cc->ssthresh || cc->cwnd > MR_CWND_FP_MIN)
		cc->ssthresh = max_t(u32, cc->cwnd / 2, MR_CWND_FP_MIN);
	cc->cwnd = MR_CWND_FP_MIN;
}

void mr_cc_undo_rto(struct mr_cc *cc)
{
	if (!cc->cwnd_prior)
		return;
	cc->cwnd = max_t(u32, cc->cwnd, cc->cwnd_prior);
	cc->ssthresh = cc->ssthresh_prior;
	cc->cwnd_prior = 0;
}

u32 mr_cc_window(const struct mr_cc *cc, u64 srtt_ns)
{
	u32 w = cc->cwnd >> MR_FP_SHIFT;

	return clamp_t(u32, w, MR_CWND_MIN, mr_cc_hint_wnd(cc, srtt_ns));
}

u64 mr_cc_gap_ns(const struct mr_cc *cc, u64 srtt_ns, u32 bytes)
{
	u64 gap = 0;

	/* Twice the window rate: the window limits, pacing only spreads it. */
	if (srtt_ns)
		gap = div64_u64(srtt_ns << MR_FP_SHIFT, (u64)cc->cwnd * MR_PACE_GAIN);
	/* Hint rate: bytes x 8 bits / (Mbit/s) = bytes x 8000 / hint ns. */
	if (cc->rate_hint)
		gap = max_t(u64, gap, div_u64((u64)bytes * 8000, cc->rate_hint));
	return gap;
}
