/* SPDX-License-Identifier: GPL-2.0 */
/* Workloads of metaroce-sim: each sets up the fabric in c and adds its flows to s. */
#ifndef _METAROCE_SIM_WORKLOAD_H
#define _METAROCE_SIM_WORKLOAD_H

#include "sim.h"

void sim_wl_cfg(struct sim_cfg *c, enum sim_proto proto, uint64_t seed);
/* One flow of nmsg WRITEs of msg_len bytes across four planes. */
void sim_wl_one_flow(struct sim *s, struct sim_cfg *c, uint32_t nmsg, uint32_t msg_len,
		     uint32_t depth);
/* Every host WRITEs msg_len bytes to every other; eight hosts per leaf, four spines. */
void sim_wl_all_to_all(struct sim *s, struct sim_cfg *c, uint32_t hosts, uint32_t msg_len);
/* senders hosts WRITE msg_len bytes each to host 0 at once. */
void sim_wl_incast(struct sim *s, struct sim_cfg *c, uint32_t senders, uint32_t msg_len);

/* Ring all-reduce over hosts: 2 (hosts - 1) dependent steps of chunk bytes each. */
void sim_wl_ring(struct sim *s, struct sim_cfg *c, uint32_t hosts, uint32_t chunk);

#endif /* _METAROCE_SIM_WORKLOAD_H */
