// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Helper for provider_ex.sh: the extended verbs of libmetaroce through the
 * public API (ibv_create_cq_ex and ibv_start_poll, ibv_create_qp_ex and the
 * ibv_wr_* send API), against the fake kernel of fake_uverbs.c in its "ex"
 * scenario. It reads the rings the provider writes, and adds completions to
 * the CQ ring, through the fake kernel's fake_ring_*() functions, and
 * counts commands with fake_cmd_count(). Prints one "PASS name" or
 * "FAIL name: why" line per check (VERBS_EX_CHECKS of them) and exits
 * non-zero on any failure.
 *
 * Usage: verbs_ex DEVICE
 *        verbs_ex DEVICE bad-yield   (1 + BAD_YIELD_CHECKS checks of a bad
 *                                     METAROCE_POLL_YIELD instead)
 */

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#define VERBS_EX_CHECKS 48
#define BAD_YIELD_CHECKS 2

/* The fake kernel's numbers (fake_uverbs.c). */
#define RING_CQ		0
#define RING_SQ		1
#define FAKE_CQ_HANDLE	0x33
#define FAKE_LKEY	0x1234
#define FAKE_AH_NUM	5
#define EX_CMD(n)	(64 + (n))

static struct metaroce_ring *(*ring_hdr)(int i);
static void *(*ring_entry)(int i, uint32_t idx);
static unsigned int (*cmd_count)(unsigned int cmd);
static unsigned int (*yield_count)(void);

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

static int checks = VERBS_EX_CHECKS;

/* The exit status: every check made, none failed. */
static int finish(void)
{
	if (count != checks) {
		printf("FAIL check count: %d, expected %d\n", count, checks);
		return 1;
	}
	return failed ? 1 : 0;
}

static void bail(void)
{
	snprintf(why, sizeof(why), "an earlier step failed");
	while (count < checks)
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

static struct metaroce_sge *wqe_sge(struct metaroce_send_wqe *w)
{
	return (struct metaroce_sge *)(w + 1);
}

/* Adds a completion to the CQ ring, as the kernel would. */
static void push_cqe(const struct metaroce_cqe *c)
{
	struct metaroce_ring *h = ring_hdr(RING_CQ);

	memcpy(ring_entry(RING_CQ, h->prod), c, sizeof(*c));
	__atomic_store_n(&h->prod, h->prod + 1, __ATOMIC_RELEASE);
}

static uint32_t cq_cons(void)
{
	return __atomic_load_n(&ring_hdr(RING_CQ)->cons, __ATOMIC_ACQUIRE);
}

/* A batch expected to fail: nothing published, no doorbell. */
static void check_refused(struct ibv_qp_ex *qpx, int ret, int want,
			  uint32_t prod, unsigned int db, const char *name)
{
	(void)qpx;
	snprintf(why, sizeof(why), "ret %d (want %d), prod %u -> %u, doorbells %u -> %u",
		 ret, want, prod, sq_prod(), db,
		 cmd_count(IB_USER_VERBS_CMD_POST_SEND));
	check(ret == want && sq_prod() == prod &&
	      cmd_count(IB_USER_VERBS_CMD_POST_SEND) == db, name);
}

static void test_cq_ex(struct ibv_context *ctx, struct ibv_cq_ex **out)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct metaroce_cqe c;
	struct ibv_cq_ex *cq;
	struct ibv_wc wc[4];
	unsigned int n;
	int ret, ret2, ret3;

	/* Refusals first: the fake kernel has room for one CQ. */
	ca.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	n = cmd_count(IB_USER_VERBS_CMD_CREATE_CQ);
	errno = 0;
	cq = ibv_create_cq_ex(ctx, &ca);
	snprintf(why, sizeof(why), "cq %p errno %d, CREATE_CQ sent %u", (void *)cq,
		 errno, cmd_count(IB_USER_VERBS_CMD_CREATE_CQ) - n);
	check(!cq && errno == EOPNOTSUPP &&
	      cmd_count(IB_USER_VERBS_CMD_CREATE_CQ) == n,
	      "create_cq_ex refuses completion timestamps (EOPNOTSUPP)");

	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	errno = 0;
	cq = ibv_create_cq_ex(ctx, &ca);
	snprintf(why, sizeof(why), "cq %p errno %d", (void *)cq, errno);
	check(!cq && errno == EOPNOTSUPP,
	      "create_cq_ex refuses a parent domain (EOPNOTSUPP)");

	/* IGNORE_OVERRUN is the kernel's to refuse: it gets the ex command. */
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	n = cmd_count(EX_CMD(IB_USER_VERBS_EX_CMD_CREATE_CQ));
	errno = 0;
	cq = ibv_create_cq_ex(ctx, &ca);
	snprintf(why, sizeof(why), "cq %p errno %d, ex CREATE_CQ sent %u",
		 (void *)cq, errno,
		 cmd_count(EX_CMD(IB_USER_VERBS_EX_CMD_CREATE_CQ)) - n);
	check(!cq && errno == EOPNOTSUPP &&
	      cmd_count(EX_CMD(IB_USER_VERBS_EX_CMD_CREATE_CQ)) == n + 1,
	      "create_cq_ex passes IGNORE_OVERRUN to the kernel, its refusal back");

	ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	errno = 0;
	cq = ibv_create_cq_ex(ctx, &ca);
	snprintf(why, sizeof(why), "cq %p errno %d (%s)", (void *)cq, errno,
		 strerror(errno));
	check(cq && ibv_cq_ex_to_cq(cq)->handle == FAKE_CQ_HANDLE &&
	      ibv_cq_ex_to_cq(cq)->cqe == 16 && cq->read_byte_len &&
	      cq->read_src_qp && !cq->read_completion_ts,
	      "ibv_create_cq_ex maps the ring, sets the asked accessors");
	if (!cq)
		bail();
	*out = cq;

	/* The fake kernel's two completions (see fake_uverbs.c). */
	ret = ibv_start_poll(cq, &pa);
	snprintf(why, sizeof(why),
		 "ret %d id %#llx st %d op %d flags %#x imm %#x len %u qp %u slid %u sl %u",
		 ret, (unsigned long long)cq->wr_id, cq->status,
		 ret ? -1 : (int)ibv_wc_read_opcode(cq),
		 ret ? 0 : ibv_wc_read_wc_flags(cq),
		 ret ? 0 : ntohl(ibv_wc_read_imm_data(cq)),
		 ret ? 0 : ibv_wc_read_byte_len(cq),
		 ret ? 0 : ibv_wc_read_qp_num(cq),
		 ret ? 0 : ibv_wc_read_slid(cq), ret ? 0 : ibv_wc_read_sl(cq));
	check(ret == 0 && cq->wr_id == 0x1234 && cq->status == IBV_WC_SUCCESS &&
	      ibv_wc_read_opcode(cq) == IBV_WC_RECV &&
	      ibv_wc_read_wc_flags(cq) == IBV_WC_WITH_IMM &&
	      ntohl(ibv_wc_read_imm_data(cq)) == 0xabcd &&
	      ibv_wc_read_byte_len(cq) == 42 && ibv_wc_read_qp_num(cq) == 7 &&
	      ibv_wc_read_slid(cq) == 0 && ibv_wc_read_sl(cq) == 0 &&
	      ibv_wc_read_dlid_path_bits(cq) == 0,
	      "ibv_start_poll: the first CQE, every field read");
	if (ret)
		bail();

	ret = ibv_next_poll(cq);
	snprintf(why, sizeof(why), "ret %d id %#llx st %d op %d verr %u, cons %u",
		 ret, (unsigned long long)cq->wr_id, cq->status,
		 ret ? -1 : (int)ibv_wc_read_opcode(cq),
		 ret ? 0 : ibv_wc_read_vendor_err(cq), cq_cons());
	check(ret == 0 && cq->wr_id == 0x1235 &&
	      cq->status == IBV_WC_REM_ACCESS_ERR &&
	      ibv_wc_read_opcode(cq) == IBV_WC_RDMA_WRITE &&
	      ibv_wc_read_vendor_err(cq) == 5 && cq_cons() == 1,
	      "ibv_next_poll: the second, the first released (cons 1)");

	ret = ibv_next_poll(cq);
	ibv_end_poll(cq);
	snprintf(why, sizeof(why), "ret %d, cons %u", ret, cq_cons());
	check(ret == ENOENT && cq_cons() == 2,
	      "ibv_next_poll ENOENT at the end; end_poll publishes cons 2");

	/* The lock is not held after ENOENT: ibv_poll_cq must not spin. */
	alarm(10);
	ret = ibv_start_poll(cq, &pa);
	ret2 = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 4, wc);
	alarm(0);
	snprintf(why, sizeof(why), "start_poll %d, poll_cq %d", ret, ret2);
	check(ret == ENOENT && ret2 == 0,
	      "ibv_start_poll of an empty CQ: ENOENT, CQ left unlocked");

	pa.comp_mask = 1;
	ret = ibv_start_poll(cq, &pa);
	pa.comp_mask = 0;
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == EINVAL, "ibv_start_poll refuses an unknown comp_mask");

	/* A UD receive with GRH, a receive with invalidate, a send. */
	memset(&c, 0, sizeof(c));
	c.wr_id = 21;
	c.opcode = METAROCE_WC_RECV;
	c.wc_flags = METAROCE_WC_GRH;
	c.byte_len = 140;
	c.qp_num = 9;
	c.src_qp = 0x123456;
	push_cqe(&c);
	memset(&c, 0, sizeof(c));
	c.wr_id = 22;
	c.opcode = METAROCE_WC_RECV;
	c.wc_flags = METAROCE_WC_WITH_INV;
	c.imm_inv = 0xfeed0001;
	push_cqe(&c);
	memset(&c, 0, sizeof(c));
	c.wr_id = 23;
	c.opcode = IBV_WC_SEND;
	push_cqe(&c);

	ret = ibv_start_poll(cq, &pa);
	snprintf(why, sizeof(why), "ret %d id %llu flags %#x src_qp %#x len %u",
		 ret, (unsigned long long)cq->wr_id,
		 ret ? 0 : ibv_wc_read_wc_flags(cq),
		 ret ? 0 : ibv_wc_read_src_qp(cq),
		 ret ? 0 : ibv_wc_read_byte_len(cq));
	check(ret == 0 && cq->wr_id == 21 &&
	      ibv_wc_read_wc_flags(cq) == IBV_WC_GRH &&
	      ibv_wc_read_src_qp(cq) == 0x123456 &&
	      ibv_wc_read_byte_len(cq) == 140,
	      "UD receive: GRH flag and source QP read");
	ret = ibv_next_poll(cq);
	snprintf(why, sizeof(why), "ret %d id %llu flags %#x rkey %#x", ret,
		 (unsigned long long)cq->wr_id,
		 ret ? 0 : ibv_wc_read_wc_flags(cq),
		 ret ? 0 : ibv_wc_read_invalidated_rkey(cq));
	check(ret == 0 && cq->wr_id == 22 &&
	      ibv_wc_read_wc_flags(cq) == IBV_WC_WITH_INV &&
	      ibv_wc_read_invalidated_rkey(cq) == 0xfeed0001,
	      "receive with invalidate: the rkey read");
	ibv_end_poll(cq);

	/* The same ring through ibv_poll_cq. */
	memset(wc, 0, sizeof(wc));
	ret = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 4, wc);
	ret3 = ibv_start_poll(cq, &pa);
	snprintf(why, sizeof(why), "poll_cq %d (id %llu op %d), cons %u, then start_poll %d",
		 ret, (unsigned long long)wc[0].wr_id, wc[0].opcode, cq_cons(),
		 ret3);
	check(ret == 1 && wc[0].wr_id == 23 && wc[0].opcode == IBV_WC_SEND &&
	      cq_cons() == 5 && ret3 == ENOENT,
	      "ibv_poll_cq continues where end_poll stopped, on the same ring");
}

/*
 * @cq, empty, was created with METAROCE_POLL_YIELD=3: every third empty poll
 * in a row (ibv_poll_cq or ibv_start_poll) yields, and a completion starts
 * the count again.
 */
static void test_poll_yield(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr pa = {};
	unsigned int y0, y[5];
	struct metaroce_cqe c;
	struct ibv_wc wc;
	int ret;

	/* Earlier tests left empty polls counted: a completion clears them. */
	memset(&c, 0, sizeof(c));
	c.wr_id = 24;
	c.opcode = IBV_WC_SEND;
	push_cqe(&c);
	ret = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);

	y0 = yield_count();
	ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	y[0] = yield_count() - y0;
	ibv_start_poll(cq, &pa);
	y[1] = yield_count() - y0;
	ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	y[2] = yield_count() - y0;
	ibv_start_poll(cq, &pa);
	ibv_start_poll(cq, &pa);
	y[3] = yield_count() - y0;
	ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	y[4] = yield_count() - y0;
	snprintf(why, sizeof(why), "poll_cq %d; yields after 1, 2, 3, 5, 6 empty polls: %u %u %u %u %u",
		 ret, y[0], y[1], y[2], y[3], y[4]);
	check(ret == 1 && y[0] == 0 && y[1] == 0 && y[2] == 1 && y[3] == 1 && y[4] == 2,
	      "an empty CQ's poller yields its CPU after 3 empty polls in a row");

	/* Two empty polls, then a completion: the next two empty polls do not yield. */
	y0 = yield_count();
	ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	c.wr_id = 25;
	push_cqe(&c);
	ret = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	ibv_start_poll(cq, &pa);
	y[0] = yield_count() - y0;
	ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	y[1] = yield_count() - y0;
	snprintf(why, sizeof(why), "poll_cq %d (id %llu); yields %u, then %u",
		 ret, (unsigned long long)wc.wr_id, y[0], y[1]);
	check(ret == 1 && wc.wr_id == 25 && y[0] == 0 && y[1] == 1 && cq_cons() == 7,
	      "a completion starts the count of empty polls again");
}

static struct ibv_qp *create_qp_ex(struct ibv_context *ctx, struct ibv_pd *pd,
				   struct ibv_cq *cq, enum ibv_qp_type type,
				   uint32_t comp_mask, uint64_t ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type, .pd = pd,
		.comp_mask = comp_mask, .send_ops_flags = ops,
		.cap = { .max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 4,
			 .max_recv_sge = 2, .max_inline_data = 16 },
	};

	return ibv_create_qp_ex(ctx, &a);
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | (qp->qp_type == IBV_QPT_UD ?
			     IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS));
}

static void test_qp_rc(struct ibv_context *ctx, struct ibv_pd *pd,
		       struct ibv_cq *cq)
{
	const uint32_t mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	const uint64_t rc_ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ |
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV;
	struct ibv_sge sgl[5], one = { .addr = 0x2000, .length = 100, .lkey = FAKE_LKEY };
	struct ibv_send_wr swr = {}, *bad;
	struct ibv_qp_init_attr_ex qa;
	struct metaroce_send_wqe *w;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	unsigned int db;
	uint32_t prod;
	int ret, i;

	/* An ordinary QP has no qp_ex view. */
	qp = create_qp_ex(ctx, pd, cq, IBV_QPT_RC, IBV_QP_INIT_ATTR_PD, 0);
	snprintf(why, sizeof(why), "qp %p errno %d", (void *)qp, errno);
	check(qp && !ibv_qp_to_qp_ex(qp) && ibv_destroy_qp(qp) == 0,
	      "an ordinary QP: ibv_qp_to_qp_ex gives NULL");

	errno = 0;
	qp = create_qp_ex(ctx, pd, cq, IBV_QPT_RC, mask,
			  IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO);
	snprintf(why, sizeof(why), "qp %p errno %d", (void *)qp, errno);
	check(!qp && errno == EOPNOTSUPP, "create_qp_ex refuses TSO (EOPNOTSUPP)");

	memset(&qa, 0, sizeof(qa));
	qa = (struct ibv_qp_init_attr_ex){
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = mask | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.create_flags = IBV_QP_CREATE_SCATTER_FCS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
		.cap = { .max_send_wr = 8, .max_send_sge = 1, .max_recv_wr = 1,
			 .max_recv_sge = 1 },
	};
	errno = 0;
	qp = ibv_create_qp_ex(ctx, &qa);
	snprintf(why, sizeof(why), "qp %p errno %d", (void *)qp, errno);
	check(!qp && errno == EOPNOTSUPP,
	      "create_qp_ex refuses create_flags (EOPNOTSUPP)");

	/* CREATE_FLAGS with no flag is fine (the conformance suite sets it). */
	qa.create_flags = 0;
	qa.send_ops_flags = rc_ops;
	qp = ibv_create_qp_ex(ctx, &qa);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	snprintf(why, sizeof(why), "qp %p qpx %p errno %d (%s), max_send_wr %u",
		 (void *)qp, (void *)qpx, errno, strerror(errno),
		 qa.cap.max_send_wr);
	check(qp && qpx && (void *)qpx == (void *)qp && qp->qp_num == 7 &&
	      qa.cap.max_send_wr == 8 && qa.cap.max_inline_data == 64 &&
	      qpx->wr_send && qpx->wr_complete,
	      "ibv_create_qp_ex with SEND_OPS_FLAGS: qp_ex view, kernel's caps");
	if (!qpx)
		bail();

	/* Still in RESET: the batch is refused whole. */
	prod = sq_prod();
	db = cmd_count(IB_USER_VERBS_CMD_POST_SEND);
	ibv_wr_start(qpx);
	qpx->wr_id = 50;
	qpx->wr_flags = 0;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 4);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "ibv_wr_complete refuses a QP in RESET");

	ret = to_init(qp);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0 && qp->state == IBV_QPS_INIT, "modify to INIT");

	/* A batch of four, one doorbell. */
	db = cmd_count(IB_USER_VERBS_CMD_POST_SEND);
	sgl[0] = (struct ibv_sge){ .addr = 0x5000, .length = 30, .lkey = 0x41 };
	sgl[1] = (struct ibv_sge){ .addr = 0x6000, .length = 40, .lkey = 0x42 };
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, 0x99, 0x10000);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 100);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SOLICITED;
	ibv_wr_send_imm(qpx, htonl(0x77));
	ibv_wr_set_inline_data(qpx, "hello", 5);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_atomic_fetch_add(qpx, 0x98, 0x20000, 5);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x4000, 8);
	qpx->wr_id = 4;
	qpx->wr_flags = 0;
	ibv_wr_rdma_read(qpx, 0x97, 0x30000);
	ibv_wr_set_sge_list(qpx, 2, sgl);
	ret = ibv_wr_complete(qpx);
	snprintf(why, sizeof(why), "ret %d, prod %u -> %u, doorbells %u", ret,
		 prod, sq_prod(), cmd_count(IB_USER_VERBS_CMD_POST_SEND) - db);
	check(ret == 0 && sq_prod() == prod + 4 &&
	      cmd_count(IB_USER_VERBS_CMD_POST_SEND) == db + 1,
	      "ibv_wr_complete publishes 4 WQEs, rings the doorbell once");

	w = sq_wqe(prod);
	snprintf(why, sizeof(why), "id %llu op %u flags %#x nsge %u raddr %#llx rkey %#x sge %#llx/%u/%#x",
		 (unsigned long long)w->wr_id, w->opcode, w->send_flags,
		 w->num_sge, (unsigned long long)w->wr.rdma.remote_addr,
		 w->wr.rdma.rkey, (unsigned long long)wqe_sge(w)->addr,
		 wqe_sge(w)->length, wqe_sge(w)->lkey);
	check(w->wr_id == 1 && w->opcode == IBV_WR_RDMA_WRITE &&
	      w->send_flags == IBV_SEND_SIGNALED && w->num_sge == 1 &&
	      w->wr.rdma.remote_addr == 0x10000 && w->wr.rdma.rkey == 0x99 &&
	      wqe_sge(w)->addr == 0x2000 && wqe_sge(w)->length == 100 &&
	      wqe_sge(w)->lkey == FAKE_LKEY, "WQE 1: RDMA write with one SGE");
	w = sq_wqe(prod + 1);
	snprintf(why, sizeof(why), "id %llu op %u flags %#x nsge %u imm %#x inline %u",
		 (unsigned long long)w->wr_id, w->opcode, w->send_flags,
		 w->num_sge, ntohl(w->imm_inv), w->inline_len);
	check(w->wr_id == 2 && w->opcode == IBV_WR_SEND_WITH_IMM &&
	      w->send_flags == (IBV_SEND_SOLICITED | IBV_SEND_INLINE) &&
	      w->num_sge == 0 && w->imm_inv == htonl(0x77) &&
	      w->inline_len == 5 && memcmp(w + 1, "hello", 5) == 0,
	      "WQE 2: send with immediate, data inline");
	w = sq_wqe(prod + 2);
	snprintf(why, sizeof(why), "id %llu op %u flags %#x raddr %#llx add %llu rkey %#x sge %u",
		 (unsigned long long)w->wr_id, w->opcode, w->send_flags,
		 (unsigned long long)w->wr.atomic.remote_addr,
		 (unsigned long long)w->wr.atomic.compare_add,
		 w->wr.atomic.rkey, wqe_sge(w)->length);
	check(w->wr_id == 3 && w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD &&
	      w->send_flags == (IBV_SEND_SIGNALED | IBV_SEND_FENCE) &&
	      w->wr.atomic.remote_addr == 0x20000 &&
	      w->wr.atomic.compare_add == 5 && w->wr.atomic.rkey == 0x98 &&
	      w->num_sge == 1 && wqe_sge(w)->addr == 0x4000 &&
	      wqe_sge(w)->length == 8, "WQE 3: fetch and add, fenced");
	w = sq_wqe(prod + 3);
	snprintf(why, sizeof(why), "id %llu op %u nsge %u raddr %#llx rkey %#x",
		 (unsigned long long)w->wr_id, w->opcode, w->num_sge,
		 (unsigned long long)w->wr.rdma.remote_addr, w->wr.rdma.rkey);
	check(w->wr_id == 4 && w->opcode == IBV_WR_RDMA_READ &&
	      w->send_flags == 0 && w->num_sge == 2 &&
	      w->wr.rdma.remote_addr == 0x30000 && w->wr.rdma.rkey == 0x97 &&
	      wqe_sge(w)[1].addr == 0x6000 && wqe_sge(w)[1].length == 40 &&
	      wqe_sge(w)[1].lkey == 0x42, "WQE 4: RDMA read into two SGEs");

	/* wr_abort: nothing published; the next post takes the same slot. */
	prod = sq_prod();
	db = cmd_count(IB_USER_VERBS_CMD_POST_SEND);
	ibv_wr_start(qpx);
	qpx->wr_id = 60;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 10);
	ibv_wr_abort(qpx);
	check_refused(qpx, 0, 0, prod, db, "ibv_wr_abort publishes nothing, no doorbell");

	swr = (struct ibv_send_wr){ .wr_id = 61, .sg_list = &one, .num_sge = 1,
				    .opcode = IBV_WR_SEND };
	alarm(10);		/* a lock left held by wr_abort would spin */
	ret = ibv_post_send(qp, &swr, &bad);
	alarm(0);
	w = sq_wqe(prod);
	snprintf(why, sizeof(why), "ret %d, prod %u, slot id %llu", ret,
		 sq_prod(), (unsigned long long)w->wr_id);
	check(ret == 0 && sq_prod() == prod + 1 && w->wr_id == 61,
	      "ibv_post_send after wr_abort: same ring, the aborted slot");

	/* Bad batches: refused whole, nothing published. */
	for (i = 0; i < 5; i++)
		sgl[i] = one;
	prod = sq_prod();
	db = cmd_count(IB_USER_VERBS_CMD_POST_SEND);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 1);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, 5, sgl);	/* 4 granted */
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db,
		      "too many SGEs: EINVAL, the whole batch dropped");

	ibv_wr_start(qpx);
	ibv_wr_atomic_fetch_add(qpx, 0x98, 0x20000, 1);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x4000, 4);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db,
		      "an atomic without its 8-byte buffer: EINVAL");

	ibv_wr_start(qpx);
	ibv_wr_rdma_read(qpx, 0x97, 0x30000);
	ibv_wr_set_inline_data(qpx, "x", 1);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "inline data for a read: EINVAL");

	{
		char big[65] = "";

		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_set_inline_data(qpx, big, sizeof(big));	/* 64 granted */
		ret = ibv_wr_complete(qpx);
		check_refused(qpx, ret, EINVAL, prod, db,
			      "inline data over max_inline_data: EINVAL");
	}

	ibv_wr_start(qpx);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 1);
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "a setter before any builder: EINVAL");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, NULL, 1, 1);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "a UD address on an RC QP: EINVAL");

	ibv_wr_start(qpx);
	ibv_wr_bind_mw(qpx, NULL, 0, NULL);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "wr_bind_mw without a window: EINVAL");

	ibv_wr_start(qpx);
	ibv_wr_atomic_write(qpx, 0x98, 0x20000, "8 bytes");
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x4000, 8);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db,
		      "an atomic write carries its data, no SGE: EINVAL");

	ibv_wr_start(qpx);
	ibv_wr_local_inv(qpx, 0x1234);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x4000, 8);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "a LOCAL_INV takes no SGE: EINVAL");

	/* 5 of 8 slots hold unconsumed WQEs: 3 fit, not 4. */
	ibv_wr_start(qpx);
	for (i = 0; i < 4; i++) {
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 1);
	}
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, ENOMEM, prod, db, "a batch larger than the free slots: ENOMEM");

	/* wr_local_inv: the key to invalidate in the WQE, nothing else. */
	ibv_wr_start(qpx);
	qpx->wr_id = 70;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(qpx, 0x1234);
	ret = ibv_wr_complete(qpx);
	w = sq_wqe(prod);
	snprintf(why, sizeof(why), "ret %d, prod %u -> %u, id %llu op %u flags %#x key %#x nsge %u inline %u",
		 ret, prod, sq_prod(), (unsigned long long)w->wr_id, w->opcode,
		 w->send_flags, w->imm_inv, w->num_sge, w->inline_len);
	check(ret == 0 && sq_prod() == prod + 1 && w->wr_id == 70 &&
	      w->opcode == IBV_WR_LOCAL_INV && w->send_flags == IBV_SEND_SIGNALED &&
	      w->imm_inv == 0x1234 && w->num_sge == 0 && w->inline_len == 0,
	      "ibv_wr_local_inv: one WQE with the key to invalidate");

	ret = ibv_destroy_qp(qp);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_destroy_qp of an extended QP");
}

static void test_qp_ud(struct ibv_context *ctx, struct ibv_pd *pd,
		       struct ibv_cq *cq)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = 1, .hop_limit = 64 },
	};
	struct metaroce_send_wqe *w;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	unsigned int db;
	uint32_t prod;
	int ret;

	errno = 0;
	qp = create_qp_ex(ctx, pd, cq, IBV_QPT_UD,
			  IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			  IBV_QP_EX_WITH_RDMA_WRITE);
	snprintf(why, sizeof(why), "qp %p errno %d", (void *)qp, errno);
	check(!qp && errno == EOPNOTSUPP, "a UD QP refuses RDMA_WRITE (EOPNOTSUPP)");

	qp = create_qp_ex(ctx, pd, cq, IBV_QPT_UD,
			  IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			  IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	aa.grh.dgid.raw[10] = 0xff;
	aa.grh.dgid.raw[11] = 0xff;
	ah = qp ? ibv_create_ah(pd, &aa) : NULL;
	snprintf(why, sizeof(why), "qp %p qpx %p ah %p errno %d (%s)", (void *)qp,
		 (void *)qpx, (void *)ah, errno, strerror(errno));
	check(qpx && ah && to_init(qp) == 0,
	      "a UD QP with SEND_OPS_FLAGS, an AH, INIT");
	if (!qpx || !ah)
		bail();

	prod = sq_prod();
	db = cmd_count(IB_USER_VERBS_CMD_POST_SEND);
	ibv_wr_start(qpx);
	qpx->wr_id = 70;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qpx, htonl(0xabc));
	ibv_wr_set_ud_addr(qpx, ah, 0x123, 0x11111111);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 0);
	ret = ibv_wr_complete(qpx);
	w = sq_wqe(prod);
	snprintf(why, sizeof(why), "ret %d prod %u id %llu op %u ah %u qpn %#x qkey %#x nsge %u len %u",
		 ret, sq_prod(), (unsigned long long)w->wr_id, w->opcode,
		 w->wr.ud.ah_num, w->wr.ud.remote_qpn, w->wr.ud.remote_qkey,
		 w->num_sge, wqe_sge(w)->length);
	check(ret == 0 && sq_prod() == prod + 1 &&
	      cmd_count(IB_USER_VERBS_CMD_POST_SEND) == db + 1 &&
	      w->wr_id == 70 && w->opcode == IBV_WR_SEND_WITH_IMM &&
	      w->imm_inv == htonl(0xabc) && w->wr.ud.ah_num == FAKE_AH_NUM &&
	      w->wr.ud.remote_qpn == 0x123 &&
	      w->wr.ud.remote_qkey == 0x11111111 && w->num_sge == 1 &&
	      wqe_sge(w)->length == 0, "UD send: the AH's number, QPN, Q_Key in the WQE");

	prod = sq_prod();
	db = cmd_count(IB_USER_VERBS_CMD_POST_SEND);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, FAKE_LKEY, 0x2000, 1);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "a UD send without an address: EINVAL");

	ibv_wr_start(qpx);
	ibv_wr_rdma_write(qpx, 1, 0x1000);
	ret = ibv_wr_complete(qpx);
	check_refused(qpx, ret, EINVAL, prod, db, "an RDMA write on a UD QP: EINVAL");

	ret = ibv_destroy_ah(ah);
	ret = ret ? ret : ibv_destroy_qp(qp);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "the AH and the UD QP destroyed");
}

/*
 * METAROCE_POLL_YIELD=3x, not a number: opening the device reports it once on
 * stderr, not once per CQ, and a CQ of that device yields after the default
 * 16 empty polls. The fake kernel has one CQ ring at a time and fills it with
 * two completions: each CQ is drained first.
 */
static int test_bad_yield(struct ibv_device *dev)
{
	struct ibv_context *ctx = NULL;
	struct ibv_cq *cq = NULL;
	unsigned int y0, y[2], lines = 0, made = 0;
	struct ibv_wc wc[2];
	char line[256];
	FILE *err;
	int fd2, i;

	setenv("METAROCE_POLL_YIELD", "3x", 1);
	err = tmpfile();
	fd2 = dup(STDERR_FILENO);
	if (err && fd2 >= 0 && dup2(fileno(err), STDERR_FILENO) >= 0) {
		ctx = ibv_open_device(dev);
		for (i = 0; ctx && i < 2; i++) {
			if (cq && (ibv_poll_cq(cq, 2, wc) != 2 || ibv_destroy_cq(cq)))
				break;
			cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
			made += cq != NULL;
		}
		fflush(stderr);
		dup2(fd2, STDERR_FILENO);
	}
	if (fd2 >= 0)
		close(fd2);
	if (err) {
		rewind(err);
		while (fgets(line, sizeof(line), err))
			lines += strstr(line, "METAROCE_POLL_YIELD=3x") != NULL;
		fclose(err);
	}
	snprintf(why, sizeof(why), "ctx %p, %u CQs made, %u lines about it", (void *)ctx,
		 made, lines);
	check(ctx && made == 2 && lines == 1,
	      "a bad METAROCE_POLL_YIELD is reported once per opened device, not per CQ");
	if (!ctx || !cq || ibv_poll_cq(cq, 2, wc) != 2)
		bail();

	y0 = yield_count();
	for (i = 0; i < 15; i++)
		ibv_poll_cq(cq, 1, wc);
	y[0] = yield_count() - y0;
	ibv_poll_cq(cq, 1, wc);
	y[1] = yield_count() - y0;
	snprintf(why, sizeof(why), "yields after 15 and 16 empty polls: %u %u", y[0], y[1]);
	check(y[0] == 0 && y[1] == 1, "with a bad value a CQ yields after the default 16 empty polls");

	ibv_destroy_cq(cq);
	ibv_close_device(ctx);
	return finish();
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_cq_ex *cq = NULL;
	struct ibv_pd *pd;
	int i, n, ret, bad_yield;

	bad_yield = argc == 3 && strcmp(argv[2], "bad-yield") == 0;
	if (argc != 2 && !bad_yield) {
		fprintf(stderr, "usage: %s DEVICE [bad-yield]\n", argv[0]);
		return 2;
	}
	if (bad_yield)
		checks = 1 + BAD_YIELD_CHECKS;
	setvbuf(stdout, NULL, _IOLBF, 0);

	ring_hdr = (struct metaroce_ring *(*)(int))dlsym(RTLD_DEFAULT, "fake_ring_hdr");
	ring_entry = (void *(*)(int, uint32_t))dlsym(RTLD_DEFAULT, "fake_ring_entry");
	cmd_count = (unsigned int (*)(unsigned int))dlsym(RTLD_DEFAULT, "fake_cmd_count");
	yield_count = (unsigned int (*)(void))dlsym(RTLD_DEFAULT, "fake_yield_count");
	snprintf(why, sizeof(why), "run with fake_uverbs.so preloaded");
	check(ring_hdr && ring_entry && cmd_count && yield_count, "the fake kernel is there");
	if (!ring_hdr || !ring_entry || !cmd_count || !yield_count)
		bail();

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), argv[1]) == 0)
			dev = list[i];
	if (bad_yield) {
		if (!dev)
			bail();
		return test_bad_yield(dev);
	}
	/* Read when the device is opened: test_poll_yield() counts on 3. */
	setenv("METAROCE_POLL_YIELD", "3", 1);
	ctx = dev ? ibv_open_device(dev) : NULL;
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	snprintf(why, sizeof(why), "dev %p ctx %p pd %p errno %d", (void *)dev,
		 (void *)ctx, (void *)pd, errno);
	check(pd != NULL, "device opened, PD allocated");
	if (!pd)
		bail();

	test_cq_ex(ctx, &cq);
	test_poll_yield(cq);
	test_qp_rc(ctx, pd, ibv_cq_ex_to_cq(cq));
	test_qp_ud(ctx, pd, ibv_cq_ex_to_cq(cq));

	ret = ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ret = ret ? ret : ibv_dealloc_pd(pd);
	ret = ret ? ret : ibv_close_device(ctx);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "extended CQ destroyed (every CQE consumed), PD, context");
	ibv_free_device_list(list);
	return finish();
}
