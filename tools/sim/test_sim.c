// SPDX-License-Identifier: GPL-2.0
/*
 * A fast smoke run of metaroce-sim, printing TAP: determinism, end-to-end verification of
 * every run, go-back-N paying more than MetaRoCE for the same loss, and a dead plane.
 */
#include <stdio.h>
#include <string.h>
#include "report.h"

static int tests, failed;

static void ok(bool cond, const char *what)
{
	tests++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tests, what);
}

static void line(const struct sim_spec *sp, const struct sim_result *r, char *buf, size_t n)
{
	FILE *f = fmemopen(buf, n, "w");

	sim_print(f, "smoke", sp, "", r, 0);
	fclose(f);
}

/* The check itself: a wrong byte, a missing packet and a double placement all fail it. */
static bool check_catches(void)
{
	struct sim_flow f = { .id = 3, .nmsg = 1, .msg_len = 8192, .delivered = 1,
			      .completed = 1 };
	uint8_t buf[4096];
	struct sim_flow g;

	sim_flow_fill(&f, 0, buf, 4096);
	sim_flow_place(&f, 0, buf, 4096);
	g = f;
	if (sim_flow_verified(&g))
		return false;			/* half missing */
	sim_flow_place(&g, 0, buf, 4096);
	if (sim_flow_verified(&g))
		return false;			/* the first half twice: count right, offsets not */
	g = f;
	sim_flow_fill(&g, 4096, buf, 4096);
	buf[100] ^= 1;
	sim_flow_place(&g, 4096, buf, 4096);
	if (sim_flow_verified(&g))
		return false;			/* one bit flipped */
	buf[100] ^= 1;
	sim_flow_place(&f, 4096, buf, 4096);
	return sim_flow_verified(&f);
}

/* Verified and complete: every flow done, every byte once, right. */
static bool good(const struct sim_result *r)
{
	return r->verified && r->flows_done == r->flows && !r->flows_failed;
}

int main(void)
{
	struct sim_result a, b, m, g;
	struct sim_spec sp;
	char la[1024], lb[1024];

	printf("1..12\n");
	/* one flow, 4 MiB, 1% loss: twice with one seed, once with another */
	sim_spec_default(&sp, SIM_T_ONE, SIM_METAROCE);
	sp.nmsg = 64;
	sp.msg_len = 64 << 10;
	sp.loss_pct = 1;
	sim_spec_run(&sp, &a);
	line(&sp, &a, la, sizeof(la));
	sim_spec_run(&sp, &b);
	line(&sp, &b, lb, sizeof(lb));
	printf("# %s", la);
	ok(!strcmp(la, lb), "same seed, same SIM line");
	sp.seed = 2;
	sim_spec_run(&sp, &b);
	line(&sp, &b, lb, sizeof(lb));
	ok(strcmp(la, lb) != 0, "another seed, another run");
	ok(good(&a) && good(&b) && a.lost > 0, "metaroce: every byte verified under loss");
	m = a;
	sp.seed = 1;
	sp.proto = SIM_GBN;
	sim_spec_run(&sp, &g);
	printf("# gbn retx %llu metaroce retx %llu\n", (unsigned long long)g.retx,
	       (unsigned long long)m.retx);
	ok(good(&g), "gbn: every byte verified under loss");
	ok(g.retx > m.retx, "gbn retransmits more than metaroce at 1% loss");
	/* a plane dies 100 us in: every plane in turn, so the hash cannot dodge it */
	sp.proto = SIM_METAROCE;
	sp.loss_pct = 0;
	for (sp.dead_plane = 0; sp.dead_plane < 4; sp.dead_plane++) {
		sim_spec_run(&sp, &a);
		if (!good(&a))
			break;
	}
	ok(sp.dead_plane == 4, "metaroce completes and verifies with any one plane dead");
	/* reordering, duplication and bursty loss on every host link, both protocols */
	sp.dead_plane = -1;
	sp.loss_pct = 1;
	sp.burst = 4;
	sp.jitter_ns = 1000;
	sp.dup_pct = 1;
	sim_spec_run(&sp, &a);
	printf("# metaroce lost %llu verified %d\n", (unsigned long long)a.lost, a.verified);
	ok(good(&a) && a.lost > 0, "metaroce: verified under reordering, duplicates, bursts");
	sp.proto = SIM_GBN;
	sim_spec_run(&sp, &a);
	printf("# gbn lost %llu verified %d\n", (unsigned long long)a.lost, a.verified);
	ok(good(&a) && a.lost > 0, "gbn: verified under reordering, duplicates, bursts");
	/* a small all-to-all, both protocols */
	sim_spec_default(&sp, SIM_T_A2A, SIM_METAROCE);
	sp.hosts = 16;
	sp.msg_len = 16 << 10;
	sim_spec_run(&sp, &a);
	ok(good(&a) && a.flows == 16 * 15, "metaroce: 16-host all-to-all verified");
	sp.proto = SIM_GBN;
	sim_spec_run(&sp, &a);
	ok(good(&a) && a.flows == 16 * 15, "gbn: 16-host all-to-all verified");
	/* small WRITEs as perftest posts them: a repair must not stall the pipeline */
	sim_spec_default(&sp, SIM_T_ONE, SIM_METAROCE);
	sp.msg_len = 4096;
	sp.nmsg = 5000;
	sp.depth = 128;
	sim_spec_run(&sp, &a);
	sp.loss_pct = 1;
	sim_spec_run(&sp, &b);
	printf("# 4 KiB x 128: lossless %.2f Gb/s, 1%% loss %.2f Gb/s\n", a.goodput_gbps,
	       b.goodput_gbps);
	ok(good(&a) && good(&b) && b.lost > 0 && b.goodput_gbps >= 0.95 * a.goodput_gbps,
	   "metaroce: 4 KiB WRITEs 128 deep keep 95% of their goodput at 1% loss");
	ok(check_catches(), "the end-to-end check catches a bad byte, a gap and a double");
	return failed ? 1 : 0;
}
