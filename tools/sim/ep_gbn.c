// SPDX-License-Identifier: GPL-2.0
/*
 * A go-back-N model of RoCEv2 as rxe implements it, for comparison.
 *
 * One path: the UDP source port is fixed per QP (rxe derives it from a hash of the QP
 * number), so ECMP puts the whole flow on one spine. The requester sends PSNs in order,
 * at most SIM_GBN_WINDOW unacknowledged (the MetaRoCE window, for a like-for-like figure;
 * rxe itself stops at 128), with AckReq on the last packet of each message and every
 * 64th packet (RXE_MAX_PKT_PER_ACK). The responder accepts only the expected PSN: on the
 * first later PSN it sends one NAK (PSN sequence error) and drops silently until the
 * expected PSN arrives; a duplicate is dropped and re-acknowledged. The requester goes
 * back to the NAKed PSN and resends everything from there. A lost NAK or tail is only
 * recovered by the local ACK timeout: 4.096 us * 2^timeout, timeout = 14 by default
 * (perftest's default; 67 ms), retry_cnt 7; NAKs and timeouts both use up retries, any
 * progress restores them. No congestion control: rxe has none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

#define SIM_GBN_WINDOW		256
#define SIM_GBN_MTU		4096
#define SIM_GBN_ACK_EVERY	64
#define SIM_GBN_RETRY		7
/* RoCEv2 headers beyond the UDP frame: BTH, RETH (first packet of a WRITE), AETH, ICRC */
#define SIM_BTH_LEN		12
#define SIM_RETH_LEN		16
#define SIM_AETH_LEN		4
#define SIM_ICRC_LEN		4

enum { GBN_DATA, GBN_ACK, GBN_NAK };

struct gbn_hdr {
	uint8_t		op;
	bool		ackreq;
	bool		last;		/* of its message */
	uint32_t	psn;		/* DATA: its PSN; ACK: last in order; NAK: expected */
	uint64_t	off;		/* DATA: offset in the flow's region */
	uint32_t	paylen;
};

struct sim_gbn_ep {
	struct sim_ep	e;
	/* requester */
	uint32_t	una, nxt, max_sent;
	uint32_t	retry;
	uint64_t	rto_at;
	/* responder */
	uint32_t	epsn;
	bool		nak_sent;
	int		pending;	/* -1: nothing; else GBN_ACK or GBN_NAK */
	uint32_t	pending_psn;
};

static struct sim_gbn_ep *gbn_ep(struct sim_ep *e)
{
	return (struct sim_gbn_ep *)e;
}

static uint32_t pkts_per_msg(const struct sim_flow *f)
{
	return f->msg_len ? (f->msg_len + SIM_GBN_MTU - 1) / SIM_GBN_MTU : 1;
}

static struct sim_pkt *gbn_data(struct sim *s, struct sim_gbn_ep *g)
{
	struct sim_flow *f = g->e.flow;
	uint32_t ppm = pkts_per_msg(f), msg = g->nxt / ppm, k = g->nxt % ppm;
	struct sim_pkt *p = sim_pkt_alloc(s);
	struct gbn_hdr h = {
		.op = GBN_DATA, .psn = g->nxt, .last = k == ppm - 1,
		.off = (uint64_t)msg * f->msg_len + (uint64_t)k * SIM_GBN_MTU,
	};

	h.paylen = k == ppm - 1 ? f->msg_len - k * SIM_GBN_MTU : SIM_GBN_MTU;
	h.ackreq = h.last || (g->nxt + 1) % SIM_GBN_ACK_EVERY == 0;
	memcpy(p->data, &h, sizeof(h));
	sim_flow_fill(f, h.off, p->data + sizeof(h), h.paylen);
	p->len = sizeof(h) + h.paylen;
	sim_ep_frame(&g->e, p, g->e.sport_base, 0);
	p->wire = h.paylen + SIM_BTH_LEN + (k ? 0 : SIM_RETH_LEN) + SIM_ICRC_LEN +
		  SIM_FRAME_OVERHEAD;
	f->data_pkts++;
	if (g->nxt < g->max_sent)
		f->retx++;
	g->nxt++;
	if (g->nxt > g->max_sent)
		g->max_sent = g->nxt;
	if (g->rto_at == SIM_NEVER)
		g->rto_at = s->now + s->cfg.gbn_rto_ns;
	return p;
}

static struct sim_pkt *gbn_pull(struct sim *s, struct sim_ep *e, bool ctl)
{
	struct sim_gbn_ep *g = gbn_ep(e);
	struct sim_flow *f = e->flow;
	struct sim_pkt *p;

	if (!e->sender) {
		struct gbn_hdr h = { .op = (uint8_t)g->pending, .psn = g->pending_psn };

		if (g->pending < 0)
			return NULL;
		g->pending = -1;
		p = sim_pkt_alloc(s);
		memcpy(p->data, &h, sizeof(h));
		p->len = sizeof(h);
		sim_ep_frame(e, p, e->sport_base, 0);
		p->wire = SIM_BTH_LEN + SIM_AETH_LEN + SIM_ICRC_LEN + SIM_FRAME_OVERHEAD;
		return p;
	}
	if (ctl || f->failed)
		return NULL;
	while (sim_flow_may_post(s, f))
		f->posted++;
	if (g->nxt - g->una >= SIM_GBN_WINDOW || g->nxt >= f->posted * pkts_per_msg(f))
		return NULL;
	return gbn_data(s, g);
}

/* Everything before psn is acknowledged. */
static void gbn_acked(struct sim *s, struct sim_gbn_ep *g, uint32_t psn)
{
	struct sim_flow *f = g->e.flow;
	uint32_t ppm = pkts_per_msg(f);

	if (psn <= g->una)
		return;
	g->una = psn;
	if (g->nxt < psn)
		g->nxt = psn;
	g->retry = 0;
	while (f->completed < f->posted && (f->completed + 1) * ppm <= psn)
		sim_flow_complete(s, f, f->completed);
	g->rto_at = g->una < g->max_sent ? s->now + s->cfg.gbn_rto_ns : SIM_NEVER;
}

static void gbn_retry(struct sim *s, struct sim_gbn_ep *g)
{
	if (++g->retry > SIM_GBN_RETRY) {
		sim_flow_fail(s, g->e.flow);
		g->rto_at = SIM_NEVER;
		return;
	}
	g->nxt = g->una;
	g->rto_at = s->now + s->cfg.gbn_rto_ns;
}

static void gbn_rx(struct sim *s, struct sim_ep *e, struct sim_pkt *p)
{
	struct sim_gbn_ep *g = gbn_ep(e);
	struct sim_flow *f = e->flow;
	struct gbn_hdr h;

	memcpy(&h, p->data, sizeof(h));
	if (e->sender) {
		if (f->failed)
			return;
		gbn_acked(s, g, h.psn + (h.op == GBN_ACK));
		if (h.op == GBN_NAK && h.psn < g->max_sent)
			gbn_retry(s, g);
		return;
	}
	if (h.psn == g->epsn) {
		sim_flow_place(f, h.off, p->data + sizeof(h), h.paylen);
		g->epsn++;
		g->nak_sent = false;
		if (h.last)
			sim_flow_delivered(s, f);
		if (h.ackreq) {
			g->pending = GBN_ACK;
			g->pending_psn = h.psn;
		}
	} else if (h.psn > g->epsn) {
		if (!g->nak_sent) {
			g->nak_sent = true;
			g->pending = GBN_NAK;
			g->pending_psn = g->epsn;
		}
	} else {
		/* its original was delivered: a spurious retransmission */
		f->spurious++;
		g->pending = GBN_ACK;
		g->pending_psn = g->epsn - 1;
	}
}

static uint64_t gbn_deadline(struct sim_ep *e)
{
	return e->sender ? gbn_ep(e)->rto_at : SIM_NEVER;
}

static void gbn_timer(struct sim *s, struct sim_ep *e)
{
	struct sim_gbn_ep *g = gbn_ep(e);

	if (!e->sender || g->rto_at > s->now)
		return;
	e->flow->rto++;
	gbn_retry(s, g);
}

static void gbn_destroy(struct sim_ep *e)
{
	free(e);
}

static const struct sim_ep_ops gbn_ops = {
	.pull = gbn_pull,
	.rx = gbn_rx,
	.deadline = gbn_deadline,
	.timer = gbn_timer,
	.destroy = gbn_destroy,
};

static void gbn_ep_new(struct sim *s, struct sim_flow *f, bool sender)
{
	struct sim_gbn_ep *g = calloc(1, sizeof(*g));

	if (!g) {
		perror("metaroce-sim");
		exit(2);
	}
	g->e.ops = &gbn_ops;
	g->e.flow = f;
	g->e.sender = sender;
	g->e.host = sender ? f->src : f->dst;
	g->e.peer = sender ? f->dst : f->src;
	g->e.sport_base = 49152 + sim_rand(s) % 16384;
	g->rto_at = SIM_NEVER;
	g->pending = -1;
	f->ep[!sender] = &g->e;
	sim_host_add(s, &g->e);
}

void sim_gbn_attach(struct sim *s, struct sim_flow *f)
{
	gbn_ep_new(s, f, true);
	gbn_ep_new(s, f, false);
}
