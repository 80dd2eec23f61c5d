// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for provider_dv.sh: the direct-verbs extension of libmetaroce
 * (infiniband/metaroce_dv.h) between two MetaRoCE devices.
 *
 *   provider_dv server|client DEV GID_INDEX DIR DEV_PATHS
 *
 * Both sides create an RC QP with metaroce_dv_create_qp(), 4 paths and 3
 * streams. The client sends NMSG messages on each stream, interleaved,
 * streams 0 and 1 with metaroce_dv_post_send() and stream 2 with the ibv_wr_*
 * API and metaroce_dv_wr_set_stream(), and before the last message of each
 * stream an RDMA write on the same stream. The server checks every byte
 * received, that each stream's messages complete in order, and that a
 * stream's write is in place when its last message completes. The client
 * checks its send completions (in order per stream), that streams the QP
 * lacks are refused, and its per-path statistics: 4 paths, 4 distinct UDP
 * source ports, the paths' packets adding up to the QP's. The server checks
 * the defaults (DEV_PATHS paths, 1 stream) and that bad attributes are
 * refused. Files in DIR carry what the two exchange; the client writes
 * DIR/client-stats ("QPN TX_PKTS") and keeps its QP until DIR/stats-read
 * appears, so that the script can compare debugfs. Prints "PASS name" or
 * "FAIL name: why" per check and exits non-zero on any failure.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>
#include <infiniband/metaroce_dv.h>

#include "provider_report.h"

#define NPATHS		4
#define NSTREAMS	3
#define NMSG		16			/* per stream */
#define NRECV		(NSTREAMS * NMSG)
#define SLOT		8192			/* receive buffer per message */
#define W_OFF		(NRECV * SLOT)		/* the writes, one region per stream */
#define W_LEN		8192
#define BUF_SIZE	(W_OFF + NSTREAMS * W_LEN)
#define TIMEOUT_S	60

struct peer {
	uint32_t qpn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	uint8_t *buf;
	int gid_index;
	union ibv_gid gid;
};

/* Message i of stream s: its length and contents. */
static uint32_t msg_len(int s, int i)
{
	return 1000 + (uint32_t)(s * 1500 + i * 377) % 7000;
}

static uint8_t msg_byte(int s, int i, size_t k)
{
	return (uint8_t)(s * 31 + i * 7 + k * 13 + (k >> 9));
}

static void put_file(const char *dir, const char *name, const void *p, size_t len)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "w");
	if (!f || (len && fwrite(p, len, 1, f) != 1) || fclose(f) ||
	    rename(tmp, path)) {
		snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
		die("exchange file written");
	}
}

static void get_file(const char *dir, const char *name, void *p, size_t len)
{
	char path[512];
	FILE *f = NULL;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < TIMEOUT_S * 10 && !(f = fopen(path, "r")); i++)
		usleep(100000);
	if (!f || (len && fread(p, len, 1, f) != 1)) {
		snprintf(why, sizeof(why), "%s: %s", path, f ? "short" : strerror(errno));
		die("the other side's exchange file read");
	}
	fclose(f);
}

static struct ibv_qp *dv_qp(struct side *s, struct metaroce_dv_qp_init_attr *dv,
			    enum ibv_qp_type type)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
		.send_cq = s->cq, .recv_cq = s->cq, .pd = s->pd,
		.cap = { .max_send_wr = 128, .max_recv_wr = 64, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	if (type == IBV_QPT_RC)
		qa.send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE;
	return metaroce_dv_create_qp(s->ctx, &qa, dv);
}

static void setup(struct side *s, const char *dev_name)
{
	struct metaroce_dv_qp_init_attr dv = {
		.comp_mask = METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS |
			     METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS,
		.num_paths = NPATHS, .num_streams = NSTREAMS,
	};
	struct metaroce_dv_qp_attr qa = {};
	struct ibv_device **list;
	int i, n, ret;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev_name) == 0) {
			if (!metaroce_dv_is_supported(list[i])) {
				snprintf(why, sizeof(why), "%s", dev_name);
				die("metaroce_dv_is_supported");
			}
			s->ctx = ibv_open_device(list[i]);
		}
	s->pd = s->ctx ? ibv_alloc_pd(s->ctx) : NULL;
	s->buf = aligned_alloc(4096, BUF_SIZE);
	s->mr = s->pd && s->buf ? ibv_reg_mr(s->pd, s->buf, BUF_SIZE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
	s->cq = s->mr ? ibv_create_cq(s->ctx, 256, NULL, NULL, 0) : NULL;
	snprintf(why, sizeof(why), "ctx %p pd %p mr %p cq %p errno %d", (void *)s->ctx,
		 (void *)s->pd, (void *)s->mr, (void *)s->cq, errno);
	if (!s->cq || ibv_query_gid(s->ctx, 1, s->gid_index, &s->gid))
		die("device opened, PD, MR, CQ, GID");
	memset(s->buf, 0, BUF_SIZE);
	ibv_free_device_list(list);

	s->qp = dv_qp(s, &dv, IBV_QPT_RC);
	s->qpx = s->qp ? ibv_qp_to_qp_ex(s->qp) : NULL;
	snprintf(why, sizeof(why), "errno %d (%s)", errno, strerror(errno));
	if (!s->qpx)
		die("metaroce_dv_create_qp: RC QP, 4 paths, 3 streams, SEND_OPS_FLAGS");
	ret = metaroce_dv_query_qp(s->qp, &qa, sizeof(qa));
	snprintf(why, sizeof(why), "ret %d paths %u streams %u", ret, qa.num_paths,
		 qa.num_streams);
	check(!ret && qa.num_paths == NPATHS && qa.num_streams == NSTREAMS,
	      "metaroce_dv_query_qp: 4 paths, 3 streams");
}

static int to_init(struct side *s)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int connect_qp(struct side *s, const struct peer *p)
{
	struct ibv_qp_attr a = {};
	int ret;

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = p->qpn;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = p->gid;
	a.ah_attr.grh.sgid_index = s->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Polls @n completions into @wc within TIMEOUT_S; returns how many came. */
static int poll_n(struct side *s, struct ibv_wc *wc, int n)
{
	time_t end = time(NULL) + TIMEOUT_S;
	int got = 0, ret;

	while (got < n && time(NULL) < end) {
		ret = ibv_poll_cq(s->cq, n - got, wc + got);
		if (ret < 0)
			return ret;
		if (!ret)
			usleep(500);
		got += ret;
	}
	return got;
}

/* What the server checks about the defaults and about bad attributes. */
static void server_attrs(struct side *s, unsigned int dev_paths)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct metaroce_dv_qp_init_attr dv = {};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct metaroce_dv_qp_attr qa;
	struct ibv_qp *qp, *qp2;
	struct ibv_srq *srq;
	struct {
		uint64_t mask;
		unsigned int paths, streams;
		enum ibv_qp_type type;
		int srq, err;
		const char *what;
	} bad[] = {
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS, 0, 0, IBV_QPT_RC, 0, EINVAL, "0 paths" },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS, 65, 0, IBV_QPT_RC, 0, EINVAL, "65 paths" },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS, 0, 0, IBV_QPT_RC, 0, EINVAL, "0 streams" },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS, 0, 17, IBV_QPT_RC, 0, EINVAL, "17 streams" },
		{ 1ULL << 40, 0, 0, IBV_QPT_RC, 0, EOPNOTSUPP, "unknown comp_mask bit" },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS, 0, 2, IBV_QPT_UD, 0, EOPNOTSUPP,
		  "2 streams on a UD QP (kernel)" },
		{ METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS, 0, 2, IBV_QPT_RC, 1, EOPNOTSUPP,
		  "2 streams with an SRQ (kernel)" },
	};
	unsigned int i, bad_ok = 0;
	size_t off;
	int ret;

	ia.cap.max_inline_data = 0;
	qp = ibv_create_qp(s->pd, &ia);
	memset(&qa, 0xff, sizeof(qa));
	ret = qp ? metaroce_dv_query_qp(qp, &qa, sizeof(qa)) : errno;
	qp2 = dv_qp(s, NULL, IBV_QPT_RC);
	memset(&dv, 0, sizeof(dv));
	snprintf(why, sizeof(why), "ret %d paths %u streams %u (device %u); dv NULL: %p",
		 ret, qa.num_paths, qa.num_streams, dev_paths, (void *)qp2);
	if (!ret && qp2) {
		struct metaroce_dv_qp_attr qb = {};

		ret = metaroce_dv_query_qp(qp2, &qb, sizeof(qb));
		if (!ret && (qb.num_paths != dev_paths || qb.num_streams != 1))
			ret = -1;
	}
	check(!ret && qa.num_paths == dev_paths && qa.num_streams == 1 && !qa.comp_mask,
	      "defaults: ibv_create_qp and dv attributes NULL get the device's paths, 1 stream");
	if (qp)
		ibv_destroy_qp(qp);
	if (qp2)
		ibv_destroy_qp(qp2);

	srq = ibv_create_srq(s->pd, &sa);
	off = 0;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibv_qp_init_attr_ex qx = {
			.qp_type = bad[i].type,
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.send_cq = s->cq, .recv_cq = s->cq, .pd = s->pd,
			.srq = bad[i].srq ? srq : NULL,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		dv.comp_mask = bad[i].mask;
		dv.num_paths = bad[i].paths;
		dv.num_streams = bad[i].streams;
		errno = 0;
		qp = metaroce_dv_create_qp(s->ctx, &qx, &dv);
		if (!qp && errno == bad[i].err) {
			bad_ok++;
			continue;
		}
		off += snprintf(why + off, sizeof(why) - off, " [%s: qp %p errno %d]",
				bad[i].what, (void *)qp, errno);
		if (qp)
			ibv_destroy_qp(qp);
	}
	if (!srq)
		snprintf(why + off, sizeof(why) - off, " no SRQ: errno %d", errno);
	check(srq && bad_ok == sizeof(bad) / sizeof(bad[0]),
	      "bad paths or streams refused (EINVAL, EOPNOTSUPP)");
	if (srq)
		ibv_destroy_srq(srq);
}

static void server(struct side *s, const char *dir, unsigned int dev_paths)
{
	struct peer me = {}, p;
	struct ibv_wc wc[NRECV];
	int last[NSTREAMS], got_n[NSTREAMS] = {};
	int n, i, data_ok = 1, order_ok = 1, write_ok = 1, status_ok = 1;
	int max_r = -1, early = 0;
	size_t off = 0;

	server_attrs(s, dev_paths);

	me.qpn = s->qp->qp_num;
	me.rkey = s->mr->rkey;
	me.addr = (uintptr_t)s->buf;
	me.gid = s->gid;
	snprintf(why, sizeof(why), "errno %d", errno);
	if (to_init(s))
		die("server QP to INIT");
	for (i = 0; i < NRECV; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)s->buf + (size_t)i * SLOT, .length = SLOT,
			.lkey = s->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;
		int ret = ibv_post_recv(s->qp, &wr, &bad);

		if (ret) {
			snprintf(why, sizeof(why), "recv %d: %s", i, strerror(ret));
			die("receives posted");
		}
	}
	put_file(dir, "server", &me, sizeof(me));
	get_file(dir, "client", &p, sizeof(p));
	snprintf(why, sizeof(why), "errno %d", errno);
	if (connect_qp(s, &p))
		die("server QP to RTS");
	put_file(dir, "server-ready", NULL, 0);

	n = poll_n(s, wc, NRECV);
	for (i = 0; i < NSTREAMS; i++)
		last[i] = -1;
	for (i = 0; i < n; i++) {
		/* The client posts (stream s, message m) as receive WQE m * 3 + s. */
		uint32_t imm = ntohl(wc[i].imm_data);
		int r = (int)wc[i].wr_id, st = r % NSTREAMS, m = r / NSTREAMS;
		const uint8_t *d = s->buf + (size_t)r * SLOT;
		uint32_t len = msg_len(st, m), k;

		if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RECV ||
		    !(wc[i].wc_flags & IBV_WC_WITH_IMM) || r < 0 || r >= NRECV) {
			status_ok = 0;
			off += snprintf(why + off, sizeof(why) - off > 0 ? sizeof(why) - off : 0,
					" [wc %d: id %d st %d op %d fl %#x]", i, r,
					wc[i].status, wc[i].opcode, wc[i].wc_flags);
			continue;
		}
		if (imm != (uint32_t)(st << 16 | m) || wc[i].byte_len != len)
			data_ok = 0;
		for (k = 0; k < len && data_ok; k++)
			if (d[k] != msg_byte(st, m, k))
				data_ok = 0;
		if (!data_ok && off < sizeof(why) - 100)
			off += snprintf(why + off, sizeof(why) - off,
					" [wqe %d: imm %#x len %u want %u]", r, imm,
					wc[i].byte_len, len);
		/* In order per stream: message m after m - 1. */
		if (m != last[st] + 1)
			order_ok = 0;
		last[st] = m;
		got_n[st]++;
		/* Streams are independent: a later WQE may complete first. */
		if (r < max_r)
			early++;
		if (r > max_r)
			max_r = r;
		/* The stream's write came before its last message. */
		if (m == NMSG - 1)
			for (k = 0; k < W_LEN; k++)
				if (s->buf[W_OFF + st * W_LEN + k] != msg_byte(st, 100, k))
					write_ok = 0;
	}
	snprintf(why + strlen(why), sizeof(why) - strlen(why),
		 " got %d of %d (%d/%d/%d)", n, NRECV, got_n[0], got_n[1], got_n[2]);
	check(n == NRECV && status_ok, "48 receive completions on 3 streams");
	check(n == NRECV && data_ok, "every message's data and immediate, byte for byte");
	check(n == NRECV && order_ok, "receive completions in order within each stream");
	check(n == NRECV && write_ok, "each stream's RDMA write in place when its last message completes");
	printf("# receive completions before an earlier-posted WQE's: %d\n", early);
	put_file(dir, "server-done", NULL, 0);
	get_file(dir, "client-done", NULL, 0);
}

static int post_stream(struct side *s, const struct peer *p, int st, int m, int is_write)
{
	uint8_t *src = s->buf + (is_write ? (size_t)(W_OFF + st * W_LEN) :
					   (size_t)(st * NMSG + m) * SLOT);
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = is_write ? W_LEN : msg_len(st, m),
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)(is_write ? 0x1000 : 0) | (uint64_t)st << 8 | (uint64_t)m,
		.sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
		.opcode = is_write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND_WITH_IMM,
	}, *bad;

	if (is_write) {
		wr.wr.rdma.remote_addr = p->addr + W_OFF + st * W_LEN;
		wr.wr.rdma.rkey = p->rkey;
	} else {
		wr.imm_data = htonl((uint32_t)(st << 16 | m));
	}
	if (st < 2)
		return metaroce_dv_post_send(s->qp, &wr, (uint8_t)st, &bad);

	ibv_wr_start(s->qpx);
	s->qpx->wr_id = wr.wr_id;
	s->qpx->wr_flags = IBV_SEND_SIGNALED;
	if (is_write)
		ibv_wr_rdma_write(s->qpx, p->rkey, wr.wr.rdma.remote_addr);
	else
		ibv_wr_send_imm(s->qpx, wr.imm_data);
	metaroce_dv_wr_set_stream(s->qpx, (uint8_t)st);
	ibv_wr_set_sge(s->qpx, sge.lkey, sge.addr, sge.length);
	return ibv_wr_complete(s->qpx);
}

/* Streams the QP lacks: refused by both ways of posting, nothing sent. */
static void client_bad_stream(struct side *s)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = 8, .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0xbad, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *bad = NULL;
	int r1, r2;

	r1 = metaroce_dv_post_send(s->qp, &wr, NSTREAMS, &bad);
	ibv_wr_start(s->qpx);
	s->qpx->wr_id = 0xbad;
	s->qpx->wr_flags = 0;
	ibv_wr_send(s->qpx);
	metaroce_dv_wr_set_stream(s->qpx, NSTREAMS);
	ibv_wr_set_sge(s->qpx, sge.lkey, sge.addr, sge.length);
	r2 = ibv_wr_complete(s->qpx);
	snprintf(why, sizeof(why), "post_send %d (bad_wr %s), wr_complete %d", r1,
		 bad == &wr ? "the WR" : "not the WR", r2);
	check(r1 == EINVAL && bad == &wr && r2 == EINVAL,
	      "stream 3 of 3 refused: metaroce_dv_post_send and ibv_wr_complete EINVAL");
}

static void client_stats(struct side *s, const char *dir)
{
	struct metaroce_dv_path_stats st[METAROCE_DV_MAX_PATHS];
	uint64_t sum = 0, total = 0, retx = 0, lost = 0;
	uint32_t n = 0, i, j, distinct = 1, used = 1;
	char line[64];
	size_t off = 0;
	int ret;

	ret = metaroce_dv_query_path_stats(s->qp, st, METAROCE_DV_MAX_PATHS, &n, &total);
	for (i = 0; !ret && i < n && i < METAROCE_DV_MAX_PATHS; i++) {
		sum += st[i].tx_pkts;
		retx += st[i].tx_retx;
		lost += st[i].lost;
		/* A path may be retired (loss, or a slow emulated host), not idle. */
		if (!st[i].tx_pkts || (st[i].state != METAROCE_DV_PATH_ACTIVE &&
				       st[i].state != METAROCE_DV_PATH_RETIRED))
			used = 0;
		for (j = 0; j < i; j++)
			if (st[j].udp_sport == st[i].udp_sport)
				distinct = 0;
		off += snprintf(why + off, sizeof(why) - off,
				" [path %u: sport %u state %u sent %" PRIu64 " retx %" PRIu64
				" lost %" PRIu64 " ecn %" PRIu64 " srtt %" PRIu64 "]",
				i, st[i].udp_sport, st[i].state, st[i].tx_pkts, st[i].tx_retx,
				st[i].lost, st[i].ecn_marks, st[i].srtt_ns);
	}
	printf("# stats: ret %d paths %u qp tx_pkts %" PRIu64 " retx %" PRIu64 " lost %" PRIu64
	       "%s\n", ret, n, total, retx, lost, why);
	snprintf(why + off, sizeof(why) - off, " ret %d paths %u", ret, n);
	check(!ret && n == NPATHS && distinct,
	      "metaroce_dv_query_path_stats: 4 paths, 4 distinct UDP source ports");
	snprintf(why, sizeof(why), "sum %" PRIu64 " qp %" PRIu64, sum, total);
	check(!ret && sum == total && total > 0 && used,
	      "per-path packets sent add up to the QP's, every path used, in a valid state");
	snprintf(line, sizeof(line), "%u %" PRIu64 "\n", s->qp->qp_num, total);
	put_file(dir, "client-stats", line, strlen(line));
}

static void client(struct side *s, const char *dir)
{
	struct peer me = {}, p;
	struct ibv_wc wc[NRECV + NSTREAMS];
	int next[NSTREAMS] = {}, widx[NSTREAMS];
	int n, i, m, st, ok = 1, order_ok = 1, posted = 0;
	size_t off = 0;

	me.qpn = s->qp->qp_num;
	me.gid = s->gid;
	get_file(dir, "server", &p, sizeof(p));
	put_file(dir, "client", &me, sizeof(me));
	snprintf(why, sizeof(why), "errno %d", errno);
	if (to_init(s) || connect_qp(s, &p))
		die("client QP to RTS");
	get_file(dir, "server-ready", NULL, 0);

	client_bad_stream(s);

	for (st = 0; st < NSTREAMS; st++) {
		for (m = 0; m < NMSG; m++) {
			uint8_t *d = s->buf + (size_t)(st * NMSG + m) * SLOT;
			uint32_t k;

			for (k = 0; k < msg_len(st, m); k++)
				d[k] = msg_byte(st, m, k);
		}
		for (m = 0; m < W_LEN; m++)
			s->buf[W_OFF + st * W_LEN + m] = msg_byte(st, 100, m);
	}
	/* Interleaved: (stream s, message m) is the receiver's WQE m * 3 + s. */
	for (m = 0; m < NMSG && ok; m++)
		for (st = 0; st < NSTREAMS && ok; st++) {
			if (m == NMSG - 1) {
				ok = !post_stream(s, &p, st, m, 1);
				posted += ok;
			}
			if (ok) {
				ok = !post_stream(s, &p, st, m, 0);
				posted += ok;
			}
		}
	snprintf(why, sizeof(why), "posted %d, errno %d", posted, errno);
	check(ok, "sends and writes posted on 3 streams (dv post_send, ibv_wr_*)");

	n = poll_n(s, wc, posted);
	for (st = 0; st < NSTREAMS; st++)
		widx[st] = 0;
	ok = n == posted;
	for (i = 0; i < n; i++) {
		int is_write = !!(wc[i].wr_id & 0x1000);

		st = (int)(wc[i].wr_id >> 8) & 0xf;
		m = (int)(wc[i].wr_id & 0xff);
		if (wc[i].status != IBV_WC_SUCCESS || st >= NSTREAMS) {
			ok = 0;
			off += snprintf(why + off, sizeof(why) - off > 0 ? sizeof(why) - off : 0,
					" [wc %d: id %#" PRIx64 " st %d]", i, wc[i].wr_id,
					wc[i].status);
			continue;
		}
		/* Per stream, posting order: its write comes before its last send. */
		if (is_write ? next[st] != NMSG - 1 || widx[st]++ :
		    m != next[st] || (m == NMSG - 1 && !widx[st]))
			order_ok = 0;
		if (!is_write)
			next[st]++;
	}
	snprintf(why + strlen(why), sizeof(why) - strlen(why), " got %d of %d", n, posted);
	check(ok, "every send completion successful");
	check(ok && order_ok, "send completions in posting order within each stream");

	get_file(dir, "server-done", NULL, 0);
	client_stats(s, dir);
	/* Keep the QP while the script reads debugfs. */
	get_file(dir, "stats-read", NULL, 0);
	put_file(dir, "client-done", NULL, 0);
}

int main(int argc, char **argv)
{
	struct side s = {};
	int server_side;

	if (argc != 6 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client DEV GID_INDEX DIR DEV_PATHS\n",
			argv[0]);
		return 2;
	}
	server_side = strcmp(argv[1], "server") == 0;
	s.gid_index = atoi(argv[3]);
	setup(&s, argv[2]);
	if (server_side)
		server(&s, argv[4], (unsigned int)atoi(argv[5]));
	else
		client(&s, argv[4]);
	return failed ? 1 : 0;
}
