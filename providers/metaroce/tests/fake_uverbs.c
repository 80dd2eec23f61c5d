// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD helper for provider_ctrl.sh: a stand-in for the MetaRoCE kernel
 * driver behind /dev/infiniband/uverbsN, enough for the control path.
 *
 * The test makes /dev/infiniband/uverbsN a character device that ignores
 * writes and rejects ioctls with ENOTTY (the /dev/null device), so libibverbs
 * falls back to the write() command interface. This library intercepts
 * write() on such file descriptors and answers the core commands the
 * provider issues (GET_CONTEXT, QUERY_DEVICE, QUERY_PORT, ALLOC_PD,
 * DEALLOC_PD, REG_MR, DEREG_MR, CREATE_CQ, REQ_NOTIFY_CQ, DESTROY_CQ,
 * CREATE_QP, MODIFY_QP, POST_SEND, DESTROY_QP, CREATE_AH, DESTROY_AH,
 * CREATE_SRQ, MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ) as the kernel would,
 * checking what it receives. Every other command fails with
 * ENOSYS or, for extended commands, EOPNOTSUPP. Each command is logged, one
 * line each, to $FAKE_UVERBS_LOG.
 *
 * The one CQ it creates has a ring in a memfd holding two completions
 * (FAKE_CQE_*), which mmap() of the uverbs file at FAKE_CQ_OFFSET maps;
 * DESTROY_CQ fails unless the provider has consumed both (ring cons == 2).
 * The QP's send and receive rings are memfds too: the first doorbell
 * (POST_SEND with no work request) and DESTROY_QP fail unless the rings
 * hold exactly the WQEs verbs_ctrl posted. So does the SRQ's ring, whose
 * DESTROY_SRQ also fails if any command came between the last QUERY_SRQ
 * and it: posting to an SRQ makes no system call.
 *
 * With FAKE_UVERBS_SCENARIO=ex (verbs_ex, the extended verbs) the rings'
 * contents are not checked here: verbs_ex reads them itself through
 * fake_ring_hdr() and fake_ring_entry(), adds completions to the CQ ring,
 * and counts the commands with fake_cmd_count(). The QP may then be RC or
 * UD (one at a time), DESTROY_CQ wants every completion consumed, and AHs
 * (number FAKE_AH_NUM) can be created. A CREATE_QP with driver data (the
 * direct verbs, verbs_dv) is checked as the kernel checks it and answered
 * with paths, streams and a statistics page (fake_last_create_qp_req()).
 * sched_yield() only counts its calls (fake_yield_count()).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

/* Values the test expects to read back through the verbs tools. */
#define FAKE_FW_VER		METAROCE_FW_VER(1, 2, 3)
#define FAKE_NODE_GUID		0x0100000000000002ULL	/* big endian 02:00:..:01 */
#define FAKE_PD_HANDLE		0x11
#define FAKE_MR_HANDLE		0x22
#define FAKE_LKEY		0x1234
#define FAKE_RKEY		0x5678
#define FAKE_CQ_HANDLE		0x33
#define FAKE_CQ_OFFSET		0x7000
#define FAKE_CQ_ENTRIES		16
#define FAKE_CQE_WR_ID		0x1234
#define FAKE_CQE_IMM		0xabcd
#define FAKE_QP_HANDLE		0x44
#define FAKE_QP_WR		8
#define FAKE_AH_HANDLE		0x55
#define FAKE_AH_NUM		5

/* What the scenario is: verbs_ctrl's (default) or verbs_ex's. */
static int scenario_ex(void)
{
	const char *s = getenv("FAKE_UVERBS_SCENARIO");

	return s && strcmp(s, "ex") == 0;
}

/* Commands answered, by number (extended ones at 64 + number). */
static unsigned int cmd_counts[128];

unsigned int fake_cmd_count(unsigned int cmd);
unsigned int fake_cmd_count(unsigned int cmd)
{
	return cmd < 128 ? cmd_counts[cmd] : 0;
}

/* The provider's sched_yield() calls (a poller giving up its CPU), counted, not made. */
static unsigned int yields;

int sched_yield(void)
{
	yields++;
	return 0;
}

unsigned int fake_yield_count(void);
unsigned int fake_yield_count(void)
{
	return yields;
}
#define FAKE_SRQ_HANDLE		0x66
#define FAKE_SRQ_WR		8
#define FAKE_SRQ_SGE		3

static unsigned int commands;		/* answered so far */
static unsigned int srq_query_at;	/* commands when QUERY_SRQ was answered */
static uint32_t srq_limit;

static ssize_t (*next_write)(int, const void *, size_t);

static void fake_log(const char *fmt, ...)
{
	const char *path = getenv("FAKE_UVERBS_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int is_uverbs_fd(int fd)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return strncmp(target, "/dev/infiniband/uverbs", 22) == 0;
}

/* Copy a response to the user buffer the command points at. */
static int respond(uint64_t response, size_t out_len, const void *resp,
		   size_t len)
{
	if (out_len < len)
		return EINVAL;
	memset((void *)(uintptr_t)response, 0, out_len);
	memcpy((void *)(uintptr_t)response, resp, len);
	return 0;
}

static int get_context(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_get_context *cmd = body;
	struct ib_uverbs_get_context_resp resp = {};
	int fds[2];

	if (in_len < sizeof(*cmd))
		return EINVAL;
	/* The provider must offer room for the MetaRoCE part of the response. */
	if (out_len != sizeof(resp) + sizeof(struct metaroce_alloc_ucontext_resp))
		return EINVAL;
	if (pipe(fds))
		return errno;
	close(fds[1]);
	resp.async_fd = fds[0];
	resp.num_comp_vectors = 1;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

static int query_device(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_query_device *cmd = body;
	struct ib_uverbs_query_device_resp resp = {
		.fw_ver = FAKE_FW_VER,
		.node_guid = FAKE_NODE_GUID,
		.sys_image_guid = FAKE_NODE_GUID,
		.max_mr_size = UINT64_MAX,
		.page_size_cap = 0xfffff000,
		.vendor_id = 0xffffff,
		.hw_ver = 1,
		.max_pd = 1024,
		.max_mr = 1024,
		.phys_port_cnt = 1,
	};

	if (in_len < sizeof(*cmd))
		return EINVAL;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

static int query_port(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_query_port *cmd = body;
	struct ib_uverbs_query_port_resp resp = {
		.max_msg_sz = 1U << 31,
		.gid_tbl_len = 2,
		.pkey_tbl_len = 1,
		.state = 4,		/* IBV_PORT_ACTIVE */
		.max_mtu = 5,		/* 4096 */
		.active_mtu = 3,	/* 1024 */
		.active_width = 1,
		.active_speed = 1,
		.phys_state = 5,	/* LinkUp */
		.link_layer = 2,	/* IBV_LINK_LAYER_ETHERNET */
	};

	if (in_len < sizeof(*cmd))
		return EINVAL;
	if (cmd->port_num != 1)
		return EINVAL;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

static int alloc_pd(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_alloc_pd *cmd = body;
	struct ib_uverbs_alloc_pd_resp resp = { .pd_handle = FAKE_PD_HANDLE };

	if (in_len < sizeof(*cmd))
		return EINVAL;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

static int dealloc_pd(const void *body, size_t in_len)
{
	const struct ib_uverbs_dealloc_pd *cmd = body;

	if (in_len < sizeof(*cmd) || cmd->pd_handle != FAKE_PD_HANDLE)
		return EINVAL;
	return 0;
}

static int reg_mr(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_reg_mr *cmd = body;
	struct ib_uverbs_reg_mr_resp resp = {
		.mr_handle = FAKE_MR_HANDLE,
		.lkey = FAKE_LKEY,
		.rkey = FAKE_RKEY,
	};

	if (in_len < sizeof(*cmd) || cmd->pd_handle != FAKE_PD_HANDLE ||
	    !cmd->start || !cmd->length)
		return EINVAL;
	fake_log("reg_mr start=%#llx length=%llu hca_va=%#llx access=%#x",
		 (unsigned long long)cmd->start,
		 (unsigned long long)cmd->length,
		 (unsigned long long)cmd->hca_va, cmd->access_flags);
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

static int dereg_mr(const void *body, size_t in_len)
{
	const struct ib_uverbs_dereg_mr *cmd = body;

	if (in_len < sizeof(*cmd) || cmd->mr_handle != FAKE_MR_HANDLE)
		return EINVAL;
	return 0;
}

/*
 * The fake rings: each a memfd, which mmap() of the uverbs file at the
 * ring's offset maps instead.
 */
enum { RING_CQ, RING_SQ, RING_RQ, RING_SRQ, RING_STATS, NR_RINGS };

static struct fake_ring {
	int fd;
	struct metaroce_ring *hdr;
	size_t len;
	uint32_t num, entry_size;
} rings[NR_RINGS] = {
	{ .fd = -1 }, { .fd = -1 }, { .fd = -1 }, { .fd = -1 }, { .fd = -1 }
};

/*
 * verbs_dv (scenario ex): the driver data of the last CREATE_QP that had
 * some. Such a QP gets paths and streams in its response (what it asked,
 * else 8 and 1) and a statistics page, ring RING_STATS, that verbs_dv fills.
 */
static struct metaroce_create_qp_req last_req;
static int qp_reqs;

int fake_last_create_qp_req(struct metaroce_create_qp_req *req);
int fake_last_create_qp_req(struct metaroce_create_qp_req *req)
{
	*req = last_req;
	return qp_reqs;
}

static uint64_t ring_offset(int i)
{
	return FAKE_CQ_OFFSET + (uint64_t)i * 0x1000;
}

static int ring_new(int i, uint32_t num, uint32_t entry_size,
		    struct metaroce_ring_info *info)
{
	struct fake_ring *r = &rings[i];

	if (r->fd >= 0)
		return EINVAL;
	r->len = (METAROCE_RING_HDR_SIZE + num * entry_size + 4095) & ~4095UL;
	r->fd = memfd_create("fake-ring", 0);
	if (r->fd < 0 || ftruncate(r->fd, r->len))
		return errno;
	r->hdr = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->hdr == MAP_FAILED)
		return errno;
	r->num = num;
	r->entry_size = entry_size;
	info->mmap_offset = ring_offset(i);
	info->mmap_length = r->len;
	info->num_entries = num;
	info->entry_size = entry_size;
	return 0;
}

static void ring_free(int i)
{
	struct fake_ring *r = &rings[i];

	munmap(r->hdr, r->len);
	close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

static void *ring_entry(int i, uint32_t idx)
{
	struct fake_ring *r = &rings[i];

	return (char *)r->hdr + METAROCE_RING_HDR_SIZE +
	       (idx & (r->num - 1)) * r->entry_size;
}

/* For verbs_ex: ring 0 is the CQ, 1 the send queue, 2 the receive queue. */
struct metaroce_ring *fake_ring_hdr(int i);
void *fake_ring_entry(int i, uint32_t idx);

struct metaroce_ring *fake_ring_hdr(int i)
{
	return i >= 0 && i < NR_RINGS && rings[i].fd >= 0 ? rings[i].hdr : NULL;
}

void *fake_ring_entry(int i, uint32_t idx)
{
	return fake_ring_hdr(i) ? ring_entry(i, idx) : NULL;
}

static int create_cq(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_create_cq *cmd = body;
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct metaroce_create_cq_resp drv;
	} resp = {};
	struct metaroce_cqe *cqe;
	int ret;

	if (in_len < sizeof(*cmd))
		return EINVAL;
	if (out_len != sizeof(resp) || cmd->cqe > FAKE_CQ_ENTRIES)
		return EINVAL;
	ret = ring_new(RING_CQ, FAKE_CQ_ENTRIES, sizeof(*cqe), &resp.drv.ring);
	if (ret)
		return ret;

	/* A receive with immediate, then a failed RDMA write. */
	cqe = ring_entry(RING_CQ, 0);
	cqe[0].wr_id = FAKE_CQE_WR_ID;
	cqe[0].opcode = METAROCE_WC_RECV;
	cqe[0].wc_flags = METAROCE_WC_WITH_IMM;
	cqe[0].imm_inv = htonl(FAKE_CQE_IMM);
	cqe[0].byte_len = 42;
	cqe[0].qp_num = 7;
	cqe[1].wr_id = FAKE_CQE_WR_ID + 1;
	cqe[1].status = 10;		/* IBV_WC_REM_ACCESS_ERR */
	cqe[1].opcode = 1;		/* IBV_WC_RDMA_WRITE */
	cqe[1].vendor_err = 5;
	cqe[1].qp_num = 7;
	__atomic_store_n(&rings[RING_CQ].hdr->prod, 2, __ATOMIC_RELEASE);

	resp.core.cq_handle = FAKE_CQ_HANDLE;
	resp.core.cqe = FAKE_CQ_ENTRIES;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

static int req_notify_cq(const void *body, size_t in_len)
{
	const struct ib_uverbs_req_notify_cq *cmd = body;

	if (in_len < sizeof(*cmd) || cmd->cq_handle != FAKE_CQ_HANDLE)
		return EINVAL;
	return 0;
}

static int destroy_cq(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_destroy_cq *cmd = body;
	struct ib_uverbs_destroy_cq_resp resp = {};
	uint32_t cons;

	if (in_len < sizeof(*cmd) || cmd->cq_handle != FAKE_CQ_HANDLE ||
	    rings[RING_CQ].fd < 0)
		return EINVAL;
	cons = __atomic_load_n(&rings[RING_CQ].hdr->cons, __ATOMIC_ACQUIRE);
	fake_log("destroy_cq cons=%u", cons);
	if (cons != (scenario_ex() ? rings[RING_CQ].hdr->prod : 2))
		return EINVAL;
	ring_free(RING_CQ);
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

/*
 * The QP: an 8-entry send ring of 128-byte entries (4 SGEs or 64 bytes
 * inline) and an 8-entry receive ring of 64-byte entries (3 SGEs).
 */
static int create_qp(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_create_qp *cmd = body;
	struct {
		struct ib_uverbs_create_qp_resp core;
		struct metaroce_create_qp_resp drv;
	} resp = {};
	int ret;

	if (in_len < sizeof(*cmd) || out_len != sizeof(resp) ||
	    cmd->pd_handle != FAKE_PD_HANDLE ||
	    cmd->send_cq_handle != FAKE_CQ_HANDLE)
		return EINVAL;
	/* RC; UD too for verbs_ex */
	if (cmd->qp_type != 2 && !(scenario_ex() && cmd->qp_type == 4))
		return EINVAL;
	if (cmd->max_send_wr > FAKE_QP_WR || cmd->max_recv_wr > FAKE_QP_WR ||
	    cmd->max_send_sge > 4 || cmd->max_recv_sge > 3 ||
	    cmd->max_inline_data > 64)
		return EINVAL;
	ret = ring_new(RING_SQ, FAKE_QP_WR, 128, &resp.drv.sq);
	if (!ret)
		ret = ring_new(RING_RQ, FAKE_QP_WR, 64, &resp.drv.rq);
	if (!ret && scenario_ex() && in_len > sizeof(*cmd)) {
		/* The dv extension's request, checked as the kernel does. */
		if (in_len != sizeof(*cmd) + sizeof(last_req))
			return EINVAL;
		memcpy(&last_req, (const char *)body + sizeof(*cmd), sizeof(last_req));
		qp_reqs++;
		fake_log("create_qp req paths=%u streams=%u", last_req.num_paths,
			 last_req.num_streams);
		if (last_req.comp_mask || last_req.reserved ||
		    last_req.num_paths > 64 || last_req.num_streams > 16)
			return EINVAL;
		resp.drv.comp_mask = METAROCE_CREATE_QP_RESP_PATHS |
				     METAROCE_CREATE_QP_RESP_STATS;
		resp.drv.num_paths = last_req.num_paths ? last_req.num_paths : 8;
		resp.drv.num_streams = last_req.num_streams ? last_req.num_streams : 1;
		ret = ring_new(RING_STATS, 1, sizeof(struct metaroce_qp_stats),
			       &resp.drv.stats);
	}
	if (ret)
		return ret;
	resp.core.qp_handle = FAKE_QP_HANDLE;
	resp.core.qpn = 7;
	resp.core.max_send_wr = FAKE_QP_WR;
	resp.core.max_recv_wr = FAKE_QP_WR;
	resp.core.max_send_sge = 4;
	resp.core.max_recv_sge = 3;
	resp.core.max_inline_data = 64;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

/*
 * The doorbell. The first one must find the two WQEs verbs_ctrl posts
 * first: an RDMA write of one SGE, then an inline send with immediate.
 */
static int post_send(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_post_send *cmd = body;
	struct ib_uverbs_post_send_resp resp = {};
	static int doorbells;
	const struct metaroce_send_wqe *w0, *w1;
	const struct metaroce_sge *sge;
	uint32_t prod;

	if (in_len < sizeof(*cmd) || cmd->qp_handle != FAKE_QP_HANDLE ||
	    cmd->wr_count || cmd->sge_count || rings[RING_SQ].fd < 0)
		return EINVAL;
	prod = __atomic_load_n(&rings[RING_SQ].hdr->prod, __ATOMIC_ACQUIRE);
	fake_log("doorbell prod=%u", prod);
	if (doorbells++ == 0 && !scenario_ex()) {
		w0 = ring_entry(RING_SQ, 0);
		w1 = ring_entry(RING_SQ, 1);
		sge = (const void *)(w0 + 1);
		if (prod != 2 || w0->wr_id != 1 || w0->opcode != 0 /* WRITE */ ||
		    w0->num_sge != 1 || w0->send_flags != 2 /* SIGNALED */ ||
		    w0->wr.rdma.remote_addr != 0x10000 ||
		    w0->wr.rdma.rkey != 0x99 || sge->addr != 0x2000 ||
		    sge->length != 100 || sge->lkey != FAKE_LKEY ||
		    w1->wr_id != 2 || w1->opcode != 3 /* SEND_WITH_IMM */ ||
		    w1->num_sge != 0 || w1->send_flags != 8 /* INLINE */ ||
		    w1->imm_inv != htonl(0x77) || w1->inline_len != 5 ||
		    memcmp(w1 + 1, "hello", 5))
			return EINVAL;
	}
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

/* The receive ring must hold the one WQE verbs_ctrl posted: two SGEs. */
static int destroy_qp(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_destroy_qp *cmd = body;
	struct ib_uverbs_destroy_qp_resp resp = {};
	const struct metaroce_recv_wqe *wqe;
	const struct metaroce_sge *sge;

	if (in_len < sizeof(*cmd) || cmd->qp_handle != FAKE_QP_HANDLE ||
	    rings[RING_RQ].fd < 0)
		return EINVAL;
	wqe = ring_entry(RING_RQ, 0);
	sge = (const void *)(wqe + 1);
	fake_log("destroy_qp rq prod=%u", rings[RING_RQ].hdr->prod);
	if (!scenario_ex() &&
	    (rings[RING_RQ].hdr->prod != 1 || wqe->wr_id != 9 ||
	     wqe->num_sge != 2 || sge[0].length != 10 ||
	     sge[1].length != 20 || sge[1].addr != 0x3000))
		return EINVAL;
	ring_free(RING_SQ);
	ring_free(RING_RQ);
	if (rings[RING_STATS].fd >= 0)
		ring_free(RING_STATS);
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

/* Any state change the kernel would take; the library records it. */
static int modify_qp(const void *body, size_t in_len)
{
	const struct ib_uverbs_modify_qp *cmd = body;

	if (in_len < sizeof(*cmd) || cmd->qp_handle != FAKE_QP_HANDLE ||
	    rings[RING_SQ].fd < 0)
		return EINVAL;
	fake_log("modify_qp mask=%#x state=%u", cmd->attr_mask, cmd->qp_state);
	return 0;
}

static int create_ah(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_create_ah *cmd = body;
	struct {
		struct ib_uverbs_create_ah_resp core;
		struct metaroce_create_ah_resp drv;
	} resp = {};

	if (!scenario_ex() || in_len < sizeof(*cmd) ||
	    cmd->pd_handle != FAKE_PD_HANDLE || out_len < sizeof(resp))
		return EINVAL;
	resp.core.ah_handle = FAKE_AH_HANDLE;
	resp.drv.ah_num = FAKE_AH_NUM;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

static int destroy_ah(const void *body, size_t in_len)
{
	const struct ib_uverbs_destroy_ah *cmd = body;

	if (in_len < sizeof(*cmd) || cmd->ah_handle != FAKE_AH_HANDLE)
		return EINVAL;
	return 0;
}

/* An 8-entry ring of 64-byte entries (3 SGEs). */
static int create_srq(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_create_srq *cmd = body;
	struct {
		struct ib_uverbs_create_srq_resp core;
		struct metaroce_create_srq_resp drv;
	} resp = {};
	int ret;

	if (in_len < sizeof(*cmd) || out_len != sizeof(resp) ||
	    cmd->pd_handle != FAKE_PD_HANDLE || !cmd->max_wr ||
	    cmd->max_wr > FAKE_SRQ_WR || cmd->max_sge > FAKE_SRQ_SGE)
		return EINVAL;
	ret = ring_new(RING_SRQ, FAKE_SRQ_WR, 64, &resp.drv.rq);
	if (ret)
		return ret;
	resp.core.srq_handle = FAKE_SRQ_HANDLE;
	resp.core.max_wr = FAKE_SRQ_WR;
	resp.core.max_sge = FAKE_SRQ_SGE;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

/* Only the limit can change (IBV_SRQ_LIMIT). */
static int modify_srq(const void *body, size_t in_len)
{
	const struct ib_uverbs_modify_srq *cmd = body;

	if (in_len < sizeof(*cmd) || cmd->srq_handle != FAKE_SRQ_HANDLE ||
	    cmd->attr_mask != 2 || cmd->srq_limit > FAKE_SRQ_WR)
		return EINVAL;
	srq_limit = cmd->srq_limit;
	return 0;
}

static int query_srq(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_query_srq *cmd = body;
	struct ib_uverbs_query_srq_resp resp = {
		.max_wr = FAKE_SRQ_WR,
		.max_sge = FAKE_SRQ_SGE,
		.srq_limit = srq_limit,
	};

	if (in_len < sizeof(*cmd) || cmd->srq_handle != FAKE_SRQ_HANDLE)
		return EINVAL;
	srq_query_at = commands + 1;
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

/*
 * The ring must hold the two WQEs verbs_ctrl posted after its query (one
 * SGE, then three), and nothing may have been asked of us in between.
 */
static int destroy_srq(const void *body, size_t in_len, size_t out_len)
{
	const struct ib_uverbs_destroy_srq *cmd = body;
	struct ib_uverbs_destroy_srq_resp resp = {};
	const struct metaroce_recv_wqe *w0, *w1;
	const struct metaroce_sge *s0, *s1;
	uint32_t prod;

	if (in_len < sizeof(*cmd) || cmd->srq_handle != FAKE_SRQ_HANDLE ||
	    rings[RING_SRQ].fd < 0)
		return EINVAL;
	prod = __atomic_load_n(&rings[RING_SRQ].hdr->prod, __ATOMIC_ACQUIRE);
	w0 = ring_entry(RING_SRQ, 0);
	w1 = ring_entry(RING_SRQ, 1);
	s0 = (const void *)(w0 + 1);
	s1 = (const void *)(w1 + 1);
	fake_log("destroy_srq prod=%u commands since query=%u", prod,
		 commands - srq_query_at);
	if (commands != srq_query_at || prod != 2 ||
	    w0->wr_id != 30 || w0->num_sge != 1 || s0->addr != 0x4000 ||
	    s0->length != 64 || s0->lkey != FAKE_LKEY ||
	    w1->wr_id != 31 || w1->num_sge != 3 || s1[2].addr != 0x5000 ||
	    s1[2].length != 7)
		return EINVAL;
	ring_free(RING_SRQ);
	return respond(cmd->response, out_len, &resp, sizeof(resp));
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*next_mmap)(void *, size_t, int, int, int, off_t);
	int i;

	if (!next_mmap)
		next_mmap = (void *(*)(void *, size_t, int, int, int, off_t))
			dlsym(RTLD_NEXT, "mmap");
	if (fd >= 0 && is_uverbs_fd(fd)) {
		for (i = 0; i < NR_RINGS; i++)
			if ((uint64_t)off == ring_offset(i) && rings[i].fd >= 0 &&
			    len == rings[i].len)
				break;
		if (i == NR_RINGS) {
			errno = EINVAL;
			return MAP_FAILED;
		}
		fd = rings[i].fd;
		off = 0;
	}
	return next_mmap(addr, len, prot, flags, fd, off);
}

static int fake_command(const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const void *body = hdr + 1;
	size_t in_len, out_len;
	int ret;

	if (len < sizeof(*hdr))
		return EINVAL;
	if (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		fake_log("cmd ex %u: EOPNOTSUPP",
			 hdr->command & IB_USER_VERBS_CMD_COMMAND_MASK);
		cmd_counts[64 + (hdr->command & 63)]++;
		return EOPNOTSUPP;
	}
	cmd_counts[hdr->command & 63]++;
	if ((size_t)hdr->in_words * 4 != len)
		return EINVAL;
	in_len = len - sizeof(*hdr);
	out_len = (size_t)hdr->out_words * 4;

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		ret = get_context(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_QUERY_DEVICE:
		ret = query_device(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_QUERY_PORT:
		ret = query_port(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_ALLOC_PD:
		ret = alloc_pd(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_DEALLOC_PD:
		ret = dealloc_pd(body, in_len);
		break;
	case IB_USER_VERBS_CMD_REG_MR:
		ret = reg_mr(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_DEREG_MR:
		ret = dereg_mr(body, in_len);
		break;
	case IB_USER_VERBS_CMD_CREATE_CQ:
		ret = create_cq(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		ret = req_notify_cq(body, in_len);
		break;
	case IB_USER_VERBS_CMD_DESTROY_CQ:
		ret = destroy_cq(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_CREATE_QP:
		ret = create_qp(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_POST_SEND:
		ret = post_send(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_DESTROY_QP:
		ret = destroy_qp(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_MODIFY_QP:
		ret = modify_qp(body, in_len);
		break;
	case IB_USER_VERBS_CMD_CREATE_AH:
		ret = create_ah(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_DESTROY_AH:
		ret = destroy_ah(body, in_len);
		break;
	case IB_USER_VERBS_CMD_CREATE_SRQ:
		ret = create_srq(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
		ret = modify_srq(body, in_len);
		break;
	case IB_USER_VERBS_CMD_QUERY_SRQ:
		ret = query_srq(body, in_len, out_len);
		break;
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		ret = destroy_srq(body, in_len, out_len);
		break;
	default:
		ret = ENOSYS;
		break;
	}
	fake_log("cmd %u in=%zu out=%zu: %s", hdr->command, in_len, out_len,
		 ret ? strerror(ret) : "ok");
	commands++;
	return ret;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	int ret;

	if (!next_write) {
		next_write = (ssize_t (*)(int, const void *, size_t))
			dlsym(RTLD_NEXT, "write");
		if (!next_write) {
			errno = ENOSYS;
			return -1;
		}
	}
	if (!is_uverbs_fd(fd))
		return next_write(fd, buf, len);

	ret = fake_command(buf, len);
	if (ret) {
		errno = ret;
		return -1;
	}
	return len;
}
