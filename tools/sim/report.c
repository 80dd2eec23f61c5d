// SPDX-License-Identifier: GPL-2.0
/*
 * A named run: the workload, the protocol, the loss and the failure, and the SIM line
 * that reports it. Every field is key=value so that scripts can pick them apart.
 */
#include "report.h"
#include "workload.h"

void sim_spec_default(struct sim_spec *sp, enum sim_test test, enum sim_proto proto)
{
	*sp = (struct sim_spec){
		.test = test,
		.proto = proto,
		.seed = 1,
		.dead_plane = -1,
		.dead_planes = 1,
		.dead_at_ns = 100 * SIM_US,
		.hosts = 64,
		/* one flow: 64 MiB in 256 KiB WRITEs; all-to-all: 64 KiB per pair; ring: 64 KiB
		 * chunks */
		.nmsg = 256,
		.depth = 16,
		.msg_len = test == SIM_T_ONE ? 256 << 10 : 64 << 10,
	};
}

void sim_spec_run(const struct sim_spec *sp, struct sim_result *r)
{
	struct sim_cfg c;
	struct sim s;

	sim_wl_cfg(&c, sp->proto, sp->seed);
	c.fab.loss_ppm = (uint32_t)(sp->loss_pct * 10000 + 0.5);
	c.fab.burst = sp->burst;
	c.fab.jitter_ns = sp->jitter_ns;
	c.fab.dup_ppm = (uint32_t)(sp->dup_pct * 10000 + 0.5);
	c.fab.dead_spine = sp->dead_plane;
	c.fab.dead_spines = sp->dead_planes;
	c.fab.dead_at = sp->dead_at_ns;
	switch (sp->test) {
	case SIM_T_ONE:
		sim_wl_one_flow(&s, &c, sp->nmsg, sp->msg_len, sp->depth);
		break;
	case SIM_T_A2A:
		sim_wl_all_to_all(&s, &c, sp->hosts, sp->msg_len);
		break;
	case SIM_T_INCAST:
		sim_wl_incast(&s, &c, sp->hosts - 1, sp->msg_len);
		break;
	case SIM_T_RING:
		sim_wl_ring(&s, &c, sp->hosts, sp->msg_len);
		break;
	}
	sim_run(&s, r);
	sim_free(&s);
}

const char *sim_proto_name(enum sim_proto p)
{
	return p == SIM_METAROCE ? "metaroce" : "gbn";
}

void sim_print(FILE *out, const char *test, const struct sim_spec *sp, const char *fields,
	       const struct sim_result *r, double ref_gbps)
{
	double spur = r->data_pkts ? 100.0 * (double)r->spurious / (double)r->data_pkts : 0;

	fprintf(out, "SIM test=%s proto=%s %s%sseed=%llu goodput_gbps=%.2f", test,
		sim_proto_name(sp->proto), fields, *fields ? " " : "",
		(unsigned long long)sp->seed, r->goodput_gbps);
	if (ref_gbps > 0)
		fprintf(out, " goodput_pct=%.1f", 100.0 * r->goodput_gbps / ref_gbps);
	fprintf(out, " time_us=%.1f fct_p50_us=%.1f fct_p99_us=%.1f data_pkts=%llu retx=%llu"
		" spurious=%llu spurious_pct=%.3f tlp=%llu rto=%llu ecn=%llu drops=%llu lost=%llu"
		" peak_queue_kb=%llu flows=%u done=%u failed=%u verified=%s\n",
		(double)r->elapsed_ns / 1000, (double)r->fct_p50_ns / 1000,
		(double)r->fct_p99_ns / 1000, (unsigned long long)r->data_pkts,
		(unsigned long long)r->retx, (unsigned long long)r->spurious, spur,
		(unsigned long long)r->probes, (unsigned long long)r->rto,
		(unsigned long long)r->ecn_marks, (unsigned long long)r->drops,
		(unsigned long long)r->lost, (unsigned long long)(r->peak_queue >> 10),
		r->flows, r->flows_done, r->flows_failed, r->verified ? "yes" : "NO");
	fflush(out);
}
