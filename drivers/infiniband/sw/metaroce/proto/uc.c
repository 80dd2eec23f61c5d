// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE unreliable connected receiver: which messages are complete, which are
 * lost, and which receive WQE a SEND lands in when earlier messages were lost.
 *
 * Packets are placed on arrival in any order, as for RC, but nothing is ever resent:
 * a PSN the window gave up (a hole older than MR_UC_HOLE_NS, or one a packet beyond the
 * window pushed out) never arrives. A message is lost when one of its PSNs was given up,
 * or a packet of it could not be placed. Lost messages consume no receive WQE (IBTA
 * UC): RMSN r completes WQE r - uc_skip, uc_skip counting the RMSNs of lost messages.
 *
 * A message is placed before anyone knows whether an earlier one will be lost: its
 * first packet binds it to WQE r - uc_skip_bind, and it is placed there whatever is
 * found lost meanwhile. If the WQE it completes is an earlier one, the host moves the
 * payload there at delivery (mr_rx_done.rwqe). uc_skip_bind catches up with uc_skip
 * only when no message bound with the old value is still being placed, so that two
 * messages never write into one WQE: a message bound later, with a larger RMSN and the
 * same or smaller skip, lands in a later WQE than any bound earlier, and a message is
 * moved into a WQE below every WQE still being written.
 */
#include "uc.h"
#include "params.h"
#include "seq.h"

static bool mr_uc_uses_rwqe(u8 opcode)
{
	return opcode == MR_OP_SEND || opcode == MR_OP_SEND_IMM || opcode == MR_OP_WRITE_IMM;
}

static u32 mr_uc_pkt_rmsn(const struct mr_pkt *pkt)
{
	return pkt->opcode == MR_OP_WRITE_IMM ? pkt->write.rmsn : pkt->send.rmsn;
}

static u32 mr_uc_first_psn(const struct mr_conn *c, const struct mr_pkt *pkt)
{
	return pkt->psn - pkt->moff / mr_conn_rx_seg(c, pkt);
}

/*
 * RMSNs grow by at most one per message: from the RMSN after the last one delivered or
 * given up (uc_rmsn_next, counted from MSN uc_rmsn_msn), message msn can only carry
 * one up to msn - uc_rmsn_msn further. Anything else is not from a conforming sender.
 */
bool mr_uc_rmsn_ok(const struct mr_conn *c, const struct mr_pkt *pkt)
{
	return !mr_uc_uses_rwqe(pkt->opcode) ||
	       mr_uc_pkt_rmsn(pkt) - c->uc_rmsn_next <= pkt->msn - c->uc_rmsn_msn;
}

/* Does pkt belong to the message in its slot (or start one), and may it be placed? */
static bool mr_uc_msg_ok(const struct mr_conn *c, const struct mr_pkt *pkt)
{
	const struct mr_rstream *rs = &c->rs[pkt->stream];
	const struct mr_msg_slot *m = &rs->st.slot[pkt->msn % MR_STREAM_WIN];
	const struct mr_rmsg *info = &rs->info[pkt->msn % MR_STREAM_WIN];

	if (pkt->moff % mr_conn_rx_seg(c, pkt))
		return false;
	if (!m->used)
		return true;
	if (info->dead || m->done || m->mlen != pkt->mlen || pkt->paylen > m->mlen - m->got ||
	    info->opcode != pkt->opcode || info->seg != pkt->seg ||
	    info->first_psn != mr_uc_first_psn(c, pkt))
		return false;
	if (!mr_uc_uses_rwqe(pkt->opcode))
		return true;
	return info->rmsn == mr_uc_pkt_rmsn(pkt) &&
	       info->imm_inv == (pkt->opcode == MR_OP_WRITE_IMM ? pkt->write.imm :
				 pkt->send.imm_inv);
}

enum mr_rx_class mr_uc_rx(struct mr_conn *c, const struct mr_pkt *pkt, struct mr_rx_res *res,
			  bool *discard)
{
	const struct mr_rstream *rs = &c->rs[pkt->stream];

	*discard = false;
	/* A message already delivered or given up: its PSN arrived, nothing to place. */
	if (mr_seq_before(pkt->msn, rs->st.next)) {
		*discard = true;
		return MR_RXC_DROP;
	}
	if (pkt->msn - rs->st.next >= MR_STREAM_WIN || !mr_uc_rmsn_ok(c, pkt)) {
		c->stats.rx_inconsistent++;
		return MR_RXC_DROP;
	}
	if (!mr_uc_msg_ok(c, pkt)) {
		*discard = true;
		return MR_RXC_DROP;
	}
	if (mr_uc_uses_rwqe(pkt->opcode)) {
		const struct mr_msg_slot *m = &rs->st.slot[pkt->msn % MR_STREAM_WIN];

		res->rwqe = m->used ? rs->info[pkt->msn % MR_STREAM_WIN].rwqe :
			mr_uc_pkt_rmsn(pkt) - c->uc_skip_bind;
	}
	return MR_RXC_PLACE;
}

bool mr_uc_commit_ok(const struct mr_conn *c, const struct mr_pkt *pkt)
{
	const struct mr_rstream *rs = &c->rs[pkt->stream];

	return pkt->msn - rs->st.next < MR_STREAM_WIN && mr_uc_rmsn_ok(c, pkt) &&
	       mr_uc_msg_ok(c, pkt);
}

void mr_uc_bind(struct mr_conn *c, const struct mr_pkt *pkt, struct mr_rmsg *info)
{
	u32 npkts = mr_seg_pkts(pkt->mlen, mr_conn_rx_seg(c, pkt));

	info->first_psn = mr_uc_first_psn(c, pkt);
	info->last_psn = info->first_psn + npkts - 1;
	if (mr_uc_uses_rwqe(pkt->opcode)) {
		info->rwqe = info->rmsn - c->uc_skip_bind;
		info->skip = c->uc_skip_bind;
	}
}

void mr_uc_hole_clock(struct mr_conn *c, u64 now)
{
	if (!mr_rxwin_ooo(&c->rx))
		c->uc_hole_ns = 0;
	else if (!c->uc_hole_ns)
		c->uc_hole_ns = now;
}

/* Is the next message of stream rs lost? Accounts for RMSNs of messages lost whole. */
static bool mr_uc_head_lost(struct mr_conn *c, struct mr_rstream *rs)
{
	u32 next = rs->st.next, i;
	const struct mr_msg_slot *m = &rs->st.slot[next % MR_STREAM_WIN];
	const struct mr_rmsg *info = &rs->info[next % MR_STREAM_WIN];

	if (!m->used) {
		/*
		 * Nothing of it arrived. Its PSNs precede those of any later message: once
		 * the window has decided every PSN before a later message's first, it is lost.
		 */
		for (i = 1; i < MR_STREAM_WIN && rs->st.pending; i++) {
			u32 s = (next + i) % MR_STREAM_WIN;

			if (rs->st.slot[s].used)
				return !mr_seq_after(rs->info[s].first_psn, c->rx.cack);
		}
		return false;
	}
	if (mr_uc_uses_rwqe(info->opcode)) {
		/* RMSNs between the last one seen and this one were lost whole. */
		if (mr_seq_after(info->rmsn, c->uc_rmsn_next)) {
			c->uc_skip += info->rmsn - c->uc_rmsn_next;
			c->uc_rmsn_next = info->rmsn;
			c->uc_rmsn_msn = next;
		}
	}
	if (info->dead)
		return true;
	if (m->done)
		return false;
	return mr_seq_before(info->last_psn, c->rx.cack);
}

/* New messages may bind with uc_skip once none bound with less is still placed. */
static void mr_uc_skip_catch_up(struct mr_conn *c)
{
	unsigned int k, i;

	if (c->uc_skip_bind == c->uc_skip)
		return;
	for (k = 0; k < c->cfg.n_streams; k++) {
		const struct mr_rstream *rs = &c->rs[k];

		for (i = 0; i < MR_STREAM_WIN; i++) {
			const struct mr_rmsg *info = &rs->info[i];

			if (rs->st.slot[i].used && !info->dead && mr_uc_uses_rwqe(info->opcode) &&
			    info->skip != c->uc_skip)
				return;
		}
	}
	c->uc_skip_bind = c->uc_skip;
}

/* Give up the lost messages at the head of every stream. */
static void mr_uc_reap(struct mr_conn *c)
{
	unsigned int k;

	for (k = 0; k < c->cfg.n_streams; k++) {
		struct mr_rstream *rs = &c->rs[k];

		while (mr_uc_head_lost(c, rs)) {
			u32 s = rs->st.next % MR_STREAM_WIN;
			struct mr_msg_slot *m = &rs->st.slot[s];

			if (m->used) {
				if (mr_uc_uses_rwqe(rs->info[s].opcode)) {
					c->uc_skip++;
					c->uc_rmsn_next = rs->info[s].rmsn + 1;
					c->uc_rmsn_msn = rs->st.next + 1;
				}
				memset(m, 0, sizeof(*m));
				rs->st.pending--;
			}
			rs->st.next++;
			c->stats.uc_msgs_lost++;
		}
	}
	mr_uc_skip_catch_up(c);
}

void mr_uc_slide(struct mr_conn *c, u64 now, u32 psn)
{
	c->stats.uc_holes += mr_rxwin_skip_to(&c->rx, psn - (MR_SACK_BITS - 1));
	mr_uc_hole_clock(c, now);
	mr_uc_reap(c);
}

bool mr_uc_deliver(struct mr_conn *c, struct mr_rx_done *d)
{
	unsigned int k, n = c->cfg.n_streams;

	mr_uc_reap(c);
	for (k = 0; k < n; k++) {
		unsigned int s = (c->deliver_rr + k) % n;
		const struct mr_rmsg *info;
		u32 msn, mlen;

		if (!mr_stream_peek(&c->rs[s].st, &msn))
			continue;
		info = &c->rs[s].info[msn % MR_STREAM_WIN];
		memset(d, 0, sizeof(*d));
		mr_stream_deliver(&c->rs[s].st, &msn, &mlen);
		d->opcode = info->opcode;
		d->se = info->se;
		d->imm_inv = info->imm_inv;
		d->stream = s;
		d->msn = msn;
		d->mlen = mlen;
		if (mr_uc_uses_rwqe(info->opcode)) {
			d->rmsn = info->rmsn - c->uc_skip;
			d->rwqe = info->rwqe;
			c->uc_rmsn_next = info->rmsn + 1;
			c->uc_rmsn_msn = msn + 1;
		}
		c->deliver_rr = (s + 1) % n;
		mr_uc_skip_catch_up(c);
		return true;
	}
	return false;
}

u64 mr_uc_deadline(const struct mr_conn *c)
{
	return c->uc_hole_ns ? c->uc_hole_ns + MR_UC_HOLE_NS : U64_MAX;
}

void mr_uc_timer(struct mr_conn *c, u64 now)
{
	if (!c->uc_hole_ns || now < c->uc_hole_ns + MR_UC_HOLE_NS)
		return;
	c->stats.uc_holes += mr_rxwin_skip_hole(&c->rx);
	c->uc_hole_ns = 0;
	mr_uc_hole_clock(c, now);
	c->ack_now = true;
}
