// SPDX-License-Identifier: GPL-2.0
/*
 * The MetaRoCE endpoint: the protocol core (proto/conn.c, as libsoftmetaroce builds it)
 * driven by the simulated host. Every packet is encoded, ICRC-sealed, checked and decoded;
 * WRITE payload is placed by the packet's own va. Path p leaves from UDP source port
 * base + p, wrapped within 49152..65535, with a random base per connection and direction
 * (Documentation/infiniband/metaroce.rst, "UDP source port"). Each host's receive link
 * has one struct mr_share, so ACKs carry the receiver's fair-share rate hint.
 */
#include <stdio.h>
#include <stdlib.h>
#include "sim.h"
#include "conn.h"
#include "params.h"

#define SIM_MR_RKEY	0x4242
#define SIM_PORT_LO	49152
#define SIM_PORT_N	16384

struct sim_mr_ep {
	struct sim_ep	e;
	struct mr_conn	*c;
};

static struct sim_mr_ep *mr_ep(struct sim_ep *e)
{
	return (struct sim_mr_ep *)e;
}

static void mr_stats(struct sim_ep *e)
{
	const struct mr_conn *c = mr_ep(e)->c;
	struct sim_flow *f = e->flow;

	if (!e->sender)
		return;
	f->data_pkts = c->stats.tx_pkts;
	f->retx = c->tx.stat_retx;
	f->spurious = c->tx.stat_spurious;
	f->probes = c->stats.tx_probes;
	f->rto = c->tx.stat_rto;
}

static struct sim_pkt *mr_frame(struct sim *s, struct sim_ep *e, const struct mr_pkt *h)
{
	struct sim_pkt *p = sim_pkt_alloc(s);
	u32 hl = mr_pkt_encode(h, p->data, sizeof(p->data));

	if (!hl) {
		fprintf(stderr, "metaroce-sim: cannot encode opcode %u\n", h->opcode);
		exit(2);
	}
	p->len = hl;
	sim_ep_frame(e, p, SIM_PORT_LO + (e->sport_base - SIM_PORT_LO + h->path) % SIM_PORT_N, 0);
	return p;
}

static struct sim_pkt *mr_pull(struct sim *s, struct sim_ep *e, bool ctl)
{
	struct mr_conn *c = mr_ep(e)->c;
	struct sim_flow *f = e->flow;
	struct sim_pkt *p;
	struct mr_tx_pkt tp;

	while (!ctl && e->sender && sim_flow_may_post(s, f)) {
		struct mr_send_wr wr = {
			.cookie = f->posted, .opcode = MR_OP_WRITE, .len = f->msg_len,
			.va = (u64)f->posted * f->msg_len, .rkey = SIM_MR_RKEY,
		};

		if (mr_conn_post(c, &wr))
			break;	/* failed: completions report it */
		f->posted++;
	}
	if (mr_conn_ack_due(c, s->now)) {
		struct mr_pkt ack;

		mr_conn_build_ack(c, s->now, &ack);
		p = mr_frame(s, e, &ack);
		mr_pkt_icrc_put(p->data, p->len);
		p->len += MR_ICRC_LEN;
		p->wire += MR_ICRC_LEN;
		return p;
	}
	if (ctl || !mr_conn_tx(c, s->now, &tp))
		return NULL;
	if (tp.hdr.opcode != MR_OP_WRITE) {
		fprintf(stderr, "metaroce-sim: unexpected opcode %u\n", tp.hdr.opcode);
		exit(2);
	}
	p = mr_frame(s, e, &tp.hdr);
	sim_flow_fill(f, tp.cookie * f->msg_len + tp.moff, p->data + p->len, tp.hdr.paylen);
	mr_pkt_icrc_put(p->data, p->len + tp.hdr.paylen);
	p->len += tp.hdr.paylen + MR_ICRC_LEN;
	p->wire += tp.hdr.paylen + MR_ICRC_LEN;
	mr_stats(e);
	return p;
}

/* METAROCE_SIM_DEBUG=1: the sender's final state, and where ECMP put each path */
static void mr_debug(struct sim *s, struct sim_ep *e)
{
	const struct mr_conn *c = mr_ep(e)->c;
	uint32_t k = s->cfg.fab.hosts_per_leaf, i;

	fprintf(stderr, "# flow %u cwnd %u alpha %u srtt %llu retired %llu up %u:", e->flow->id,
		c->cc.cwnd >> MR_FP_SHIFT, c->cc.alpha, (unsigned long long)c->paths.conn.srtt,
		(unsigned long long)c->paths.stat_retired, mr_paths_up(&c->paths));
	for (i = 0; i < c->paths.n; i++) {
		u16 sp = SIM_PORT_LO + (e->sport_base - SIM_PORT_LO + i) % SIM_PORT_N;

		fprintf(stderr, " p%u/s%u w%u%s n%u", i,
			sim_ecmp_hash((e->host / k) * 0x51ed27u, e->host, e->peer, sp) %
			s->cfg.fab.spines, c->paths.p[i].weight, c->paths.p[i].up ? "" : "x",
			c->tx.path_seq[i]);
	}
	fprintf(stderr, "\n");
}

static void mr_rx(struct sim *s, struct sim_ep *e, struct sim_pkt *p)
{
	struct mr_conn *c = mr_ep(e)->c;
	struct sim_flow *f = e->flow;
	enum mr_wc_status st;
	struct mr_rx_done d;
	struct mr_rx_res res;
	struct mr_pkt pkt;
	u32 was = f->completed;
	u64 cookie;

	if (!mr_pkt_icrc_ok(p->data, p->len) ||
	    mr_pkt_decode(p->data, p->len, &pkt) != MR_PERR_OK) {
		fprintf(stderr, "metaroce-sim: flow %u: corrupt packet\n", f->id);
		exit(2);
	}
	switch (mr_conn_rx(c, s->now, &pkt, p->ce, &res)) {
	case MR_RXC_PLACE:
		if (pkt.opcode != MR_OP_WRITE || pkt.write.rkey != SIM_MR_RKEY) {
			f->bad_bytes += pkt.paylen + 1;
			break;
		}
		sim_flow_place(f, pkt.write.va, p->data + pkt.hdrlen, pkt.paylen);
		mr_conn_rx_commit(c, s->now, &pkt, p->ce);
		break;
	case MR_RXC_FATAL:
		sim_flow_fail(s, f);
		break;
	default:
		break;
	}
	while (mr_conn_deliver(c, &d)) {
		if (d.opcode != MR_OP_WRITE || d.mlen != f->msg_len)
			f->bad_bytes++;
		sim_flow_delivered(s, f);
	}
	while (mr_conn_poll_send(c, &cookie, &st)) {
		if (st != MR_WC_SUCCESS)
			sim_flow_fail(s, f);
		else
			sim_flow_complete(s, f, (uint32_t)cookie);
	}
	if (was < f->nmsg && f->completed == f->nmsg && getenv("METAROCE_SIM_DEBUG"))
		mr_debug(s, e);
	mr_stats(e);
}

static uint64_t mr_deadline(struct sim_ep *e)
{
	return mr_conn_deadline(mr_ep(e)->c);
}

static void mr_timer(struct sim *s, struct sim_ep *e)
{
	struct mr_conn *c = mr_ep(e)->c;
	enum mr_wc_status st;
	u64 cookie;

	u64 rto = c->tx.stat_rto;

	if (mr_conn_deadline(c) > s->now)
		return;
	mr_conn_timer(c, s->now);
	if (c->tx.stat_rto != rto && getenv("METAROCE_SIM_DEBUG")) {
		fprintf(stderr, "# %llu ns: RTO %llu on %s of flow %u, una %u nxt %u in_flight %u"
			" lost %u retries %u\n", (unsigned long long)s->now,
			(unsigned long long)c->tx.stat_rto, e->sender ? "sender" : "receiver",
			e->flow->id, c->tx.una, c->tx.nxt, c->tx.in_flight, c->tx.nlost,
			c->tx.retries);
		mr_debug(s, e);
	}
	/* retries exhausted: the error and the flushes complete here */
	while (mr_conn_poll_send(c, &cookie, &st)) {
		if (st != MR_WC_SUCCESS)
			sim_flow_fail(s, e->flow);
		else
			sim_flow_complete(s, e->flow, (uint32_t)cookie);
	}
	mr_stats(e);
}

static void mr_destroy(struct sim_ep *e)
{
	free(mr_ep(e)->c);
	free(e);
}

static const struct sim_ep_ops mr_ops = {
	.pull = mr_pull,
	.rx = mr_rx,
	.deadline = mr_deadline,
	.timer = mr_timer,
	.destroy = mr_destroy,
};

static struct mr_share *mr_shares(struct sim *s)
{
	struct mr_share *sh = s->proto;
	uint32_t i;

	if (sh)
		return sh;
	sh = calloc(s->cfg.fab.hosts, sizeof(*sh));
	if (!sh) {
		perror("metaroce-sim");
		exit(2);
	}
	for (i = 0; i < s->cfg.fab.hosts; i++)
		mr_share_init(&sh[i], s->cfg.fab.host_mbps, 0);
	s->proto = sh;
	return sh;
}

static struct sim_ep *mr_ep_new(struct sim *s, struct sim_flow *f, bool sender,
				const struct mr_conn_cfg *cfg)
{
	struct sim_mr_ep *me = calloc(1, sizeof(*me));

	if (!me || !(me->c = calloc(1, mr_conn_size(cfg->n_streams)))) {
		perror("metaroce-sim");
		exit(2);
	}
	if (mr_conn_init(me->c, cfg)) {
		fprintf(stderr, "metaroce-sim: mr_conn_init failed\n");
		exit(2);
	}
	me->e.ops = &mr_ops;
	me->e.flow = f;
	me->e.sender = sender;
	me->e.host = sender ? f->src : f->dst;
	me->e.peer = sender ? f->dst : f->src;
	me->e.sport_base = SIM_PORT_LO + sim_rand(s) % SIM_PORT_N;
	me->e.priv = me->c;
	f->ep[!sender] = &me->e;
	sim_host_add(s, &me->e);
	return &me->e;
}

void sim_mr_attach(struct sim *s, struct sim_flow *f)
{
	struct mr_share *sh = mr_shares(s);
	u32 isn_a = (u32)sim_rand(s), isn_b = (u32)sim_rand(s);
	u32 tok_a = (u32)sim_rand(s), tok_b = (u32)sim_rand(s);
	struct mr_conn_cfg a = {
		.peer_qpn = 2 * f->id + 2, .peer_ctok = tok_b, .local_ctok = tok_a,
		.tx_isn = isn_a, .rx_isn = isn_b, .mtu = MR_MAX_PAYLOAD,
		.n_paths = s->cfg.mr_paths, .peer_paths = s->cfg.mr_paths, .n_streams = 1,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1, .share = &sh[f->src],
	};
	struct mr_conn_cfg b = a;

	b.peer_qpn = 2 * f->id + 1;
	b.peer_ctok = tok_a;
	b.local_ctok = tok_b;
	b.tx_isn = isn_b;
	b.rx_isn = isn_a;
	b.share = &sh[f->dst];
	mr_ep_new(s, f, true, &a);
	mr_ep_new(s, f, false, &b);
}
