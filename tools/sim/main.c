// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce-sim: one run, or the whole benchmark (make bench-sim).
 *
 *   metaroce-sim bench [seed]
 *   metaroce-sim run one|a2a|incast metaroce|gbn [loss=PCT] [dead=PLANE] [seed=N]
 *                [hosts=N] [nmsg=N] [len=BYTES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static const double bench_loss[] = { 0, 0.1, 1, 5, 10 };

static void bench(uint64_t seed)
{
	enum sim_proto protos[] = { SIM_METAROCE, SIM_GBN };
	unsigned int p, i;

	for (p = 0; p < 2; p++) {
		struct sim_spec sp;
		struct sim_result r, r0;
		double sum = 0, min = -1;
		char f[64];

		sim_spec_default(&sp, SIM_T_ONE, protos[p]);
		sp.seed = seed;
		/* goodput under random loss, against the lossless run */
		for (i = 0; i < sizeof(bench_loss) / sizeof(bench_loss[0]); i++) {
			sp.loss_pct = bench_loss[i];
			sim_spec_run(&sp, i ? &r : &r0);
			snprintf(f, sizeof(f), "loss=%g", bench_loss[i]);
			sim_print(stdout, "loss", &sp, f, i ? &r : &r0, r0.goodput_gbps);
		}
		/* the lossless run again, as the spurious-retransmission figure */
		sp.loss_pct = 0;
		sim_print(stdout, "spurious", &sp, "loss=0", &r0, 0);
		/* each of the four planes dead in turn, 100 us into the run */
		for (i = 0; i < 4; i++) {
			double pct;

			sp.dead_plane = i;
			sim_spec_run(&sp, &r);
			snprintf(f, sizeof(f), "loss=0 dead_plane=%u", i);
			sim_print(stdout, "plane", &sp, f, &r, r0.goodput_gbps);
			pct = 100.0 * r.goodput_gbps / r0.goodput_gbps;
			sum += pct;
			if (min < 0 || pct < min)
				min = pct;
		}
		printf("SIM test=plane proto=%s loss=0 dead_plane=any goodput_pct=%.1f"
		       " min_pct=%.1f\n", sim_proto_name(sp.proto), sum / 4, min);
		/* 64-host all-to-all */
		sim_spec_default(&sp, SIM_T_A2A, protos[p]);
		sp.seed = seed;
		for (i = 0; i < 2; i++) {
			sp.loss_pct = i ? 1 : 0;
			sim_spec_run(&sp, &r);
			snprintf(f, sizeof(f), "hosts=%u loss=%g", sp.hosts, sp.loss_pct);
			sim_print(stdout, "a2a", &sp, f, &r, 0);
		}
		fflush(stdout);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: metaroce-sim bench [seed]\n"
		"       metaroce-sim run one|a2a|incast metaroce|gbn [loss=PCT] [dead=PLANE]"
		" [seed=N] [hosts=N] [nmsg=N] [len=BYTES]\n");
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
		else if (!strncmp(argv[i], "dead=", 5))
			sp.dead_plane = atoi(argv[i] + 5);
		else if (!strncmp(argv[i], "seed=", 5))
			sp.seed = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "hosts=", 6))
			sp.hosts = (uint32_t)atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "nmsg=", 5))
			sp.nmsg = (uint32_t)atoi(argv[i] + 5);
		else if (!strncmp(argv[i], "len=", 4))
			sp.msg_len = (uint32_t)atoi(argv[i] + 4);
		else
			return usage();
	}
	if (sp.hosts < 2 || sp.hosts > 4096 || !sp.nmsg || !sp.msg_len || sp.dead_plane > 3)
		return usage();
	sim_spec_run(&sp, &r);
	snprintf(f, sizeof(f), "loss=%g dead_plane=%d", sp.loss_pct, sp.dead_plane);
	sim_print(stdout, argv[2], &sp, f, &r, 0);
	return r.verified ? 0 : 1;
}
