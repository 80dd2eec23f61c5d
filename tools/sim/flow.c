// SPDX-License-Identifier: GPL-2.0
/*
 * Flows, their end-to-end check, and the run loop with its figures.
 *
 * A flow is a stream of WRITEs into one region of the receiver, message i at offset
 * i * msg_len. The sender fills payload from a pattern of (flow, offset); the receiver
 * checks every byte it places against the pattern at the offset the packet names, and
 * sums the placed offsets: a flow is verified when every byte matched, the byte count and
 * the offset sum equal those of the whole region (nothing missing, nothing twice), and
 * every message was delivered and completed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

uint8_t sim_pattern(uint32_t flow, uint64_t off)
{
	return (uint8_t)(off * 131 + (off >> 8) * 7 + (off >> 16) + flow * 29);
}

void sim_flow_fill(const struct sim_flow *f, uint64_t off, uint8_t *buf, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = sim_pattern(f->id, off + i);
}

void sim_flow_place(struct sim_flow *f, uint64_t off, const uint8_t *buf, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		f->bad_bytes += buf[i] != sim_pattern(f->id, off + i);
	if (off + len > (uint64_t)f->nmsg * f->msg_len)
		f->bad_bytes += len;
	f->placed_bytes += len;
	f->placed_offsum += (uint64_t)len * off + (uint64_t)len * (len - 1) / 2;
}

bool sim_flow_verified(const struct sim_flow *f)
{
	uint64_t t = (uint64_t)f->nmsg * f->msg_len;

	return !f->bad_bytes && f->placed_bytes == t && f->placed_offsum == t * (t - 1) / 2 &&
	       f->delivered == f->nmsg && f->completed == f->nmsg && !f->failed;
}

bool sim_flow_may_post(struct sim *s, struct sim_flow *f)
{
	if (f->failed || f->posted == f->nmsg || f->posted - f->completed >= f->depth)
		return false;
	if (f->upstream >= 0 && f->posted && s->flow[f->upstream].delivered < f->posted)
		return false;
	f->post_at[f->posted] = s->now;
	return true;
}

void sim_flow_delivered(struct sim *s, struct sim_flow *f)
{
	f->delivered++;
	if (f->downstream >= 0)
		sim_ep_kick(s, s->flow[f->downstream].ep[0]);
}

void sim_flow_complete(struct sim *s, struct sim_flow *f, uint32_t msg)
{
	if (s->nfct == s->capfct) {
		s->capfct = s->capfct ? 2 * s->capfct : 4096;
		s->fct = realloc(s->fct, s->capfct * sizeof(*s->fct));
		if (!s->fct) {
			perror("metaroce-sim");
			exit(2);
		}
	}
	s->fct[s->nfct++] = s->now - f->post_at[msg];
	f->last_done = s->now;
	if (++f->completed == f->nmsg)
		s->flows_done++;
}

void sim_flow_fail(struct sim *s, struct sim_flow *f)
{
	if (f->failed || f->completed == f->nmsg)
		return;
	f->failed = true;
	s->flows_done++;
}

void sim_init(struct sim *s, const struct sim_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->rng = cfg->seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
	sim_net_build(s, &s->cfg.fab);
}

struct sim_flow *sim_add_flow(struct sim *s, uint32_t src, uint32_t dst, uint32_t nmsg,
			      uint32_t msg_len, uint32_t depth)
{
	struct sim_flow *f;

	if (s->nflows == s->capflows) {
		s->capflows = s->capflows ? 2 * s->capflows : 64;
		s->flow = realloc(s->flow, s->capflows * sizeof(*s->flow));
		if (!s->flow) {
			perror("metaroce-sim");
			exit(2);
		}
	}
	f = &s->flow[s->nflows];
	memset(f, 0, sizeof(*f));
	f->id = s->nflows++;
	f->src = src;
	f->dst = dst;
	f->nmsg = nmsg;
	f->msg_len = msg_len;
	f->depth = depth;
	f->upstream = -1;
	f->downstream = -1;
	f->post_at = calloc(nmsg, sizeof(*f->post_at));
	if (!f->post_at) {
		perror("metaroce-sim");
		exit(2);
	}
	return f;
}

void sim_free(struct sim *s)
{
	struct sim_pkt *p, *next;
	uint32_t i;

	for (i = 0; i < s->nep; i++)
		s->ep[i]->ops->destroy(s->ep[i]);
	for (i = 0; i < s->nflows; i++)
		free(s->flow[i].post_at);
	for (i = 0; i < s->nheap; i++)
		free(s->heap[i].pkt);
	for (i = 0; i < s->cfg.fab.hosts; i++)
		free(s->host[i].ep);
	sim_net_free(s);
	for (p = s->freelist; p; p = next) {
		next = p->next;
		free(p);
	}
	free(s->heap);
	free(s->ep);
	free(s->flow);
	free(s->fct);
	free(s->proto);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void collect(struct sim *s, struct sim_result *r)
{
	uint32_t i, j;

	memset(r, 0, sizeof(*r));
	r->flows = s->nflows;
	r->verified = true;
	for (i = 0; i < s->nflows; i++) {
		struct sim_flow *f = &s->flow[i];

		r->bytes += (uint64_t)f->delivered * f->msg_len;
		r->data_pkts += f->data_pkts;
		r->retx += f->retx;
		r->spurious += f->spurious;
		r->probes += f->probes;
		r->rto += f->rto;
		r->flows_done += f->completed == f->nmsg;
		r->flows_failed += f->failed;
		/* a flow cut short by the limit or a failure: its bytes must still be right */
		if (f->bad_bytes || (f->completed == f->nmsg && !sim_flow_verified(f)))
			r->verified = false;
		if (f->last_done > r->elapsed_ns)
			r->elapsed_ns = f->last_done;
	}
	if (r->flows_done < r->flows)
		r->elapsed_ns = s->now;	/* stopped at the limit, or a flow failed */
	r->goodput_gbps = r->elapsed_ns ? (double)r->bytes * 8 / (double)r->elapsed_ns : 0;
	for (i = s->cfg.fab.hosts; i < s->nnodes; i++)
		for (j = 0; j < s->node[i].nports; j++) {
			struct sim_port *pt = &s->node[i].port[j];

			r->ecn_marks += pt->marks;
			r->drops += pt->drops;
			if (pt->peak_bytes > r->peak_queue)
				r->peak_queue = pt->peak_bytes;
		}
	for (i = 0; i < s->cfg.fab.hosts; i++)
		r->lost += s->node[i].port[0].lost;
	if (s->nfct) {
		qsort(s->fct, s->nfct, sizeof(*s->fct), cmp_u64);
		r->fct_p50_ns = s->fct[(s->nfct - 1) / 2];
		r->fct_p99_ns = s->fct[(s->nfct - 1) * 99 / 100];
	}
}

void sim_run(struct sim *s, struct sim_result *r)
{
	struct sim_ev ev;
	uint32_t i;

	for (i = 0; i < s->nflows; i++) {
		if (s->cfg.proto == SIM_METAROCE)
			sim_mr_attach(s, &s->flow[i]);
		else
			sim_gbn_attach(s, &s->flow[i]);
	}
	for (i = 0; i < s->nep; i++)
		sim_ep_kick(s, s->ep[i]);
	while (s->flows_done < s->nflows && sim_next_event(s, &ev)) {
		if (ev.at > s->cfg.limit_ns) {
			s->now = s->cfg.limit_ns;
			if (ev.pkt)
				sim_pkt_free(s, ev.pkt);
			break;
		}
		switch (ev.type) {
		case SIM_EV_TXDONE:
			sim_net_txdone(s, ev.a, ev.b);
			break;
		case SIM_EV_ARRIVE:
			sim_net_arrive(s, ev.a, ev.pkt);
			break;
		case SIM_EV_TIMER:
			sim_ep_timer(s, ev.a, ev.b);
			break;
		case SIM_EV_FAIL:
			sim_net_fail_spine(s, ev.a);
			break;
		}
	}
	collect(s, r);
}
