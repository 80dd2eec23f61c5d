// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: in-kernel RC test between two devices, like krping.
 *
 *   insmod metaroce_rc_test.ko a=mr_a b=mr_b [count=N] [quick=1]
 *
 * Connects an RC QP on device a to one on device b through kernel verbs
 * (ib_core resolves the route and neighbour, as for any RoCE device), then
 * runs every RC operation with data checked byte for byte: SEND (several
 * sizes, several SGEs, inline), SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE,
 * RDMA_WRITE_WITH_IMM, RDMA_READ, both atomics, REG_MR and LOCAL_INV,
 * unsignaled sends, an RNR wait, and the error completions of a bad rkey and
 * of a missing access right, READs and atomics answered by a responder left in
 * RTR, a responder and a requester that vanish in the middle of READs, a READ
 * and an atomic whose MR is invalidated between acceptance and execution.
 * Then two QPs on b share one SRQ and receive from two QPs on a: data,
 * RNR on an empty SRQ, the SRQ limit event, and the last-WQE event of a QP
 * moved to the error state. count=N streams N further 4 KiB SENDs with a
 * deep queue (selftests/metaroce/qp_rc.sh runs it with netem loss). Last, UC
 * QPs: what UC refuses, and uc_count SENDs whose completed receives must be
 * intact and in order; with uc_lossy=1 some must be lost, else none. Results
 * go to the kernel log as TAP lines prefixed "metaroce_rc_test: "; init
 * fails with -EINVAL if a test failed, and leaves nothing allocated.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *a = "mr_a";
module_param(a, charp, 0444);
MODULE_PARM_DESC(a, "first MetaRoCE device (requester)");
static char *b = "mr_b";
module_param(b, charp, 0444);
MODULE_PARM_DESC(b, "second MetaRoCE device (responder)");
static unsigned int count = 256;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "4 KiB SENDs of the streaming test");
static unsigned int uc_count = 256;
module_param(uc_count, uint, 0444);
MODULE_PARM_DESC(uc_count, "3000-byte UC SENDs of the UC test");
static bool uc_lossy;
module_param(uc_lossy, bool, 0444);
MODULE_PARM_DESC(uc_lossy, "the link loses packets: some UC messages must be lost");
static unsigned int timeout_ms = 60000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "longest wait for one completion");

#define BUF_SIZE	(256 * 1024)
#define RX_DEPTH	64
#define TX_DEPTH	64
#define CUT_READS	8	/* test_responder_gives_up */

static int tests_run;
static int tests_failed;

static void report(bool pass, const char *name, long got)
{
	tests_run++;
	if (pass) {
		pr_info("ok %d - %s\n", tests_run, name);
	} else {
		tests_failed++;
		pr_info("not ok %d - %s (got %ld)\n", tests_run, name, got);
	}
}

struct side {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u8 *buf;		/* BUF_SIZE: local buffer, lkey of the DMA MR */
	u8 *rbuf;		/* BUF_SIZE: target of remote access */
	struct ib_mr *mr;	/* fast-reg MR over rbuf */
	int gid_index;
	union ib_gid gid;
	enum ib_mtu mtu;
	u32 psn;
	atomic_t qp_fatal;	/* IB_EVENT_QP_FATAL on this side's QP */
};

static struct side sa, sb;

static int find_gid(struct side *s)
{
	int i;

	for (i = 0; i < 16; i++) {
		const struct ib_gid_attr *attr = rdma_get_gid_attr(s->dev, 1, i);

		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw)) {
			s->gid = attr->gid;
			s->gid_index = i;
			rdma_put_gid_attr(attr);
			return 0;
		}
		rdma_put_gid_attr(attr);
	}
	return -ENOENT;
}

static int wait_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	do {
		if (ib_poll_cq(cq, 1, wc) == 1) {
			if (wc->status != IB_WC_SUCCESS)
				pr_info("# wr_id %llu: %s\n", wc->wr_id,
					ib_wc_status_msg(wc->status));
			return 0;
		}
		usleep_range(20, 100);
	} while (time_before(jiffies, end));
	pr_info("# no completion in %u ms\n", timeout_ms);
	return -ETIMEDOUT;
}

/* No completion arrives for @ms milliseconds. */
static bool no_wc(struct ib_cq *cq, unsigned int ms)
{
	struct ib_wc wc;

	msleep(ms);
	return ib_poll_cq(cq, 1, &wc) == 0;
}

static int side_init(struct side *s, const char *name)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 512 };
	struct ib_port_attr pattr;
	int ret;

	s->dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!s->dev)
		return -ENODEV;
	ret = find_gid(s);
	if (ret)
		return ret;
	ret = ib_query_port(s->dev, 1, &pattr);
	if (ret)
		return ret;
	s->mtu = pattr.active_mtu;
	s->pd = ib_alloc_pd(s->dev, 0);
	if (IS_ERR(s->pd))
		return PTR_ERR(s->pd);
	s->cq = ib_create_cq(s->dev, NULL, NULL, s, &cq_attr);
	if (IS_ERR(s->cq))
		return PTR_ERR(s->cq);
	/* kmalloc: the DMA MR and virt DMA need linear kernel addresses. */
	s->buf = kmalloc(BUF_SIZE, GFP_KERNEL);
	s->rbuf = kmalloc(BUF_SIZE, GFP_KERNEL);
	if (!s->buf || !s->rbuf)
		return -ENOMEM;
	s->mr = ib_alloc_mr(s->pd, IB_MR_TYPE_MEM_REG, BUF_SIZE / PAGE_SIZE);
	if (IS_ERR(s->mr))
		return PTR_ERR(s->mr);
	return 0;
}

static void side_destroy_qp(struct side *s)
{
	if (!IS_ERR_OR_NULL(s->qp))
		ib_destroy_qp(s->qp);
	s->qp = NULL;
}

static void side_fini(struct side *s)
{
	side_destroy_qp(s);
	if (!IS_ERR_OR_NULL(s->mr))
		ib_dereg_mr(s->mr);
	kfree(s->buf);
	kfree(s->rbuf);
	if (!IS_ERR_OR_NULL(s->cq))
		ib_destroy_cq(s->cq);
	if (!IS_ERR_OR_NULL(s->pd))
		ib_dealloc_pd(s->pd);
	if (s->dev)
		ib_device_put(s->dev);
	memset(s, 0, sizeof(*s));
}

static void qp_event(struct ib_event *ev, void *ctx)
{
	struct side *s = ctx;

	if (ev->event == IB_EVENT_QP_FATAL)
		atomic_inc(&s->qp_fatal);
}

static int qp_create_type(struct side *s, enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {
		.event_handler = qp_event,
		.qp_context = s,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = TX_DEPTH,
			.max_recv_wr = RX_DEPTH,
			.max_send_sge = 4,
			.max_recv_sge = 4,
			.max_inline_data = 64,
		},
	};

	s->qp = ib_create_qp(s->pd, &init);
	if (IS_ERR(s->qp))
		return PTR_ERR(s->qp);
	s->psn = get_random_u32() & 0xffffff;
	return 0;
}

static int qp_create(struct side *s)
{
	return qp_create_type(s, IB_QPT_RC);
}

/* To RTS, or with !rts left in RTR as perftest leaves an ib_read_bw responder. */
static int qp_connect(struct side *s, struct side *peer, u8 rnr_retry, bool rts)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	int ret;

	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = min(s->mtu, peer->mtu);
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = peer->psn;
	attr.max_dest_rd_atomic = 16;
	attr.min_rnr_timer = 1;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &peer->gid, 0, s->gid_index, 64, 0);
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			   IB_QP_MIN_RNR_TIMER);
	if (ret || !rts)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = s->psn;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = rnr_retry;
	attr.max_rd_atomic = 16;
	return ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static int pair_up_rts(u8 rnr_retry, bool b_rts)
{
	int ret;

	ret = qp_create(&sa);
	if (!ret)
		ret = qp_create(&sb);
	if (!ret)
		ret = qp_connect(&sa, &sb, rnr_retry, true);
	if (!ret)
		ret = qp_connect(&sb, &sa, rnr_retry, b_rts);
	/* The next pair_up() would overwrite and leak them (a device gone mid-test). */
	if (ret) {
		side_destroy_qp(&sa);
		side_destroy_qp(&sb);
	}
	return ret;
}

static int pair_up(u8 rnr_retry)
{
	return pair_up_rts(rnr_retry, true);
}

static void drain_cq(struct ib_cq *cq)
{
	struct ib_wc wc;

	while (ib_poll_cq(cq, 1, &wc) == 1)
		;
}

static void pair_down(void)
{
	side_destroy_qp(&sa);
	side_destroy_qp(&sb);
	/* Completions of the destroyed QPs must not answer the next pair's waits. */
	drain_cq(sa.cq);
	drain_cq(sb.cq);
}

static void fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed * 131 + i * 7 + (i >> 8));
}

static int post_recv(struct side *s, u64 wr_id, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = s->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(s->qp, &wr, NULL);
}

static int post_send(struct side *s, u64 wr_id, enum ib_wr_opcode op, u64 addr,
		     u32 len, int flags)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = s->pd->local_dma_lkey };
	struct ib_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = flags,
	};

	return ib_post_send(s->qp, &wr, NULL);
}

static int post_rdma(struct side *s, u64 wr_id, enum ib_wr_opcode op, u64 addr,
		     u32 len, u64 raddr, u32 rkey, __be32 imm)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = s->pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
			.send_flags = IB_SEND_SIGNALED, .ex.imm_data = imm,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return ib_post_send(s->qp, &wr.wr, NULL);
}

/* Register s's rbuf for remote access through fast-reg MR @mr. */
static int reg_rbuf_mr(struct side *s, struct ib_mr *mr, int access)
{
	struct scatterlist sg;
	struct ib_reg_wr wr = {};
	struct ib_wc wc;
	int n, ret;

	sg_init_one(&sg, s->rbuf, BUF_SIZE);
	/* virt DMA: mapping sets the DMA address to the kernel address */
	if (ib_dma_map_sg(s->dev, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(s->dev, &sg, 1, DMA_BIDIRECTIONAL);
	if (n != 1)
		return n < 0 ? n : -EINVAL;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 0x5e9;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	ret = ib_post_send(s->qp, &wr.wr, NULL);
	if (ret)
		return ret;
	ret = wait_wc(s->cq, &wc);
	if (ret)
		return ret;
	return wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_REG_MR ? 0 : -EIO;
}

static int reg_rbuf(struct side *s, int access)
{
	return reg_rbuf_mr(s, s->mr, access);
}

/* Invalidate MR @mr through s's send queue (LOCAL_INV), so it can be registered anew. */
static int inv_mr(struct side *s, struct ib_mr *mr)
{
	struct ib_send_wr wr = {
		.wr_id = 0x1a1, .opcode = IB_WR_LOCAL_INV, .send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = mr->rkey,
	};
	struct ib_wc wc;
	int ret;

	ret = ib_post_send(s->qp, &wr, NULL);
	if (!ret)
		ret = wait_wc(s->cq, &wc);
	if (ret)
		return ret;
	return wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_LOCAL_INV ? 0 : -EIO;
}

static void test_send_sizes(void)
{
	static const u32 sizes[] = { 0, 1, 1000, 4096, 4097, 65536, BUF_SIZE };
	char name[80];
	struct ib_wc wc;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 len = sizes[i];
		bool ok;

		fill(sa.buf, len, i + 1);
		memset(sb.buf, 0xee, BUF_SIZE);
		ret = post_recv(&sb, 100 + i, (uintptr_t)sb.buf, BUF_SIZE);
		if (!ret)
			ret = post_send(&sa, 200 + i, IB_WR_SEND, (uintptr_t)sa.buf, len,
					IB_SEND_SIGNALED);
		ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
			wc.wr_id == 200 + i && wc.opcode == IB_WC_SEND;
		ok = ok && !wait_wc(sb.cq, &wc) && wc.status == IB_WC_SUCCESS &&
			wc.wr_id == 100 + i && wc.opcode == IB_WC_RECV && wc.byte_len == len &&
			!(wc.wc_flags & IB_WC_WITH_IMM) && !memcmp(sa.buf, sb.buf, len) &&
			(len == BUF_SIZE || sb.buf[len] == 0xee);
		snprintf(name, sizeof(name), "send %u bytes: completions, data byte for byte",
			 len);
		report(ok, name, ok ? 0 : (ret ? ret : wc.status));
	}
}

static void test_send_sge_inline_imm(void)
{
	struct ib_sge sge[3];
	struct ib_send_wr wr = {};
	struct ib_recv_wr rwr = {};
	struct ib_sge rsge[2];
	struct ib_wc wc;
	bool ok;
	int ret;

	/* three SGEs into two */
	fill(sa.buf, 3000, 7);
	memset(sb.buf, 0, 4096);
	rsge[0] = (struct ib_sge){ (uintptr_t)sb.buf, 1500, sb.pd->local_dma_lkey };
	rsge[1] = (struct ib_sge){ (uintptr_t)sb.buf + 2048, 2000, sb.pd->local_dma_lkey };
	rwr.wr_id = 300;
	rwr.sg_list = rsge;
	rwr.num_sge = 2;
	sge[0] = (struct ib_sge){ (uintptr_t)sa.buf, 1000, sa.pd->local_dma_lkey };
	sge[1] = (struct ib_sge){ (uintptr_t)sa.buf + 1000, 1000, sa.pd->local_dma_lkey };
	sge[2] = (struct ib_sge){ (uintptr_t)sa.buf + 2000, 1000, sa.pd->local_dma_lkey };
	wr.wr_id = 301;
	wr.sg_list = sge;
	wr.num_sge = 3;
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.ex.imm_data = cpu_to_be32(0xc0ffee);
	wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	ret = ib_post_recv(sb.qp, &rwr, NULL);
	if (!ret)
		ret = ib_post_send(sa.qp, &wr, NULL);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS;
	ok = ok && !wait_wc(sb.cq, &wc) && wc.status == IB_WC_SUCCESS && wc.byte_len == 3000 &&
		(wc.wc_flags & IB_WC_WITH_IMM) && be32_to_cpu(wc.ex.imm_data) == 0xc0ffee &&
		!memcmp(sb.buf, sa.buf, 1500) && !memcmp(sb.buf + 2048, sa.buf + 1500, 1500);
	report(ok, "send_with_imm: 3 SGEs scattered into 2, immediate delivered", ret);

	/* inline */
	fill(sa.buf, 60, 9);
	ret = post_recv(&sb, 302, (uintptr_t)sb.buf, 4096);
	if (!ret)
		ret = post_send(&sa, 303, IB_WR_SEND, (uintptr_t)sa.buf, 60,
				IB_SEND_SIGNALED | IB_SEND_INLINE);
	/* the data was copied at post time: changing it now must not matter */
	memset(sa.buf, 0, 60);
	fill(sb.buf + 4096, 60, 9);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS;
	ok = ok && !wait_wc(sb.cq, &wc) && wc.status == IB_WC_SUCCESS && wc.byte_len == 60 &&
		!memcmp(sb.buf, sb.buf + 4096, 60);
	report(ok, "send inline: data taken at post time", ret);
}

static void test_unsignaled(void)
{
	struct ib_wc wc;
	bool ok = true;
	int i, ret = 0;

	for (i = 0; i < 8 && !ret; i++)
		ret = post_recv(&sb, 400 + i, (uintptr_t)sb.buf + i * 4096, 4096);
	for (i = 0; i < 8 && !ret; i++)
		ret = post_send(&sa, 500 + i, IB_WR_SEND, (uintptr_t)sa.buf, 100,
				i == 7 ? IB_SEND_SIGNALED : 0);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.wr_id == 507 && wc.status == IB_WC_SUCCESS &&
		no_wc(sa.cq, 20);
	for (i = 0; i < 8 && ok; i++)
		ok = !wait_wc(sb.cq, &wc) && wc.wr_id == 400 + i && wc.status == IB_WC_SUCCESS;
	report(ok, "unsignaled sends: one completion for the signaled one; receives in order",
	       ret);
}

static void test_rdma(void)
{
	u32 rkey = sb.mr->rkey;
	u64 raddr = sb.mr->iova;
	struct ib_wc wc;
	bool ok;
	int ret;

	fill(sa.buf, BUF_SIZE, 21);
	memset(sb.rbuf, 0, BUF_SIZE);
	ret = post_rdma(&sa, 600, IB_WR_RDMA_WRITE, (uintptr_t)sa.buf, BUF_SIZE, raddr, rkey, 0);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		wc.opcode == IB_WC_RDMA_WRITE && !memcmp(sa.buf, sb.rbuf, BUF_SIZE) &&
		no_wc(sb.cq, 10);
	report(ok, "rdma write 256 KiB: placed, no completion at the responder", ret);

	fill(sa.buf, 5000, 22);
	ret = post_recv(&sb, 601, (uintptr_t)sb.buf, 16);
	if (!ret)
		ret = post_rdma(&sa, 602, IB_WR_RDMA_WRITE_WITH_IMM, (uintptr_t)sa.buf, 5000,
				raddr + 100, rkey, cpu_to_be32(0x1234));
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS;
	ok = ok && !wait_wc(sb.cq, &wc) && wc.status == IB_WC_SUCCESS && wc.wr_id == 601 &&
		wc.opcode == IB_WC_RECV_RDMA_WITH_IMM && wc.byte_len == 5000 &&
		be32_to_cpu(wc.ex.imm_data) == 0x1234 && !memcmp(sa.buf, sb.rbuf + 100, 5000);
	report(ok, "rdma write with immediate: data placed, receive completion", ret);

	fill(sb.rbuf, BUF_SIZE, 23);
	memset(sa.buf, 0, BUF_SIZE);
	ret = post_rdma(&sa, 603, IB_WR_RDMA_READ, (uintptr_t)sa.buf, BUF_SIZE, raddr, rkey, 0);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		wc.opcode == IB_WC_RDMA_READ && !memcmp(sa.buf, sb.rbuf, BUF_SIZE);
	report(ok, "rdma read 256 KiB: data byte for byte", ret);
}

static int post_atomic_rkey(enum ib_wr_opcode op, u64 raddr, u32 rkey, u64 compare_add,
			    u64 swap)
{
	struct ib_sge sge = { .addr = (uintptr_t)sa.buf, .length = 8,
			      .lkey = sa.pd->local_dma_lkey };
	struct ib_atomic_wr wr = {
		.wr = { .wr_id = 700, .sg_list = &sge, .num_sge = 1, .opcode = op,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr,
		.compare_add = compare_add,
		.swap = swap,
		.rkey = rkey,
	};

	return ib_post_send(sa.qp, &wr.wr, NULL);
}

static int post_atomic(enum ib_wr_opcode op, u64 raddr, u64 compare_add, u64 swap)
{
	return post_atomic_rkey(op, raddr, sb.mr->rkey, compare_add, swap);
}

static void test_atomics(void)
{
	u64 *target = (u64 *)(sb.rbuf + 64), *result = (u64 *)sa.buf;
	struct ib_wc wc;
	bool ok;
	int ret;

	*target = 1000;
	ret = post_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, sb.mr->iova + 64, 23, 0);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		wc.opcode == IB_WC_FETCH_ADD && *result == 1000 && *target == 1023;
	report(ok, "fetch and add: old value returned, memory updated", ok ? 0 : *result);

	ret = post_atomic(IB_WR_ATOMIC_CMP_AND_SWP, sb.mr->iova + 64, 1023, 77);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		wc.opcode == IB_WC_COMP_SWAP && *result == 1023 && *target == 77;
	report(ok, "compare and swap, equal: swapped", ok ? 0 : *result);

	ret = post_atomic(IB_WR_ATOMIC_CMP_AND_SWP, sb.mr->iova + 64, 5, 99);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		*result == 77 && *target == 77;
	report(ok, "compare and swap, different: unchanged", ok ? 0 : *result);
}

static void test_rnr(void)
{
	struct ib_wc wc;
	bool ok;
	int ret;

	fill(sa.buf, 2000, 31);
	ret = post_send(&sa, 800, IB_WR_SEND, (uintptr_t)sa.buf, 2000, IB_SEND_SIGNALED);
	ok = !ret && no_wc(sa.cq, 50);
	report(ok, "rnr: a send without a receive WQE waits", ret);
	ret = post_recv(&sb, 801, (uintptr_t)sb.buf, 4096);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS && wc.wr_id == 800 &&
		!wait_wc(sb.cq, &wc) && wc.wr_id == 801 && !memcmp(sa.buf, sb.buf, 2000);
	report(ok, "rnr: completes once the receive is posted", ret);
}

static void test_send_inv(void)
{
	struct ib_send_wr wr = {};
	struct ib_sge sge = { (uintptr_t)sa.buf, 16, sa.pd->local_dma_lkey };
	u32 rkey = sb.mr->rkey;
	struct ib_wc wc;
	bool ok;
	int ret;

	wr.wr_id = 900;
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.ex.invalidate_rkey = rkey;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = post_recv(&sb, 901, (uintptr_t)sb.buf, 4096);
	if (!ret)
		ret = ib_post_send(sa.qp, &wr, NULL);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		!wait_wc(sb.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		(wc.wc_flags & IB_WC_WITH_INVALIDATE) && wc.ex.invalidate_rkey == rkey;
	report(ok, "send with invalidate: receive reports the invalidated rkey", ret);

	/* the rkey is dead now: a write to it is a remote access error */
	ret = post_rdma(&sa, 902, IB_WR_RDMA_WRITE, (uintptr_t)sa.buf, 64, sb.mr->iova, rkey, 0);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.wr_id == 902 &&
		wc.status == IB_WC_REM_ACCESS_ERR;
	report(ok, "write to an invalidated rkey: remote access error", ok ? 0 : wc.status);

	ret = post_send(&sa, 903, IB_WR_SEND, (uintptr_t)sa.buf, 16, IB_SEND_SIGNALED);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.wr_id == 903 &&
		wc.status == IB_WC_WR_FLUSH_ERR;
	report(ok, "after the error, the QP flushes", ok ? 0 : wc.status);
}

static void test_access_rights(void)
{
	struct ib_wc wc;
	bool ok;
	int ret;

	/* b registers rbuf for remote read only: a write must fail */
	ret = reg_rbuf(&sb, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ);
	report(!ret, "reg_mr (read only) through the send queue", ret);
	ret = post_rdma(&sa, 950, IB_WR_RDMA_WRITE, (uintptr_t)sa.buf, 64, sb.mr->iova,
			sb.mr->rkey, 0);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_REM_ACCESS_ERR;
	report(ok, "write without remote write access: remote access error",
	       ok ? 0 : wc.status);
}

static void test_stream(void)
{
	u32 posted = 0, sent_done = 0, recvd = 0, rposted = 0, bad = 0;
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms * 4);
	struct ib_wc wc[16];
	int i, n, ret = 0;

	/* As many receives as sends in all: none is left for the next test. */
	for (i = 0; i < RX_DEPTH && rposted < count && !ret; i++, rposted++)
		ret = post_recv(&sb, i, (uintptr_t)sb.buf + i * 4096, 4096);
	for (i = 0; i < BUF_SIZE / 4096; i++)
		fill(sa.buf + i * 4096, 4096, i);

	while (!ret && recvd < count && time_before(jiffies, end)) {
		while (posted < count && posted - sent_done < TX_DEPTH / 2 && !ret) {
			ret = post_send(&sa, posted, IB_WR_SEND,
					(uintptr_t)sa.buf + (posted % 64) * 4096, 4096,
					IB_SEND_SIGNALED);
			if (!ret)
				posted++;
		}
		n = ib_poll_cq(sa.cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IB_WC_SUCCESS || wc[i].wr_id != sent_done) {
				if (!bad++)
					pr_info("# send %u: wr_id %llu %s\n", sent_done,
						wc[i].wr_id, ib_wc_status_msg(wc[i].status));
			}
			sent_done++;
		}
		n = ib_poll_cq(sb.cq, 16, wc);
		for (i = 0; i < n; i++) {
			u32 slot = wc[i].wr_id;

			if (wc[i].status != IB_WC_SUCCESS || slot != recvd % RX_DEPTH ||
			    memcmp(sb.buf + slot * 4096, sa.buf + (recvd % 64) * 4096, 4096)) {
				if (!bad++)
					pr_info("# receive %u: slot %u %s\n", recvd, slot,
						ib_wc_status_msg(wc[i].status));
			}
			recvd++;
			memset(sb.buf + slot * 4096, 0, 4096);
			if (rposted < count) {
				if (post_recv(&sb, slot, (uintptr_t)sb.buf + slot * 4096, 4096))
					bad++;
				rposted++;
			}
		}
		if (!n)
			usleep_range(20, 100);
	}
	while (sent_done < posted && !wait_wc(sa.cq, wc)) {
		if (wc[0].status != IB_WC_SUCCESS)
			bad++;
		sent_done++;
	}
	report(!ret && !bad && recvd == count && sent_done == count,
	       "stream of 4 KiB sends: all delivered in order, data intact",
	       ret ? ret : (long)bad * 100000 + recvd);
}

/*
 * perftest's ib_read_bw and ib_atomic_bw leave the responder in RTR: it answers READs
 * and atomics from a derived initial PSN (spec, "Responses before RTS").
 */
static void test_rtr_responder(void)
{
	u64 *target = (u64 *)(sb.rbuf + 64), *result = (u64 *)sa.buf;
	const u32 part = BUF_SIZE / 4;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_wc wc;
	bool ok = true;
	int i, ret;

	/*
	 * b's MR is re-registered (it is still valid, read only) through a QP in RTS,
	 * which b's next one is not.
	 */
	ret = pair_up(7);
	if (!ret)
		ret = inv_mr(&sb, sb.mr);
	if (!ret)
		ret = reg_rbuf(&sb, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_ATOMIC);
	pair_down();
	if (!ret)
		ret = pair_up_rts(7, false);
	report(!ret, "responder left in RTR: connected INIT-RTR only", ret);
	if (ret)
		goto out;

	/* four reads of 64 KiB in flight at once, many packets each */
	fill(sb.rbuf, BUF_SIZE, 41);
	memset(sa.buf, 0, BUF_SIZE);
	for (i = 0; i < 4 && !ret; i++)
		ret = post_rdma(&sa, 1100 + i, IB_WR_RDMA_READ, (uintptr_t)sa.buf + i * part,
				part, sb.mr->iova + i * part, sb.mr->rkey, 0);
	for (i = 0; i < 4 && !ret && ok; i++)
		ok = !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
			wc.opcode == IB_WC_RDMA_READ && wc.wr_id == 1100 + i;
	ok = ok && !ret && !memcmp(sa.buf, sb.rbuf, BUF_SIZE);
	report(ok, "responder in RTR: four rdma reads of 64 KiB, data byte for byte", ret);

	*target = 1000;
	ret = post_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, sb.mr->iova + 64, 23, 0);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		wc.opcode == IB_WC_FETCH_ADD && *result == 1000 && *target == 1023;
	report(ok, "responder in RTR: fetch and add", ok ? 0 : *result);
	ret = post_atomic(IB_WR_ATOMIC_CMP_AND_SWP, sb.mr->iova + 64, 1023, 77);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		wc.opcode == IB_WC_COMP_SWAP && *result == 1023 && *target == 77;
	ret = ret ? ret : post_atomic(IB_WR_ATOMIC_CMP_AND_SWP, sb.mr->iova + 64, 5, 99);
	ok = ok && !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS &&
		*result == 77 && *target == 77;
	report(ok, "responder in RTR: compare and swap, equal and different", ok ? 0 : *result);

	ret = ib_query_qp(sb.qp, &attr, IB_QP_STATE, &init);
	ok = !ret && attr.qp_state == IB_QPS_RTR &&
		post_send(&sb, 1199, IB_WR_SEND, (uintptr_t)sb.buf, 16, IB_SEND_SIGNALED) &&
		no_wc(sb.cq, 10);
	report(ok, "the responder is still in RTR and posts no sends", ret);
out:
	pair_down();
}

static void test_rnr_exhausted(void)
{
	struct ib_wc wc;
	bool ok;
	int ret;

	ret = pair_up(1);
	if (ret) {
		report(false, "rnr retry 1: connect", ret);
		return;
	}
	ret = post_send(&sa, 1000, IB_WR_SEND, (uintptr_t)sa.buf, 100, IB_SEND_SIGNALED);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_RNR_RETRY_EXC_ERR;
	report(ok, "rnr retry 1 and no receive: rnr retry exceeded", ok ? 0 : wc.status);
	pair_down();
}

/*
 * A requester that vanishes in the middle of a READ leaves its responder resending
 * responses that nobody acknowledges. The responder has no send WQE to fail, yet
 * after its retries its QP must be in error and its consumer told (QP_FATAL).
 */
static void test_responder_gives_up(void)
{
	unsigned long end;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int tries, i, done, ret = 0;
	bool cut = false;
	struct ib_wc wc;

	/*
	 * READs that all complete before the requester goes prove nothing: again.
	 * Several in a row, so that a fast link or a late waker still finds b
	 * answering one of them.
	 */
	for (tries = 0; tries < 3 && !cut && !ret; tries++) {
		ret = pair_up(7);
		if (ret)
			break;
		atomic_set(&sb.qp_fatal, 0);
		fill(sb.rbuf, BUF_SIZE, 43);
		memset(sa.buf, 0, BUF_SIZE);
		for (i = 0; i < CUT_READS && !ret; i++)
			ret = post_rdma(&sa, 1300 + i, IB_WR_RDMA_READ, (uintptr_t)sa.buf,
					BUF_SIZE, sb.mr->iova, sb.mr->rkey, 0);
		end = jiffies + msecs_to_jiffies(timeout_ms);
		while (!ret && !memchr_inv(sa.buf, 0, BUF_SIZE) && time_before(jiffies, end))
			usleep_range(20, 100);
		/* the first response bytes have landed: b is answering */
		side_destroy_qp(&sa);
		for (i = 0, done = 0; i < CUT_READS; i++)
			if (ib_poll_cq(sa.cq, 1, &wc) == 1 && wc.status == IB_WC_SUCCESS)
				done++;
		cut = !ret && done < CUT_READS;
		if (!cut)
			pair_down();
	}
	report(cut, "requester destroyed in the middle of 8 reads of 256 KiB", ret);
	if (!cut)
		return;

	end = jiffies + msecs_to_jiffies(timeout_ms);
	do {
		msleep(20);
		ret = ib_query_qp(sb.qp, &attr, IB_QP_STATE, &init);
	} while (!ret && attr.qp_state != IB_QPS_ERR && time_before(jiffies, end));
	report(!ret && attr.qp_state == IB_QPS_ERR,
	       "its responder gives up the unanswered responses: QP in error",
	       ret ? ret : attr.qp_state);
	report(atomic_read(&sb.qp_fatal) == 1, "and the responder's consumer gets QP_FATAL",
	       atomic_read(&sb.qp_fatal));
	pair_down();
}

/*
 * The mirror image: the responder's QP is destroyed in the middle of READs. The
 * requester has nothing of its own outstanding (its requests are acknowledged); its
 * response timer probes, and once the probes go unanswered (after the closed
 * connection's record stops answering them) the READ ends in retry exceeded.
 */
static void test_requester_gives_up(void)
{
	struct ib_wc wc = {};
	ktime_t gone = 0;
	unsigned long end;
	int tries, i, ret = 0;
	bool cut = false, ok;

	for (tries = 0; tries < 3 && !cut && !ret; tries++) {
		ret = pair_up(7);
		if (ret)
			break;
		fill(sb.rbuf, BUF_SIZE, 44);
		memset(sa.buf, 0, BUF_SIZE);
		for (i = 0; i < CUT_READS && !ret; i++)
			ret = post_rdma(&sa, 1500 + i, IB_WR_RDMA_READ, (uintptr_t)sa.buf,
					BUF_SIZE, sb.mr->iova, sb.mr->rkey, 0);
		end = jiffies + msecs_to_jiffies(timeout_ms);
		while (!ret && !memchr_inv(sa.buf, 0, BUF_SIZE) && time_before(jiffies, end))
			usleep_range(20, 100);
		gone = ktime_get();
		side_destroy_qp(&sb);
		/* the READs that completed before the cut succeed; is one left? */
		for (i = 0; i < CUT_READS && !ret; i++) {
			ret = wait_wc(sa.cq, &wc);
			if (!ret && wc.status != IB_WC_SUCCESS) {
				cut = true;
				break;
			}
		}
		if (!cut)
			pair_down();
	}
	ok = cut && wc.status == IB_WC_RETRY_EXC_ERR;
	/* How long a READ waits for a responder that has gone (spec, "Waiting for responses"). */
	if (cut)
		pr_info("# retry exceeded %lld ms after the responder's QP was destroyed\n",
			ktime_ms_delta(ktime_get(), gone));
	report(ok, "responder destroyed in the middle of 8 reads: retry exceeded",
	       ret ? ret : wc.status);
	for (i++; ok && i < CUT_READS; i++)
		ok = !wait_wc(sa.cq, &wc) && wc.status == IB_WC_WR_FLUSH_ERR;
	report(ok, "and the reads after it are flushed", wc.status);
	pair_down();
}

/*
 * A READ or atomic that b accepted behind a SEND waiting for a receive (RNR) executes
 * only once that SEND is delivered. b invalidates its MR in between: b must refuse the
 * request then (a remote access error at a, b's QP in error), never answer zeros as
 * data or skip the atomic as if it had run.
 */
static void memory_gone(bool atomic)
{
	u64 *target = (u64 *)(sb.rbuf + 64);
	u64 wr_id = atomic ? 700 : 1401;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	unsigned long end;
	struct ib_wc wc = {};
	struct ib_mr *mr;
	char name[96];
	bool ok;
	int ret;

	/* An MR of its own: sb.mr's state is the earlier tests' business. */
	mr = ib_alloc_mr(sb.pd, IB_MR_TYPE_MEM_REG, BUF_SIZE / PAGE_SIZE);
	ret = PTR_ERR_OR_ZERO(mr);
	if (!ret)
		ret = pair_up(7);
	if (ret) {
		report(false, "memory gone before execution: MR, connect", ret);
		if (!IS_ERR(mr))
			ib_dereg_mr(mr);
		return;
	}
	ret = reg_rbuf_mr(&sb, mr, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_ATOMIC);
	fill(sb.rbuf, BUF_SIZE, 51);
	*target = 1000;
	if (!ret)
		ret = post_send(&sa, 1400, IB_WR_SEND, (uintptr_t)sa.buf, 100, IB_SEND_SIGNALED);
	if (!ret && atomic)
		ret = post_atomic_rkey(IB_WR_ATOMIC_FETCH_AND_ADD, mr->iova + 64, mr->rkey, 23, 0);
	else if (!ret)
		ret = post_rdma(&sa, wr_id, IB_WR_RDMA_READ, (uintptr_t)sa.buf + 4096, 65536,
				mr->iova, mr->rkey, 0);
	/* ample time for b to accept the request and refuse the SEND with RNR */
	ok = !ret && no_wc(sa.cq, 100);
	if (ok)
		ret = inv_mr(&sb, mr);
	if (ok && !ret)
		ret = post_recv(&sb, 1402, (uintptr_t)sb.buf, 4096);
	ok = ok && !ret && !wait_wc(sa.cq, &wc) && wc.wr_id == 1400 &&
		wc.status == IB_WC_SUCCESS;
	ok = ok && !wait_wc(sa.cq, &wc) && wc.wr_id == wr_id &&
		wc.status == IB_WC_REM_ACCESS_ERR;
	snprintf(name, sizeof(name), "%s, MR invalidated before it runs: remote access error",
		 atomic ? "fetch and add" : "rdma read");
	report(ok, name, ret ? ret : wc.status);

	end = jiffies + msecs_to_jiffies(timeout_ms);
	do {
		ret = ib_query_qp(sb.qp, &attr, IB_QP_STATE, &init);
		if (ret || attr.qp_state == IB_QPS_ERR)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	ok = !ret && attr.qp_state == IB_QPS_ERR;
	if (atomic)
		ok = ok && *target == 1000;
	report(ok, atomic ? "and the responder, in error, did not perform it" :
	       "and the responder is in error", ret ? ret : attr.qp_state);
	pair_down();
	ib_dereg_mr(mr);
}

/* Shared receive queue: two QPs on b take receives from one SRQ. */

#define SRQ_DEPTH	64
#define SRQ_MSGS	16	/* per peer */

struct srq_test {
	struct ib_srq *srq;
	struct side a[2], b[2];	/* copies of sa/sb with their own QPs */
	atomic_t limit_events;
	atomic_t last_wqe[2];
};

static struct srq_test st;

static void srq_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		atomic_inc(&st.limit_events);
}

static void srq_qp_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(&st.last_wqe[(uintptr_t)ctx]);
}

static int srq_post(u64 wr_id, u32 off, u32 len)
{
	struct ib_sge sge = { .addr = (uintptr_t)sb.buf + off, .length = len,
			      .lkey = sb.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_srq_recv(st.srq, &wr, NULL);
}

static int srq_setup(void)
{
	struct ib_srq_init_attr sattr = {
		.event_handler = srq_event,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = SRQ_DEPTH, .max_sge = 2 },
	};
	int i, ret;

	memset(&st, 0, sizeof(st));
	st.srq = ib_create_srq(sb.pd, &sattr);
	if (IS_ERR(st.srq))
		return PTR_ERR(st.srq);
	for (i = 0; i < 2; i++) {
		struct ib_qp_init_attr init = {
			.event_handler = srq_qp_event,
			.qp_context = (void *)(uintptr_t)i,
			.send_cq = sb.cq,
			.recv_cq = sb.cq,
			.srq = st.srq,
			.qp_type = IB_QPT_RC,
			.sq_sig_type = IB_SIGNAL_REQ_WR,
			.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		};

		st.a[i] = sa;
		st.b[i] = sb;
		st.b[i].qp = ib_create_qp(sb.pd, &init);
		if (IS_ERR(st.b[i].qp))
			return PTR_ERR(st.b[i].qp);
		st.b[i].psn = get_random_u32() & 0xffffff;
		init.event_handler = NULL;
		init.srq = NULL;
		init.send_cq = sa.cq;
		init.recv_cq = sa.cq;
		init.cap = (struct ib_qp_cap){ .max_send_wr = TX_DEPTH, .max_recv_wr = 4,
					       .max_send_sge = 1, .max_recv_sge = 1 };
		st.a[i].qp = ib_create_qp(sa.pd, &init);
		if (IS_ERR(st.a[i].qp))
			return PTR_ERR(st.a[i].qp);
		st.a[i].psn = get_random_u32() & 0xffffff;
		ret = qp_connect(&st.a[i], &st.b[i], 7, true);
		if (!ret)
			ret = qp_connect(&st.b[i], &st.a[i], 7, true);
		if (ret)
			return ret;
	}
	return 0;
}

static void srq_teardown(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		side_destroy_qp(&st.a[i]);
		side_destroy_qp(&st.b[i]);
	}
	if (!IS_ERR_OR_NULL(st.srq))
		ib_destroy_srq(st.srq);
	st.srq = NULL;
	drain_cq(sa.cq);
	drain_cq(sb.cq);
}

/* Wait until @v reaches @want or the timeout. */
static bool wait_atomic(atomic_t *v, int want)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	while (atomic_read(v) < want && time_before(jiffies, end))
		usleep_range(100, 200);
	return atomic_read(v) == want;
}

/* Both peers send SRQ_MSGS each, interleaved; b's QPs receive through the SRQ. */
static void test_srq_data(void)
{
	u32 seen[2] = {}, sent = 0, bad = 0, got = 0;
	DECLARE_BITMAP(used, SRQ_DEPTH) = {};
	struct ib_wc wc;
	int i, ret = 0;

	for (i = 0; i < 2 * SRQ_MSGS && !ret; i++)
		ret = srq_post(i, i * 4096, 4096);
	memset(sb.buf, 0, 2 * SRQ_MSGS * 4096);
	/* Peer p's message k: 100 + 17 * k bytes of pattern p * 1000 + k, from its own area. */
	for (i = 0; i < 2 * SRQ_MSGS && !ret; i++) {
		int p = i & 1, k = i / 2;
		u8 *src = sa.buf + (p * SRQ_MSGS + k) * 4096;

		fill(src, 100 + 17 * k, p * 1000 + k);
		ret = post_send(&st.a[p], i, IB_WR_SEND, (uintptr_t)src, 100 + 17 * k,
				IB_SEND_SIGNALED);
	}
	while (!ret && sent < 2 * SRQ_MSGS && !wait_wc(sa.cq, &wc)) {
		if (wc.status != IB_WC_SUCCESS)
			bad++;
		sent++;
	}
	while (!ret && got < 2 * SRQ_MSGS && !wait_wc(sb.cq, &wc)) {
		int p = wc.qp == st.b[1].qp;
		u32 k = seen[p]++, len = 100 + 17 * k;

		got++;
		if (wc.status != IB_WC_SUCCESS || wc.opcode != IB_WC_RECV ||
		    (wc.qp != st.b[0].qp && wc.qp != st.b[1].qp) ||
		    wc.wr_id >= 2 * SRQ_MSGS || test_and_set_bit(wc.wr_id, used) ||
		    wc.byte_len != len ||
		    memcmp(sb.buf + wc.wr_id * 4096, sa.buf + (p * SRQ_MSGS + k) * 4096, len)) {
			if (!bad++)
				pr_info("# srq receive %u: qp %d wr_id %llu len %u %s\n", got, p,
					wc.wr_id, wc.byte_len, ib_wc_status_msg(wc.status));
		}
	}
	report(!ret && !bad && sent == 2 * SRQ_MSGS && got == 2 * SRQ_MSGS &&
	       seen[0] == SRQ_MSGS && seen[1] == SRQ_MSGS,
	       "srq: two QPs, two peers, each WQE used once, per-QP order, data byte for byte",
	       ret ? ret : (long)bad * 1000 + got);
}

static void test_srq_rnr(void)
{
	struct ib_wc wc;
	bool ok;
	int ret;

	fill(sa.buf, 3000, 41);
	memset(sb.buf, 0, 4096);
	ret = post_send(&st.a[1], 50, IB_WR_SEND, (uintptr_t)sa.buf, 3000, IB_SEND_SIGNALED);
	ok = !ret && no_wc(sa.cq, 50) && no_wc(sb.cq, 1);
	report(ok, "srq: a send to an empty SRQ waits (RNR)", ret);
	ret = srq_post(51, 0, 4096);
	ok = !ret && !wait_wc(sa.cq, &wc) && wc.status == IB_WC_SUCCESS && wc.wr_id == 50 &&
		!wait_wc(sb.cq, &wc) && wc.status == IB_WC_SUCCESS && wc.wr_id == 51 &&
		wc.qp == st.b[1].qp && wc.byte_len == 3000 && !memcmp(sa.buf, sb.buf, 3000);
	report(ok, "srq: completes once a receive is posted to the SRQ", ret);
}

/* Send @n messages from peer @p and wait for both sides' completions. */
static int srq_exchange(int p, int n)
{
	struct ib_wc wc;
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = post_send(&st.a[p], 60 + i, IB_WR_SEND, (uintptr_t)sa.buf, 64,
				IB_SEND_SIGNALED);
	for (i = 0; i < n && !ret; i++) {
		if (wait_wc(sa.cq, &wc) || wc.status != IB_WC_SUCCESS ||
		    wait_wc(sb.cq, &wc) || wc.status != IB_WC_SUCCESS)
			ret = -EIO;
	}
	return ret;
}

static void test_srq_limit(void)
{
	struct ib_srq_attr attr = { .srq_limit = 4 };
	struct ib_recv_wr wr = { .wr_id = 1 };
	const struct ib_recv_wr *bad_wr = NULL;
	struct ib_sge sge[8] = {};
	bool ok;
	int i, ret;

	ret = ib_query_srq(st.srq, &attr);
	ok = !ret && attr.max_wr >= SRQ_DEPTH && attr.max_sge >= 2 &&
		attr.max_sge < ARRAY_SIZE(sge) && !attr.srq_limit;
	report(ok, "srq: query reports at least what was asked, limit not armed", ret);
	if (!ok)
		return;
	wr.sg_list = sge;
	wr.num_sge = attr.max_sge + 1;
	ret = ib_post_srq_recv(st.srq, &wr, &bad_wr);
	attr.srq_limit = attr.max_wr + 1;
	ok = ret == -EINVAL && bad_wr == &wr &&
		ib_modify_srq(st.srq, &attr, IB_SRQ_LIMIT) == -EINVAL;
	report(ok, "srq: more SGEs than max_sge and a limit above max_wr are refused", ret);
	if (!ok)
		return;

	attr.srq_limit = 4;
	ret = ib_modify_srq(st.srq, &attr, IB_SRQ_LIMIT);
	for (i = 0; i < 6 && !ret; i++)
		ret = srq_post(70 + i, i * 4096, 4096);
	/* 6 -> 4 WQEs: not below the limit yet. */
	if (!ret)
		ret = srq_exchange(0, 2);
	ok = !ret && no_wc(sb.cq, 0) && atomic_read(&st.limit_events) == 0;
	report(ok, "srq limit 4: no event while 4 WQEs are left", ret);
	if (!ret)
		ret = srq_exchange(1, 1);
	ok = !ret && wait_atomic(&st.limit_events, 1) && !ib_query_srq(st.srq, &attr) &&
		attr.srq_limit == 0;
	report(ok, "srq limit 4: one event when 3 are left, then disarmed", ret);
	/* Use up the rest: the SRQ is empty again. */
	if (!ret)
		ret = srq_exchange(0, 3);
	ok = !ret && atomic_read(&st.limit_events) == 1;
	report(ok, "srq: no event once disarmed", ret);
}

static void test_srq_last_wqe(void)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	bool ok;
	int ret;

	ret = srq_post(80, 0, 4096);
	if (!ret)
		ret = srq_post(81, 4096, 4096);
	if (!ret)
		ret = ib_modify_qp(st.b[0].qp, &attr, IB_QP_STATE);
	ok = !ret && wait_atomic(&st.last_wqe[0], 1) && no_wc(sb.cq, 20) &&
		atomic_read(&st.last_wqe[1]) == 0;
	report(ok, "srq: QP to error: last WQE reached, SRQ WQEs not flushed", ret);
	fill(sa.buf, 64, 5);
	ret = srq_exchange(1, 2);
	report(!ret, "srq: the other QP still receives the SRQ's WQEs", ret);
}

static void test_srq(void)
{
	int ret = srq_setup();

	report(!ret, "srq: create an SRQ and two RC QPs on it, connect to two peers", ret);
	if (!ret) {
		test_srq_data();
		test_srq_rnr();
		test_srq_limit();
		test_srq_last_wqe();
	}
	srq_teardown();
}

/* ------------------------------------------------------------------------
 * UC: IBTA's attribute masks, no acknowledgment, lost messages discarded.
 */

#define UC_LEN		3000	/* three packets at the usual 1024-byte MTU */
#define UC_SLOT		4096
#define UC_BATCH	16

/* The UC state machine: INIT, RTR and RTS take only the attributes IBTA lists for UC. */
static int uc_connect(struct side *s, struct side *peer)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = min3(s->mtu, peer->mtu, IB_MTU_1024);
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = peer->psn;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &peer->gid, 0, s->gid_index, 64, 0);
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = s->psn;
	return ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* What UC lacks is refused: RC-only attributes, READ and atomics at post. */
static void test_uc_refusals(void)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS, .retry_cnt = 7, .timeout = 14 };
	int ret;

	ret = ib_modify_qp(sa.qp, &attr, IB_QP_RETRY_CNT | IB_QP_TIMEOUT);
	report(ret == -EINVAL, "uc: retry_cnt and timeout refused", ret);
	ret = post_rdma(&sa, 1, IB_WR_RDMA_READ, (uintptr_t)sa.buf, 8,
			(uintptr_t)sb.rbuf, 1, 0);
	report(ret == -EINVAL, "uc: RDMA_READ refused at post", ret);
	ret = post_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, (uintptr_t)sb.rbuf, 1, 0);
	report(ret == -EINVAL, "uc: FETCH_ADD refused at post", ret);
}

/* Receives not lost arrive whole, in order, into the receive WQEs in order. */
static void test_uc_stream(void)
{
	u32 sent = 0, got = 0, next_wr = 0, posted = 0, bad = 0, last = 0, i;
	struct ib_wc wc;
	int ret = 0;

	for (; posted < RX_DEPTH && !ret; posted++)
		ret = post_recv(&sb, posted, (uintptr_t)sb.buf + (posted % RX_DEPTH) * UC_SLOT,
				UC_SLOT);
	while (sent < uc_count && !ret) {
		u32 n = min_t(u32, UC_BATCH, uc_count - sent), batch_got = 0;

		for (i = 0; i < n && !ret; i++) {
			u8 *src = sa.buf + ((sent + i) % UC_BATCH) * UC_SLOT;
			struct ib_sge sge = {
				.addr = (uintptr_t)src, .length = UC_LEN,
				.lkey = sa.pd->local_dma_lkey,
			};
			struct ib_send_wr wr = {
				.wr_id = sent + i, .sg_list = &sge, .num_sge = 1,
				.opcode = IB_WR_SEND_WITH_IMM, .send_flags = IB_SEND_SIGNALED,
				.ex.imm_data = cpu_to_be32(sent + i + 1),
			};

			fill(src, UC_LEN, sent + i + 1);
			ret = ib_post_send(sa.qp, &wr, NULL);
		}
		/* Sends complete once on the wire, lost or not. */
		for (i = 0; i < n && !ret; i++) {
			ret = wait_wc(sa.cq, &wc);
			if (!ret && (wc.status != IB_WC_SUCCESS || wc.wr_id != sent + i))
				ret = -EIO;
		}
		sent += n;
		/* Whatever arrives within a quiet 300 ms (the hole timer is 8 ms). */
		while (!ret && batch_got < n) {
			unsigned long end = jiffies + msecs_to_jiffies(300);
			u32 seq;
			u8 *p;

			while (ib_poll_cq(sb.cq, 1, &wc) != 1 && time_before(jiffies, end))
				usleep_range(100, 200);
			if (!time_before(jiffies, end))
				break;
			seq = be32_to_cpu(wc.ex.imm_data);
			p = sb.buf + (wc.wr_id % RX_DEPTH) * UC_SLOT;
			if (wc.status != IB_WC_SUCCESS || wc.wr_id != next_wr ||
			    wc.byte_len != UC_LEN || seq <= last || seq > sent) {
				pr_info("# uc: wr_id %llu (want %u) status %d len %u imm %u\n",
					wc.wr_id, next_wr, wc.status, wc.byte_len, seq);
				bad++;
			} else {
				u8 *want = sa.buf + ((seq - 1) % UC_BATCH) * UC_SLOT;

				/* Rebuild the source: a later batch may have refilled it. */
				fill(want, UC_LEN, seq);
				if (memcmp(p, want, UC_LEN))
					bad++;
			}
			last = seq;
			next_wr++;
			got++;
			batch_got++;
			ret = post_recv(&sb, posted, (uintptr_t)sb.buf +
					(posted % RX_DEPTH) * UC_SLOT, UC_SLOT);
			posted++;
		}
	}
	pr_info("# uc: %u sent, %u received\n", sent, got);
	report(!ret && sent == uc_count, "uc: every SEND completes, lost or not", ret);
	report(!bad, "uc: received messages intact, in order, in the WQEs in order", bad);
	if (uc_lossy)
		report(got > 0 && got < sent, "uc: with loss, some messages lost, others arrive",
		       got);
	else
		report(got == sent, "uc: clean link, every message arrives", got);
}

static void test_uc(void)
{
	int ret;

	ret = qp_create_type(&sa, IB_QPT_UC);
	if (!ret)
		ret = qp_create_type(&sb, IB_QPT_UC);
	if (!ret)
		ret = uc_connect(&sa, &sb);
	if (!ret)
		ret = uc_connect(&sb, &sa);
	report(!ret, "uc: connect two UC QPs with the UC attribute masks", ret);
	if (!ret) {
		test_uc_refusals();
		test_uc_stream();
	}
	pair_down();
}

static int __init metaroce_rc_test_init(void)
{
	int ret;

	ret = side_init(&sa, a);
	if (!ret)
		ret = side_init(&sb, b);
	report(!ret, "two devices with IPv4 RoCE v2 GIDs, PD, CQ, buffers, MR", ret);
	if (ret)
		goto out;

	ret = pair_up(7);
	report(!ret, "connect two RC QPs: RESET-INIT-RTR-RTS on both", ret);
	if (!ret) {
		ret = reg_rbuf(&sb, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC);
		report(!ret, "reg_mr through the send queue", ret);
		test_send_sizes();
		test_send_sge_inline_imm();
		test_unsignaled();
		test_rdma();
		test_atomics();
		test_rnr();
		test_stream();
		test_send_inv();
	}
	pair_down();
	if (!pair_up(7)) {
		test_access_rights();
		pair_down();
	} else {
		report(false, "second pair: connect", 0);
	}
	test_rtr_responder();
	test_rnr_exhausted();
	test_responder_gives_up();
	test_requester_gives_up();
	memory_gone(false);
	memory_gone(true);
	test_srq();
	test_uc();
out:
	side_fini(&sa);
	side_fini(&sb);
	pr_info("1..%d\n", tests_run);
	return tests_failed ? -EINVAL : 0;
}

static void __exit metaroce_rc_test_exit(void)
{
}

module_init(metaroce_rc_test_init);
module_exit(metaroce_rc_test_exit);

MODULE_DESCRIPTION("MetaRoCE RC transport test between two devices");
MODULE_LICENSE("GPL");
