// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for provider_mw.sh: memory windows and atomic write between two
 * MetaRoCE devices. The server owns an MR with no remote rights of its own
 * (local write and MW bind only) and exposes parts of it through windows:
 * W1 (type 1, ibv_bind_mw on QP 0), W2 (type 2, ibv_wr_bind_mw on QP 1),
 * W3 (type 2, ibv_post_send IBV_WR_BIND_MW on QP 2) and W4 (type 2,
 * ibv_wr_bind_mw on QP 4). The client reaches them with ibv_post_send over
 * five RC QP pairs, one per phase, because a remote access error moves a QP
 * pair to the error state:
 *
 *   QP 0: WRITE and READ inside W1 succeed; a WRITE past its end fails.
 *   QP 1: WRITE and ATOMIC_WRITE inside W2 succeed (read back); a READ
 *         before its start fails.
 *   QP 3: a WRITE to W2, bound by QP 1, fails: type 2 windows answer only
 *         their QP.
 *   QP 2: a WRITE to W3 succeeds; the server invalidates W3 (LOCAL_INV by
 *         ibv_post_send); the same WRITE then fails.
 *   QP 4: the same with W4, invalidated by ibv_wr_local_inv.
 *
 * The server checks the bytes that landed and that none landed outside the
 * windows, that dereg_mr refuses an MR with bound windows, that a type 3
 * window is refused, and deallocates everything.
 *
 *   provider_mw server|client DEV GID_INDEX DIR
 *
 * Files in DIR exchange QP numbers, GIDs, addresses and rkeys (NAME.tmp
 * renamed to NAME, waited for). Prints "PASS name" or "FAIL name: why" per
 * check and exits non-zero on any failure.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "provider_report.h"

#define BUF_SIZE	(64 * 1024)
#define NQP		5
#define TIMEOUT_S	20

/* Windows in the server's buffer. */
#define W1_OFF		4096
#define W1_LEN		8192
#define W2_OFF		(16 * 1024)
#define W2_LEN		4096
#define W3_OFF		(24 * 1024)
#define W3_LEN		4096
#define W4_OFF		(32 * 1024)
#define W4_LEN		4096

/* The client's buffer. */
#define C_W1		0
#define C_READ		(16 * 1024)
#define C_W2		(32 * 1024)
#define C_ATOMIC	(40 * 1024)
#define C_W3		(48 * 1024)
#define C_W4		(56 * 1024)

struct peer {
	uint32_t qpn[NQP];
	union ibv_gid gid;
	uint64_t addr;			/* the buffer */
	uint32_t rkey[4];		/* W1 to W4 (server) */
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp[NQP];
	uint8_t *buf;
	int gid_index;
	union ibv_gid gid;
};

static void pattern(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 13 + (i >> 8));
}

static int pattern_ok(const uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed + i * 13 + (i >> 8)))
			return 0;
	return 1;
}

static int zero_ok(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

static void put_file(const char *dir, const char *name, const struct peer *p)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "w");
	if (!f || (p && fwrite(p, sizeof(*p), 1, f) != 1) || fclose(f) ||
	    rename(tmp, path)) {
		snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
		die("exchange file written");
	}
}

static void get_file(const char *dir, const char *name, struct peer *p)
{
	char path[512];
	FILE *f = NULL;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < TIMEOUT_S * 10 && !(f = fopen(path, "r")); i++)
		usleep(100000);
	if (!f || (p && fread(p, sizeof(*p), 1, f) != 1)) {
		snprintf(why, sizeof(why), "%s: %s", path, f ? "short" : strerror(errno));
		die("the other side's exchange file read");
	}
	fclose(f);
}

static void setup(struct side *s, const char *dev_name, int mr_access)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_BIND_MW |
			IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_LOCAL_INV,
		.cap = { .max_send_wr = 16, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev_name) == 0)
			s->ctx = ibv_open_device(list[i]);
	s->pd = s->ctx ? ibv_alloc_pd(s->ctx) : NULL;
	s->buf = aligned_alloc(4096, BUF_SIZE);
	s->mr = s->pd && s->buf ? ibv_reg_mr(s->pd, s->buf, BUF_SIZE, mr_access) : NULL;
	s->cq = s->ctx ? ibv_create_cq(s->ctx, 64, NULL, NULL, 0) : NULL;
	snprintf(why, sizeof(why), "ctx %p pd %p mr %p cq %p errno %d", (void *)s->ctx,
		 (void *)s->pd, (void *)s->mr, (void *)s->cq, errno);
	if (!s->mr || !s->cq || ibv_query_gid(s->ctx, 1, s->gid_index, &s->gid))
		die("device opened, PD, MR (with MW bind), CQ, GID");
	memset(s->buf, 0, BUF_SIZE);

	qa.pd = s->pd;
	qa.send_cq = qa.recv_cq = s->cq;
	for (i = 0; i < NQP; i++) {
		s->qp[i] = ibv_create_qp_ex(s->ctx, &qa);
		snprintf(why, sizeof(why), "QP %d: errno %d (%s)", i, errno, strerror(errno));
		if (!s->qp[i])
			die("ibv_create_qp_ex with BIND_MW, ATOMIC_WRITE and LOCAL_INV");
	}
	ibv_free_device_list(list);
}

static int connect_qp(struct side *s, struct ibv_qp *qp, uint32_t dqpn,
		      const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = s->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

static void connect_all(struct side *s, const struct peer *p, const char *who)
{
	int i;

	for (i = 0; i < NQP; i++) {
		snprintf(why, sizeof(why), "QP %d: errno %d (%s)", i, errno, strerror(errno));
		if (connect_qp(s, s->qp[i], p->qpn[i], &p->gid))
			die(who);
	}
}

/* One completion within TIMEOUT_S; its status, or -1 if none came. */
static int poll_one(struct side *s, struct ibv_wc *wc)
{
	time_t end = time(NULL) + TIMEOUT_S;
	int n;

	while (time(NULL) < end) {
		n = ibv_poll_cq(s->cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " [id %" PRIu64 " %s op %d len %u]", wc->wr_id,
				 ibv_wc_status_str(wc->status), wc->opcode, wc->byte_len);
			return wc->status;
		}
		usleep(1000);
	}
	snprintf(why + strlen(why), sizeof(why) - strlen(why), " [no completion]");
	return -1;
}

/* Posts one signaled RDMA op and returns its completion status (-1: none). */
static int rdma(struct side *s, int q, enum ibv_wr_opcode op, uint64_t id,
		size_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + off, .length = len, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	int ret;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(s->qp[q], &wr, &bad);
	if (ret) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 " [post_send %d]", ret);
		return -1;
	}
	ret = poll_one(s, &wc);
	if (ret >= 0 && wc.wr_id != id)
		return -1;
	return ret;
}

/* Binds type 2 window @mw as @info says, under @rkey, with ibv_wr_bind_mw on QP @q. */
static int wr_bind(struct side *s, int q, struct ibv_mw *mw, uint32_t rkey,
		   const struct ibv_mw_bind_info *info, uint64_t wr_id)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(s->qp[q]);
	struct ibv_wc wc;
	int ret;

	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, mw, rkey, info);
	ret = ibv_wr_complete(qpx);
	snprintf(why, sizeof(why), "ret %d", ret);
	return ret == 0 && poll_one(s, &wc) == IBV_WC_SUCCESS && wc.wr_id == wr_id &&
	       wc.opcode == IBV_WC_BIND_MW;
}

static void server(struct side *s, const char *dir)
{
	struct ibv_mw *mw[4] = {}, *bad_mw;
	struct ibv_mw_bind bind = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_qp_ex *qpx;
	struct peer me = {}, p;
	uint8_t w2[W2_LEN];
	struct ibv_wc wc;
	uint64_t word;
	int i, ok, ret;

	errno = 0;
	bad_mw = ibv_alloc_mw(s->pd, 3);
	snprintf(why, sizeof(why), "mw %p errno %d (%s)", (void *)bad_mw, errno,
		 strerror(errno));
	check(!bad_mw && errno == EINVAL, "server: a window of type 3 is refused (EINVAL)");

	mw[0] = ibv_alloc_mw(s->pd, IBV_MW_TYPE_1);
	mw[1] = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
	mw[2] = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
	mw[3] = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
	snprintf(why, sizeof(why), "%p %p %p %p errno %d (%s)", (void *)mw[0],
		 (void *)mw[1], (void *)mw[2], (void *)mw[3], errno, strerror(errno));
	if (!mw[0] || !mw[1] || !mw[2] || !mw[3])
		die("server: ibv_alloc_mw of type 1, 2, 2, 2");
	check(mw[0]->rkey != s->mr->rkey && mw[1]->rkey != mw[0]->rkey &&
	      mw[2]->rkey != mw[1]->rkey && mw[3]->rkey != mw[2]->rkey,
	      "server: four windows, keys of their own");

	for (i = 0; i < NQP; i++)
		me.qpn[i] = s->qp[i]->qp_num;
	me.gid = s->gid;
	me.addr = (uintptr_t)s->buf;
	put_file(dir, "server", &me);
	get_file(dir, "client", &p);
	connect_all(s, &p, "server: 5 QPs connected");

	/* W1: type 1, ibv_bind_mw on QP 0; the verb gives the window a new key. */
	bind.bind_info = (struct ibv_mw_bind_info){
		.mr = s->mr, .addr = (uintptr_t)s->buf + W1_OFF, .length = W1_LEN,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	me.rkey[0] = mw[0]->rkey;
	ret = ibv_bind_mw(s->qp[0], mw[0], &bind);
	snprintf(why, sizeof(why), "ret %d, key %#x -> %#x", ret, me.rkey[0], mw[0]->rkey);
	ok = ret == 0 && mw[0]->rkey != me.rkey[0] && poll_one(s, &wc) == IBV_WC_SUCCESS &&
	     wc.opcode == IBV_WC_BIND_MW;
	check(ok, "server: type 1 window bound with ibv_bind_mw");
	me.rkey[0] = mw[0]->rkey;

	/* W2: type 2, ibv_wr_bind_mw on QP 1 with a key we choose. */
	me.rkey[1] = ibv_inc_rkey(mw[1]->rkey);
	bind.bind_info.addr = (uintptr_t)s->buf + W2_OFF;
	bind.bind_info.length = W2_LEN;
	check(wr_bind(s, 1, mw[1], me.rkey[1], &bind.bind_info, 2),
	      "server: type 2 window bound with ibv_wr_bind_mw");

	/* W3: type 2, ibv_post_send IBV_WR_BIND_MW on QP 2. */
	me.rkey[2] = ibv_inc_rkey(mw[2]->rkey);
	wr.wr_id = 3;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw[2];
	wr.bind_mw.rkey = me.rkey[2];
	wr.bind_mw.bind_info = bind.bind_info;
	wr.bind_mw.bind_info.addr = (uintptr_t)s->buf + W3_OFF;
	wr.bind_mw.bind_info.length = W3_LEN;
	ret = ibv_post_send(s->qp[2], &wr, &bad);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0 && poll_one(s, &wc) == IBV_WC_SUCCESS && wc.wr_id == 3 &&
	      wc.opcode == IBV_WC_BIND_MW,
	      "server: type 2 window bound with ibv_post_send IBV_WR_BIND_MW");

	/* W4: type 2, ibv_wr_bind_mw on QP 4, to be invalidated by ibv_wr_local_inv. */
	me.rkey[3] = ibv_inc_rkey(mw[3]->rkey);
	bind.bind_info.addr = (uintptr_t)s->buf + W4_OFF;
	bind.bind_info.length = W4_LEN;
	check(wr_bind(s, 4, mw[3], me.rkey[3], &bind.bind_info, 5),
	      "server: fourth window bound with ibv_wr_bind_mw");
	put_file(dir, "server-bound", &me);

	/* The client wrote W3 once; invalidate it, then it tries again. */
	get_file(dir, "client-w2", NULL);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 4;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = me.rkey[2];
	ret = ibv_post_send(s->qp[2], &wr, &bad);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0 && poll_one(s, &wc) == IBV_WC_SUCCESS && wc.wr_id == 4 &&
	      wc.opcode == IBV_WC_LOCAL_INV, "server: LOCAL_INV of the W3 key");
	put_file(dir, "server-inv2", NULL);

	/* The same for W4 through the ibv_wr_* API. */
	get_file(dir, "client-w4", NULL);
	qpx = ibv_qp_to_qp_ex(s->qp[4]);
	ibv_wr_start(qpx);
	qpx->wr_id = 6;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(qpx, me.rkey[3]);
	ret = ibv_wr_complete(qpx);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0 && poll_one(s, &wc) == IBV_WC_SUCCESS && wc.wr_id == 6 &&
	      wc.opcode == IBV_WC_LOCAL_INV, "server: ibv_wr_local_inv of the W4 key");
	put_file(dir, "server-inv4", NULL);

	get_file(dir, "client-done", NULL);
	/* W2: the client's pattern with the atomic write's 8 bytes at 8. */
	pattern(w2, W2_LEN, 0x52);
	memcpy(w2 + 8, "atomic!", 8);
	memcpy(&word, s->buf + W2_OFF + 8, 8);
	snprintf(why, sizeof(why), "W1 %d, W2 %d, atomic word %#" PRIx64 ", W3 %d, W4 %d",
		 pattern_ok(s->buf + W1_OFF, W1_LEN, 0x51),
		 !memcmp(s->buf + W2_OFF, w2, W2_LEN), word,
		 pattern_ok(s->buf + W3_OFF, W3_LEN, 0x53),
		 pattern_ok(s->buf + W4_OFF, W4_LEN, 0x54));
	check(pattern_ok(s->buf + W1_OFF, W1_LEN, 0x51) &&
	      memcmp(s->buf + W2_OFF, w2, W2_LEN) == 0 &&
	      pattern_ok(s->buf + W3_OFF, W3_LEN, 0x53) &&
	      pattern_ok(s->buf + W4_OFF, W4_LEN, 0x54),
	      "server: the data and the atomic write landed in the windows");
	snprintf(why, sizeof(why), "memory outside the windows was written");
	check(zero_ok(s->buf, W1_OFF) &&
	      zero_ok(s->buf + W1_OFF + W1_LEN, W2_OFF - W1_OFF - W1_LEN) &&
	      zero_ok(s->buf + W2_OFF + W2_LEN, W3_OFF - W2_OFF - W2_LEN) &&
	      zero_ok(s->buf + W3_OFF + W3_LEN, W4_OFF - W3_OFF - W3_LEN) &&
	      zero_ok(s->buf + W4_OFF + W4_LEN, BUF_SIZE - W4_OFF - W4_LEN),
	      "server: nothing landed outside them");

	ret = ibv_dereg_mr(s->mr);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == EBUSY, "server: dereg_mr refuses an MR with bound windows (EBUSY)");

	ret = 0;
	for (i = 0; i < 4; i++)
		ret = ret ? ret : ibv_dealloc_mw(mw[i]);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "server: four windows deallocated");
}

/*
 * A WRITE of @len bytes through window @nth on QP @q lands; the client then writes
 * "client-w<q>", waits for the server's "server-inv<q>" (it has invalidated the
 * key with @how), and the same WRITE must end in a remote access error.
 */
static void write_around_inv(struct side *s, const char *dir, int q, size_t off,
			     uint32_t len, uint64_t raddr, uint32_t rkey, uint8_t seed,
			     const char *nth, const char *how)
{
	char name[128];
	int st;

	pattern(s->buf + off, len, seed);
	st = rdma(s, q, IBV_WR_RDMA_WRITE, 10 * q, off, len, raddr, rkey);
	snprintf(name, sizeof(name), "client: WRITE through the %s window", nth);
	check(st == IBV_WC_SUCCESS, name);
	snprintf(name, sizeof(name), "client-w%d", q);
	put_file(dir, name, NULL);
	snprintf(name, sizeof(name), "server-inv%d", q);
	get_file(dir, name, NULL);
	pattern(s->buf + off, len, seed ^ 0xff);	/* must not land */
	st = rdma(s, q, IBV_WR_RDMA_WRITE, 10 * q + 1, off, len, raddr, rkey);
	snprintf(name, sizeof(name), "client: the same WRITE after %s: remote access error",
		 how);
	check(st == IBV_WC_REM_ACCESS_ERR, name);
}

static void client(struct side *s, const char *dir)
{
	struct peer me = {}, p;
	uint64_t w1, w2, w3, w4;
	int i, st;

	for (i = 0; i < NQP; i++)
		me.qpn[i] = s->qp[i]->qp_num;
	me.gid = s->gid;
	me.addr = (uintptr_t)s->buf;
	get_file(dir, "server", &p);
	put_file(dir, "client", &me);
	connect_all(s, &p, "client: 5 QPs connected");
	get_file(dir, "server-bound", &p);
	w1 = p.addr + W1_OFF;
	w2 = p.addr + W2_OFF;
	w3 = p.addr + W3_OFF;
	w4 = p.addr + W4_OFF;

	/* QP 0, W1 (type 1). */
	pattern(s->buf + C_W1, W1_LEN, 0x51);
	st = rdma(s, 0, IBV_WR_RDMA_WRITE, 10, C_W1, W1_LEN, w1, p.rkey[0]);
	check(st == IBV_WC_SUCCESS, "client: WRITE of 8 KiB through the type 1 window");
	st = rdma(s, 0, IBV_WR_RDMA_READ, 11, C_READ, W1_LEN, w1, p.rkey[0]);
	check(st == IBV_WC_SUCCESS && pattern_ok(s->buf + C_READ, W1_LEN, 0x51),
	      "client: READ of it back through the window, data checked");
	st = rdma(s, 0, IBV_WR_RDMA_WRITE, 12, C_W1, 16, w1 + W1_LEN - 8, p.rkey[0]);
	check(st == IBV_WC_REM_ACCESS_ERR,
	      "client: a WRITE crossing the window's end: remote access error");

	/* QP 1, W2 (type 2): WRITE, ATOMIC_WRITE, read back, READ outside. */
	pattern(s->buf + C_W2, W2_LEN, 0x52);
	st = rdma(s, 1, IBV_WR_RDMA_WRITE, 20, C_W2, W2_LEN, w2, p.rkey[1]);
	check(st == IBV_WC_SUCCESS, "client: WRITE of 4 KiB through the type 2 window");
	memcpy(s->buf + C_ATOMIC, "atomic!", 8);
	st = rdma(s, 1, IBV_WR_ATOMIC_WRITE, 21, C_ATOMIC, 8, w2 + 8, p.rkey[1]);
	check(st == IBV_WC_SUCCESS, "client: ATOMIC_WRITE of 8 bytes through it");
	st = rdma(s, 1, IBV_WR_RDMA_READ, 22, C_READ, 24, w2, p.rkey[1]);
	check(st == IBV_WC_SUCCESS && pattern_ok(s->buf + C_READ, 8, 0x52) &&
	      memcmp(s->buf + C_READ + 8, "atomic!", 8) == 0 &&
	      memcmp(s->buf + C_READ + 16, s->buf + C_W2 + 16, 8) == 0,
	      "client: READ back: the atomic write's bytes between the written ones");
	st = rdma(s, 1, IBV_WR_RDMA_READ, 23, C_READ, 64, w2 - 8, p.rkey[1]);
	check(st == IBV_WC_REM_ACCESS_ERR,
	      "client: a READ starting before the window: remote access error");

	/* QP 3: W2 belongs to QP 1. */
	st = rdma(s, 3, IBV_WR_RDMA_WRITE, 30, C_W2, 64, w2, p.rkey[1]);
	check(st == IBV_WC_REM_ACCESS_ERR,
	      "client: a type 2 window from another QP: remote access error");

	/* QP 2, W3 and QP 4, W4: before and after the server invalidates them. */
	write_around_inv(s, dir, 2, C_W3, W3_LEN, w3, p.rkey[2], 0x53, "third", "LOCAL_INV");
	write_around_inv(s, dir, 4, C_W4, W4_LEN, w4, p.rkey[3], 0x54, "fourth",
			 "ibv_wr_local_inv");
	put_file(dir, "client-done", NULL);
}

int main(int argc, char **argv)
{
	struct side s = {};
	int server_side, i, ok = 1;

	if (argc != 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client DEV GID_INDEX DIR\n", argv[0]);
		return 2;
	}
	server_side = strcmp(argv[1], "server") == 0;
	s.gid_index = atoi(argv[3]);
	/* The server's MR grants no remote right: only its windows do. */
	setup(&s, argv[2], server_side ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND :
	      IBV_ACCESS_LOCAL_WRITE);
	if (server_side)
		server(&s, argv[4]);
	else
		client(&s, argv[4]);

	snprintf(why, sizeof(why), "errno %d", errno);
	for (i = 0; i < NQP; i++)
		ok = ok && ibv_destroy_qp(s.qp[i]) == 0;
	check(ok && ibv_destroy_cq(s.cq) == 0 && ibv_dereg_mr(s.mr) == 0 &&
	      ibv_dealloc_pd(s.pd) == 0 && ibv_close_device(s.ctx) == 0,
	      server_side ? "server: everything destroyed" : "client: everything destroyed");
	return failed ? 1 : 0;
}
