// SPDX-License-Identifier: GPL-2.0
/*
 * Hosts: a set of transport endpoints sharing one NIC port. The NIC pulls one packet at a
 * time, round-robin over the endpoints, when it goes idle: the host never queues more
 * than the wire takes, so pacing and windows act at the NIC as they would in a driver.
 * ACKs and NAKs go first: both rxe and MetaRoCE send them from the receive path, ahead
 * of data that the send side has not yet released to the NIC.
 * Each endpoint has one timer, re-armed from its deadline whenever its state changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include "sim.h"

/*
 * A deadline that is already due after the timer ran means "ready to send": the NIC pull
 * handles that. Re-check this much later anyway, so that no endpoint can stall silently.
 */
#define SIM_POLL_NS	(5 * SIM_US)

void sim_host_add(struct sim *s, struct sim_ep *e)
{
	struct sim_host *h = &s->host[e->host];

	if (h->nep == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 8;
		h->ep = realloc(h->ep, h->cap * sizeof(*h->ep));
	}
	if (s->nep == s->capep) {
		s->capep = s->capep ? 2 * s->capep : 64;
		s->ep = realloc(s->ep, s->capep * sizeof(*s->ep));
	}
	if (!h->ep || !s->ep) {
		perror("metaroce-sim");
		exit(2);
	}
	h->ep[h->nep++] = e;
	e->timer_at = SIM_NEVER;
	e->id = s->nep;
	s->ep[s->nep++] = e;
}

static void ep_arm(struct sim *s, struct sim_ep *e)
{
	uint64_t d = e->ops->deadline(e);

	if (d <= s->now) {
		e->ops->timer(s, e);
		d = e->ops->deadline(e);
		if (d <= s->now)
			d = s->now + SIM_POLL_NS;
	}
	if (d == e->timer_at)
		return;
	e->timer_at = d;
	e->timer_gen++;
	if (d != SIM_NEVER)
		sim_schedule(s, d, SIM_EV_TIMER, e->id, e->timer_gen, NULL);
}

void sim_ep_kick(struct sim *s, struct sim_ep *e)
{
	ep_arm(s, e);
	sim_host_pull(s, e->host);
}

void sim_host_pull(struct sim *s, uint32_t hn)
{
	struct sim_host *h = &s->host[hn];
	uint32_t i, ctl;

	if (s->node[hn].port[0].busy)
		return;
	for (ctl = 2; ctl-- > 0;)
		for (i = 0; i < h->nep; i++) {
			uint32_t k = (h->rr + i) % h->nep;
			struct sim_ep *e = h->ep[k];
			struct sim_pkt *p = e->ops->pull(s, e, ctl);

			if (!p)
				continue;
			if (!ctl)
				h->rr = k + 1;
			sim_port_send(s, hn, 0, p);
			ep_arm(s, e);
			return;
		}
}

void sim_host_rx(struct sim *s, uint32_t hn, struct sim_pkt *p)
{
	struct sim_flow *f = &s->flow[p->flow];
	struct sim_ep *e = f->ep[p->to_sender ? 0 : 1];

	if (e->host != hn) {
		fprintf(stderr, "metaroce-sim: flow %u packet at host %u\n", f->id, hn);
		exit(2);
	}
	e->ops->rx(s, e, p);
	sim_pkt_free(s, p);
	sim_ep_kick(s, e);
}

void sim_ep_timer(struct sim *s, uint32_t id, uint32_t gen)
{
	struct sim_ep *e = s->ep[id];

	if (gen != e->timer_gen)
		return;	/* re-armed since */
	e->timer_at = SIM_NEVER;
	e->ops->timer(s, e);
	sim_ep_kick(s, e);
}

void sim_ep_frame(struct sim_ep *e, struct sim_pkt *p, uint16_t sport, uint32_t extra_wire)
{
	p->src = e->host;
	p->dst = e->peer;
	p->flow = e->flow->id;
	p->to_sender = !e->sender;
	p->sport = sport;
	p->wire = p->len + SIM_FRAME_OVERHEAD + extra_wire;
}
