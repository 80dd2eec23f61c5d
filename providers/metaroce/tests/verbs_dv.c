// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Helper for provider_dv.sh: the direct verbs of libmetaroce (metaroce_dv.h)
 * through the real libibverbs, against the stand-in kernel of fake_uverbs.c
 * (scenario ex, preloaded). Linked with the provider itself (-lmetaroce).
 *
 * Checks: bad attributes refused before any command; the CREATE_QP driver
 * data the kernel gets; paths and streams read back; the stream of each WQE
 * in the send ring for metaroce_dv_post_send, ibv_post_send and
 * metaroce_dv_wr_set_stream; streams the QP lacks refused with nothing
 * published; the per-path statistics copied from the page the fake kernel
 * mapped; a QP created without driver data (an old kernel's answer) has one
 * stream and no statistics. Prints "PASS name" or "FAIL name: why".
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/metaroce_dv.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#define VERBS_DV_CHECKS	12

/* The fake kernel's numbers (fake_uverbs.c). */
#define RING_SQ		1
#define RING_STATS	4
#define FAKE_LKEY	0x1234

static struct metaroce_ring *(*ring_hdr)(int i);
static void *(*ring_entry)(int i, uint32_t idx);
static unsigned int (*cmd_count)(unsigned int cmd);
static int (*last_req)(struct metaroce_create_qp_req *req);

static int failed, count;
static char why[512];

static void check(int ok, const char *name)
{
	count++;
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why);
		failed++;
	}
	why[0] = '\0';
}

static void bail(void)
{
	snprintf(why, sizeof(why), "an earlier step failed");
	while (count < VERBS_DV_CHECKS)
		check(0, "not reached");
	exit(1);
}

static uint32_t sq_prod(void)
{
	return __atomic_load_n(&ring_hdr(RING_SQ)->prod, __ATOMIC_ACQUIRE);
}

static struct metaroce_send_wqe *sq_wqe(uint32_t idx)
{
	return ring_entry(RING_SQ, idx);
}

static struct ibv_qp *dv_qp(struct ibv_context *ctx, struct ibv_pd *pd,
			    struct ibv_cq *cq, struct metaroce_dv_qp_init_attr *dv)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
		.cap = { .max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 4,
			 .max_recv_sge = 2 },
	};

	return metaroce_dv_create_qp(ctx, &a, dv);
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void test_refused(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq)
{
	static const struct {
		uint64_t mask;
		uint8_t paths, streams;
		int err;
	} bad[] = {
		{ 1ULL << 2, 0, 0, EOPNOTSUPP },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS, 0, 0, EINVAL },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS, 65, 0, EINVAL },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS, 0, 0, EINVAL },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS, 0, 17, EINVAL },
	};
	unsigned int before = cmd_count(IB_USER_VERBS_CMD_CREATE_QP), i, ok = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct metaroce_dv_qp_init_attr dv = {
			.comp_mask = bad[i].mask, .num_paths = bad[i].paths,
			.num_streams = bad[i].streams,
		};
		struct ibv_qp *qp;

		errno = 0;
		qp = dv_qp(ctx, pd, cq, &dv);
		if (!qp && errno == bad[i].err)
			ok++;
		else
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " [%u: qp %p errno %d]", i, (void *)qp, errno);
	}
	snprintf(why + strlen(why), sizeof(why) - strlen(why), " CREATE_QP %u -> %u",
		 before, cmd_count(IB_USER_VERBS_CMD_CREATE_QP));
	check(ok == sizeof(bad) / sizeof(bad[0]) &&
	      cmd_count(IB_USER_VERBS_CMD_CREATE_QP) == before,
	      "bad comp_mask (EOPNOTSUPP), paths and streams (EINVAL) refused, no command");
}

static void test_streams(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct metaroce_dv_qp_init_attr dv = {
		.comp_mask = METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS |
			     METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS,
		.num_paths = 4, .num_streams = 3,
	};
	struct ibv_sge sge = { .addr = 0x2000, .length = 100, .lkey = FAKE_LKEY };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *bad = NULL;
	struct metaroce_create_qp_req req = {};
	struct metaroce_dv_qp_attr qa = {};
	struct metaroce_dv_path_stats st[4] = {};
	struct metaroce_qp_stats *page;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	uint64_t tx = 0;
	uint32_t prod, n = 0, i;
	int ret, r2;

	qp = dv_qp(ctx, pd, cq, &dv);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	ret = last_req(&req);
	snprintf(why, sizeof(why), "qp %p errno %d; requests %d: paths %u streams %u",
		 (void *)qp, errno, ret, req.num_paths, req.num_streams);
	check(qpx && ret == 1 && req.num_paths == 4 && req.num_streams == 3 &&
	      !req.comp_mask && !req.reserved,
	      "metaroce_dv_create_qp sends 4 paths, 3 streams as CREATE_QP driver data");
	if (!qpx || to_init(qp))
		bail();

	ret = metaroce_dv_query_qp(qp, &qa, sizeof(qa));
	r2 = metaroce_dv_query_qp(qp, &qa, 1);
	snprintf(why, sizeof(why), "ret %d paths %u streams %u; short inlen %d", ret,
		 qa.num_paths, qa.num_streams, r2);
	check(!ret && qa.num_paths == 4 && qa.num_streams == 3 && r2 == EINVAL,
	      "metaroce_dv_query_qp: 4 paths, 3 streams; a short attr refused");

	prod = sq_prod();
	ret = metaroce_dv_post_send(qp, &wr, 2, &bad);
	wr.wr_id = 2;
	r2 = ibv_post_send(qp, &wr, &bad);
	snprintf(why, sizeof(why), "ret %d/%d prod %u -> %u streams %u %u", ret, r2, prod,
		 sq_prod(), sq_wqe(prod)->stream, sq_wqe(prod + 1)->stream);
	check(!ret && !r2 && sq_prod() == prod + 2 && sq_wqe(prod)->stream == 2 &&
	      sq_wqe(prod)->wr_id == 1 && sq_wqe(prod + 1)->stream == 0,
	      "metaroce_dv_post_send on stream 2, ibv_post_send on stream 0");

	prod = sq_prod();
	bad = NULL;
	ret = metaroce_dv_post_send(qp, &wr, 3, &bad);
	snprintf(why, sizeof(why), "ret %d bad %p prod %u -> %u", ret, (void *)bad,
		 prod, sq_prod());
	check(ret == EINVAL && bad == &wr && sq_prod() == prod,
	      "metaroce_dv_post_send on stream 3 of 3: EINVAL, nothing posted");

	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = 0;
	ibv_wr_send(qpx);
	metaroce_dv_wr_set_stream(qpx, 1);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 10);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 10);
	ret = ibv_wr_complete(qpx);
	snprintf(why, sizeof(why), "ret %d prod %u -> %u streams %u %u", ret, prod,
		 sq_prod(), sq_wqe(prod)->stream, sq_wqe(prod + 1)->stream);
	check(!ret && sq_prod() == prod + 2 && sq_wqe(prod)->stream == 1 &&
	      sq_wqe(prod + 1)->stream == 0,
	      "metaroce_dv_wr_set_stream puts one ibv_wr_send on stream 1");

	prod = sq_prod();
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 10);
	ibv_wr_send(qpx);
	metaroce_dv_wr_set_stream(qpx, 3);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 10);
	ret = ibv_wr_complete(qpx);
	snprintf(why, sizeof(why), "ret %d prod %u -> %u", ret, prod, sq_prod());
	check(ret == EINVAL && sq_prod() == prod,
	      "metaroce_dv_wr_set_stream(3): ibv_wr_complete EINVAL, none of the batch posted");

	/* What the kernel would write into the page; the library copies it. */
	page = (struct metaroce_qp_stats *)ring_hdr(RING_STATS);
	if (!page)
		bail();
	page->num_paths = 4;
	page->tx_pkts = 100;
	for (i = 0; i < 4; i++) {
		page->path[i].udp_sport = 50000 + i;
		page->path[i].state = i == 3 ? METAROCE_PATH_RETIRED : METAROCE_PATH_ACTIVE;
		page->path[i].tx_pkts = 10 + 20 * i;
		page->path[i].tx_retx = i;
		page->path[i].lost = 2 * i;
		page->path[i].ecn_marks = 3 * i;
		page->path[i].srtt_ns = 1000 * (i + 1);
	}
	__atomic_store_n(&page->seq, 2, __ATOMIC_RELEASE);
	ret = metaroce_dv_query_path_stats(qp, st, 4, &n, &tx);
	snprintf(why, sizeof(why), "ret %d paths %u tx %llu; path 3: sport %u state %u sent %llu "
		 "retx %llu lost %llu ecn %llu srtt %llu", ret, n, (unsigned long long)tx,
		 st[3].udp_sport, st[3].state, (unsigned long long)st[3].tx_pkts,
		 (unsigned long long)st[3].tx_retx, (unsigned long long)st[3].lost,
		 (unsigned long long)st[3].ecn_marks, (unsigned long long)st[3].srtt_ns);
	check(!ret && n == 4 && tx == 100 && st[0].udp_sport == 50000 &&
	      st[0].state == METAROCE_DV_PATH_ACTIVE && st[3].udp_sport == 50003 &&
	      st[3].state == METAROCE_DV_PATH_RETIRED && st[3].tx_pkts == 70 &&
	      st[3].tx_retx == 3 && st[3].lost == 6 && st[3].ecn_marks == 9 &&
	      st[3].srtt_ns == 4000,
	      "metaroce_dv_query_path_stats copies every field of the kernel's page");

	memset(st, 0, sizeof(st));
	ret = metaroce_dv_query_path_stats(qp, st, 2, &n, NULL);
	snprintf(why, sizeof(why), "ret %d paths %u; entry 2 sport %u", ret, n, st[2].udp_sport);
	check(!ret && n == 4 && st[1].udp_sport == 50001 && st[2].udp_sport == 0,
	      "metaroce_dv_query_path_stats with room for 2: 2 written, 4 reported");

	ret = ibv_destroy_qp(qp);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(!ret, "dv QP destroyed");
}

/* Without driver data (ibv_create_qp_ex): one stream, no paths known, no statistics. */
static void test_plain(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_sge sge = { .addr = 0x2000, .length = 10, .lkey = FAKE_LKEY };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *bad = NULL;
	struct metaroce_dv_path_stats st[1];
	struct metaroce_dv_qp_attr qa;
	struct ibv_qp *qp;
	uint32_t n = 0;
	int q, s, p1, p0;

	qp = ibv_create_qp_ex(ctx, &a);
	if (!qp || to_init(qp))
		bail();
	q = metaroce_dv_query_qp(qp, &qa, sizeof(qa));
	s = metaroce_dv_query_path_stats(qp, st, 1, &n, NULL);
	p1 = metaroce_dv_post_send(qp, &wr, 1, &bad);
	p0 = metaroce_dv_post_send(qp, &wr, 0, &bad);
	snprintf(why, sizeof(why), "query_qp %d stats %d post stream 1 %d, stream 0 %d",
		 q, s, p1, p0);
	check(q == EOPNOTSUPP && s == EOPNOTSUPP && p1 == EINVAL && p0 == 0 &&
	      ibv_destroy_qp(qp) == 0,
	      "a QP the kernel said nothing about: 1 stream, no paths or statistics");
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_wc wc[4];
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	int i, n, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	ring_hdr = (struct metaroce_ring *(*)(int))dlsym(RTLD_DEFAULT, "fake_ring_hdr");
	ring_entry = (void *(*)(int, uint32_t))dlsym(RTLD_DEFAULT, "fake_ring_entry");
	cmd_count = (unsigned int (*)(unsigned int))dlsym(RTLD_DEFAULT, "fake_cmd_count");
	last_req = (int (*)(struct metaroce_create_qp_req *))
		dlsym(RTLD_DEFAULT, "fake_last_create_qp_req");
	if (!ring_hdr || !ring_entry || !cmd_count || !last_req) {
		snprintf(why, sizeof(why), "run with fake_uverbs.so preloaded");
		bail();
	}

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), argv[1]) == 0)
			dev = list[i];
	ctx = dev ? ibv_open_device(dev) : NULL;
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	snprintf(why, sizeof(why), "dev %p ctx %p pd %p cq %p errno %d", (void *)dev,
		 (void *)ctx, (void *)pd, (void *)cq, errno);
	check(cq && metaroce_dv_is_supported(dev),
	      "device opened, PD and CQ; metaroce_dv_is_supported");
	if (!cq)
		bail();

	test_refused(ctx, pd, cq);
	test_streams(ctx, pd, cq);
	test_plain(ctx, pd, cq);

	/* The fake kernel's CQ may hold completions: consume them to destroy it. */
	while (ibv_poll_cq(cq, 4, wc) > 0)
		;
	ret = ibv_destroy_cq(cq);
	ret = ret ? ret : ibv_dealloc_pd(pd);
	ret = ret ? ret : ibv_close_device(ctx);
	ibv_free_device_list(list);
	if (ret)
		printf("# teardown: %d\n", ret);

	if (count != VERBS_DV_CHECKS) {
		printf("FAIL check count: %d, expected %d\n", count, VERBS_DV_CHECKS);
		return 1;
	}
	return failed ? 1 : 0;
}
