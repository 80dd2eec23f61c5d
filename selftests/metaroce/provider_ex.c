// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for provider_ex.sh: the extended verbs of libmetaroce between two
 * MetaRoCE devices. Both sides use an extended CQ (ibv_create_cq_ex) and
 * poll it with ibv_start_poll/ibv_next_poll/ibv_end_poll and the
 * ibv_wc_read_* accessors; the client posts every operation with the
 * ibv_wr_* API on extended RC and UD QPs; the server checks what arrives.
 *
 *   provider_ex server|client DEV GID_INDEX DIR
 *
 * The two exchange their QP numbers, GIDs and buffer address and rkey
 * through files in DIR (a directory both namespaces see): NAME.tmp renamed
 * to NAME, waited for. Prints "PASS name" or "FAIL name: why" per check and
 * exits non-zero on any failure.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "provider_report.h"

#define BUF_SIZE	(64 * 1024)
#define GRH_SIZE	40
#define QKEY		0x11111111
#define IMM_SEND	0x5e4d
#define IMM_WRITE	0x3141
#define IMM_UD		0x0d0d
#define ATOMIC_OFF	(60 * 1024)	/* 8-byte word in the server's buffer */
#define READ_OFF	(32 * 1024)	/* what the client reads */
#define WRITE_OFF	(16 * 1024)	/* where the client writes */
#define TIMEOUT_S	20
/* A burst of UD sends in one batch, more than one run of the transport sends. */
#define BURST		200
#define BURST_LEN	16	/* payload: its index, then a pattern seeded by it */
#define BURST_SLOT	64	/* server: GRH and payload per receive */
#define BURST_OFF	(40 * 1024)	/* server: the burst's receives */

/* Offsets in the client's buffer. */
#define C_SEND		0
#define C_WRITE		4096
#define C_READ		(16 * 1024)
#define C_ATOMIC	(32 * 1024)
#define C_UD		(40 * 1024)
#define C_BURST		(44 * 1024)
#define C_UNSIG		(48 * 1024)	/* the unsignaled WRITEs' source */
#define C_UNSIG_BACK	(56 * 1024)	/* and what the READ brings back */

/*
 * Unsignaled WRITEs, one per doorbell, each on a queue drained by a pause:
 * nothing waits for their completions, so metaroce.ko runs none of them in
 * the doorbell's system call (provider_ex.sh counts the metaroce_qp_run
 * events of this process between two trace markers).
 */
#define UNSIG_WRITES	8
#define UNSIG_LEN	1024
#define UNSIG_OFF	(24 * 1024)	/* server: where they land */
#define UNSIG_PAUSE_US	20000
#define TRACE_MARKER	"tracing/trace_marker"	/* in DIR: a tracefs mount */

struct peer {
	uint32_t rc_qpn, ud_qpn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq_ex *cq;
	struct ibv_qp *rc, *ud;
	struct ibv_qp_ex *rcx, *udx;
	uint8_t *buf;
	int gid_index;
	union ibv_gid gid;
};

static void pattern(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static int pattern_ok(const uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed + i * 7 + (i >> 8)))
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

static void setup(struct side *s, const char *dev_name)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		.cap = { .max_send_wr = 256, .max_recv_wr = 256, .max_send_sge = 2,
			 .max_recv_sge = 1, .max_inline_data = 64 },
	};
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev_name) == 0)
			s->ctx = ibv_open_device(list[i]);
	s->pd = s->ctx ? ibv_alloc_pd(s->ctx) : NULL;
	s->buf = aligned_alloc(4096, BUF_SIZE);
	s->mr = s->pd && s->buf ? ibv_reg_mr(s->pd, s->buf, BUF_SIZE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC) : NULL;
	snprintf(why, sizeof(why), "ctx %p pd %p mr %p errno %d", (void *)s->ctx,
		 (void *)s->pd, (void *)s->mr, errno);
	if (!s->mr || ibv_query_gid(s->ctx, 1, s->gid_index, &s->gid))
		die("device opened, PD, MR, GID");
	memset(s->buf, 0, BUF_SIZE);

	s->cq = ibv_create_cq_ex(s->ctx, &ca);
	snprintf(why, sizeof(why), "errno %d (%s)", errno, strerror(errno));
	if (!s->cq)
		die("ibv_create_cq_ex");

	qa.pd = s->pd;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(s->cq);
	s->rc = ibv_create_qp_ex(s->ctx, &qa);
	qa.qp_type = IBV_QPT_UD;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	s->ud = ibv_create_qp_ex(s->ctx, &qa);
	s->rcx = s->rc ? ibv_qp_to_qp_ex(s->rc) : NULL;
	s->udx = s->ud ? ibv_qp_to_qp_ex(s->ud) : NULL;
	snprintf(why, sizeof(why), "rc %p/%p ud %p/%p errno %d (%s)",
		 (void *)s->rc, (void *)s->rcx, (void *)s->ud, (void *)s->udx,
		 errno, strerror(errno));
	if (!s->rcx || !s->udx)
		die("ibv_create_qp_ex: RC and UD QPs with SEND_OPS_FLAGS");
	ibv_free_device_list(list);
}

static void fill_ah(struct side *s, struct ibv_ah_attr *ah,
		    const union ibv_gid *dgid)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.dgid = *dgid;
	ah->grh.sgid_index = s->gid_index;
	ah->grh.hop_limit = 64;
}

static int connect_qps(struct side *s, const struct peer *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = p->rc_qpn, .rq_psn = 0, .max_dest_rd_atomic = 4,
		.min_rnr_timer = 12,
	};
	int ret;

	fill_ah(s, &a.ah_attr, &p->gid);
	ret = ibv_modify_qp(s->rc, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 4;
	ret = ibv_modify_qp(s->rc, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			    IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(s->ud, &a, IBV_QP_STATE);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(s->ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static int to_init(struct side *s)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	int ret;

	ret = ibv_modify_qp(s->rc, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	a.qkey = QKEY;
	return ibv_modify_qp(s->ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY);
}

static int post_recv(struct side *s, struct ibv_qp *qp, uint64_t id,
		     size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + off, .length = len,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* One completion as the accessors read it. */
struct cqe {
	uint64_t wr_id;
	int status, opcode;
	unsigned int flags;
	uint32_t len, qp_num, src_qp, imm;
};

/* Polls @n completions with the extended API, within TIMEOUT_S. */
static int poll_ex(struct side *s, struct cqe *out, int n)
{
	struct ibv_poll_cq_attr pa = {};
	time_t end = time(NULL) + TIMEOUT_S;
	int got = 0, ret;

	while (got < n && time(NULL) < end) {
		ret = ibv_start_poll(s->cq, &pa);
		if (ret == ENOENT) {
			usleep(1000);
			continue;
		}
		if (ret)
			return -ret;
		do {
			struct cqe *c = &out[got++];

			c->wr_id = s->cq->wr_id;
			c->status = s->cq->status;
			c->opcode = ibv_wc_read_opcode(s->cq);
			c->flags = ibv_wc_read_wc_flags(s->cq);
			c->len = ibv_wc_read_byte_len(s->cq);
			c->qp_num = ibv_wc_read_qp_num(s->cq);
			c->src_qp = ibv_wc_read_src_qp(s->cq);
			c->imm = c->flags & IBV_WC_WITH_IMM ?
				ntohl(ibv_wc_read_imm_data(s->cq)) : 0;
		} while (got < n && ibv_next_poll(s->cq) == 0);
		ibv_end_poll(s->cq);
	}
	return got;
}

static void describe(const struct cqe *c, int n)
{
	size_t off = strlen(why);
	int i;

	for (i = 0; i < n && off < sizeof(why) - 80; i++)
		off += snprintf(why + off, sizeof(why) - off,
				" [id %" PRIu64 " st %d op %d fl %#x len %u qp %u src %u imm %#x]",
				c[i].wr_id, c[i].status, c[i].opcode, c[i].flags,
				c[i].len, c[i].qp_num, c[i].src_qp, c[i].imm);
}

static int post_burst_recvs(struct side *s)
{
	int i;

	for (i = 0; i < BURST; i++)
		if (post_recv(s, s->ud, 1000 + i, BURST_OFF + i * BURST_SLOT,
			      GRH_SIZE + BURST_LEN))
			return -1;
	return 0;
}

static void burst_payload(uint8_t *p, uint32_t index)
{
	memcpy(p, &index, 4);
	pattern(p + 4, BURST_LEN - 4, (uint8_t)index);
}

/*
 * Every datagram of the client's burst arrived once, intact, into the
 * receives in the order they were posted. Datagrams may overtake each other
 * (the transport's runs can be on either CPU), so the indexes they carry
 * must be a permutation, not a sequence.
 */
static void check_burst(struct side *s, const struct peer *p)
{
	static struct cqe c[BURST];
	uint8_t seen[BURST] = {}, want[BURST_LEN];
	int n, i, bad = -1;

	n = poll_ex(s, c, BURST);
	for (i = 0; i < n && bad < 0; i++) {
		const uint8_t *d = s->buf + BURST_OFF + i * BURST_SLOT + GRH_SIZE;
		uint32_t index;

		memcpy(&index, d, 4);
		if (index < BURST)
			burst_payload(want, index);
		if (c[i].status != IBV_WC_SUCCESS || c[i].wr_id != 1000u + i ||
		    c[i].opcode != IBV_WC_RECV || c[i].src_qp != p->ud_qpn ||
		    c[i].len != GRH_SIZE + BURST_LEN || index >= BURST ||
		    seen[index]++ || memcmp(d, want, BURST_LEN))
			bad = i;
	}
	snprintf(why, sizeof(why), "%d of %d completions; first bad %d:", n, BURST, bad);
	if (bad >= 0)
		describe(&c[bad], 1);
	check(n == BURST && bad < 0,
	      "server: a burst of 200 UD sends all arrived once, intact, in posted receives");
}

static void server(struct side *s, const char *dir)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4, .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	};
	struct peer me = {}, p;
	struct ibv_cq_ex *cq;
	struct cqe c[8];
	uint64_t word;
	int n;

	/* The provider passes the flag on; metaroce.ko must refuse it. */
	errno = 0;
	cq = ibv_create_cq_ex(s->ctx, &ca);
	snprintf(why, sizeof(why), "cq %p errno %d (%s)", (void *)cq, errno,
		 strerror(errno));
	check(!cq && errno == EOPNOTSUPP,
	      "server: the kernel refuses IGNORE_OVERRUN CQs (EOPNOTSUPP)");
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));

	/* Receives first (INIT), then publish, then connect. */
	pattern(s->buf + READ_OFF, 4096, 0xc3);
	word = 100;
	memcpy(s->buf + ATOMIC_OFF, &word, 8);
	snprintf(why, sizeof(why), "errno %d", errno);
	if (to_init(s) || post_recv(s, s->rc, 1, 0, 4096) ||
	    post_recv(s, s->rc, 2, 4096, 4096) ||
	    post_recv(s, s->rc, 3, 8192, 64) ||
	    post_recv(s, s->ud, 4, 12288, GRH_SIZE + 1024) || post_burst_recvs(s))
		die("server: INIT, 4 receives and the burst's posted");

	me.rc_qpn = s->rc->qp_num;
	me.ud_qpn = s->ud->qp_num;
	me.rkey = s->mr->rkey;
	me.addr = (uintptr_t)s->buf;
	me.gid = s->gid;
	put_file(dir, "server", &me);
	get_file(dir, "client", &p);
	snprintf(why, sizeof(why), "errno %d", errno);
	if (connect_qps(s, &p))
		die("server: QPs connected (RC RTS, UD RTS)");
	put_file(dir, "server-ready", NULL);

	/* The aborted send never arrives: the first is the 4 KiB one. */
	n = poll_ex(s, c, 1);
	snprintf(why, sizeof(why), "%d completions:", n);
	describe(c, n);
	check(n == 1 && c[0].wr_id == 1 && c[0].status == IBV_WC_SUCCESS &&
	      c[0].opcode == IBV_WC_RECV && c[0].len == 4096 &&
	      c[0].qp_num == s->rc->qp_num && !(c[0].flags & IBV_WC_WITH_IMM) &&
	      pattern_ok(s->buf, 4096, 0x11),
	      "server: wr_send of 4 KiB received, data checked (the aborted one never came)");

	n = poll_ex(s, c, 1);
	snprintf(why, sizeof(why), "%d completions:", n);
	describe(c, n);
	check(n == 1 && c[0].wr_id == 2 && c[0].opcode == IBV_WC_RECV &&
	      c[0].flags == IBV_WC_WITH_IMM && c[0].imm == IMM_SEND &&
	      c[0].len == 48 && pattern_ok(s->buf + 4096, 48, 0x22),
	      "server: wr_send_imm with inline data received, immediate read");

	n = poll_ex(s, c, 1);
	snprintf(why, sizeof(why), "%d completions:", n);
	describe(c, n);
	check(n == 1 && c[0].wr_id == 3 &&
	      c[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      c[0].flags == IBV_WC_WITH_IMM && c[0].imm == IMM_WRITE &&
	      c[0].len == 0 && pattern_ok(s->buf + WRITE_OFF, 8192, 0x33),
	      "server: wr_rdma_write (2 SGEs) then wr_rdma_write_imm: data placed, immediate read");

	n = poll_ex(s, c, 1);
	snprintf(why, sizeof(why), "%d completions:", n);
	describe(c, n);
	check(n == 1 && c[0].wr_id == 4 && c[0].status == IBV_WC_SUCCESS &&
	      c[0].opcode == IBV_WC_RECV && c[0].qp_num == s->ud->qp_num &&
	      c[0].src_qp == p.ud_qpn && (c[0].flags & IBV_WC_GRH) &&
	      (c[0].flags & IBV_WC_WITH_IMM) && c[0].imm == IMM_UD &&
	      c[0].len == GRH_SIZE + 1024 &&
	      pattern_ok(s->buf + 12288 + GRH_SIZE, 1024, 0x44),
	      "server: UD wr_send_imm received: GRH, source QP, immediate, data");

	check_burst(s, &p);

	/* The client reads the atomics' result back itself; wait for it. */
	get_file(dir, "client-done", NULL);
	memcpy(&word, s->buf + ATOMIC_OFF, 8);
	snprintf(why, sizeof(why), "word %" PRIu64, word);
	check(word == 7, "server: the atomics left 7 in the word (100 + 5, then swapped)");
}

/* Waits for the client's own @n completions, all successful. */
static int client_wait(struct side *s, int n, struct cqe *c)
{
	int got = poll_ex(s, c, n), i;

	snprintf(why, sizeof(why), "%d of %d completions:", got, n);
	describe(c, got);
	if (got != n)
		return 0;
	for (i = 0; i < n; i++)
		if (c[i].status != IBV_WC_SUCCESS)
			return 0;
	return 1;
}

/*
 * A line in the kernel's trace, for provider_ex.sh, through the tracefs it
 * mounted in DIR (the namespace's /sys has none); 0 or -1 (and why).
 */
static int marker(const char *dir, const char *text)
{
	char path[512];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, TRACE_MARKER);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		n = write(fd, text, strlen(text));
		close(fd);
	}
	if (n != (ssize_t)strlen(text)) {
		snprintf(why, sizeof(why), "%s: errno %d (%s)", path, errno, strerror(errno));
		return -1;
	}
	return 0;
}

static void client(struct side *s, const char *dir)
{
	struct ibv_sge sgl[2];
	struct peer me = {}, p;
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	struct cqe c[8];
	uint64_t v;
	int ret, i;

	snprintf(why, sizeof(why), "errno %d", errno);
	if (to_init(s))
		die("client: INIT");
	me.rc_qpn = s->rc->qp_num;
	me.ud_qpn = s->ud->qp_num;
	me.rkey = s->mr->rkey;
	me.addr = (uintptr_t)s->buf;
	me.gid = s->gid;
	get_file(dir, "server", &p);
	put_file(dir, "client", &me);
	fill_ah(s, &aa, &p.gid);
	ah = ibv_create_ah(s->pd, &aa);
	snprintf(why, sizeof(why), "errno %d (%s)", errno, strerror(errno));
	if (connect_qps(s, &p) || !ah)
		die("client: QPs connected, AH to the server");
	get_file(dir, "server-ready", NULL);

	/* An aborted send, then the real one in a batch of its own. */
	pattern(s->buf + C_SEND, 4096, 0x99);
	ibv_wr_start(s->rcx);
	s->rcx->wr_id = 100;
	s->rcx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(s->rcx);
	ibv_wr_set_sge(s->rcx, s->mr->lkey, (uintptr_t)s->buf + C_SEND, 4096);
	ibv_wr_abort(s->rcx);
	pattern(s->buf + C_SEND, 4096, 0x11);
	ibv_wr_start(s->rcx);
	s->rcx->wr_id = 101;
	s->rcx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(s->rcx);
	ibv_wr_set_sge(s->rcx, s->mr->lkey, (uintptr_t)s->buf + C_SEND, 4096);
	ret = ibv_wr_complete(s->rcx);
	check(ret == 0 && client_wait(s, 1, c) && c[0].wr_id == 101 &&
	      c[0].opcode == IBV_WC_SEND,
	      "client: wr_abort, then wr_send of 4 KiB completes");

	{
		uint8_t data[48];

		pattern(data, sizeof(data), 0x22);
		ibv_wr_start(s->rcx);
		s->rcx->wr_id = 102;
		ibv_wr_send_imm(s->rcx, htonl(IMM_SEND));
		ibv_wr_set_inline_data(s->rcx, data, sizeof(data));
		memset(data, 0, sizeof(data));	/* copied already */
		ret = ibv_wr_complete(s->rcx);
	}
	check(ret == 0 && client_wait(s, 1, c) && c[0].wr_id == 102,
	      "client: wr_send_imm, inline data");

	/* Two WQEs, one doorbell; only the second signaled. */
	pattern(s->buf + C_WRITE, 8192, 0x33);
	sgl[0] = (struct ibv_sge){ .addr = (uintptr_t)s->buf + C_WRITE,
				   .length = 3000, .lkey = s->mr->lkey };
	sgl[1] = (struct ibv_sge){ .addr = (uintptr_t)s->buf + C_WRITE + 3000,
				   .length = 8192 - 3000, .lkey = s->mr->lkey };
	ibv_wr_start(s->rcx);
	s->rcx->wr_id = 103;
	s->rcx->wr_flags = 0;
	ibv_wr_rdma_write(s->rcx, p.rkey, p.addr + WRITE_OFF);
	ibv_wr_set_sge_list(s->rcx, 2, sgl);
	s->rcx->wr_id = 104;
	s->rcx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(s->rcx, p.rkey, p.addr + WRITE_OFF, htonl(IMM_WRITE));
	ibv_wr_set_sge_list(s->rcx, 0, NULL);
	ret = ibv_wr_complete(s->rcx);
	check(ret == 0 && client_wait(s, 1, c) && c[0].wr_id == 104 &&
	      c[0].opcode == IBV_WC_RDMA_WRITE,
	      "client: wr_rdma_write + wr_rdma_write_imm in one batch");

	ibv_wr_start(s->rcx);
	s->rcx->wr_id = 105;
	s->rcx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(s->rcx, p.rkey, p.addr + READ_OFF);
	ibv_wr_set_sge(s->rcx, s->mr->lkey, (uintptr_t)s->buf + C_READ, 4096);
	ret = ibv_wr_complete(s->rcx);
	check(ret == 0 && client_wait(s, 1, c) && c[0].wr_id == 105 &&
	      c[0].opcode == IBV_WC_RDMA_READ &&
	      pattern_ok(s->buf + C_READ, 4096, 0xc3),
	      "client: wr_rdma_read of 4 KiB, data checked");

	ibv_wr_start(s->rcx);
	s->rcx->wr_id = 106;
	s->rcx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(s->rcx, p.rkey, p.addr + ATOMIC_OFF, 5);
	ibv_wr_set_sge(s->rcx, s->mr->lkey, (uintptr_t)s->buf + C_ATOMIC, 8);
	s->rcx->wr_id = 107;
	ibv_wr_atomic_cmp_swp(s->rcx, p.rkey, p.addr + ATOMIC_OFF, 105, 7);
	ibv_wr_set_sge(s->rcx, s->mr->lkey, (uintptr_t)s->buf + C_ATOMIC + 8, 8);
	s->rcx->wr_id = 108;
	ibv_wr_rdma_read(s->rcx, p.rkey, p.addr + ATOMIC_OFF);
	ibv_wr_set_sge(s->rcx, s->mr->lkey, (uintptr_t)s->buf + C_ATOMIC + 16, 8);
	ret = ibv_wr_complete(s->rcx);
	{
		uint64_t old_add, old_swp;
		int ok = ret == 0 && client_wait(s, 3, c);

		memcpy(&old_add, s->buf + C_ATOMIC, 8);
		memcpy(&old_swp, s->buf + C_ATOMIC + 8, 8);
		memcpy(&v, s->buf + C_ATOMIC + 16, 8);
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; fetch_add got %" PRIu64 ", cmp_swp got %" PRIu64 ", read %" PRIu64,
			 old_add, old_swp, v);
		check(ok && c[0].opcode == IBV_WC_FETCH_ADD &&
		      c[1].opcode == IBV_WC_COMP_SWAP && old_add == 100 &&
		      old_swp == 105 && v == 7,
		      "client: wr_atomic_fetch_add, wr_atomic_cmp_swp, read back");
	}

	pattern(s->buf + C_UD, 1024, 0x44);
	ibv_wr_start(s->udx);
	s->udx->wr_id = 109;
	s->udx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(s->udx, htonl(IMM_UD));
	ibv_wr_set_ud_addr(s->udx, ah, p.ud_qpn, QKEY);
	ibv_wr_set_sge(s->udx, s->mr->lkey, (uintptr_t)s->buf + C_UD, 1024);
	ret = ibv_wr_complete(s->udx);
	check(ret == 0 && client_wait(s, 1, c) && c[0].wr_id == 109 &&
	      c[0].opcode == IBV_WC_SEND && c[0].qp_num == s->ud->qp_num,
	      "client: UD wr_send_imm with wr_set_ud_addr");

	/* One batch, one doorbell; only the last is signaled. */
	ibv_wr_start(s->udx);
	for (i = 0; i < BURST; i++) {
		burst_payload(s->buf + C_BURST + i * BURST_LEN, i);
		s->udx->wr_id = 1000 + i;
		s->udx->wr_flags = i == BURST - 1 ? IBV_SEND_SIGNALED : 0;
		ibv_wr_send(s->udx);
		ibv_wr_set_ud_addr(s->udx, ah, p.ud_qpn, QKEY);
		ibv_wr_set_sge(s->udx, s->mr->lkey,
			       (uintptr_t)s->buf + C_BURST + i * BURST_LEN, BURST_LEN);
	}
	ret = ibv_wr_complete(s->udx);
	check(ret == 0 && client_wait(s, 1, c) && c[0].wr_id == 1000 + BURST - 1 &&
	      c[0].opcode == IBV_WC_SEND,
	      "client: a burst of 200 UD sends in one batch completes");

	ret = marker(dir, "provider_ex: unsignaled writes begin");
	for (i = 0; i < UNSIG_WRITES && !ret; i++) {
		pattern(s->buf + C_UNSIG + i * UNSIG_LEN, UNSIG_LEN, 0x50 + i);
		ibv_wr_start(s->rcx);
		s->rcx->wr_id = 2000 + i;
		s->rcx->wr_flags = 0;
		ibv_wr_rdma_write(s->rcx, p.rkey, p.addr + UNSIG_OFF + i * UNSIG_LEN);
		ibv_wr_set_sge(s->rcx, s->mr->lkey,
			       (uintptr_t)s->buf + C_UNSIG + i * UNSIG_LEN, UNSIG_LEN);
		ret = ibv_wr_complete(s->rcx);
		usleep(UNSIG_PAUSE_US);
	}
	if (!ret)
		ret = marker(dir, "provider_ex: unsignaled writes end");
	if (!ret) {
		ibv_wr_start(s->rcx);
		s->rcx->wr_id = 2100;
		s->rcx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(s->rcx, p.rkey, p.addr + UNSIG_OFF);
		ibv_wr_set_sge(s->rcx, s->mr->lkey, (uintptr_t)s->buf + C_UNSIG_BACK,
			       UNSIG_WRITES * UNSIG_LEN);
		ret = ibv_wr_complete(s->rcx);
	}
	check(ret == 0 && client_wait(s, 1, c) && c[0].wr_id == 2100 &&
	      !memcmp(s->buf + C_UNSIG, s->buf + C_UNSIG_BACK, UNSIG_WRITES * UNSIG_LEN),
	      "client: 8 unsignaled WRITEs, a doorbell each, then a READ brings them back");

	put_file(dir, "client-done", NULL);
	ibv_destroy_ah(ah);
}

int main(int argc, char **argv)
{
	struct side s = {};
	int server_side;

	if (argc != 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client DEV GID_INDEX DIR\n", argv[0]);
		return 2;
	}
	server_side = strcmp(argv[1], "server") == 0;
	s.gid_index = atoi(argv[3]);
	setup(&s, argv[2]);
	if (server_side)
		server(&s, argv[4]);
	else
		client(&s, argv[4]);

	snprintf(why, sizeof(why), "errno %d", errno);
	check(ibv_destroy_qp(s.rc) == 0 && ibv_destroy_qp(s.ud) == 0 &&
	      ibv_destroy_cq(ibv_cq_ex_to_cq(s.cq)) == 0 &&
	      ibv_dereg_mr(s.mr) == 0 && ibv_dealloc_pd(s.pd) == 0 &&
	      ibv_close_device(s.ctx) == 0,
	      server_side ? "server: everything destroyed" : "client: everything destroyed");
	return failed ? 1 : 0;
}
