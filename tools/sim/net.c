// SPDX-License-Identifier: GPL-2.0
/*
 * Links, output ports and switches, and the leaf-spine fabric that joins them.
 *
 * Every node sends through output ports: a FIFO served at the port's rate, then a
 * propagation delay to the far end. Switch ports tail-drop above their buffer and mark
 * CE on packets that find more than the ECN threshold queued (DCTCP-style step marking).
 * A leaf sends traffic for another leaf to the spine that the hash of (source host,
 * destination host, UDP source port) picks; the group is static, so a dead spine stays
 * in it and black-holes its share of the flows, as it would until routing converges.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

static uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

uint32_t sim_ecmp_hash(uint32_t seed, uint32_t src, uint32_t dst, uint16_t sport)
{
	return fmix32(seed ^ fmix32(src * 0x9e3779b1u ^ fmix32(dst + 0x7f4a7c15u) ^
				    ((uint32_t)sport << 7)));
}

static void port_init(struct sim_port *pt, uint32_t to, uint32_t mbps, uint64_t prop,
		      uint32_t buf, uint32_t ecn)
{
	pt->to = to;
	pt->rate_mbps = mbps;
	pt->prop_ns = prop;
	pt->buf_bytes = buf;
	pt->ecn_bytes = ecn;
}

static struct sim_port *ports_new(uint32_t n)
{
	struct sim_port *p = calloc(n, sizeof(*p));

	if (!p) {
		perror("metaroce-sim");
		exit(2);
	}
	return p;
}

void sim_net_build(struct sim *s, const struct sim_fabric_cfg *c)
{
	uint32_t k = c->hosts_per_leaf, nl = (c->hosts + k - 1) / k;
	uint32_t up = c->uplink_mbps ? c->uplink_mbps :
		      (uint32_t)((uint64_t)k * c->host_mbps / c->spines);
	uint32_t leaf0 = c->hosts, spine0 = c->hosts + nl, i, j;

	s->nleaves = nl;
	s->nnodes = c->hosts + nl + c->spines;
	s->node = calloc(s->nnodes, sizeof(*s->node));
	s->host = calloc(c->hosts, sizeof(*s->host));
	if (!s->node || !s->host) {
		perror("metaroce-sim");
		exit(2);
	}
	for (i = 0; i < c->hosts; i++) {
		struct sim_node *n = &s->node[i];

		n->kind = SIM_HOST;
		n->idx = i;
		n->nports = 1;
		n->port = ports_new(1);
		/* the NIC queue is the host's own: it pulls one packet at a time, no drops */
		port_init(&n->port[0], leaf0 + i / k, c->host_mbps, c->prop_ns, UINT32_MAX,
			  UINT32_MAX);
		n->port[0].loss_ppm = c->loss_ppm;
		n->port[0].burst = c->burst;
		n->port[0].jitter_ns = c->jitter_ns;
		n->port[0].dup_ppm = c->dup_ppm;
	}
	for (i = 0; i < nl; i++) {
		struct sim_node *n = &s->node[leaf0 + i];

		n->kind = SIM_LEAF;
		n->idx = i;
		n->nports = k + c->spines;
		n->port = ports_new(n->nports);
		for (j = 0; j < k; j++)
			port_init(&n->port[j], i * k + j < c->hosts ? i * k + j : 0,
				  c->host_mbps, c->prop_ns, c->buf_bytes, c->ecn_bytes);
		for (j = 0; j < c->spines; j++)
			port_init(&n->port[k + j], spine0 + j, up, c->prop_ns, c->buf_bytes,
				  c->ecn_bytes);
	}
	for (i = 0; i < c->spines; i++) {
		struct sim_node *n = &s->node[spine0 + i];

		n->kind = SIM_SPINE;
		n->idx = i;
		n->nports = nl;
		n->port = ports_new(nl);
		for (j = 0; j < nl; j++)
			port_init(&n->port[j], leaf0 + j, up, c->prop_ns, c->buf_bytes,
				  c->ecn_bytes);
	}
	for (i = 0; c->dead_spine >= 0 && i < (c->dead_spines ? c->dead_spines : 1); i++)
		sim_schedule(s, c->dead_at, SIM_EV_FAIL,
			     ((uint32_t)c->dead_spine + i) % c->spines, 0, NULL);
}

void sim_net_free(struct sim *s)
{
	uint32_t i;

	for (i = 0; i < s->nnodes; i++) {
		struct sim_node *n = &s->node[i];
		uint32_t j;

		for (j = 0; j < n->nports; j++) {
			struct sim_pkt *p = n->port[j].head, *next;

			for (; p; p = next) {
				next = p->next;
				free(p);
			}
		}
		free(n->port);
	}
	free(s->node);
	free(s->host);
}

static uint64_t ser_ns(const struct sim_port *pt, uint32_t wire)
{
	/* at least 1 ns, so that a port never serves two packets at one instant */
	uint64_t t = (uint64_t)wire * 8000 / pt->rate_mbps;

	return t ? t : 1;
}

/*
 * Gilbert-Elliott with loss only in the bad state, stepped once per full-size packet
 * slot at the link's rate, so that an idle link leaves a burst as a busy one would (a
 * per-packet chain would keep a quiet link in its burst for as long as it stays quiet,
 * and lose every lone retransmission). The bad state is left with probability 1/burst
 * per slot, entered at the rate that makes the long-run loss loss_ppm; over n slots the
 * chain moves by the closed form of a two-state Markov chain.
 */
static bool port_loses(struct sim *s, struct sim_port *pt)
{
	double q = 1.0 / pt->burst, pb = pt->loss_ppm / 1e6, p, lam, n, stay;
	uint64_t slot;

	if (pt->burst <= 1 || !pt->loss_ppm)
		return sim_chance(s, pt->loss_ppm);
	p = q * pb / (1 - pb);		/* good -> bad per slot */
	lam = 1 - p - q;
	slot = (uint64_t)SIM_PKT_CAP * 8000 / pt->rate_mbps;
	n = pt->ge_at ? (double)((s->now - pt->ge_at) / (slot ? slot : 1)) : 0;
	if (n < 1)
		n = 1;
	pt->ge_at = s->now;
	/* P(bad after n | now): pb + (1 - pb) lam^n from bad, pb (1 - lam^n) from good */
	stay = pt->ge_bad ? pb + (1 - pb) * pow(lam, n) : pb * (1 - pow(lam, n));
	pt->ge_bad = (double)(sim_rand(s) >> 11) / 9007199254740992.0 < stay;
	return pt->ge_bad;
}

static void port_deliver(struct sim *s, struct sim_port *pt, struct sim_pkt *p)
{
	uint64_t at = s->now + pt->prop_ns;

	if (pt->jitter_ns)
		at += sim_rand(s) % pt->jitter_ns;
	sim_schedule(s, at, SIM_EV_ARRIVE, pt->to, 0, p);
}

void sim_port_send(struct sim *s, uint32_t n, uint32_t port, struct sim_pkt *p)
{
	struct sim_port *pt = &s->node[n].port[port];

	if (pt->dead || pt->qbytes + p->wire > pt->buf_bytes) {
		pt->drops++;
		sim_pkt_free(s, p);
		return;
	}
	if (pt->qbytes >= pt->ecn_bytes) {
		p->ce = true;
		pt->marks++;
	}
	p->next = NULL;
	if (pt->tail)
		pt->tail->next = p;
	else
		pt->head = p;
	pt->tail = p;
	pt->qbytes += p->wire;
	if (pt->qbytes > pt->peak_bytes)
		pt->peak_bytes = pt->qbytes;
	if (!pt->busy) {
		pt->busy = true;
		sim_schedule(s, s->now + ser_ns(pt, p->wire), SIM_EV_TXDONE, n, port, NULL);
	}
}

void sim_net_txdone(struct sim *s, uint32_t n, uint32_t port)
{
	struct sim_port *pt = &s->node[n].port[port];
	struct sim_pkt *p = pt->head;

	if (!p) {
		/* flushed by a failure while serialising */
		pt->busy = false;
		return;
	}
	pt->head = p->next;
	if (!pt->head)
		pt->tail = NULL;
	pt->qbytes -= p->wire;
	if (pt->dead) {
		pt->drops++;
		sim_pkt_free(s, p);
	} else if (port_loses(s, pt)) {
		pt->lost++;
		sim_pkt_free(s, p);
	} else {
		if (sim_chance(s, pt->dup_ppm)) {
			struct sim_pkt *d = sim_pkt_alloc(s);

			memcpy(d, p, offsetof(struct sim_pkt, data) + p->len);
			d->next = NULL;
			pt->dups++;
			port_deliver(s, pt, d);
		}
		port_deliver(s, pt, p);
	}
	if (pt->head) {
		sim_schedule(s, s->now + ser_ns(pt, pt->head->wire), SIM_EV_TXDONE, n, port, NULL);
		return;
	}
	pt->busy = false;
	if (s->node[n].kind == SIM_HOST)
		sim_host_pull(s, n);
}

void sim_net_arrive(struct sim *s, uint32_t n, struct sim_pkt *p)
{
	struct sim_node *nd = &s->node[n];
	uint32_t k = s->cfg.fab.hosts_per_leaf, leaf = p->dst / k;

	if (nd->dead) {
		sim_pkt_free(s, p);
		return;
	}
	switch (nd->kind) {
	case SIM_HOST:
		sim_host_rx(s, n, p);
		break;
	case SIM_LEAF:
		if (leaf == nd->idx)
			sim_port_send(s, n, p->dst % k, p);
		else
			sim_port_send(s, n, k + sim_ecmp_hash(nd->idx * 0x51ed27u, p->src, p->dst,
							  p->sport) % s->cfg.fab.spines, p);
		break;
	case SIM_SPINE:
		sim_port_send(s, n, leaf, p);
		break;
	}
}

static void port_fail(struct sim *s, struct sim_port *pt)
{
	struct sim_pkt *p, *next;

	pt->dead = true;
	/* the head, if serialising, is dropped by its TXDONE; the rest go now */
	p = pt->head ? pt->head->next : NULL;
	for (; p; p = next) {
		next = p->next;
		pt->qbytes -= p->wire;
		pt->drops++;
		sim_pkt_free(s, p);
	}
	if (pt->head)
		pt->head->next = NULL;
	pt->tail = pt->head;
}

void sim_net_fail_spine(struct sim *s, uint32_t spine)
{
	uint32_t sn = s->cfg.fab.hosts + s->nleaves + spine, i;
	struct sim_node *nd = &s->node[sn];

	nd->dead = true;
	for (i = 0; i < nd->nports; i++)
		port_fail(s, &nd->port[i]);
	for (i = 0; i < s->nleaves; i++)
		port_fail(s, &s->node[s->cfg.fab.hosts + i].port[s->cfg.fab.hosts_per_leaf + spine]);
}
