// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE send window: ACK/SACK processing, loss detection, retransmission timers.
 *
 * Under per-packet spraying a SACK hole is usually reordering, not loss. A packet is
 * declared lost only when packets sent after it *on the same path* were acknowledged
 * (one path is nearly FIFO), or when a packet sent after it on any path was acknowledged
 * and it has been outstanding for an RTT plus a reorder window sized to the measured RTT
 * spread between paths (RACK).
 */
#include "txwin.h"
#include "params.h"
#include "seq.h"

void mr_txwin_init(struct mr_txwin *w, u32 isn, u8 retry_limit)
{
	memset(w, 0, sizeof(*w));
	w->una = isn;
	w->nxt = isn;
	w->retry_limit = retry_limit;
	w->reo_dup = MR_REO_PATH_DUP;
	w->reo_mult = 1;
}

static struct mr_txpkt *mr_slot(struct mr_txwin *w, u32 psn)
{
	return &w->pkt[psn % MR_SACK_BITS];
}

static void mr_txwin_arm_idle(struct mr_txwin *w, u64 now)
{
	/* First packet into an empty window starts the RTO and TLP clocks. */
	if (!w->in_flight && !w->nlost) {
		w->rto_base_ns = now;
		w->tlp_base_ns = now;
		w->progress_ns = now;
	}
}

u32 mr_txwin_send(struct mr_txwin *w, u64 now, u8 path, u8 stream, u32 msn, u16 len)
{
	u32 psn = w->nxt++;
	struct mr_txpkt *p = mr_slot(w, psn);

	mr_txwin_arm_idle(w, now);
	p->sent_ns = now;
	p->path = path;
	p->first_path = path;
	p->path_seq = w->path_seq[path]++;
	p->stream = stream;
	p->msn = msn;
	p->len = len;
	p->state = MR_TXP_INFLIGHT;
	p->nretx = 0;
	p->probed = false;
	p->moff = 0;
	p->msg = 0;
	w->in_flight++;
	w->tlp_base_ns = now;
	return psn;
}

void mr_txwin_retransmit(struct mr_txwin *w, u64 now, u32 psn, u8 path)
{
	struct mr_txpkt *p = mr_slot(w, psn);

	if (!mr_txwin_holds(w, psn))
		return;
	if (p->state == MR_TXP_LOST) {
		w->nlost--;
		w->in_flight++;
	} else if (p->state != MR_TXP_INFLIGHT) {
		return;
	}
	/* Sent again while in flight, not declared lost: a tail-loss probe. */
	if (!p->nretx)
		p->probed = p->state == MR_TXP_INFLIGHT;
	p->state = MR_TXP_INFLIGHT;
	p->sent_ns = now;
	p->path = path;
	p->path_seq = w->path_seq[path]++;
	if (p->nretx < 0xff)
		p->nretx++;
	w->stat_retx++;
	w->tlp_base_ns = now;
}

u32 mr_txwin_forget_lost(struct mr_txwin *w)
{
	u32 i, n = w->nxt - w->una, cnt = 0;

	if (!w->nlost)
		return 0;
	for (i = 0; i < n; i++) {
		struct mr_txpkt *p = mr_slot(w, w->una + i);

		if (p->state == MR_TXP_LOST) {
			p->state = MR_TXP_ACKED;
			w->nlost--;
			cnt++;
		}
	}
	while (w->una != w->nxt && mr_slot(w, w->una)->state == MR_TXP_ACKED) {
		mr_slot(w, w->una)->state = MR_TXP_FREE;
		w->una++;
	}
	return cnt;
}

bool mr_txwin_next_lost(const struct mr_txwin *w, u32 *psn)
{
	u32 i, n = w->nxt - w->una;

	if (!w->nlost)
		return false;
	for (i = 0; i < n; i++) {
		if (w->pkt[(w->una + i) % MR_SACK_BITS].state == MR_TXP_LOST) {
			*psn = w->una + i;
			return true;
		}
	}
	return false;
}

/*
 * Every PSN the ACK acknowledges must have been sent: no bit from nxt - cack
 * on. Word by word, as the selective part below: an ACK comes per message.
 */
static bool mr_txwin_ack_valid(const struct mr_txwin *w, const struct mr_pkt_ack *ack)
{
	u32 i, base, limit;
	u64 unsent;

	if (mr_seq_after(ack->cack, w->nxt))
		return false;
	limit = w->nxt - ack->cack;
	for (i = 0; i < MR_SACK_WORDS; i++) {
		base = i * 64;
		if (limit >= base + 64)
			continue;
		unsent = limit > base ? ~0ULL << (limit - base) : ~0ULL;
		if (ack->sack[i] & unsent)
			return false;
	}
	return true;
}

/* Packets sent before the last RTO were delivered after it (spec, "Spurious timeouts"). */
static void mr_txwin_rto_spurious(struct mr_txwin *w, struct mr_txack_res *res)
{
	w->rto_undo = false;
	w->rto_late = false;
	res->spurious_rto = true;
	w->stat_spurious_rto++;
	w->rto_shift = min_t(u32, w->rto_shift + 1, MR_RTO_SPURIOUS_MAX);
	w->rto_calm = 0;
}

/* After a spurious RTO: what it declared lost and nothing resent is in flight again. */
static void mr_txwin_rto_unmark(struct mr_txwin *w)
{
	u32 i, n = w->nxt - w->una;

	for (i = 0; i < n && w->nlost; i++) {
		struct mr_txpkt *p = mr_slot(w, w->una + i);

		if (p->state == MR_TXP_LOST && p->lost_cause == MR_LOSS_RTO) {
			p->state = MR_TXP_INFLIGHT;
			w->nlost--;
			w->in_flight++;
		}
	}
}

static void mr_txwin_mark_acked(struct mr_txwin *w, u64 now, u32 psn,
				const struct mr_pkt_ack *ack, struct mr_txack_res *res,
				mr_txpkt_fn acked, void *arg)
{
	struct mr_txpkt *p = mr_slot(w, psn);
	bool echoed = psn == ack->echo_psn;
	bool unambiguous;

	if (p->state == MR_TXP_ACKED || p->state == MR_TXP_FREE)
		return;
	if (p->state == MR_TXP_INFLIGHT) {
		w->in_flight--;
	} else {
		w->nlost--;
		/* Declared lost by the RTO, not resent since: a copy from before it arrived. */
		if (p->lost_cause == MR_LOSS_RTO && w->rto_late)
			mr_txwin_rto_spurious(w, res);
	}
	p->state = MR_TXP_ACKED;
	res->newly_acked++;
	res->newly_bytes += p->len;

	/*
	 * An ACK for a retransmitted packet may be for any of its copies; only the echo says
	 * which, and only between the original and a single retransmission: two copies both
	 * carry RETX. The original arriving after all means the retransmission was spurious.
	 */
	unambiguous = !p->nretx ||
		      (p->nretx == 1 && echoed && (ack->echo_flags & MR_ECHO_RETX));
	if (echoed && p->nretx && p->lost_cause == MR_LOSS_RTO && w->rto_undo) {
		/* The first echo of the episode decides: the original, or a copy. */
		w->rto_undo = false;
		if (!(ack->echo_flags & MR_ECHO_RETX))
			mr_txwin_rto_spurious(w, res);
	}
	if (w->rto_shift && ++w->rto_calm >= MR_RTO_CALM_PKTS) {
		w->rto_calm = 0;
		w->rto_shift--;
	}
	if (echoed && p->nretx && !(ack->echo_flags & MR_ECHO_RETX)) {
		w->stat_spurious++;
		/*
		 * This fabric reorders more than we allowed for: allow more. Not for a
		 * stalled sender's early verdict: that is its price, not a reason to wait.
		 */
		if (!p->lost_stalled) {
			w->reo_dup = min_t(u32, w->reo_dup * 2, MR_REO_PATH_DUP_MAX);
			w->reo_mult = min_t(u32, w->reo_mult + 1, MR_REO_MULT_MAX);
			w->reo_calm = 0;
		}
	} else if (++w->reo_calm >= MR_REO_CALM_PKTS) {
		w->reo_calm = 0;
		w->reo_dup = max_t(u32, w->reo_dup / 2, MR_REO_PATH_DUP);
		w->reo_mult = max_t(u32, w->reo_mult - 1, 1);
	}
	if (echoed) {
		res->echo_acked = true;
		res->echo_len = p->len;
	}
	/*
	 * The first ACK of a probed packet echoes the probe's copy: the original had not
	 * arrived, though it had the whole probe timeout and the copy's trip to do so. It
	 * was lost, or its path is that slow: the only sign of either a sparse sender gets.
	 */
	if (echoed && p->probed && p->nretx == 1 && (ack->echo_flags & MR_ECHO_RETX)) {
		res->probe_found_loss = true;
		res->probe_lost_path = p->first_path;
		res->probe_lost_psn = psn;
	}

	if (unambiguous) {
		u64 rtt = now > p->sent_ns ? now - p->sent_ns : 0;

		if (!w->rack_valid || p->sent_ns > w->rack_xmit_ns ||
		    (p->sent_ns == w->rack_xmit_ns && mr_seq_after(psn, w->rack_psn))) {
			w->rack_xmit_ns = p->sent_ns;
			w->rack_rtt_ns = rtt;
			w->rack_psn = psn;
			w->rack_valid = true;
		}
		if (mr_seq_after(p->path_seq + 1, w->path_hi[p->path]) || !w->path_hi[p->path])
			w->path_hi[p->path] = p->path_seq + 1;
		if (echoed) {
			u64 delay = (u64)ack->ack_delay * MR_NSEC_PER_USEC;

			res->echo_rtt_valid = true;
			res->echo_rtt_ns = rtt > delay ? rtt - delay : rtt;
		}
	}
	if (acked)
		acked(arg, psn, p);
}

int mr_txwin_ack(struct mr_txwin *w, u64 now, const struct mr_pkt_ack *ack,
		 mr_txpkt_fn acked, void *arg, struct mr_txack_res *res)
{
	u32 psn, i;

	memset(res, 0, sizeof(*res));
	if (!mr_txwin_ack_valid(w, ack))
		return -EINVAL;

	/* Cumulative part: everything in [una, cack). */
	for (psn = w->una; mr_seq_before(psn, ack->cack); psn++)
		mr_txwin_mark_acked(w, now, psn, ack, res, acked, arg);

	/*
	 * Selective part, set bits only, in PSN order. Bit 0 would be cack
	 * itself, which the receiver lacks by definition: mr_pkt_decode()
	 * refuses such an ACK, and a caller that skips it gets the bit
	 * ignored. An old ACK (cack before una) still contributes its bits.
	 */
	for (i = 0; i < MR_SACK_WORDS; i++) {
		u64 bits = ack->sack[i] & (i ? ~0ULL : ~1ULL);

		while (bits) {
			psn = ack->cack + i * 64 + __ffs64(bits);
			bits &= bits - 1;
			if (mr_txwin_holds(w, psn))
				mr_txwin_mark_acked(w, now, psn, ack, res, acked, arg);
		}
	}

	if (res->spurious_rto)
		mr_txwin_rto_unmark(w);

	while (w->una != w->nxt && mr_slot(w, w->una)->state == MR_TXP_ACKED) {
		mr_slot(w, w->una)->state = MR_TXP_FREE;
		w->una++;
		res->una_advanced = true;
	}

	if (res->una_advanced) {
		/* The episode ends with progress: a later echo proves nothing about it. */
		w->rto_undo = false;
		w->rto_base_ns = now;
		w->progress_ns = now;
		w->backoff = 0;
		w->retries = 0;
		w->tlp_cnt = 0;
	}
	if (res->newly_acked)
		w->tlp_base_ns = now;
	return 0;
}

static void mr_txwin_declare_lost(struct mr_txwin *w, u32 psn, struct mr_txpkt *p,
				  u8 cause, bool stalled, mr_txpkt_fn lost, void *arg)
{
	p->state = MR_TXP_LOST;
	p->lost_cause = cause;
	p->lost_stalled = stalled;
	w->in_flight--;
	w->nlost++;
	if (lost)
		lost(arg, psn, p);
}

bool mr_txwin_mark_lost(struct mr_txwin *w, u32 psn)
{
	struct mr_txpkt *p = mr_slot(w, psn);

	if (!mr_txwin_holds(w, psn) || p->state != MR_TXP_INFLIGHT)
		return false;
	mr_txwin_declare_lost(w, psn, p, MR_LOSS_NAK, false, NULL, NULL);
	return true;
}

/*
 * A stalled sender (nothing new goes out until holes are repaired) sends no more packets
 * on a path to reach the adapted distance, and waiting for the reorder window holds up
 * everything behind the hole, while a wrong verdict costs one packet. So a packet is lost
 * once the packet min(n, MR_REO_PATH_DUP) places after it on its path is acknowledged, n
 * being how many went there after it (spec, "A stalled sender").
 */
static bool mr_txwin_lost_stalled(const struct mr_txwin *w, const struct mr_txpkt *p, u32 hi)
{
	u32 dist = min_t(u32, w->path_seq[p->path] - p->path_seq - 1, MR_REO_PATH_DUP);

	return dist && !mr_seq_before(hi, p->path_seq + dist + 1);
}

u32 mr_txwin_detect(struct mr_txwin *w, u64 now, u64 reo_wnd_ns, bool stalled,
		    mr_txpkt_fn lost, void *arg)
{
	u32 i, n = w->nxt - w->una, nlost = 0;
	const struct mr_txpkt *head = mr_slot(w, w->una);
	bool head_fresh = n && head->state == MR_TXP_INFLIGHT && !head->nretx;

	w->reo_deadline_ns = 0;
	for (i = 0; i < n; i++) {
		u32 psn = w->una + i;
		struct mr_txpkt *p = mr_slot(w, psn);
		u32 hi = w->path_hi[p->path];
		u64 deadline;

		if (p->state != MR_TXP_INFLIGHT)
			continue;

		/* Distance on the same path: packet path_seq + reo_dup acknowledged. */
		if (hi && !mr_seq_before(hi, p->path_seq + w->reo_dup + 1)) {
			mr_txwin_declare_lost(w, psn, p, MR_LOSS_ACK, false, lost, arg);
			nlost++;
			continue;
		}
		if (stalled && hi && mr_txwin_lost_stalled(w, p, hi)) {
			mr_txwin_declare_lost(w, psn, p, MR_LOSS_ACK, true, lost, arg);
			nlost++;
			continue;
		}

		/* Time: only packets sent before the most recent delivered one are suspects. */
		if (!w->rack_valid)
			continue;
		if (p->sent_ns > w->rack_xmit_ns ||
		    (p->sent_ns == w->rack_xmit_ns && !mr_seq_before(psn, w->rack_psn)))
			continue;
		deadline = p->sent_ns + w->rack_rtt_ns + reo_wnd_ns * w->reo_mult;
		if (now >= deadline) {
			mr_txwin_declare_lost(w, psn, p, MR_LOSS_ACK, false, lost, arg);
			nlost++;
		} else if (!w->reo_deadline_ns || deadline < w->reo_deadline_ns) {
			w->reo_deadline_ns = deadline;
		}
	}
	/*
	 * A verdict on the oldest packet's first transmission restarts the timeout, as
	 * Linux TCP re-arms its RTO when it retransmits the head of its queue: the ACK
	 * clock that gave it is running and the repair needs a round trip. A host that held
	 * the ACKs back (an emulated one) otherwise had them find the loss in the same run
	 * that the timeout expired in, which then cut the window to one packet and retired
	 * paths for a loss already being repaired. A verdict on a repair restarts nothing:
	 * behind a link that drops every large packet the repairs are lost in turn, and
	 * timeouts in a row are what tell such a black hole apart (spec, "Retransmission
	 * timeout" and "Segments").
	 */
	if (head_fresh && head->state == MR_TXP_LOST)
		w->rto_base_ns = now;
	return nlost;
}

/*
 * srtt excludes the time the receiver held its ACK, so the probe must also wait that long
 * (as RFC 8985 does with max_ack_delay): otherwise a sparse sender probes for packets whose
 * ACK is merely being delayed, and every such probe is spurious. Nor does it come before
 * srtt + 4 x rttvar, RFC 6298's timeout (as QUIC's PTO, RFC 9002): where RTTs vary,
 * 2 x srtt passes while ACKs are still on their way, and each probe then costs a packet and
 * a wakeup for nothing.
 */
u64 mr_txwin_pto(u64 srtt_ns, u64 rttvar_ns)
{
	u64 wait = max_t(u64, 2 * srtt_ns, srtt_ns + 4 * rttvar_ns);

	return max_t(u64, wait + MR_ACK_DELAY_NS, MR_TLP_MIN_NS);
}

/*
 * The timeout is the last resort, so it never comes before the probe would: srtt + 4 x
 * rttvar alone leaves out the receiver's ACK delay, and where round trips vary (the
 * test VM's come in two modes, rttvar settling on the faster) it passed while ACKs were
 * still on their way, so that the first expiry's probe fired early and for nothing.
 */
u64 mr_txwin_rto(const struct mr_txwin *w, u64 srtt_ns, u64 rttvar_ns)
{
	u64 rto = srtt_ns ? max_t(u64, mr_txwin_pto(srtt_ns, rttvar_ns), MR_RTO_MIN_NS) :
			    MR_RTO_INIT_NS;
	unsigned int i;

	for (i = 0; i < w->backoff + w->rto_shift && rto < MR_RTO_MAX_NS; i++)
		rto <<= 1;
	return min_t(u64, rto, MR_RTO_MAX_NS);
}

u64 mr_txwin_timeout(const struct mr_txwin *w, u64 pto_ns, u64 rto_ns)
{
	u64 d;

	if (w->una == w->nxt)
		return U64_MAX;
	d = w->rto_base_ns + rto_ns;
	if (w->in_flight && w->tlp_cnt < MR_TLP_MAX)
		d = min_t(u64, d, w->tlp_base_ns + pto_ns);
	return d;
}

u64 mr_txwin_reo_deadline(const struct mr_txwin *w)
{
	return w->una != w->nxt && w->reo_deadline_ns ? w->reo_deadline_ns : U64_MAX;
}

u64 mr_txwin_deadline(const struct mr_txwin *w, u64 pto_ns, u64 rto_ns)
{
	return min_t(u64, mr_txwin_timeout(w, pto_ns, rto_ns), mr_txwin_reo_deadline(w));
}

/* Highest outstanding PSN not yet acknowledged: the tail a probe repairs. */
static bool mr_txwin_tail(const struct mr_txwin *w, u32 *psn)
{
	u32 i, n = w->nxt - w->una;

	for (i = n; i-- > 0;) {
		u8 st = w->pkt[(w->una + i) % MR_SACK_BITS].state;

		if (st == MR_TXP_INFLIGHT || st == MR_TXP_LOST) {
			*psn = w->una + i;
			return true;
		}
	}
	return false;
}

/*
 * A tail-loss probe goes out now: count it and restart its clock, and the timeout's: the
 * probe's answer needs a round trip, and an RTO due meanwhile would be spurious.
 */
static enum mr_tx_timer mr_txwin_probe(struct mr_txwin *w, u64 now)
{
	w->tlp_cnt++;
	w->tlp_base_ns = now;
	w->rto_base_ns = now;
	w->stat_tlp++;
	return MR_TMR_TLP;
}

enum mr_tx_timer mr_txwin_timer(struct mr_txwin *w, u64 now, u64 pto_ns, u64 rto_ns,
				mr_txpkt_fn lost, void *arg, u32 *probe_psn)
{
	u32 i, n = w->nxt - w->una;

	if (w->una == w->nxt)
		return MR_TMR_NONE;

	if (now >= w->rto_base_ns + rto_ns) {
		/*
		 * The first expiry since progress is a probe if one may go, as in
		 * RFC 8985: a lost tail then costs one packet, not the window and
		 * cwnd. The timeout restarts from the probe.
		 */
		if (!w->tlp_cnt && w->in_flight && pto_ns != MR_PTO_NONE &&
		    mr_txwin_tail(w, probe_psn))
			return mr_txwin_probe(w, now);
		if (w->retries < U8_MAX)
			w->retries++;
		/* As verbs: never before retry_cnt + 1 local ACK timeouts without progress. */
		if (w->retries > w->retry_limit && now - w->progress_ns >= w->fail_min_ns)
			return MR_TMR_FAILED;
		for (i = 0; i < n; i++) {
			u32 psn = w->una + i;
			struct mr_txpkt *p = mr_slot(w, psn);

			if (p->state == MR_TXP_INFLIGHT)
				mr_txwin_declare_lost(w, psn, p, MR_LOSS_RTO, false, lost, arg);
		}
		if (w->backoff < 16)
			w->backoff++;
		w->rto_base_ns = now;
		w->rto_undo = true;
		w->rto_late = true;
		w->reo_deadline_ns = 0;
		w->tlp_cnt = MR_TLP_MAX;	/* no probes until the connection makes progress */
		w->stat_rto++;
		return MR_TMR_RTO;
	}

	if (w->in_flight && w->tlp_cnt < MR_TLP_MAX && now >= w->tlp_base_ns + pto_ns &&
	    mr_txwin_tail(w, probe_psn))
		return mr_txwin_probe(w, now);

	if (w->reo_deadline_ns && now >= w->reo_deadline_ns)
		return MR_TMR_REORDER;
	return MR_TMR_NONE;
}
