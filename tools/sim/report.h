/* SPDX-License-Identifier: GPL-2.0 */
/* Runs of metaroce-sim as the bench and the tests name them, and their SIM lines. */
#ifndef _METAROCE_SIM_REPORT_H
#define _METAROCE_SIM_REPORT_H

#include <stdio.h>
#include "sim.h"

enum sim_test { SIM_T_ONE, SIM_T_A2A, SIM_T_INCAST, SIM_T_RING };

struct sim_spec {
	enum sim_test	test;
	enum sim_proto	proto;
	uint64_t	seed;
	double		loss_pct;
	uint32_t	burst;		/* mean loss burst, packets */
	uint64_t	jitter_ns;
	double		dup_pct;
	int		dead_plane;	/* -1: none */
	uint32_t	dead_planes;	/* how many fail together, from dead_plane on */
	uint64_t	dead_at_ns;
	uint32_t	hosts;		/* all-to-all, incast, ring */
	uint32_t	nmsg;		/* one flow */
	uint32_t	depth;		/* one flow: WRITEs outstanding, at most */
	uint32_t	msg_len;
};

void sim_spec_default(struct sim_spec *sp, enum sim_test test, enum sim_proto proto);
/* Run sp to completion; r gets the figures. */
void sim_spec_run(const struct sim_spec *sp, struct sim_result *r);
const char *sim_proto_name(enum sim_proto p);
/* "SIM test=... proto=... <fields>" with the figures of r; ref_gbps > 0 adds goodput_pct. */
void sim_print(FILE *out, const char *test, const struct sim_spec *sp, const char *fields,
	       const struct sim_result *r, double ref_gbps);

#endif /* _METAROCE_SIM_REPORT_H */
