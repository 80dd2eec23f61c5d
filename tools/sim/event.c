// SPDX-License-Identifier: GPL-2.0
/*
 * The event core: a binary min-heap ordered by (time, scheduling sequence), the seeded
 * generator, and a packet free list. Nothing here reads the clock or the OS's randomness.
 */
#include <stdio.h>
#include <stdlib.h>
#include "sim.h"

uint64_t sim_rand(struct sim *s)
{
	/* xorshift64*: small, fast, and the same on every host */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dULL;
}

bool sim_chance(struct sim *s, uint32_t ppm)
{
	if (!ppm)
		return false;	/* draw nothing: a lossless run keeps its own sequence */
	return (sim_rand(s) >> 32) % 1000000 < ppm;
}

static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

void sim_schedule(struct sim *s, uint64_t at, uint8_t type, uint32_t a, uint32_t b,
		  struct sim_pkt *pkt)
{
	struct sim_ev ev = { .at = at < s->now ? s->now : at, .seq = s->seq++, .type = type,
			     .a = a, .b = b, .pkt = pkt };
	uint32_t i;

	if (s->nheap == s->capheap) {
		s->capheap = s->capheap ? 2 * s->capheap : 1024;
		s->heap = realloc(s->heap, s->capheap * sizeof(*s->heap));
		if (!s->heap) {
			perror("metaroce-sim");
			exit(2);
		}
	}
	i = s->nheap++;
	while (i && ev_before(&ev, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = ev;
}

bool sim_next_event(struct sim *s, struct sim_ev *ev)
{
	struct sim_ev last;
	uint32_t i = 0, c;

	if (!s->nheap)
		return false;
	*ev = s->heap[0];
	last = s->heap[--s->nheap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	s->now = ev->at;
	s->nevents++;
	return true;
}

struct sim_pkt *sim_pkt_alloc(struct sim *s)
{
	struct sim_pkt *p = s->freelist;

	if (p) {
		s->freelist = p->next;
	} else {
		p = malloc(sizeof(*p));
		if (!p) {
			perror("metaroce-sim");
			exit(2);
		}
	}
	p->next = NULL;
	p->ce = false;
	return p;
}

void sim_pkt_free(struct sim *s, struct sim_pkt *p)
{
	p->next = s->freelist;
	s->freelist = p;
}
