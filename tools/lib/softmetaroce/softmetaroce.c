// SPDX-License-Identifier: GPL-2.0
/*
 * libsoftmetaroce message API: memory regions, queues, placement and completions around
 * one struct mr_conn. Every protocol decision (segmentation, windows, loss recovery,
 * ACKs, ordering, READ and atomic responses) is the core's; this file only does what
 * conn.h leaves to the host.
 */
#include <stdlib.h>
#include "softmetaroce.h"
#include "conn.h"

#define SMR_CTLQ	8	/* NAKs waiting to be sent */

_Static_assert(SMR_PKT_MAX == MR_HDR_MAX + MR_MAX_PAYLOAD + MR_ICRC_LEN, "SMR_PKT_MAX");
_Static_assert(SMR_SQ_DEPTH == MR_SENDQ_DEPTH, "SMR_SQ_DEPTH");
_Static_assert((SMR_RQ_DEPTH & (SMR_RQ_DEPTH - 1)) == 0, "SMR_RQ_DEPTH");
_Static_assert(SMR_MAX_MR <= 256, "rkey slot is 8 bits");
_Static_assert((int)SMR_WC_FLUSH == (int)MR_WC_FLUSH && (int)SMR_WC_REM_OP == (int)MR_WC_REM_OP &&
	       (int)SMR_WC_RETRY_EXC == (int)MR_WC_RETRY_EXC, "status values follow the core's");

struct smr_mr {
	u8	*buf;
	u64	va;
	u64	len;
	u32	rkey;		/* 0: free */
	unsigned int access;
};

struct smr_swqe {
	u64	wr_id;
	u8	*local;
	u32	len;
	enum smr_opcode opcode;
	bool	used;
};

enum smr_rwqe_state { SMR_RWQE_FREE, SMR_RWQE_POSTED, SMR_RWQE_DONE };

struct smr_rwqe {
	u64	wr_id;
	u8	*buf;
	u32	len;
	enum smr_rwqe_state state;
};

struct smr_ep {
	struct smr_cfg cfg;
	struct mr_conn *c;
	struct smr_mr mr[SMR_MAX_MR];
	u32	mr_gen;

	struct smr_swqe sq[SMR_SQ_DEPTH];	/* indexed by the core's cookie */
	u32	sq_free[SMR_SQ_DEPTH];		/* stack of free slots */
	u32	sq_nfree;

	/* receive WQEs by rmsn: the peer numbers the messages that consume one */
	struct smr_rwqe rq[SMR_RQ_DEPTH];
	u32	rq_head;	/* rmsn of the next receive to post */
	u32	rq_tail;	/* oldest rmsn not yet polled */
	struct smr_wc rcq[SMR_RQ_DEPTH];	/* receive completions not yet polled */
	u32	rcq_rmsn[SMR_RQ_DEPTH];
	u32	rcq_head, rcq_tail;

	struct mr_pkt ctl[SMR_CTLQ];	/* NAKs to send */
	u32	ctl_head, ctl_tail;

	struct smr_stats stats;
};

struct smr_ep *smr_ep_create(const struct smr_cfg *cfg)
{
	struct mr_conn_cfg cc = {
		.peer_qpn = cfg->peer_qpn, .peer_ctok = cfg->peer_ctok,
		.local_ctok = cfg->local_ctok, .tx_isn = cfg->tx_isn, .rx_isn = cfg->rx_isn,
		.mtu = cfg->mtu, .n_paths = cfg->n_paths, .peer_paths = cfg->peer_paths,
		.n_streams = cfg->n_streams, .retry_cnt = cfg->retry_cnt,
		.rnr_retry = cfg->rnr_retry, .max_rd_atomic = cfg->max_rd_atomic,
	};
	struct smr_ep *ep;
	u32 i;

	if (!cfg->n_streams || cfg->n_streams > MR_MAX_STREAMS)
		return NULL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return NULL;
	ep->c = calloc(1, mr_conn_size(cfg->n_streams));
	if (!ep->c || mr_conn_init(ep->c, &cc)) {
		free(ep->c);
		free(ep);
		return NULL;
	}
	ep->cfg = *cfg;
	for (i = 0; i < SMR_SQ_DEPTH; i++)
		ep->sq_free[i] = SMR_SQ_DEPTH - 1 - i;
	ep->sq_nfree = SMR_SQ_DEPTH;
	return ep;
}

void smr_ep_destroy(struct smr_ep *ep)
{
	if (!ep)
		return;
	free(ep->c);
	free(ep);
}

int smr_reg_mr(struct smr_ep *ep, void *buf, uint64_t va, uint64_t len, unsigned int access,
	       uint32_t *rkey)
{
	u32 i;

	if ((!buf && len) || va + len < va ||
	    (access & ~(SMR_ACCESS_REMOTE_WRITE | SMR_ACCESS_REMOTE_READ |
			SMR_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	for (i = 0; i < SMR_MAX_MR; i++) {
		struct smr_mr *m = &ep->mr[i];

		if (m->rkey)
			continue;
		m->buf = buf;
		m->va = va;
		m->len = len;
		m->access = access;
		/* slot in the low byte, a generation above it: a stale rkey never matches */
		ep->mr_gen = (ep->mr_gen + 1) & 0xffffff;
		if (!ep->mr_gen)
			ep->mr_gen = 1;
		m->rkey = ep->mr_gen << 8 | i;
		*rkey = m->rkey;
		return 0;
	}
	return -ENOSPC;
}

static struct smr_mr *smr_mr_find(struct smr_ep *ep, u32 rkey)
{
	struct smr_mr *m = &ep->mr[(rkey & 0xff) % SMR_MAX_MR];

	return rkey && m->rkey == rkey ? m : NULL;
}

int smr_dereg_mr(struct smr_ep *ep, uint32_t rkey)
{
	struct smr_mr *m = smr_mr_find(ep, rkey);

	if (!m)
		return -ENOENT;
	memset(m, 0, sizeof(*m));
	return 0;
}

/* The bytes at remote address va .. va + len - 1 of rkey, if access allows; else NULL. */
static u8 *smr_mr_range(struct smr_ep *ep, u32 rkey, u64 va, u64 len, unsigned int access)
{
	struct smr_mr *m = smr_mr_find(ep, rkey);

	if (!m || (m->access & access) != access || va < m->va || len > m->len ||
	    va - m->va > m->len - len)
		return NULL;
	return m->buf + (va - m->va);
}

static u8 smr_core_opcode(enum smr_opcode op)
{
	switch (op) {
	case SMR_OP_SEND:
		return MR_OP_SEND;
	case SMR_OP_SEND_IMM:
		return MR_OP_SEND_IMM;
	case SMR_OP_SEND_INV:
		return MR_OP_SEND_INV;
	case SMR_OP_WRITE:
		return MR_OP_WRITE;
	case SMR_OP_WRITE_IMM:
		return MR_OP_WRITE_IMM;
	case SMR_OP_READ:
		return MR_OP_READ_REQ;
	case SMR_OP_CMP_SWAP:
		return MR_OP_CMP_SWAP;
	case SMR_OP_FETCH_ADD:
		return MR_OP_FETCH_ADD;
	default:
		return 0;
	}
}

int smr_post_send(struct smr_ep *ep, const struct smr_send_wr *wr)
{
	u8 op = smr_core_opcode(wr->opcode);
	bool atomic = op == MR_OP_CMP_SWAP || op == MR_OP_FETCH_ADD;
	struct mr_send_wr w = {
		.opcode = op, .stream = wr->stream, .solicited = wr->solicited,
		.len = wr->length, .va = wr->remote_addr, .rkey = wr->rkey,
	};
	u32 slot;
	int err;

	if (!op)
		return -EOPNOTSUPP;
	if (wr->length && !wr->local)
		return -EINVAL;
	if (!ep->sq_nfree)
		return -ENOSPC;
	if (op == MR_OP_SEND_IMM || op == MR_OP_WRITE_IMM)
		w.imm_inv = wr->imm_data;
	else if (op == MR_OP_SEND_INV)
		w.imm_inv = wr->invalidate_rkey;
	if (op == MR_OP_CMP_SWAP) {
		w.compare = wr->compare_add;
		w.swap_add = wr->swap;
	} else if (atomic) {
		w.swap_add = wr->compare_add;
	}
	slot = ep->sq_free[ep->sq_nfree - 1];
	w.cookie = slot;
	err = mr_conn_post(ep->c, &w);
	if (err)
		return err;
	ep->sq_nfree--;
	ep->sq[slot] = (struct smr_swqe){
		.wr_id = wr->wr_id, .local = wr->local, .len = wr->length,
		.opcode = wr->opcode, .used = true,
	};
	return 0;
}

int smr_post_recv(struct smr_ep *ep, uint64_t wr_id, void *buf, uint32_t len)
{
	struct smr_rwqe *r;

	if (len && !buf)
		return -EINVAL;
	if (ep->rq_head - ep->rq_tail >= SMR_RQ_DEPTH)
		return -ENOSPC;
	r = &ep->rq[ep->rq_head % SMR_RQ_DEPTH];
	*r = (struct smr_rwqe){ .wr_id = wr_id, .buf = buf, .len = len,
				.state = SMR_RWQE_POSTED };
	ep->rq_head++;
	return 0;
}

/* The receive WQE the peer's message rmsn consumes, if it has been posted. */
static struct smr_rwqe *smr_rwqe(struct smr_ep *ep, u32 rmsn)
{
	struct smr_rwqe *r = &ep->rq[rmsn % SMR_RQ_DEPTH];

	if (rmsn - ep->rq_tail >= ep->rq_head - ep->rq_tail || r->state != SMR_RWQE_POSTED)
		return NULL;
	return r;
}

static void smr_ctl_push(struct smr_ep *ep, const struct mr_pkt *nak)
{
	if (ep->ctl_head - ep->ctl_tail >= SMR_CTLQ) {
		ep->stats.nak_dropped++;	/* the peer retransmits; we refuse again */
		return;
	}
	ep->ctl[ep->ctl_head++ % SMR_CTLQ] = *nak;
}

/* Encode h, append paylen bytes of payload (NULL: zeros) and the ICRC into out. */
static void smr_frame(const struct mr_pkt *h, const u8 *payload, struct smr_pkt *out)
{
	u32 hl = mr_pkt_encode(h, out->data, sizeof(out->data));

	if (h->paylen) {
		if (payload)
			memcpy(out->data + hl, payload, h->paylen);
		else
			memset(out->data + hl, 0, h->paylen);
	}
	mr_pkt_icrc_put(out->data, hl + h->paylen);
	out->len = hl + h->paylen + MR_ICRC_LEN;
	out->path = h->path;
}

/* A READ or atomic accepted earlier cannot be executed: its region went away since. */
static void smr_refuse_resp(struct smr_ep *ep, u32 resp_slot)
{
	struct mr_pkt nak;

	mr_conn_refuse_resp(ep->c, resp_slot, MR_NAK_REM_ACCESS, &nak);
	ep->stats.rx_refused++;
	/* No retransmission of the acknowledged request asks again: once on every path. */
	for (nak.path = 0; nak.path < ep->cfg.n_paths; nak.path++)
		smr_ctl_push(ep, &nak);
}

bool smr_tx(struct smr_ep *ep, uint64_t now, struct smr_pkt *out)
{
	struct mr_tx_pkt tp;
	const u8 *payload = NULL;

	if (ep->ctl_head != ep->ctl_tail) {
		smr_frame(&ep->ctl[ep->ctl_tail++ % SMR_CTLQ], NULL, out);
		return true;
	}
	if (mr_conn_ack_due(ep->c, now)) {
		struct mr_pkt ack;

		mr_conn_build_ack(ep->c, now, &ack);
		smr_frame(&ack, NULL, out);
		return true;
	}
	if (!mr_conn_tx(ep->c, now, &tp))
		return false;
	if (tp.hdr.opcode == MR_OP_READ_RESP) {
		/* Checked when the READ arrived; the region may have been deregistered since. */
		payload = smr_mr_range(ep, tp.src_rkey, tp.src_va, tp.hdr.paylen,
				       SMR_ACCESS_REMOTE_READ);
		if (!payload) {
			smr_refuse_resp(ep, tp.resp_slot);
			return smr_tx(ep, now, out);	/* the NAK; the connection failed */
		}
	} else if (tp.hdr.paylen) {
		const struct smr_swqe *s = &ep->sq[tp.cookie % SMR_SQ_DEPTH];

		payload = s->local + tp.moff;
	}
	smr_frame(&tp.hdr, payload, out);
	return true;
}

/*
 * Check and place a new data packet. Returns 0, or the NAK syndrome with which the
 * endpoint refuses it.
 */
static u8 smr_place(struct smr_ep *ep, const struct mr_pkt *pkt, const u8 *payload,
		    const struct mr_rx_res *res)
{
	struct smr_swqe *s;
	struct smr_rwqe *r;
	u8 *dst;

	switch (pkt->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		r = smr_rwqe(ep, pkt->send.rmsn);
		if (!r)
			return MR_NAK_RNR;
		if (pkt->mlen > r->len)
			return MR_NAK_INV_REQ;	/* the receive buffer is too short */
		if (pkt->paylen)
			memcpy(r->buf + pkt->moff, payload, pkt->paylen);
		return 0;
	case MR_OP_WRITE_IMM:
		if (!smr_rwqe(ep, pkt->write.rmsn))
			return MR_NAK_RNR;
		fallthrough;
	case MR_OP_WRITE:
		dst = smr_mr_range(ep, pkt->write.rkey, pkt->write.va, pkt->paylen,
				   SMR_ACCESS_REMOTE_WRITE);
		if (!dst && pkt->mlen)
			return MR_NAK_REM_ACCESS;
		if (pkt->paylen)
			memcpy(dst, payload, pkt->paylen);
		return 0;
	case MR_OP_READ_REQ:
		/* nothing to write: the whole range must be readable */
		if (pkt->mlen && !smr_mr_range(ep, pkt->rreq.rkey, pkt->rreq.va, pkt->mlen,
					       SMR_ACCESS_REMOTE_READ))
			return MR_NAK_REM_ACCESS;
		return 0;
	case MR_OP_CMP_SWAP:
	case MR_OP_FETCH_ADD:
		/* performed at delivery, in stream order */
		if (!smr_mr_range(ep, pkt->atomic.rkey, pkt->atomic.va, 8,
				  SMR_ACCESS_REMOTE_ATOMIC))
			return MR_NAK_REM_ACCESS;
		return 0;
	case MR_OP_READ_RESP:
		/* the core matched it to our READ and checked it fits the length we asked */
		s = &ep->sq[res->cookie % SMR_SQ_DEPTH];
		if (pkt->paylen)
			memcpy(s->local + pkt->moff, payload, pkt->paylen);
		return 0;
	case MR_OP_ATOMIC_RESP:
		s = &ep->sq[res->cookie % SMR_SQ_DEPTH];
		memcpy(s->local, &pkt->orig, 8);
		return 0;
	default:
		return MR_NAK_INV_REQ;
	}
}

static void smr_recv_done(struct smr_ep *ep, const struct mr_rx_done *d, enum smr_opcode op)
{
	struct smr_rwqe *r = smr_rwqe(ep, d->rmsn);
	struct smr_wc *wc;

	if (!r)
		return;	/* cannot happen: every packet of the message found it posted */
	r->state = SMR_RWQE_DONE;
	wc = &ep->rcq[ep->rcq_head % SMR_RQ_DEPTH];
	*wc = (struct smr_wc){
		.wr_id = r->wr_id, .status = SMR_WC_SUCCESS, .opcode = op, .byte_len = d->mlen,
		.recv = true,
	};
	if (op == SMR_OP_RECV_INV)
		wc->invalidated = d->imm_inv;
	else if (op != SMR_OP_RECV)
		wc->imm_data = d->imm_inv;
	ep->rcq_rmsn[ep->rcq_head % SMR_RQ_DEPTH] = d->rmsn;
	ep->rcq_head++;
}

static void smr_atomic(struct smr_ep *ep, const struct mr_rx_done *d)
{
	u8 *p = smr_mr_range(ep, d->rkey, d->va, 8, SMR_ACCESS_REMOTE_ATOMIC);
	u64 old, new;

	if (!p) {
		/* Checked on arrival; the region was deregistered before it executed. */
		smr_refuse_resp(ep, d->resp_slot);
		return;
	}
	memcpy(&old, p, 8);
	if (d->opcode == MR_OP_FETCH_ADD)
		new = old + d->swap_add;
	else
		new = old == d->compare ? d->swap_add : old;
	memcpy(p, &new, 8);
	mr_conn_atomic_result(ep->c, d->resp_slot, old);
}

/* Messages of the peer that completed, in stream order. */
static void smr_deliver(struct smr_ep *ep)
{
	struct mr_rx_done d;

	while (mr_conn_deliver(ep->c, &d)) {
		switch (d.opcode) {
		case MR_OP_SEND:
			smr_recv_done(ep, &d, SMR_OP_RECV);
			break;
		case MR_OP_SEND_IMM:
			smr_recv_done(ep, &d, SMR_OP_RECV_IMM);
			break;
		case MR_OP_SEND_INV:
			smr_dereg_mr(ep, d.imm_inv);
			smr_recv_done(ep, &d, SMR_OP_RECV_INV);
			break;
		case MR_OP_WRITE_IMM:
			smr_recv_done(ep, &d, SMR_OP_RECV_WRITE_IMM);
			break;
		case MR_OP_CMP_SWAP:
		case MR_OP_FETCH_ADD:
			smr_atomic(ep, &d);
			break;
		default:	/* WRITE: in place, nothing to report */
			break;
		}
	}
}

int smr_rx(struct smr_ep *ep, uint64_t now, const void *buf, uint32_t len, bool ce)
{
	struct mr_rx_res res;
	struct mr_pkt pkt, nak;
	int ret = 0;
	u8 syn;

	if (!mr_pkt_icrc_ok(buf, len)) {
		ep->stats.rx_bad_crc++;
		return -EBADMSG;
	}
	if (mr_pkt_decode(buf, len, &pkt) != MR_PERR_OK) {
		ep->stats.rx_bad_hdr++;
		return -EBADMSG;
	}
	switch (mr_conn_rx(ep->c, now, &pkt, ce, &res)) {
	case MR_RXC_PLACE:
		syn = smr_place(ep, &pkt, (const u8 *)buf + pkt.hdrlen, &res);
		if (syn) {
			/* Not committed, so not acknowledged: RNR is retried, the rest fail. */
			mr_conn_refuse(ep->c, &pkt, syn, syn == MR_NAK_RNR ? ep->cfg.rnr_delay : 0,
				       &nak);
			smr_ctl_push(ep, &nak);
			ep->stats.rx_refused++;
			ret = -EPERM;
			break;
		}
		mr_conn_rx_commit(ep->c, now, &pkt, ce);
		break;
	case MR_RXC_FATAL:
		smr_ctl_push(ep, &res.nak);
		ret = -EPROTO;
		break;
	case MR_RXC_DROP:
		ret = -EPERM;
		break;
	default:	/* DUP, DONE */
		break;
	}
	smr_deliver(ep);
	return ret;
}

uint64_t smr_deadline(const struct smr_ep *ep)
{
	if (ep->ctl_head != ep->ctl_tail)
		return 0;
	return mr_conn_deadline(ep->c);
}

void smr_timer(struct smr_ep *ep, uint64_t now)
{
	if (mr_conn_deadline(ep->c) <= now)
		mr_conn_timer(ep->c, now);
}

int smr_poll(struct smr_ep *ep, struct smr_wc *wc, int n)
{
	enum mr_wc_status st;
	int k = 0;
	u64 cookie;

	while (k < n && ep->rcq_tail != ep->rcq_head) {
		u32 i = ep->rcq_tail++ % SMR_RQ_DEPTH;

		wc[k++] = ep->rcq[i];
		ep->rq[ep->rcq_rmsn[i] % SMR_RQ_DEPTH].state = SMR_RWQE_FREE;
		/* receive WQEs free in rmsn order; one completed early waits for the older */
		while (ep->rq_tail != ep->rq_head &&
		       ep->rq[ep->rq_tail % SMR_RQ_DEPTH].state == SMR_RWQE_FREE)
			ep->rq_tail++;
	}
	while (k < n && mr_conn_poll_send(ep->c, &cookie, &st)) {
		struct smr_swqe *s = &ep->sq[cookie % SMR_SQ_DEPTH];

		wc[k++] = (struct smr_wc){
			.wr_id = s->wr_id, .status = (enum smr_wc_status)st, .opcode = s->opcode,
			.byte_len = st == MR_WC_SUCCESS ? s->len : 0,
		};
		s->used = false;
		ep->sq_free[ep->sq_nfree++] = cookie % SMR_SQ_DEPTH;
	}
	return k;
}

bool smr_failed(const struct smr_ep *ep)
{
	return ep->c->failed;
}

void smr_get_stats(const struct smr_ep *ep, struct smr_stats *st)
{
	*st = ep->stats;
}
