// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads and the fabrics they run on. Parameters are in one place so that every
 * figure the bench prints can be traced to them:
 *
 *   links     100 Gb/s host ports, 1 us propagation per link, non-blocking leaf-spine
 *             (spine links at hosts_per_leaf * 100 / spines Gb/s)
 *   switches  2 MB per output port (one whole 256-packet window fits), CE marking of
 *             packets that find 80 KB queued
 *   loss      random, on each host's uplink: every packet, data or ACK, once
 */
#include "sim.h"
#include "workload.h"

void sim_wl_cfg(struct sim_cfg *c, enum sim_proto proto, uint64_t seed)
{
	*c = (struct sim_cfg){
		.seed = seed,
		.proto = proto,
		.fab = {
			.host_mbps = 100000,
			.prop_ns = 1 * SIM_US,
			.buf_bytes = 2 << 20,
			.ecn_bytes = 80 << 10,
			.dead_spine = -1,
		},
		.mr_paths = 16,
		.gbn_rto_ns = 4096ULL << 14,
		.limit_ns = 2000 * SIM_MS,
	};
}

void sim_wl_one_flow(struct sim *s, struct sim_cfg *c, uint32_t nmsg, uint32_t msg_len,
		     uint32_t depth)
{
	/* two leaves of one host each, four planes: each spine link carries a quarter */
	c->fab.hosts = 2;
	c->fab.hosts_per_leaf = 1;
	c->fab.spines = 4;
	sim_init(s, c);
	sim_add_flow(s, 0, 1, nmsg, msg_len, depth);
}

void sim_wl_all_to_all(struct sim *s, struct sim_cfg *c, uint32_t hosts, uint32_t msg_len)
{
	uint32_t i, j;

	c->fab.hosts = hosts;
	c->fab.hosts_per_leaf = hosts < 8 ? hosts : 8;
	c->fab.spines = 4;
	sim_init(s, c);
	/* every host sends one message to every other, in a staggered order per host */
	for (i = 0; i < hosts; i++)
		for (j = 1; j < hosts; j++)
			sim_add_flow(s, i, (i + j) % hosts, 1, msg_len, 1);
}

void sim_wl_incast(struct sim *s, struct sim_cfg *c, uint32_t senders, uint32_t msg_len)
{
	uint32_t i;

	c->fab.hosts = senders + 1;
	c->fab.hosts_per_leaf = 8;
	c->fab.spines = 4;
	sim_init(s, c);
	for (i = 1; i <= senders; i++)
		sim_add_flow(s, i, 0, 1, msg_len, 1);
}

void sim_wl_ring(struct sim *s, struct sim_cfg *c, uint32_t hosts, uint32_t chunk)
{
	uint32_t i;

	c->fab.hosts = hosts;
	c->fab.hosts_per_leaf = hosts < 8 ? hosts : 8;
	c->fab.spines = 4;
	sim_init(s, c);
	/*
	 * Ring all-reduce: reduce-scatter then all-gather, 2 (hosts - 1) steps. Host i sends
	 * one chunk per step to host i + 1, on one connection, and step k's chunk leaves
	 * only once step k - 1's chunk from host i - 1 has arrived.
	 */
	for (i = 0; i < hosts; i++)
		sim_add_flow(s, i, (i + 1) % hosts, 2 * (hosts - 1), chunk, 2 * (hosts - 1));
	for (i = 0; i < hosts; i++) {
		s->flow[i].upstream = (int32_t)((i + hosts - 1) % hosts);
		s->flow[i].downstream = (int32_t)((i + 1) % hosts);
	}
}
