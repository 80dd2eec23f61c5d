// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Helper for provider_ctrl.sh: drive the control path of a device through
 * the public verbs API, as an application would. Run against the fake
 * kernel of fake_uverbs.c; prints one "PASS name" or "FAIL name: why" line
 * per check (VERBS_CTRL_CHECKS of them) and exits non-zero on any failure.
 *
 * Usage: verbs_ctrl DEVICE
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define VERBS_CTRL_CHECKS 30

static int failed, count;

static void check(int ok, const char *name, const char *why)
{
	count++;
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why ? why : "");
		failed++;
	}
}

static void bail(void)
{
	while (count < VERBS_CTRL_CHECKS)
		check(0, "not reached", "an earlier step failed");
	exit(1);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex attr_ex;
	struct ibv_device_attr attr;
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_port_attr port;
	struct ibv_srq_init_attr srq_attr = {
		.attr = { .max_wr = 6, .max_sge = 2 },
	};
	struct ibv_send_wr swr[7] = {}, *bad_swr;
	struct ibv_recv_wr rwr = {}, *bad_rwr;
	struct ibv_sge sge[2], inline_sge;
	struct ibv_qp_init_attr qp_attr = {};
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_wc wc[4];
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_recv_wr srq_wr[3];
	struct ibv_sge srq_sge[4] = {};
	struct ibv_mw *mw;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr, *mr2;
	char why[256];
	int i, n, ret;
	void *buf;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), argv[1]) == 0)
			dev = list[i];
	check(dev != NULL, "the device is listed", "not in ibv_get_device_list");
	if (!dev)
		bail();

	ctx = ibv_open_device(dev);
	snprintf(why, sizeof(why), "errno %d (%s)", errno, strerror(errno));
	check(ctx != NULL, "ibv_open_device (alloc_context, GET_CONTEXT)", why);
	if (!ctx)
		bail();

	ret = ibv_query_device(ctx, &attr);
	snprintf(why, sizeof(why), "ret %d, fw_ver \"%s\", ports %u", ret,
		 attr.fw_ver, attr.phys_port_cnt);
	check(ret == 0 && strcmp(attr.fw_ver, "1.2.3") == 0 &&
	      attr.phys_port_cnt == 1 && attr.max_pd == 1024,
	      "ibv_query_device (query_device_ex, fw_ver formatted)", why);

	ret = ibv_query_device_ex(ctx, NULL, &attr_ex);
	snprintf(why, sizeof(why), "ret %d, fw_ver \"%s\"", ret,
		 attr_ex.orig_attr.fw_ver);
	check(ret == 0 && strcmp(attr_ex.orig_attr.fw_ver, "1.2.3") == 0,
	      "ibv_query_device_ex", why);

	ret = ibv_query_port(ctx, 1, &port);
	snprintf(why, sizeof(why), "ret %d, state %d, link_layer %u, gids %d",
		 ret, port.state, port.link_layer, port.gid_tbl_len);
	check(ret == 0 && port.state == IBV_PORT_ACTIVE &&
	      port.link_layer == IBV_LINK_LAYER_ETHERNET &&
	      port.gid_tbl_len == 2 && port.active_mtu == IBV_MTU_1024,
	      "ibv_query_port (query_port)", why);

	pd = ibv_alloc_pd(ctx);
	snprintf(why, sizeof(why), "errno %d (%s)", errno, strerror(errno));
	check(pd && pd->handle == 0x11 && pd->context == ctx,
	      "ibv_alloc_pd (alloc_pd)", why);
	if (!pd)
		bail();

	buf = calloc(1, 8192);
	mr = buf ? ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE) : NULL;
	snprintf(why, sizeof(why), "errno %d (%s)", errno, strerror(errno));
	check(mr && mr->handle == 0x22 && mr->lkey == 0x1234 &&
	      mr->rkey == 0x5678 && mr->addr == buf && mr->length == 8192 &&
	      mr->pd == pd, "ibv_reg_mr (reg_mr)", why);
	if (!mr)
		bail();

	/* The fake kernel refuses an empty region: the error must come back. */
	errno = 0;
	mr2 = ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE);
	snprintf(why, sizeof(why), "mr %p, errno %d (%s)", (void *)mr2, errno,
		 strerror(errno));
	check(!mr2 && errno == EINVAL,
	      "ibv_reg_mr passes the kernel's error back", why);

	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	snprintf(why, sizeof(why), "cq %p, errno %d (%s)", (void *)cq, errno,
		 strerror(errno));
	check(cq && cq->cqe == 16 && cq->handle == 0x33 && cq->context == ctx,
	      "ibv_create_cq (create_cq, ring mapped)", why);
	if (!cq)
		bail();

	/* The fake kernel's ring holds two completions. */
	memset(wc, 0, sizeof(wc));
	ret = ibv_poll_cq(cq, 4, wc);
	snprintf(why, sizeof(why),
		 "ret %d; wc0 id %#llx st %d op %d flags %#x imm %#x len %u qp %u; wc1 id %#llx st %d op %d verr %u",
		 ret, (unsigned long long)wc[0].wr_id, wc[0].status, wc[0].opcode,
		 wc[0].wc_flags, ntohl(wc[0].imm_data), wc[0].byte_len,
		 wc[0].qp_num, (unsigned long long)wc[1].wr_id, wc[1].status,
		 wc[1].opcode, wc[1].vendor_err);
	check(ret == 2 && wc[0].wr_id == 0x1234 && wc[0].status == IBV_WC_SUCCESS &&
	      wc[0].opcode == IBV_WC_RECV && wc[0].wc_flags == IBV_WC_WITH_IMM &&
	      ntohl(wc[0].imm_data) == 0xabcd && wc[0].byte_len == 42 &&
	      wc[0].qp_num == 7 && wc[1].wr_id == 0x1235 &&
	      wc[1].status == IBV_WC_REM_ACCESS_ERR &&
	      wc[1].opcode == IBV_WC_RDMA_WRITE && wc[1].vendor_err == 5,
	      "ibv_poll_cq reads the ring (poll_cq)", why);

	ret = ibv_poll_cq(cq, 4, wc);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_poll_cq of the drained ring is 0", why);

	ret = ibv_req_notify_cq(cq, 0);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_req_notify_cq (req_notify_cq)", why);

	/* A QP on the CQ; the fake kernel checks what reaches its rings. */
	qp_attr.send_cq = cq;
	qp_attr.recv_cq = cq;
	qp_attr.qp_type = IBV_QPT_RC;
	qp_attr.cap.max_send_wr = 4;
	qp_attr.cap.max_recv_wr = 4;
	qp_attr.cap.max_send_sge = 2;
	qp_attr.cap.max_recv_sge = 2;
	qp_attr.cap.max_inline_data = 16;
	qp = ibv_create_qp(pd, &qp_attr);
	snprintf(why, sizeof(why), "qp %p, errno %d (%s); caps %u %u %u %u %u",
		 (void *)qp, errno, strerror(errno), qp_attr.cap.max_send_wr,
		 qp_attr.cap.max_recv_wr, qp_attr.cap.max_send_sge,
		 qp_attr.cap.max_recv_sge, qp_attr.cap.max_inline_data);
	check(qp && qp->qp_num == 7 && qp_attr.cap.max_send_wr == 8 &&
	      qp_attr.cap.max_recv_sge == 3 && qp_attr.cap.max_inline_data == 64,
	      "ibv_create_qp (create_qp, rings mapped, kernel's capacities)", why);
	if (!qp)
		bail();

	sge[0] = (struct ibv_sge){ .addr = 0x2000, .length = 10, .lkey = 1 };
	sge[1] = (struct ibv_sge){ .addr = 0x3000, .length = 20, .lkey = 1 };
	rwr.wr_id = 9;
	rwr.sg_list = sge;
	rwr.num_sge = 2;
	/* A new QP is in RESET, where nothing may be posted. */
	bad_rwr = NULL;
	ret = ibv_post_recv(qp, &rwr, &bad_rwr);
	snprintf(why, sizeof(why), "ret %d, bad_wr %p", ret, (void *)bad_rwr);
	check(ret == EINVAL && bad_rwr == &rwr,
	      "ibv_post_recv refuses a QP in RESET", why);

	ret = ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	snprintf(why, sizeof(why), "ret %d, state %d", ret, qp->state);
	check(ret == 0 && qp->state == IBV_QPS_INIT,
	      "ibv_modify_qp to INIT (modify_qp)", why);

	/* Ring only: the fake kernel would refuse a POST_RECV command. */
	ret = ibv_post_recv(qp, &rwr, &bad_rwr);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_post_recv (post_recv, ring only)", why);

	sge[0] = (struct ibv_sge){ .addr = 0x2000, .length = 100, .lkey = 0x1234 };
	swr[0].wr_id = 1;
	swr[0].opcode = IBV_WR_RDMA_WRITE;
	swr[0].send_flags = IBV_SEND_SIGNALED;
	swr[0].sg_list = sge;
	swr[0].num_sge = 1;
	swr[0].wr.rdma.remote_addr = 0x10000;
	swr[0].wr.rdma.rkey = 0x99;
	swr[0].next = &swr[1];
	inline_sge.addr = (uintptr_t)"hello";
	inline_sge.length = 5;
	swr[1].wr_id = 2;
	swr[1].opcode = IBV_WR_SEND_WITH_IMM;
	swr[1].send_flags = IBV_SEND_INLINE;
	swr[1].imm_data = htonl(0x77);
	swr[1].sg_list = &inline_sge;
	swr[1].num_sge = 1;
	ret = ibv_post_send(qp, swr, &bad_swr);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_post_send: WQEs in the ring, then the doorbell", why);

	swr[0].opcode = IBV_WR_TSO;
	swr[0].next = NULL;
	bad_swr = NULL;
	ret = ibv_post_send(qp, swr, &bad_swr);
	snprintf(why, sizeof(why), "ret %d, bad_wr %p", ret, (void *)bad_swr);
	check(ret == EINVAL && bad_swr == &swr[0],
	      "ibv_post_send refuses an opcode RC lacks", why);

	/* 2 of 8 entries are taken and never consumed: 6 more fit. */
	for (i = 0; i < 7; i++) {
		swr[i] = (struct ibv_send_wr){ .wr_id = 100 + i, .sg_list = sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.next = i < 6 ? &swr[i + 1] : NULL };
	}
	bad_swr = NULL;
	ret = ibv_post_send(qp, swr, &bad_swr);
	snprintf(why, sizeof(why), "ret %d, bad_wr %p (7th %p)", ret,
		 (void *)bad_swr, (void *)&swr[6]);
	check(ret == ENOMEM && bad_swr == &swr[6],
	      "ibv_post_send stops at a full ring", why);

	ret = ibv_destroy_qp(qp);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_destroy_qp (destroy_qp, receive ring as posted)", why);

	/* The fake kernel refuses unless the ring's cons says both were read. */
	ret = ibv_destroy_cq(cq);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_destroy_cq (destroy_cq, cons published)", why);

	errno = 0;
	srq = ibv_create_srq(pd, &srq_attr);
	snprintf(why, sizeof(why), "srq %p, errno %d, max_wr %u, max_sge %u",
		 (void *)srq, errno, srq_attr.attr.max_wr, srq_attr.attr.max_sge);
	check(srq && srq_attr.attr.max_wr == 8 && srq_attr.attr.max_sge == 3,
	      "ibv_create_srq (create_srq: ring mapped, granted caps)", why);
	if (!srq)
		return 1;

	srq_attr.attr.srq_limit = 2;
	ret = ibv_modify_srq(srq, &srq_attr.attr, IBV_SRQ_LIMIT);
	memset(&srq_attr.attr, 0, sizeof(srq_attr.attr));
	if (!ret)
		ret = ibv_query_srq(srq, &srq_attr.attr);
	snprintf(why, sizeof(why), "ret %d, limit %u, max_wr %u", ret,
		 srq_attr.attr.srq_limit, srq_attr.attr.max_wr);
	check(ret == 0 && srq_attr.attr.srq_limit == 2 && srq_attr.attr.max_wr == 8,
	      "ibv_modify_srq (limit) and ibv_query_srq", why);

	/* One SGE, then three: both into the mapped ring. */
	sge[0] = (struct ibv_sge){ .addr = 0x4000, .length = 64, .lkey = mr->lkey };
	srq_sge[0] = sge[0];
	srq_sge[1] = sge[0];
	srq_sge[2] = (struct ibv_sge){ .addr = 0x5000, .length = 7, .lkey = mr->lkey };
	srq_wr[0] = (struct ibv_recv_wr){ .wr_id = 30, .sg_list = sge, .num_sge = 1,
					  .next = &srq_wr[1] };
	srq_wr[1] = (struct ibv_recv_wr){ .wr_id = 31, .sg_list = srq_sge, .num_sge = 3 };
	bad_rwr = NULL;
	ret = ibv_post_srq_recv(srq, srq_wr, &bad_rwr);
	snprintf(why, sizeof(why), "ret %d, bad_wr %p", ret, (void *)bad_rwr);
	check(ret == 0 && !bad_rwr, "ibv_post_srq_recv: two WQEs", why);

	srq_wr[2] = (struct ibv_recv_wr){ .wr_id = 32, .sg_list = srq_sge, .num_sge = 4 };
	ret = ibv_post_srq_recv(srq, &srq_wr[2], &bad_rwr);
	snprintf(why, sizeof(why), "ret %d, bad_wr %p", ret, (void *)bad_rwr);
	check(ret == EINVAL && bad_rwr == &srq_wr[2],
	      "ibv_post_srq_recv refuses more SGEs than granted", why);

	ret = ibv_destroy_srq(srq);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0,
	      "ibv_destroy_srq (ring as posted, no system call since the query)", why);

	errno = 0;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	snprintf(why, sizeof(why), "mw %p, errno %d (%s)", (void *)mw, errno,
		 strerror(errno));
	/* The provider issues ALLOC_MW; the fake kernel has no such command. */
	check(!mw && errno == ENOSYS,
	      "ibv_alloc_mw goes to the kernel (alloc_mw provided)", why);

	ret = ibv_dereg_mr(mr);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_dereg_mr (dereg_mr)", why);

	ret = ibv_dealloc_pd(pd);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_dealloc_pd (dealloc_pd)", why);

	ret = ibv_close_device(ctx);
	snprintf(why, sizeof(why), "ret %d", ret);
	check(ret == 0, "ibv_close_device (free_context)", why);

	ibv_free_device_list(list);
	free(buf);

	if (count != VERBS_CTRL_CHECKS) {
		printf("FAIL check count: %d, expected %d\n", count,
		       VERBS_CTRL_CHECKS);
		return 1;
	}
	return failed ? 1 : 0;
}
