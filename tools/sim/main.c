// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce-sim: one run, or the whole benchmark (make bench-sim).
 *
 *   metaroce-sim bench [seed]
 *   metaroce-sim run one|a2a|incast|ring metaroce|gbn [loss=PCT] [burst=PKTS] [jitter=NS]
 *                [dup=PCT] [dead=PLANE [ndead=N]] [seed=N] [hosts=N] [nmsg=N] [len=BYTES]
 *                [depth=N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static const double bench_loss[] = { 0, 0.1, 1, 5, 10 };

#define BENCH_SEEDS	3

/* One point of the bench: the same spec over BENCH_SEEDS seeds, each seed its own line. */
struct point {
	struct sim_result sum;
	double	gbps;		/* mean */
	bool	verified;
	uint32_t failed;
};

static void point_run(struct sim_spec *sp, uint64_t seed, const char *test,
		      const char *fields, struct point *pt)
{
	struct sim_result r;
	uint32_t i;

	memset(pt, 0, sizeof(*pt));
	pt->verified = true;
	for (i = 0; i < BENCH_SEEDS; i++) {
		sp->seed = seed + i;
		sim_spec_run(sp, &r);
		printf("# ");
		sim_print(stdout, test, sp, fields, &r, 0);
		pt->gbps += r.goodput_gbps / BENCH_SEEDS;
		pt->verified &= r.verified;
		pt->failed += r.flows_failed;
		pt->sum.flows += r.flows;
		pt->sum.flows_done += r.flows_done;
		pt->sum.data_pkts += r.data_pkts;
		pt->sum.retx += r.retx;
		pt->sum.spurious += r.spurious;
		pt->sum.probes += r.probes;
		pt->sum.rto += r.rto;
		pt->sum.ecn_marks += r.ecn_marks;
		pt->sum.drops += r.drops;
		pt->sum.lost += r.lost;
		pt->sum.elapsed_ns += r.elapsed_ns / BENCH_SEEDS;
		pt->sum.fct_p50_ns += r.fct_p50_ns / BENCH_SEEDS;
		pt->sum.fct_p99_ns += r.fct_p99_ns / BENCH_SEEDS;
		if (r.peak_queue > pt->sum.peak_queue)
			pt->sum.peak_queue = r.peak_queue;
	}
}

/* The point's line: means of goodput, time and FCTs; sums of the counters. */
static void point_print(const struct sim_spec *sp, const char *test, const char *fields,
			const struct point *pt, double ref_gbps)
{
	const struct sim_result *r = &pt->sum;

	printf("SIM test=%s proto=%s %s seeds=%u goodput_gbps=%.2f", test,
	       sim_proto_name(sp->proto), fields, BENCH_SEEDS, pt->gbps);
	if (ref_gbps > 0)
		printf(" goodput_pct=%.1f", 100.0 * pt->gbps / ref_gbps);
	printf(" time_us=%.1f fct_p50_us=%.1f fct_p99_us=%.1f data_pkts=%llu retx=%llu"
	       " spurious=%llu spurious_pct=%.3f tlp=%llu rto=%llu ecn=%llu drops=%llu lost=%llu"
	       " peak_queue_kb=%llu flows=%u done=%u failed=%u verified=%s\n",
	       (double)r->elapsed_ns / 1000, (double)r->fct_p50_ns / 1000,
	       (double)r->fct_p99_ns / 1000, (unsigned long long)r->data_pkts,
	       (unsigned long long)r->retx, (unsigned long long)r->spurious,
	       r->data_pkts ? 100.0 * (double)r->spurious / (double)r->data_pkts : 0,
	       (unsigned long long)r->probes, (unsigned long long)r->rto,
	       (unsigned long long)r->ecn_marks, (unsigned long long)r->drops,
	       (unsigned long long)r->lost, (unsigned long long)(r->peak_queue >> 10),
	       r->flows, r->flows_done, pt->failed, pt->verified ? "yes" : "NO");
	fflush(stdout);
}

/*
 * One point per rate of bench_loss, each against the lossless one (*p0); fields start
 * with what (empty, or ending in a space) before "loss=". sp's loss_pct is left set.
 */
static void loss_points(struct sim_spec *sp, uint64_t seed, const char *test,
			const char *what, struct point *p0)
{
	struct point pt;
	unsigned int i;
	char f[96];

	for (i = 0; i < sizeof(bench_loss) / sizeof(bench_loss[0]); i++) {
		sp->loss_pct = bench_loss[i];
		snprintf(f, sizeof(f), "%sloss=%g", what, bench_loss[i]);
		point_run(sp, seed, test, f, i ? &pt : p0);
		point_print(sp, test, f, i ? &pt : p0, p0->gbps);
	}
}

static void bench(uint64_t seed)
{
	enum sim_proto protos[] = { SIM_METAROCE, SIM_GBN };
	unsigned int p, i;

	for (p = 0; p < 2; p++) {
		struct point pt, p0, p4k, pd[4];
		struct sim_spec sp;
		double sum = 0;
		char f[96];

		sim_spec_default(&sp, SIM_T_ONE, protos[p]);
		/* goodput under random loss, against the lossless run */
		loss_points(&sp, seed, "loss", "", &p0);
		/*
		 * The same with the small messages of make bench-loss: 4 KiB WRITEs, 128
		 * outstanding as perftest's ib_write_bw keeps them. Completions follow
		 * verbs order, so a loss holds back every later message until repaired.
		 */
		sp.msg_len = 4096;
		sp.nmsg = 20000;
		sp.depth = 128;
		loss_points(&sp, seed, "loss_4k", "size=4096 depth=128 ", &p4k);
		sim_spec_default(&sp, SIM_T_ONE, protos[p]);
		/* bursty loss: the same 1% in Gilbert-Elliott bursts of 8 packets on average */
		sp.loss_pct = 1;
		sp.burst = 8;
		point_run(&sp, seed, "burst", "loss=1 burst=8", &pt);
		point_print(&sp, "burst", "loss=1 burst=8", &pt, p0.gbps);
		sp.loss_pct = 0;
		sp.burst = 0;
		/* the lossless runs again, as the spurious-retransmission figure */
		point_print(&sp, "spurious", p ? "loss=0 spray=no" : "loss=0 spray=yes", &p0, 0);
		/* each of the four planes dead in turn, 100 us into the run */
		for (i = 0; i < 4; i++) {
			sp.dead_plane = i;
			snprintf(f, sizeof(f), "loss=0 dead_plane=%u", i);
			point_run(&sp, seed, "plane", f, &pd[i]);
			sum += pd[i].gbps / 4;
		}
		/* the four as one point: mean goodput and times, summed counters */
		memset(&pt, 0, sizeof(pt));
		pt.gbps = sum;
		pt.verified = true;
		for (i = 0; i < 4; i++) {
			struct sim_result *a = &pt.sum, *b = &pd[i].sum;

			pt.verified &= pd[i].verified;
			pt.failed += pd[i].failed;
			a->flows += b->flows;
			a->flows_done += b->flows_done;
			a->data_pkts += b->data_pkts;
			a->retx += b->retx;
			a->spurious += b->spurious;
			a->probes += b->probes;
			a->rto += b->rto;
			a->ecn_marks += b->ecn_marks;
			a->drops += b->drops;
			a->lost += b->lost;
			a->elapsed_ns += b->elapsed_ns / 4;
			a->fct_p50_ns += b->fct_p50_ns / 4;
			a->fct_p99_ns += b->fct_p99_ns / 4;
			if (b->peak_queue > a->peak_queue)
				a->peak_queue = b->peak_queue;
		}
		point_print(&sp, "plane", "loss=0 dead_plane=each", &pt, p0.gbps);
		/* 32 senders, one receiver */
		sim_spec_default(&sp, SIM_T_INCAST, protos[p]);
		sp.hosts = 33;
		sp.msg_len = 256 << 10;
		point_run(&sp, seed, "incast", "senders=32 loss=0", &pt);
		point_print(&sp, "incast", "senders=32 loss=0", &pt, 0);
		/* 64-host all-to-all */
		sim_spec_default(&sp, SIM_T_A2A, protos[p]);
		for (i = 0; i < 2; i++) {
			sp.loss_pct = i ? 1 : 0;
			snprintf(f, sizeof(f), "hosts=%u loss=%g", sp.hosts, sp.loss_pct);
			point_run(&sp, seed, "a2a", f, &pt);
			point_print(&sp, "a2a", f, &pt, 0);
		}
		/* 64-host ring all-reduce */
		sim_spec_default(&sp, SIM_T_RING, protos[p]);
		for (i = 0; i < 2; i++) {
			sp.loss_pct = i ? 1 : 0;
			snprintf(f, sizeof(f), "hosts=%u loss=%g", sp.hosts, sp.loss_pct);
			point_run(&sp, seed, "allreduce", f, &pt);
			point_print(&sp, "allreduce", f, &pt, 0);
		}
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: metaroce-sim bench [seed]\n"
		"       metaroce-sim run one|a2a|incast|ring metaroce|gbn [loss=PCT] [burst=PKTS]"
		" [jitter=NS] [dup=PCT] [dead=PLANE [ndead=N]] [seed=N] [hosts=N] [nmsg=N] [len=BYTES]"
		" [depth=N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sim_result r;
	struct sim_spec sp;
	enum sim_test t;
	enum sim_proto p;
	char f[96];
	int i;

	if (argc >= 2 && !strcmp(argv[1], "bench")) {
		bench(argc > 2 ? strtoull(argv[2], NULL, 0) : 1);
		return 0;
	}
	if (argc < 4 || strcmp(argv[1], "run"))
		return usage();
	if (!strcmp(argv[2], "one"))
		t = SIM_T_ONE;
	else if (!strcmp(argv[2], "a2a"))
		t = SIM_T_A2A;
	else if (!strcmp(argv[2], "incast"))
		t = SIM_T_INCAST;
	else if (!strcmp(argv[2], "ring"))
		t = SIM_T_RING;
	else
		return usage();
	if (!strcmp(argv[3], "metaroce"))
		p = SIM_METAROCE;
	else if (!strcmp(argv[3], "gbn"))
		p = SIM_GBN;
	else
		return usage();
	sim_spec_default(&sp, t, p);
	for (i = 4; i < argc; i++) {
		if (!strncmp(argv[i], "loss=", 5))
			sp.loss_pct = atof(argv[i] + 5);
		else if (!strncmp(argv[i], "burst=", 6))
			sp.burst = (uint32_t)atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "jitter=", 7))
			sp.jitter_ns = strtoull(argv[i] + 7, NULL, 0);
		else if (!strncmp(argv[i], "dup=", 4))
			sp.dup_pct = atof(argv[i] + 4);
		else if (!strncmp(argv[i], "dead=", 5))
			sp.dead_plane = atoi(argv[i] + 5);
		else if (!strncmp(argv[i], "ndead=", 6))
			sp.dead_planes = (uint32_t)atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "seed=", 5))
			sp.seed = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "hosts=", 6))
			sp.hosts = (uint32_t)atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "nmsg=", 5))
			sp.nmsg = (uint32_t)atoi(argv[i] + 5);
		else if (!strncmp(argv[i], "len=", 4))
			sp.msg_len = (uint32_t)atoi(argv[i] + 4);
		else if (!strncmp(argv[i], "depth=", 6))
			sp.depth = (uint32_t)atoi(argv[i] + 6);
		else
			return usage();
	}
	if (sp.loss_pct < 0 || sp.loss_pct >= 100 || sp.dup_pct < 0 || sp.dup_pct > 100 ||
	    sp.hosts < 2 || sp.hosts > 4096 || !sp.nmsg || !sp.msg_len || !sp.depth ||
	    sp.dead_plane > 3 || sp.dead_planes < 1 || sp.dead_planes > 4)
		return usage();
	sim_spec_run(&sp, &r);
	snprintf(f, sizeof(f),
		 "loss=%g burst=%u jitter_ns=%llu dup=%g dead_plane=%d dead_planes=%u",
		 sp.loss_pct, sp.burst, (unsigned long long)sp.jitter_ns, sp.dup_pct,
		 sp.dead_plane, sp.dead_plane < 0 ? 0 : sp.dead_planes);
	sim_print(stdout, argv[2], &sp, f, &r, 0);
	return r.verified ? 0 : 1;
}
