// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE connection engine: segmentation and scheduling of the send queue, receive
 * checks and ACK generation, completion order.
 */
#include "conn.h"
#include "params.h"
#include "seq.h"
#include "uc.h"

size_t mr_conn_size(u8 n_streams)
{
	return sizeof(struct mr_conn) + (size_t)n_streams * sizeof(struct mr_rstream);
}

static void mr_conn_event(struct mr_conn *c, u8 type, u8 cause, u8 path, u32 psn)
{
	struct mr_event ev = { .type = type, .cause = cause, .path = path, .psn = psn };

	if (c->cfg.on_event)
		c->cfg.on_event(c->cfg.event_arg, &ev);
}

/*
 * A verdict of the loss rules: timeouts are precise again for a while (spec, "Timer
 * precision").
 */
static void mr_conn_saw_loss(struct mr_conn *c, u64 now)
{
	c->lost_any = true;
	c->lost_ns = now;
}

static void mr_conn_path_change(void *arg, u8 path, bool up)
{
	mr_conn_event(arg, up ? MR_EV_PATH_UP : MR_EV_PATH_DOWN, 0, path, 0);
}

/* Segments a side may choose: seg the MTU or a valid segment, rx_seg 0 or one; 0 = mtu. */
static bool mr_segs_ok(u16 mtu, u16 seg, u16 rx_seg)
{
	return (!seg || seg == mtu || mr_seg_valid(seg)) && (!rx_seg || mr_seg_valid(rx_seg));
}

int mr_conn_init(struct mr_conn *c, const struct mr_conn_cfg *cfg)
{
	unsigned int i;

	if (!cfg->n_paths || cfg->n_paths > MR_MAX_PATHS ||
	    !cfg->peer_paths || cfg->peer_paths > MR_MAX_PATHS ||
	    !cfg->n_streams || cfg->n_streams > MR_MAX_STREAMS ||
	    cfg->mtu < 256 || cfg->mtu > MR_MAX_PAYLOAD ||
	    !mr_segs_ok(cfg->mtu, cfg->seg, cfg->rx_seg) ||
	    cfg->retry_cnt > 7 || cfg->rnr_retry > 7 || (cfg->peer_qpn & ~MR_QPN_MASK))
		return -EINVAL;

	memset(c, 0, mr_conn_size(cfg->n_streams));
	c->cfg = *cfg;
	if (!c->cfg.seg)
		c->cfg.seg = cfg->mtu;
	mr_txwin_init(&c->tx, cfg->tx_isn, cfg->retry_cnt);
	mr_paths_init(&c->paths, cfg->n_paths);
	c->paths.on_change = mr_conn_path_change;
	c->paths.change_arg = c;
	mr_cc_init(&c->cc, c->cfg.seg);
	mr_rxwin_init(&c->rx, cfg->rx_isn);
	/* UC never fails for lack of acknowledgments: nothing waits for them. */
	if (cfg->uc)
		c->tx.retry_limit = U8_MAX;
	c->tx_idle = cfg->tx_deferred;
	c->tx_resp_only = cfg->tx_deferred;
	for (i = 0; i < cfg->n_streams; i++)
		mr_stream_init(&c->rs[i].st, 0);
	return 0;
}

int mr_conn_set_seg(struct mr_conn *c, u16 seg, u16 rx_seg)
{
	if (!seg || !mr_segs_ok(c->cfg.mtu, seg, rx_seg))
		return -EINVAL;
	/* Another MTU is news of the path: larger segments may pass it now. */
	if (seg != c->cfg.seg)
		c->pmtu_blackhole = false;
	c->cfg.seg = seg;
	c->cfg.rx_seg = rx_seg;
	return 0;
}

static bool mr_op_uses_rwqe(u8 opcode)
{
	return opcode == MR_OP_SEND || opcode == MR_OP_SEND_IMM || opcode == MR_OP_SEND_INV ||
	       opcode == MR_OP_WRITE_IMM;
}

/* Requests (READ_REQ, atomics) are one packet; these opcodes spread over many. */
static bool mr_op_has_payload(u8 opcode)
{
	return opcode <= MR_OP_WRITE_IMM || opcode == MR_OP_READ_RESP;
}

/* Atomics: one 8-byte request, executed in order, answered by ATOMIC_RESP. */
static bool mr_op_is_atomic(u8 opcode)
{
	return opcode == MR_OP_CMP_SWAP || opcode == MR_OP_FETCH_ADD ||
	       opcode == MR_OP_ATOMIC_WRITE;
}

/* Operations answered by the peer, limited by max_rd_atomic. */
static bool mr_op_is_request(u8 opcode)
{
	return opcode == MR_OP_READ_REQ || mr_op_is_atomic(opcode);
}

static void mr_conn_fail(struct mr_conn *c, enum mr_wc_status status)
{
	if (c->failed)
		return;
	c->failed = true;
	c->fail_status = status;
}

/* A message with payload: its segment and packet count, from what it would start with now. */
static void mr_msg_segment(const struct mr_conn *c, struct mr_sendmsg *m)
{
	m->seg = mr_conn_tx_seg(c);
	m->pkts = mr_seg_pkts(m->wr.len, m->seg);
}

int mr_conn_post(struct mr_conn *c, const struct mr_send_wr *wr)
{
	struct mr_sendmsg *m;

	if (c->failed)
		return -EIO;
	if (((wr->opcode < MR_OP_SEND || wr->opcode > MR_OP_FETCH_ADD ||
	      wr->opcode == MR_OP_READ_RESP) && wr->opcode != MR_OP_ATOMIC_WRITE) ||
	    (c->cfg.uc && !mr_uc_op_ok(wr->opcode)))
		return -EOPNOTSUPP;
	if (wr->stream >= c->cfg.n_streams || wr->len > MR_MAX_MSG_LEN)
		return -EINVAL;
	if (wr->solicited && (wr->opcode == MR_OP_WRITE || mr_op_is_request(wr->opcode)))
		return -EINVAL;
	if (mr_op_is_request(wr->opcode) && !c->cfg.max_rd_atomic)
		return -EINVAL;
	if (mr_op_is_atomic(wr->opcode) && (wr->len != 8 || (wr->va & 7) ||
					    (wr->opcode != MR_OP_CMP_SWAP && wr->compare)))
		return -EINVAL;
	if (c->sq_head - c->sq_tail >= MR_SENDQ_DEPTH)
		return -ENOSPC;

	m = &c->sq[c->sq_head % MR_SENDQ_DEPTH];
	memset(m, 0, sizeof(*m));
	m->wr = *wr;
	m->msn = c->tx_msn[wr->stream]++;
	if (mr_op_uses_rwqe(wr->opcode))
		m->rmsn = c->tx_rmsn++;
	if (mr_op_is_request(wr->opcode))
		m->pkts = 1;	/* the request; the response is the peer's to send */
	else
		mr_msg_segment(c, m);
	c->sq_head++;
	return 0;
}

/* The message a transmitted packet belongs to: send queue or response ring. */
static struct mr_sendmsg *mr_conn_msg(struct mr_conn *c, u16 msg)
{
	if (msg & MR_MSG_RESP)
		return &c->rq[(msg & ~MR_MSG_RESP) % MR_RESPQ_DEPTH];
	return &c->sq[msg % MR_SENDQ_DEPTH];
}

static bool mr_conn_rq_full(const struct mr_conn *c)
{
	return c->rq_head - c->rq_tail >= MR_RESPQ_DEPTH;
}

/* Our READ or atomic, sent and still waiting for (the rest of) its response. */
static bool mr_req_awaits_resp(const struct mr_sendmsg *m)
{
	return m->pkts && m->all_sent && !m->resp_done && mr_op_is_request(m->wr.opcode);
}

/* Our request waiting for its response whose request packet had psn; NULL if none. */
static const struct mr_sendmsg *mr_conn_req_waiting(const struct mr_conn *c, u32 psn)
{
	u32 i;

	for (i = c->sq_tail; i != c->sq_head; i++) {
		const struct mr_sendmsg *m = &c->sq[i % MR_SENDQ_DEPTH];

		if (mr_req_awaits_resp(m) && m->req_psn == psn)
			return m;
	}
	return NULL;
}

/*
 * Queue the answer to the peer's READ or atomic (stream, msn); the caller checked for
 * space. Returns the response slot (for mr_conn_atomic_result()).
 */
static u32 mr_conn_queue_resp(struct mr_conn *c, u8 stream, u32 msn, const struct mr_rmsg *req)
{
	u32 slot = c->rq_head % MR_RESPQ_DEPTH;
	struct mr_sendmsg *m = &c->rq[slot];

	memset(m, 0, sizeof(*m));
	m->wr.stream = stream;
	m->msn = msn;	/* the request's: responses consume no MSN of ours */
	m->req_psn = req->psn;
	if (req->opcode == MR_OP_READ_REQ) {
		m->wr.opcode = MR_OP_READ_RESP;
		m->wr.len = req->len;
		m->wr.va = req->va;
		m->wr.rkey = req->rkey;
		mr_msg_segment(c, m);
	} else {
		m->wr.opcode = MR_OP_ATOMIC_RESP;
		m->wr.len = 8;
		m->pkts = 1;
		m->hold = true;	/* until the host has performed it */
	}
	c->rq_head++;
	return slot;
}

void mr_conn_atomic_result(struct mr_conn *c, u32 resp_slot, u64 orig)
{
	struct mr_sendmsg *m = &c->rq[resp_slot % MR_RESPQ_DEPTH];

	if (m->wr.opcode != MR_OP_ATOMIC_RESP || !m->hold)
		return;
	m->orig = orig;
	m->hold = false;
}

static void mr_conn_hdr(const struct mr_conn *c, const struct mr_sendmsg *m, u32 psn, u32 moff,
			u16 len, u8 path, struct mr_pkt *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = m->wr.opcode;
	/* The path MTU goes without saying; any other segment is stated. */
	if (m->seg && m->seg != c->cfg.mtu)
		h->seg = m->seg / MR_SEG_UNIT;
	h->dqpn = c->cfg.peer_qpn;
	h->ctok = c->cfg.peer_ctok;
	h->psn = psn;
	h->stream = m->wr.stream;
	h->path = path;
	h->paylen = len;
	h->hdrlen = mr_pkt_hdrlen(h->opcode);
	h->msn = m->msn;
	h->moff = moff;
	h->mlen = m->wr.len;
	if (m->wr.solicited)
		h->flags |= MR_F_SE;
	if (c->tx_disn)
		h->flags |= MR_F_DISN;
	if (c->cfg.uc)
		h->flags |= MR_F_UC;
	/* The last packet asks for an immediate ACK: the message can complete. */
	if (moff + len == m->wr.len || !mr_op_has_payload(m->wr.opcode))
		h->flags |= MR_F_AR;
	/*
	 * Nothing else of ours outstanding: our user most likely waits for this
	 * message, and its receiver had better not defer it to batch it with more.
	 */
	if (mr_op_from_sq(m->wr.opcode) && c->sq_head - c->sq_tail == 1)
		h->flags |= MR_F_LONE;

	switch (m->wr.opcode) {
	case MR_OP_SEND:
		h->send.rmsn = m->rmsn;
		break;
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		h->send.rmsn = m->rmsn;
		h->send.imm_inv = m->wr.imm_inv;
		break;
	case MR_OP_WRITE_IMM:
		h->write.rmsn = m->rmsn;
		h->write.imm = m->wr.imm_inv;
		fallthrough;
	case MR_OP_WRITE:
		h->write.va = m->wr.va + moff;
		h->write.rkey = m->wr.rkey;
		break;
	case MR_OP_READ_REQ:
		h->rreq.va = m->wr.va;
		h->rreq.rkey = m->wr.rkey;
		break;
	case MR_OP_CMP_SWAP:
		h->atomic.compare = m->wr.compare;
		fallthrough;
	case MR_OP_FETCH_ADD:
	case MR_OP_ATOMIC_WRITE:
		h->atomic.va = m->wr.va;
		h->atomic.rkey = m->wr.rkey;
		h->atomic.swap_add = m->wr.swap_add;
		break;
	case MR_OP_ATOMIC_RESP:
		h->orig = m->orig;
		break;
	}
}

static void mr_conn_fill_out(const struct mr_sendmsg *m, u32 moff, struct mr_tx_pkt *out)
{
	out->cookie = m->wr.cookie;
	out->moff = moff;
	out->src_rkey = 0;
	out->src_va = 0;
	if (m->wr.opcode == MR_OP_READ_RESP) {
		out->src_rkey = m->wr.rkey;
		out->src_va = m->wr.va + moff;
	}
}

/* Which path a copy of a packet takes (mr_conn_resend). */
enum mr_resend_path {
	MR_RESEND_RETX,		/* another than the one that lost it; may probe a retired one */
	MR_RESEND_TLP,		/* the healthiest other up path: never a probe */
	MR_RESEND_SPREAD,	/* where a new packet goes: copies in a row differ */
};

/* Fill out for a retransmission (or probe) of psn; false if it is no longer outstanding. */
static bool mr_conn_resend(struct mr_conn *c, u64 now, u32 psn, u16 flags,
			   enum mr_resend_path how, struct mr_tx_pkt *out)
{
	const struct mr_txpkt *p = mr_txwin_pkt(&c->tx, psn);
	const struct mr_sendmsg *m;
	u8 path, cause;

	if (!mr_txwin_holds(&c->tx, psn) ||
	    (p->state != MR_TXP_INFLIGHT && p->state != MR_TXP_LOST))
		return false;
	cause = p->state == MR_TXP_LOST ? p->lost_cause : MR_RETX_PROBE;
	m = mr_conn_msg(c, p->msg);
	if (how == MR_RESEND_SPREAD)
		path = mr_paths_pick(&c->paths, now);
	else if (how == MR_RESEND_TLP)
		path = mr_paths_pick_tlp(&c->paths, now, p->path);
	else
		path = mr_paths_pick_retx(&c->paths, now, p->path);
	mr_txwin_retransmit(&c->tx, now, psn, path);
	c->paths.p[path].stat_retx++;
	mr_conn_hdr(c, m, psn, p->moff, p->len, path, &out->hdr);
	/*
	 * What ACKs showed lost fills a hole, which the receiver ACKs at once anyway; AR
	 * with RETX would make it answer on every path, as to a sender that heard nothing.
	 */
	if (cause == MR_LOSS_ACK)
		out->hdr.flags &= ~MR_F_AR;
	out->hdr.flags |= MR_F_RETX | flags;
	mr_conn_fill_out(m, p->moff, out);
	out->resp_slot = p->msg & ~MR_MSG_RESP;
	/*
	 * Counted as the event names it: a probe or an RTO's copy that finds its packet
	 * declared lost (not yet resent: no room in the window) is its retransmission.
	 */
	if (cause == MR_RETX_PROBE)
		c->stats.tx_probes++;
	else
		c->stats.tx_retx++;
	mr_conn_event(c, MR_EV_RETX, cause, path, psn);
	return true;
}

/* Next packet of the oldest response (resp) or send-queue message with bytes unsent. */
static bool mr_conn_new(struct mr_conn *c, u64 now, bool resp, struct mr_tx_pkt *out)
{
	u32 slot = resp ? c->rq_next % MR_RESPQ_DEPTH : c->sq_next % MR_SENDQ_DEPTH;
	struct mr_sendmsg *m = resp ? &c->rq[slot] : &c->sq[slot];
	struct mr_txpkt *p;
	u32 moff = m->next_off;
	u16 len;
	u32 psn;
	u8 path;

	/*
	 * The first packet fixes the segment: the peer's ACKs may have changed it
	 * since, and a black-hole verdict may have lapsed: the path is tried again.
	 */
	if (!moff && mr_op_has_payload(m->wr.opcode)) {
		if (c->pmtu_blackhole && now - c->blackhole_ns >= MR_BLACKHOLE_HOLD_NS)
			c->pmtu_blackhole = false;
		mr_msg_segment(c, m);
		mr_paths_set_seg(&c->paths, m->seg);
	}
	/* Requests and atomic responses are one packet, empty (their data is in headers). */
	len = mr_op_has_payload(m->wr.opcode) ? min_t(u32, m->seg, m->wr.len - moff) : 0;
	path = mr_paths_pick(&c->paths, now);
	psn = mr_txwin_send(&c->tx, now, path, m->wr.stream, m->msn, len);
	p = &c->tx.pkt[psn % MR_SACK_BITS];
	p->moff = moff;
	p->msg = resp ? slot | MR_MSG_RESP : slot;
	mr_conn_hdr(c, m, psn, moff, len, path, &out->hdr);
	mr_conn_fill_out(m, moff, out);
	out->resp_slot = slot;
	if (mr_op_is_request(m->wr.opcode))
		m->req_psn = psn;	/* a NAK may name it after it is acknowledged */

	m->next_off += len;
	if (m->next_off >= m->wr.len || !mr_op_has_payload(m->wr.opcode)) {
		m->all_sent = true;
		if (resp) {
			c->rq_next++;
			c->rsp_out--;	/* the requester may now have another request going */
		} else {
			c->sq_next++;
			if (mr_op_is_request(m->wr.opcode))
				c->rd_out++;
		}
	}
	return true;
}

/*
 * Start our send direction before RTS, for a response: from the peer's initial PSN
 * (our rx_isn, the verbs rq_psn) XOR MR_DISN_XOR, which the peer derives from its own.
 */
static void mr_conn_start_derived(struct mr_conn *c)
{
	u32 isn = c->cfg.rx_isn ^ MR_DISN_XOR;

	c->cfg.tx_isn = isn;
	c->cfg.peer_ctok = mr_ctok_derive(c->cfg.peer_qpn, c->cfg.local_qpn, isn);
	mr_txwin_init(&c->tx, isn, c->cfg.retry_cnt);
	c->tx_idle = false;
	c->tx_disn = true;
}

/* A response is ready to go: sent before our own messages, they unblock the peer. */
static bool mr_conn_has_resp(const struct mr_conn *c)
{
	return c->rq_next != c->rq_head && !c->rq[c->rq_next % MR_RESPQ_DEPTH].hold;
}

static bool mr_conn_has_send(const struct mr_conn *c)
{
	const struct mr_sendmsg *m = &c->sq[c->sq_next % MR_SENDQ_DEPTH];

	if (c->sq_next == c->sq_head || c->tx_resp_only)
		return false;
	/* Requests beyond max_rd_atomic wait, in order, for earlier ones to be answered. */
	return !mr_op_is_request(m->wr.opcode) || c->rd_out < c->cfg.max_rd_atomic;
}

static bool mr_conn_has_new(const struct mr_conn *c)
{
	return mr_txwin_can_send(&c->tx) && (mr_conn_has_resp(c) || mr_conn_has_send(c));
}

/*
 * Stalled (spec, "A stalled sender"): nothing new goes out before holes are repaired, now
 * or once the rest of what is posted, for which the window has room, has gone. Each
 * message is at least one packet, so at most room + 1 of them are looked at.
 */
static bool mr_conn_stalled(const struct mr_conn *c)
{
	u32 wnd, busy, room, unsent = 0, i;

	if (!mr_conn_has_new(c))
		return true;
	if (mr_conn_has_resp(c))
		return false;
	wnd = mr_cc_window(&c->cc, c->paths.conn.srtt);
	busy = c->tx.in_flight + c->tx.nlost;
	room = wnd > busy ? wnd - busy : 0;
	for (i = c->sq_next; i != c->sq_head; i++) {
		const struct mr_sendmsg *m = &c->sq[i % MR_SENDQ_DEPTH];
		u32 left = m->wr.len - m->next_off;

		unsent += mr_op_has_payload(m->wr.opcode) ? mr_seg_pkts(left, m->seg) : 1;
		if (unsent > room)
			return false;
	}
	return true;
}

static u64 mr_conn_pto(const struct mr_conn *c)
{
	const struct mr_rtt *r = &c->paths.conn;

	/* Without an RTT sample a probe is guesswork: leave it to the RTO. */
	return r->srtt ? mr_txwin_pto(r->srtt, r->rttvar) : MR_PTO_NONE;
}

static u64 mr_conn_rto(const struct mr_conn *c)
{
	return mr_txwin_rto(&c->tx, c->paths.conn.srtt, c->paths.conn.rttvar);
}

/*
 * Waiting for responses (spec): with our requests all acknowledged nothing of ours is
 * outstanding, and only a timer of our own finds a responder that failed or has gone.
 * Call after whatever may change that; progress: a response packet was placed.
 */
static void mr_conn_rsp_clock(struct mr_conn *c, u64 now, bool progress)
{
	if (!c->rd_out || c->tx.una != c->tx.nxt) {
		c->rsp_waiting = false;
		return;
	}
	if (progress || !c->rsp_waiting) {
		c->rsp_waiting = true;
		c->rsp_wait_ns = now;
		c->rsp_alive_ns = now;
		c->rsp_backoff = 0;
		c->rsp_probes = 0;
	}
}

static u64 mr_conn_rsp_deadline(const struct mr_conn *c)
{
	u64 rto = min_t(u64, mr_conn_rto(c) << min_t(u8, c->rsp_backoff, 16), MR_RTO_MAX_NS);

	return c->rsp_waiting ? c->rsp_wait_ns + rto : U64_MAX;
}

/* The response timer expired: probe with the oldest waiting request, or give up. */
static void mr_conn_rsp_timer(struct mr_conn *c, u64 now)
{
	u32 i;

	if (now < mr_conn_rsp_deadline(c))
		return;
	if (c->rsp_probes > c->tx.retry_limit &&
	    (!c->tx.fail_min_ns || now - c->rsp_alive_ns >= c->tx.fail_min_ns)) {
		mr_conn_fail(c, MR_WC_RETRY_EXC);
		return;
	}
	for (i = c->sq_tail; i != c->sq_head; i++)
		if (mr_req_awaits_resp(&c->sq[i % MR_SENDQ_DEPTH]))
			break;
	if (i == c->sq_head) {
		c->rsp_waiting = false;
		return;
	}
	c->rsp_probe_psn = c->sq[i % MR_SENDQ_DEPTH].req_psn;
	c->rsp_probe_pending = true;
	if (c->rsp_probes < U8_MAX)
		c->rsp_probes++;
	if (c->rsp_backoff < U8_MAX)
		c->rsp_backoff++;
	c->rsp_wait_ns = now;
}

/* The request the response timer chose, again, outside the window. */
static bool mr_conn_rsp_probe(struct mr_conn *c, u64 now, struct mr_tx_pkt *out)
{
	const struct mr_sendmsg *m = mr_conn_req_waiting(c, c->rsp_probe_psn);

	c->rsp_probe_pending = false;
	if (!m)
		return false;	/* answered meanwhile */
	mr_conn_hdr(c, m, m->req_psn, 0, 0, mr_paths_pick(&c->paths, now), &out->hdr);
	out->hdr.flags |= MR_F_RETX | MR_F_AR;
	mr_conn_fill_out(m, 0, out);
	out->resp_slot = 0;
	c->stats.tx_rsp_probes++;
	return true;
}

bool mr_conn_tx(struct mr_conn *c, u64 now, struct mr_tx_pkt *out)
{
	u64 srtt = c->paths.conn.srtt;
	u32 wnd = mr_cc_window(&c->cc, srtt);
	bool sent = false;
	u64 gap;
	u32 psn;

	if (c->failed || now < c->next_tx_ns)
		return false;
	/* Verbs RTR: a response is our first data, from the derived initial PSN. */
	if (c->tx_idle) {
		if (!mr_conn_has_resp(c))
			return false;
		mr_conn_start_derived(c);
	}

	if (c->probe_pending) {
		c->probe_pending = false;
		sent = mr_conn_resend(c, now, c->probe_psn, MR_F_AR, MR_RESEND_TLP, out);
	}
	if (!sent && c->rsp_probe_pending)
		sent = mr_conn_rsp_probe(c, now, out);
	if (!sent && c->tx.in_flight < wnd && mr_txwin_next_lost(&c->tx, &psn))
		sent = mr_conn_resend(c, now, psn, 0, MR_RESEND_RETX, out);
	/*
	 * After an RTO the oldest packet, resent above, goes out again on the paths new
	 * packets would take: when most paths have failed, one copy at a time on the
	 * healthiest-looking path (all look alike before any is retired) can meet a failed
	 * one RTO after RTO until the retries run out.
	 */
	while (!sent && c->rto_copies) {
		c->rto_copies--;
		sent = mr_conn_resend(c, now, c->tx.una, MR_F_AR, MR_RESEND_SPREAD, out);
	}
	if (!sent && c->tx.in_flight < wnd && mr_conn_has_new(c))
		sent = mr_conn_new(c, now, mr_conn_has_resp(c), out);
	if (!sent)
		return false;
	mr_conn_rsp_clock(c, now, false);

	c->stats.tx_pkts++;
	c->paths.p[out->hdr.path].stat_sent++;
	/*
	 * Pace from the schedule, not from now: a timer that fires late (a loaded or
	 * emulated host) leaves credit for up to MR_PACE_BURST packets back to back, so
	 * that the average rate is the paced one.
	 */
	gap = mr_cc_gap_ns(&c->cc, srtt, out->hdr.paylen + out->hdr.hdrlen);
	if (now > (MR_PACE_BURST - 1) * gap)
		c->next_tx_ns = max_t(u64, c->next_tx_ns, now - (MR_PACE_BURST - 1) * gap);
	c->next_tx_ns += gap;
	return true;
}

/* UC: a message is done once handed to the wire; nothing acknowledges delivery. */
static bool mr_msg_done(const struct mr_conn *c, const struct mr_sendmsg *m)
{
	return m->all_sent && (c->cfg.uc || m->pkts_acked == m->pkts) &&
	       (!mr_op_is_request(m->wr.opcode) || m->resp_done);
}

/* Free the slots of reported messages at the tail. */
static void mr_conn_sq_trim(struct mr_conn *c)
{
	while (c->sq_tail != c->sq_head && !c->sq[c->sq_tail % MR_SENDQ_DEPTH].pkts)
		c->sq_tail++;
	if (mr_seq_before(c->sq_next, c->sq_tail))
		c->sq_next = c->sq_tail;
}

bool mr_conn_poll_send(struct mr_conn *c, u64 *cookie, enum mr_wc_status *status)
{
	u16 blocked = 0;
	u32 i;

	for (i = c->sq_tail; i != c->sq_head; i++) {
		struct mr_sendmsg *m = &c->sq[i % MR_SENDQ_DEPTH];
		u16 sbit = 1U << m->wr.stream;
		bool done = mr_msg_done(c, m);

		if (!m->pkts)	/* reported already */
			continue;
		if (c->failed && !done) {
			/* The oldest incomplete message carries the error, the rest flush. */
			*status = c->fail_status;
			c->fail_status = MR_WC_FLUSH;
		} else if (done && !(blocked & sbit)) {
			*status = MR_WC_SUCCESS;
		} else {
			blocked |= sbit;
			continue;
		}
		*cookie = m->wr.cookie;
		m->pkts = 0;
		mr_conn_sq_trim(c);
		return true;
	}
	mr_conn_sq_trim(c);
	return false;
}

struct mr_conn_ev {
	struct mr_conn *c;
	u64	now;
	u64	rto_paths;	/* RTO: paths that had packets outstanding */
};

static void mr_conn_acked(void *arg, u32 psn, const struct mr_txpkt *p)
{
	struct mr_conn *c = arg;

	mr_conn_msg(c, p->msg)->pkts_acked++;
	/*
	 * Only a packet sent once names the path that delivered it. Any copy of one sent
	 * again may have earned this ACK, and the last copy is often a probe of a retired
	 * path: credited with another path's delivery, a dead path came back (the echo,
	 * which names the arriving copy's path, revives a path that did deliver).
	 */
	if (!p->nretx)
		mr_paths_on_acked(&c->paths, p->path, p->sent_ns, p->len);
	if (p->len > c->cfg.mtu && p->sent_ns > c->big_acked_ns)
		c->big_acked_ns = p->sent_ns;
}

/*
 * After an RTO (spec, "Segments"): a third timeout in a row, with packets above the
 * path MTU among those it resends and none such acknowledged that was sent since the
 * connection last made progress, says that the path drops them without a word (an
 * ICMP black hole, RFC 4821): random loss would have let some through, and seldom
 * times out three times running. Later messages take path-MTU segments, for at most
 * MR_BLACKHOLE_HOLD_NS, and the host sends the packets of those under way in
 * fragments (IPv4: a router's; IPv6: its own).
 */
static void mr_conn_check_blackhole(struct mr_conn *c, u64 now)
{
	u32 i, n = mr_txwin_outstanding(&c->tx);

	if (c->pmtu_blackhole || c->cfg.uc || c->tx.backoff < 3 ||
	    c->big_acked_ns >= c->tx.progress_ns)
		return;
	for (i = 0; i < n; i++) {
		u32 psn = c->tx.una + i;
		const struct mr_txpkt *p = mr_txwin_pkt(&c->tx, psn);

		if (p->state == MR_TXP_LOST && p->len > c->cfg.mtu) {
			c->pmtu_blackhole = true;
			c->blackhole_ns = now;
			mr_conn_event(c, MR_EV_PMTU_BLACKHOLE, 0, p->path, psn);
			return;
		}
	}
}

static void mr_conn_lost(void *arg, u32 psn, const struct mr_txpkt *p)
{
	struct mr_conn_ev *ev = arg;
	struct mr_conn *c = ev->c;
	const struct mr_path *path = &c->paths.p[p->path % MR_MAX_PATHS];

	mr_conn_event(c, MR_EV_LOSS, MR_LOSS_ACK, p->path, psn);
	mr_conn_saw_loss(c, ev->now);
	/*
	 * A stalled sender's early verdict may be reordering: no evidence against the path
	 * or of congestion. A path that loses keeps losing when the sender is not stalled.
	 */
	if (p->lost_stalled)
		return;
	mr_paths_on_loss(&c->paths, ev->now, p->path, p->len);
	/* A retired path's delay is what retired it: no evidence (spec, "Loss"). */
	mr_cc_on_loss(&c->cc, ev->now, c->paths.conn.srtt, p->sent_ns,
		      path->up ? &path->rtt : NULL, mr_paths_min_srtt(&c->paths),
		      c->paths.conn.rttvar);
}

static void mr_conn_lost_rto(void *arg, u32 psn, const struct mr_txpkt *p)
{
	struct mr_conn_ev *ev = arg;

	mr_conn_event(ev->c, MR_EV_LOSS, MR_LOSS_RTO, p->path, psn);
	mr_paths_on_rto_loss(&ev->c->paths, p->path, p->len);
	ev->rto_paths |= BIT_ULL(p->path);
}

static enum mr_rx_class mr_conn_rx_ack(struct mr_conn *c, u64 now, const struct mr_pkt_ack *ack)
{
	struct mr_conn_ev ev = { .c = c, .now = now };
	struct mr_txack_res res;

	if (mr_txwin_ack(&c->tx, now, ack, mr_conn_acked, c, &res)) {
		c->stats.rx_bad_ack++;
		return MR_RXC_DROP;
	}
	if (res.echo_acked) {
		u64 rtt = res.echo_rtt_valid ? max_t(u64, res.echo_rtt_ns, 1) : 0;

		mr_paths_on_echo(&c->paths, ack->echo_path, rtt, ack->echo_flags & MR_ECHO_CE,
				 res.echo_len);
	}
	/* Messages started from now on use what the peer takes now. */
	c->peer_rx_seg = ack->rx_seg;
	if (res.spurious_rto)
		mr_cc_undo_rto(&c->cc);
	if (res.probe_found_loss) {
		/*
		 * Evidence against the original's path (spec, "Tail-loss probe"), but no
		 * congestion verdict, which needs the original's send time (the copy
		 * replaced it), and not the loss rules' verdict that ends a quiet spell.
		 */
		mr_conn_event(c, MR_EV_LOSS, MR_LOSS_PROBE, res.probe_lost_path,
			      res.probe_lost_psn);
		mr_paths_on_probe_loss(&c->paths, now, res.probe_lost_path, res.echo_len);
	}
	mr_cc_on_ack(&c->cc, now, c->paths.conn.srtt, ack->ce_cnt, ack->rx_cnt, ack->rate_hint,
		     res.newly_acked);
	mr_txwin_detect(&c->tx, now, mr_paths_reo_wnd(&c->paths), mr_conn_stalled(c),
			mr_conn_lost, &ev);
	if (c->cfg.uc)
		mr_txwin_forget_lost(&c->tx);
	if (res.una_advanced)
		c->rnr_retries = 0;
	/* Responses leave no completion behind: free their slots as they are acked. */
	while (c->rq_tail != c->rq_next && mr_msg_done(c, &c->rq[c->rq_tail % MR_RESPQ_DEPTH]))
		c->rq_tail++;
	mr_conn_rsp_clock(c, now, false);
	if (c->rsp_waiting && ack->echo_psn == c->rsp_probe_psn &&
	    (ack->echo_flags & MR_ECHO_RETX)) {
		c->rsp_probes = 0;	/* the responder is there */
		c->rsp_alive_ns = now;
	}
	return MR_RXC_DONE;
}

static enum mr_rx_class mr_conn_rx_nak(struct mr_conn *c, u64 now, const struct mr_pkt_nak *nak)
{
	struct mr_pkt_ack ack = { .cack = nak->cack, .echo_psn = nak->nak_psn };
	struct mr_txack_res res;

	/*
	 * A NAK refuses a packet we sent and nobody has acknowledged; or, for good, one of
	 * our READs or atomics that the responder could not execute after accepting it.
	 */
	if ((!mr_txwin_holds(&c->tx, nak->nak_psn) &&
	     (nak->syndrome == MR_NAK_RNR || !mr_conn_req_waiting(c, nak->nak_psn))) ||
	    mr_txwin_ack(&c->tx, now, &ack, mr_conn_acked, c, &res)) {
		c->stats.rx_bad_ack++;
		return MR_RXC_DROP;
	}
	c->stats.rx_nak++;
	switch (nak->syndrome) {
	case MR_NAK_RNR:
		/* Not the path's fault: resend after the receiver's delay, charge no path. */
		if (mr_txwin_mark_lost(&c->tx, nak->nak_psn))
			mr_conn_event(c, MR_EV_LOSS, MR_LOSS_NAK,
				      mr_txwin_pkt(&c->tx, nak->nak_psn)->path, nak->nak_psn);
		c->next_tx_ns = max_t(u64, c->next_tx_ns,
				      now + (u64)nak->rnr_delay * 10 * MR_NSEC_PER_USEC);
		if (c->cfg.rnr_retry != 7 && ++c->rnr_retries > c->cfg.rnr_retry)
			mr_conn_fail(c, MR_WC_RNR_RETRY_EXC);
		break;
	case MR_NAK_REM_ACCESS:
		mr_conn_fail(c, MR_WC_REM_ACCESS);
		break;
	case MR_NAK_INV_REQ:
		mr_conn_fail(c, MR_WC_REM_INV_REQ);
		break;
	default:
		mr_conn_fail(c, MR_WC_REM_OP);
		break;
	}
	return MR_RXC_DONE;
}

void mr_conn_refuse(struct mr_conn *c, const struct mr_pkt *pkt, u8 syndrome, u16 rnr_delay,
		    struct mr_pkt *nak)
{
	memset(nak, 0, sizeof(*nak));
	nak->opcode = MR_OP_NAK;
	nak->dqpn = c->cfg.peer_qpn;
	nak->ctok = c->cfg.local_ctok;	/* the acknowledged direction's token */
	nak->hdrlen = MR_HDR_NAK;
	nak->nak.cack = c->rx.cack;
	nak->nak.nak_psn = pkt->psn;
	nak->nak.syndrome = syndrome;
	if (syndrome == MR_NAK_RNR) {
		nak->nak.rnr_delay = rnr_delay;
		return;
	}
	/* A responder that refuses for good moves to the error state: flush our sends. */
	mr_conn_fail(c, MR_WC_FLUSH);
}

void mr_conn_refuse_resp(struct mr_conn *c, u32 resp_slot, u8 syndrome, struct mr_pkt *nak)
{
	struct mr_pkt req = { .psn = c->rq[resp_slot % MR_RESPQ_DEPTH].req_psn };

	/* The request was acknowledged long ago: only a fatal NAK may name it (spec). */
	mr_conn_refuse(c, &req, syndrome == MR_NAK_RNR ? MR_NAK_REM_OP : syndrome, 0, nak);
}

/* Immediate and receive message number of a data packet, 0 where the opcode has none. */
static void mr_pkt_rmsg(const struct mr_pkt *pkt, struct mr_rmsg *r)
{
	memset(r, 0, sizeof(*r));
	r->opcode = pkt->opcode;
	r->seg = pkt->seg;
	r->se = pkt->flags & MR_F_SE;
	switch (pkt->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		r->rmsn = pkt->send.rmsn;
		r->imm_inv = pkt->send.imm_inv;
		break;
	case MR_OP_WRITE_IMM:
		r->rmsn = pkt->write.rmsn;
		r->imm_inv = pkt->write.imm;
		break;
	case MR_OP_READ_REQ:
		r->psn = pkt->psn;
		r->len = pkt->mlen;
		r->va = pkt->rreq.va;
		r->rkey = pkt->rreq.rkey;
		break;
	case MR_OP_CMP_SWAP:
	case MR_OP_FETCH_ADD:
	case MR_OP_ATOMIC_WRITE:
		r->psn = pkt->psn;
		r->va = pkt->atomic.va;
		r->rkey = pkt->atomic.rkey;
		r->swap_add = pkt->atomic.swap_add;
		r->compare = pkt->atomic.compare;
		break;
	}
}

/* Our READ or atomic that a response answers; NULL if none is waiting for it. */
static struct mr_sendmsg *mr_conn_find_req(struct mr_conn *c, const struct mr_pkt *pkt)
{
	bool read = pkt->opcode == MR_OP_READ_RESP;
	u32 i;

	for (i = c->sq_tail; i != c->sq_head; i++) {
		struct mr_sendmsg *m = &c->sq[i % MR_SENDQ_DEPTH];

		if (!mr_req_awaits_resp(m) || m->wr.stream != pkt->stream || m->msn != pkt->msn)
			continue;
		if (read ? m->wr.opcode == MR_OP_READ_REQ : mr_op_is_atomic(m->wr.opcode))
			return m;
	}
	return NULL;
}

static bool mr_is_response(u8 opcode)
{
	return opcode == MR_OP_READ_RESP || opcode == MR_OP_ATOMIC_RESP;
}

/* Does pkt agree with the packets of its message seen so far? Changes nothing. */
static bool mr_conn_rx_consistent(const struct mr_rstream *rs, const struct mr_pkt *pkt)
{
	const struct mr_msg_slot *m;
	const struct mr_rmsg *info;
	struct mr_rmsg r;

	if (pkt->msn - rs->st.next >= MR_STREAM_WIN)
		return false;
	m = &rs->st.slot[pkt->msn % MR_STREAM_WIN];
	if (!m->used)
		return true;
	if (mr_op_is_request(pkt->opcode))
		return false;	/* a request is one packet: a second one is a different message */
	info = &rs->info[pkt->msn % MR_STREAM_WIN];
	mr_pkt_rmsg(pkt, &r);
	return m->mlen == pkt->mlen && !m->done && pkt->paylen <= m->mlen - m->got &&
	       info->opcode == r.opcode && info->seg == r.seg && info->rmsn == r.rmsn &&
	       info->imm_inv == r.imm_inv;
}

/* Does a response packet fit the READ or atomic it answers (rd)? */
static bool mr_conn_resp_fits(const struct mr_sendmsg *rd, const struct mr_pkt *pkt)
{
	return rd && rd->wr.len == pkt->mlen && pkt->paylen <= rd->wr.len - rd->resp_got &&
	       (!rd->resp_got || rd->resp_seg == pkt->seg);
}

static void mr_conn_rx_count(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce)
{
	c->rx_cnt++;
	if (ce)
		c->ce_cnt++;
	c->echo_psn = pkt->psn;
	c->echo_path = pkt->path;
	c->echo_flags = mr_echo_flags(pkt, ce);
	c->echo_arrival_ns = now;
}

/*
 * The sender did not hear us: a packet we had acknowledged came again, or a probe or an
 * RTO's copy came. Our ACKs may have met failed paths (our paths for ACKs are not the
 * sender's for data, and we learn nothing about them). ACK now, and on every path in
 * turn, at most once per shortest RTO: when most paths fail at once, one ACK on the next
 * path in turn is likely lost too, and each lost answer costs the sender an RTO.
 */
static void mr_conn_ack_spread(struct mr_conn *c, u64 now)
{
	c->ack_now = true;
	if (c->cfg.n_paths < 2 || c->ack_copies ||
	    (c->ack_spread_ns && now - c->ack_spread_ns < MR_RTO_MIN_NS))
		return;
	c->ack_copies = c->cfg.n_paths;
	c->ack_spread_ns = now;
}

/* Does a data packet's MR_F_DISN agree with how our receive direction started? */
static bool mr_conn_disn_ok(const struct mr_conn *c, const struct mr_pkt *pkt)
{
	if (pkt->flags & MR_F_DISN)
		return c->rx_mode == MR_RXM_DISN;
	return c->rx_mode != MR_RXM_DISN;
}

/*
 * The first MR_F_DISN packet of a direction that has accepted nothing: the peer answered
 * our requests before its RTS, from our initial PSN XOR MR_DISN_XOR. Only a send
 * direction that started at RTS (not deferred, not derived) has the PSN it derives from.
 */
static bool mr_conn_rebase(struct mr_conn *c, const struct mr_pkt *pkt)
{
	u32 isn = c->cfg.tx_isn ^ MR_DISN_XOR, tok;

	if (c->tx_idle || c->tx_disn) {
		c->stats.rx_bad_disn++;
		return false;
	}
	tok = mr_ctok_derive(c->cfg.local_qpn, c->cfg.peer_qpn, isn);
	if (pkt->ctok != tok) {
		c->stats.rx_bad_token++;
		return false;
	}
	/* Nothing was accepted: a fresh window, and ACKs that carry the new token. */
	c->cfg.rx_isn = isn;
	c->cfg.local_ctok = tok;
	mr_rxwin_init(&c->rx, isn);
	c->rx_mode = MR_RXM_DISN;
	c->ce_cnt = 0;
	c->rx_cnt = 0;
	c->unacked = 0;
	c->ack_due_ns = 0;
	c->ack_now = false;
	return true;
}

/* Token (and MR_F_DISN) check of a received packet; counts what it drops. */
static bool mr_conn_rx_token(struct mr_conn *c, const struct mr_pkt *pkt)
{
	/*
	 * ACK and NAK carry the token of our data, everything else the peer's.
	 * Before we send (a verbs responder in RTR) there is no token of ours to
	 * carry: cfg.peer_ctok is still 0, which no token is.
	 */
	if (pkt->opcode == MR_OP_ACK || pkt->opcode == MR_OP_NAK) {
		if (!c->tx_idle && pkt->ctok == c->cfg.peer_ctok)
			return true;
		c->stats.rx_bad_token++;
		return false;
	}
	if (mr_op_is_data(pkt->opcode)) {
		if ((pkt->flags & MR_F_DISN) && c->rx_mode == MR_RXM_FRESH)
			return mr_conn_rebase(c, pkt);
		if (!mr_conn_disn_ok(c, pkt)) {
			c->stats.rx_bad_disn++;
			return false;
		}
	}
	if (pkt->ctok == c->cfg.local_ctok)
		return true;
	c->stats.rx_bad_token++;
	return false;
}

enum mr_rx_class mr_conn_rx(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce,
			    struct mr_rx_res *res)
{
	struct mr_sendmsg *rd;
	enum mr_rx_class cls;
	bool discard;
	u32 seg;

	/* UC data goes to UC connections only, and a UC receiver sends no NAK. */
	if ((mr_op_is_data(pkt->opcode) && !(pkt->flags & MR_F_UC) != !c->cfg.uc) ||
	    (pkt->opcode == MR_OP_NAK && c->cfg.uc)) {
		c->stats.rx_bad_type++;
		return MR_RXC_DROP;
	}
	if (!mr_conn_rx_token(c, pkt))
		return MR_RXC_DROP;
	if (pkt->path >= c->cfg.peer_paths) {
		c->stats.rx_bad_path++;
		return MR_RXC_DROP;
	}
	/* Datagrams belong to UD QPs, never to a connection. */
	if (mr_op_is_datagram(pkt->opcode)) {
		c->stats.rx_inconsistent++;
		return MR_RXC_DROP;
	}
	if (pkt->opcode == MR_OP_ACK)
		return mr_conn_rx_ack(c, now, &pkt->ack);
	if (pkt->opcode == MR_OP_NAK)
		return mr_conn_rx_nak(c, now, &pkt->nak);

	if (pkt->stream >= c->cfg.n_streams) {
		c->stats.rx_bad_stream++;
		return MR_RXC_DROP;
	}
	/* Every packet of a payload but the last is exactly one segment. */
	seg = mr_conn_rx_seg(c, pkt);
	if (pkt->paylen > seg ||
	    (mr_op_has_payload(pkt->opcode) && pkt->moff + pkt->paylen < pkt->mlen &&
	     pkt->paylen != seg)) {
		c->stats.rx_bad_length++;
		return MR_RXC_DROP;
	}
	c->stats.rx_pkts++;

	switch (mr_rxwin_check(&c->rx, pkt->psn)) {
	case MR_RX_STALE:
		c->stats.rx_stale++;
		mr_conn_rx_count(c, now, pkt, ce);
		mr_conn_ack_spread(c, now);	/* our ACK may have been lost */
		return MR_RXC_DUP;
	case MR_RX_DUP:
		c->stats.rx_dup++;
		mr_conn_rx_count(c, now, pkt, ce);
		mr_conn_ack_spread(c, now);
		return MR_RXC_DUP;
	case MR_RX_BEYOND:
		c->stats.rx_beyond++;
		c->ack_now = true;
		/* UC: the sender gave up what the window waits for; so does the receiver. */
		if (!c->cfg.uc)
			return MR_RXC_DROP;
		mr_uc_slide(c, now, pkt->psn);
		break;
	case MR_RX_NEW:
		break;
	}

	if (c->cfg.uc) {
		cls = mr_uc_rx(c, pkt, res, &discard);
		if (discard)
			mr_conn_uc_discard(c, now, pkt, ce);
		return cls;
	}
	res->rwqe = 0;
	if (mr_op_uses_rwqe(pkt->opcode)) {
		struct mr_rmsg r;

		mr_pkt_rmsg(pkt, &r);
		res->rwqe = r.rmsn;
	}

	if (mr_is_response(pkt->opcode)) {
		/* Answers one of our requests, of the length we asked for; else drop it. */
		rd = mr_conn_find_req(c, pkt);
		if (!mr_conn_resp_fits(rd, pkt)) {
			c->stats.rx_bad_resp++;
			return MR_RXC_DROP;
		}
		res->cookie = rd->wr.cookie;
		return MR_RXC_PLACE;
	}

	/* A requester keeps to max_rd_atomic (see mr_conn_new()); one that does not is broken. */
	if (mr_op_is_request(pkt->opcode) && c->rsp_out >= c->cfg.max_rd_atomic) {
		mr_conn_refuse(c, pkt, MR_NAK_INV_REQ, 0, &res->nak);
		return MR_RXC_FATAL;
	}
	if (!mr_conn_rx_consistent(&c->rs[pkt->stream], pkt) ||
	    (mr_op_uses_rwqe(pkt->opcode) && res->rwqe - c->rmsn_una >= MR_RMSN_WIN)) {
		c->stats.rx_inconsistent++;
		mr_conn_refuse(c, pkt, MR_NAK_INV_REQ, 0, &res->nak);
		return MR_RXC_FATAL;
	}
	return MR_RXC_PLACE;
}

static void mr_conn_rx_ack_sched(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce,
				 u32 old_cack, u32 adv);

void mr_conn_uc_discard(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce)
{
	struct mr_rstream *rs = &c->rs[pkt->stream];
	u32 slot = pkt->msn % MR_STREAM_WIN, old_cack = c->rx.cack, adv;

	if (!c->cfg.uc || !mr_op_is_data(pkt->opcode) || pkt->stream >= c->cfg.n_streams ||
	    mr_rxwin_check(&c->rx, pkt->psn) != MR_RX_NEW)
		return;
	/* Its message is lost: the rest of it is not placed either. */
	if (pkt->msn - rs->st.next < MR_STREAM_WIN && mr_uc_rmsn_ok(c, pkt)) {
		if (!rs->st.slot[slot].used) {
			mr_pkt_rmsg(pkt, &rs->info[slot]);
			mr_uc_bind(c, pkt, &rs->info[slot]);
			mr_stream_add(&rs->st, pkt->msn, pkt->mlen, 0);
		}
		rs->info[slot].dead = true;
	}
	c->stats.uc_discarded++;
	adv = mr_rxwin_record(&c->rx, pkt->psn);
	mr_conn_rx_ack_sched(c, now, pkt, ce, old_cack, adv);
}

void mr_conn_rx_commit(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce)
{
	struct mr_rstream *rs = &c->rs[pkt->stream];
	u32 old_cack = c->rx.cack, adv;
	struct mr_sendmsg *rd = NULL;

	/* Refuse to commit what mr_conn_rx() would not have passed. */
	if (mr_rxwin_check(&c->rx, pkt->psn) != MR_RX_NEW || !mr_conn_disn_ok(c, pkt))
		return;
	if (c->cfg.uc) {
		if (!mr_uc_commit_ok(c, pkt))
			return;
	} else if (mr_is_response(pkt->opcode)) {
		rd = mr_conn_find_req(c, pkt);
		if (!mr_conn_resp_fits(rd, pkt))
			return;
	} else if (!mr_conn_rx_consistent(rs, pkt)) {
		return;
	}

	adv = mr_rxwin_record(&c->rx, pkt->psn);
	if (c->rx_mode == MR_RXM_FRESH)
		c->rx_mode = MR_RXM_PLAIN;	/* a later MR_F_DISN is not the peer's */
	if (c->cfg.share)
		mr_share_touch(c->cfg.share, &c->share_epoch, now);
	if (rd) {
		/* An ATOMIC_RESP carries its 8 bytes in the header. */
		rd->resp_got += pkt->opcode == MR_OP_ATOMIC_RESP ? 8 : pkt->paylen;
		rd->resp_seg = pkt->seg;
		if (rd->resp_got == rd->wr.len) {
			rd->resp_done = true;
			c->rd_out--;
		}
		mr_conn_rsp_clock(c, now, true);
	} else {
		if (!rs->st.slot[pkt->msn % MR_STREAM_WIN].used) {
			mr_pkt_rmsg(pkt, &rs->info[pkt->msn % MR_STREAM_WIN]);
			if (c->cfg.uc)
				mr_uc_bind(c, pkt, &rs->info[pkt->msn % MR_STREAM_WIN]);
		}
		if (mr_op_is_request(pkt->opcode)) {
			/* Complete on arrival; its length is the response's, kept in info. */
			mr_stream_add(&rs->st, pkt->msn, 0, 0);
			c->rsp_out++;
		} else {
			mr_stream_add(&rs->st, pkt->msn, pkt->mlen, pkt->paylen);
		}
	}
	mr_conn_rx_ack_sched(c, now, pkt, ce, old_cack, adv);
}

/* Count a recorded data packet and decide when to acknowledge it. */
static void mr_conn_rx_ack_sched(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce,
				 u32 old_cack, u32 adv)
{
	mr_conn_rx_count(c, now, pkt, ce);
	if (c->cfg.uc)
		mr_uc_hole_clock(c, now);

	/* A probe or an RTO's copy: the sender has been waiting; make sure it hears. */
	if ((pkt->flags & (MR_F_AR | MR_F_RETX)) == (MR_F_AR | MR_F_RETX)) {
		mr_conn_ack_spread(c, now);
		return;
	}
	/* ACK at once when the sender needs news: marks, holes, ends of messages. */
	if ((pkt->flags & MR_F_AR) || ce || pkt->psn != old_cack || adv > 1 ||
	    mr_rxwin_ooo(&c->rx)) {
		c->ack_now = true;
		return;
	}
	if (++c->unacked >= MR_ACK_EVERY)
		c->ack_now = true;
	else if (!c->ack_due_ns)
		c->ack_due_ns = now + MR_ACK_DELAY_NS;
}

/* RMSN rmsn is delivered: the lowest one not delivered may move on. */
static void mr_conn_rmsn_done(struct mr_conn *c, u32 rmsn)
{
	u64 *w = &c->rmsn_early[rmsn % MR_RMSN_WIN / 64];

	if (rmsn - c->rmsn_una >= MR_RMSN_WIN)
		return;	/* refused on arrival */
	*w |= 1ULL << (rmsn % 64);
	for (;;) {
		w = &c->rmsn_early[c->rmsn_una % MR_RMSN_WIN / 64];
		if (!(*w & (1ULL << (c->rmsn_una % 64))))
			break;
		*w &= ~(1ULL << (c->rmsn_una % 64));
		c->rmsn_una++;
	}
}

bool mr_conn_deliver(struct mr_conn *c, struct mr_rx_done *d)
{
	unsigned int k, n = c->cfg.n_streams;

	if (c->cfg.uc)
		return mr_uc_deliver(c, d);
	for (k = 0; k < n; k++) {
		unsigned int s = (c->deliver_rr + k) % n;
		const struct mr_rmsg *info;
		u32 msn, mlen;

		/* READs are answered here, in stream order, as far as the send queue has room. */
		while (mr_stream_peek(&c->rs[s].st, &msn)) {
			info = &c->rs[s].info[msn % MR_STREAM_WIN];
			if (info->opcode != MR_OP_READ_REQ || mr_conn_rq_full(c))
				break;
			mr_stream_deliver(&c->rs[s].st, &msn, &mlen);
			mr_conn_queue_resp(c, s, msn, info);
		}
		if (!mr_stream_peek(&c->rs[s].st, &msn))
			continue;
		info = &c->rs[s].info[msn % MR_STREAM_WIN];
		if (info->opcode == MR_OP_READ_REQ)
			continue;	/* the response ring is full */
		memset(d, 0, sizeof(*d));
		/* An atomic's response slot is reserved now; the host fills in the result. */
		if (mr_op_is_atomic(info->opcode)) {
			if (mr_conn_rq_full(c))
				continue;
			d->resp_slot = mr_conn_queue_resp(c, s, msn, info);
			d->va = info->va;
			d->rkey = info->rkey;
			d->swap_add = info->swap_add;
			d->compare = info->compare;
		}
		mr_stream_deliver(&c->rs[s].st, &msn, &mlen);
		if (mr_op_uses_rwqe(info->opcode))
			mr_conn_rmsn_done(c, info->rmsn);
		d->opcode = info->opcode;
		d->se = info->se;
		d->rmsn = info->rmsn;
		d->imm_inv = info->imm_inv;
		d->stream = s;
		d->msn = msn;
		d->mlen = mr_op_is_atomic(info->opcode) ? 8 : mlen;
		c->deliver_rr = (s + 1) % n;
		return true;
	}
	return false;
}

bool mr_conn_ack_due(const struct mr_conn *c, u64 now)
{
	return c->ack_now || (c->ack_due_ns && now >= c->ack_due_ns);
}

void mr_conn_build_ack(struct mr_conn *c, u64 now, struct mr_pkt *ack)
{
	u64 delay_us = div_u64(now - c->echo_arrival_ns, MR_NSEC_PER_USEC);

	memset(ack, 0, sizeof(*ack));
	ack->opcode = MR_OP_ACK;
	ack->dqpn = c->cfg.peer_qpn;
	ack->ctok = c->cfg.local_ctok;	/* the acknowledged direction's token */
	ack->hdrlen = MR_HDR_ACK;
	/*
	 * Back on the echoed packet's path number, or the next of ours that is up, so that
	 * the sender's verdict on a path covers our route too (spec, "ACK generation"); a
	 * spread goes on each in turn.
	 */
	if (c->ack_copies) {
		ack->path = c->ack_rr;
		c->ack_rr = (c->ack_rr + 1) % c->cfg.n_paths;
	} else {
		ack->path = mr_paths_pick_ack(&c->paths, c->echo_path);
	}
	ack->ack.cack = c->rx.cack;
	ack->ack.echo_psn = c->echo_psn;
	ack->ack.echo_path = c->echo_path;
	ack->ack.echo_flags = c->echo_flags;
	ack->ack.rx_seg = c->cfg.rx_seg;
	ack->ack.ack_delay = min_t(u64, delay_us, 0xffff);
	ack->ack.ce_cnt = c->ce_cnt;
	ack->ack.rx_cnt = c->rx_cnt;
	if (c->cfg.share)
		c->rate_hint = mr_share_hint(c->cfg.share, now);
	ack->ack.rate_hint = c->rate_hint;
	mr_rxwin_sack(&c->rx, ack->ack.sack);

	c->ack_now = false;
	c->ack_due_ns = 0;
	c->unacked = 0;
	c->stats.acks_sent++;
	if (c->ack_copies && --c->ack_copies)
		c->ack_now = true;
}

u64 mr_conn_firm_deadline(const struct mr_conn *c)
{
	u32 wnd = mr_cc_window(&c->cc, c->paths.conn.srtt);
	u64 d;

	if (c->failed)
		return U64_MAX;
	if (c->ack_now)
		return 0;
	d = mr_txwin_reo_deadline(&c->tx);
	if (c->ack_due_ns)
		d = min_t(u64, d, c->ack_due_ns);
	if (c->cfg.uc)
		d = min_t(u64, d, mr_uc_deadline(c));
	if (c->probe_pending || c->rsp_probe_pending || c->rto_copies ||
	    (c->tx.in_flight < wnd && (c->tx.nlost || mr_conn_has_new(c))))
		d = min_t(u64, d, c->next_tx_ns);
	return d;
}

u64 mr_conn_deadline_window(const struct mr_conn *c, u64 now, u64 slack_ns, u64 *latest)
{
	u64 firm, d;

	*latest = U64_MAX;
	if (c->failed)
		return U64_MAX;
	firm = mr_conn_firm_deadline(c);
	d = min_t(u64, mr_txwin_timeout(&c->tx, mr_conn_pto(c), mr_conn_rto(c)),
		  mr_conn_rsp_deadline(c));
	d = min_t(u64, d, firm);
	*latest = d;
	if (d != U64_MAX && slack_ns && mr_conn_loss_quiet(c, now))
		*latest = min_t(u64, firm, d + slack_ns);
	return d;
}

u64 mr_conn_deadline(const struct mr_conn *c)
{
	u64 latest;

	return mr_conn_deadline_window(c, 0, 0, &latest);
}

bool mr_conn_loss_quiet(const struct mr_conn *c, u64 now)
{
	return !c->lost_any || now >= c->lost_ns + MR_LOSS_QUIET_NS;
}

void mr_conn_timer(struct mr_conn *c, u64 now)
{
	struct mr_conn_ev ev = { .c = c, .now = now };
	u32 psn;

	if (c->failed)
		return;
	switch (mr_txwin_timer(&c->tx, now, mr_conn_pto(c), mr_conn_rto(c), mr_conn_lost_rto,
			       &ev, &psn)) {
	case MR_TMR_REORDER:
		mr_txwin_detect(&c->tx, now, mr_paths_reo_wnd(&c->paths), mr_conn_stalled(c),
				mr_conn_lost, &ev);
		break;
	case MR_TMR_TLP:
		/* UC resends nothing: the RTO or later ACKs end what the tail lost. */
		c->probe_pending = !c->cfg.uc;
		c->probe_psn = psn;
		break;
	case MR_TMR_RTO:
		mr_conn_check_blackhole(c, now);
		mr_cc_on_rto(&c->cc, c->tx.retries == 1);
		mr_paths_on_rto(&c->paths, now, ev.rto_paths);
		if (!c->cfg.uc)
			c->rto_copies = min_t(u8, MR_RTO_COPIES, c->cfg.n_paths) - 1;
		break;
	case MR_TMR_FAILED:
		mr_conn_fail(c, MR_WC_RETRY_EXC);
		break;
	case MR_TMR_NONE:
		break;
	}
	if (!c->failed)
		mr_conn_rsp_timer(c, now);
	if (c->cfg.uc) {
		mr_txwin_forget_lost(&c->tx);
		mr_uc_timer(c, now);
	}
	if (c->ack_due_ns && now >= c->ack_due_ns)
		c->ack_now = true;
}

void mr_conn_start_tx(struct mr_conn *c, u32 tx_isn, u32 peer_ctok, u8 retry_cnt, u8 rnr_retry,
		      u8 max_rd_atomic)
{
	c->cfg.retry_cnt = min_t(u8, retry_cnt, 7);
	c->cfg.rnr_retry = min_t(u8, rnr_retry, 7);
	c->cfg.max_rd_atomic = max_rd_atomic;
	c->tx_resp_only = false;
	/* Responses went out from the derived PSN: the peer re-based on it, keep it. */
	if (c->tx_disn) {
		c->tx.retry_limit = c->cfg.retry_cnt;
		return;
	}
	c->cfg.tx_isn = tx_isn;
	c->cfg.peer_ctok = peer_ctok;
	mr_txwin_init(&c->tx, tx_isn, c->cfg.uc ? U8_MAX : c->cfg.retry_cnt);
	c->tx_idle = false;
}

void mr_conn_set_fail_time(struct mr_conn *c, u64 fail_min_ns)
{
	c->tx.fail_min_ns = fail_min_ns;
}

u32 mr_ctok_derive(u32 rcv_qpn, u32 snd_qpn, u32 snd_isn)
{
	u8 b[12];
	u32 tok;

	mr_put_be32(rcv_qpn, b);
	mr_put_be32(snd_qpn, b + 4);
	mr_put_be32(snd_isn, b + 8);
	tok = ~mr_crc32c(~0U, b, sizeof(b));
	return tok ? tok : 1;
}
