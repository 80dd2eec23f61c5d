// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of provider_cq.sh: CQs, QPs and AHs of a MetaRoCE device through
 * libibverbs and libmetaroce, their rings mapped from the kernel.
 *
 *   provider_cq DEVICE GID_INDEX checks   one line per check: "ok NAME",
 *                                         "not ok NAME" or "skip NAME: WHY"
 *   provider_cq DEVICE GID_INDEX loop N   N rounds of create and destroy
 *                                         (exit status 0 if all succeeded)
 *   provider_cq DEVICE GID_INDEX hold     create objects, print "ready",
 *                                         exit without destroying them
 *   provider_cq DEVICE GID_INDEX events   create a 4-entry CQ on a completion
 *                                         channel, arm it, print "ready PID",
 *                                         wait for end of input (meanwhile the
 *                                         kernel test module posts 5
 *                                         completions to it), then check the
 *                                         event, the 4 CQEs and the overflow
 *
 * GID_INDEX is the device's RoCE v2 GID for the AH's source (and
 * destination: the AH points at the device itself).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define NCHECKS_EXPECTED	29	/* provider_cq.sh plans this many */

static int failed, nchecks;

static void check(int ok, const char *name)
{
	printf("%s %s\n", ok ? "ok" : "not ok", name);
	failed |= !ok;
	nchecks++;
}

static void skip(const char *name, const char *why)
{
	printf("skip %s: %s\n", name, why);
	nchecks++;
}

/* Mappings of the uverbs file in this process (the rings). */
static int uverbs_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs"))
			n++;
	fclose(f);
	return n;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->send_cq = cq;
	attr->recv_cq = cq;
	attr->qp_type = IBV_QPT_RC;
	attr->cap.max_send_wr = 64;
	attr->cap.max_recv_wr = 32;
	attr->cap.max_send_sge = 4;
	attr->cap.max_recv_sge = 2;
	attr->cap.max_inline_data = 64;
	return ibv_create_qp(pd, attr);
}

static struct ibv_ah *make_ah(struct ibv_pd *pd, struct ibv_context *ctx,
			      int gid_index)
{
	struct ibv_ah_attr attr = {};
	union ibv_gid gid;

	if (ibv_query_gid(ctx, 1, gid_index, &gid))
		return NULL;
	attr.is_global = 1;
	attr.port_num = 1;
	attr.grh.dgid = gid;
	attr.grh.sgid_index = gid_index;
	attr.grh.hop_limit = 64;
	return ibv_create_ah(pd, &attr);
}

static void checks(struct ibv_context *ctx, struct ibv_pd *pd, int gid_index)
{
	static const int sizes[] = { 1, 100, 4096, 65536 };
	struct ibv_comp_channel *ch;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qattr;
	struct ibv_send_wr swr, *bad_swr;
	struct ibv_recv_wr rwr, *bad_rwr;
	struct ibv_sge sge;
	struct ibv_wc wc[4];
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	char name[128];
	void *ev_ctx;
	int maps0, ret;
	char *buf;
	size_t i;

	maps0 = uverbs_maps();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		cq = ibv_create_cq(ctx, sizes[i], NULL, NULL, 0);
		snprintf(name, sizeof(name), "create CQ of %d entries (got %d)",
			 sizes[i], cq ? cq->cqe : -1);
		check(cq && cq->cqe >= sizes[i], name);
		if (!cq) {
			printf("# ibv_create_cq: %s\n", strerror(errno));
			continue;
		}
		snprintf(name, sizeof(name), "ibv_poll_cq of an empty CQ of %d is 0",
			 sizes[i]);
		check(ibv_poll_cq(cq, 4, wc) == 0, name);
		check(ibv_destroy_cq(cq) == 0, "ibv_destroy_cq");
	}

	ch = ibv_create_comp_channel(ctx);
	check(ch != NULL, "ibv_create_comp_channel");
	cq = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	check(cq != NULL, "create CQ on a completion channel");
	if (cq) {
		ret = ibv_req_notify_cq(cq, 0);
		if (!ret)
			ret = ibv_req_notify_cq(cq, 1);
		if (ret)
			printf("# ibv_req_notify_cq: %s\n", strerror(ret));
		check(ret == 0, "ibv_req_notify_cq arms it");
		fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
		check(ibv_get_cq_event(ch, &cq, &ev_ctx) == -1 && errno == EAGAIN,
		      "no completion event without a completion");
		ret = ibv_resize_cq(cq, 1000);
		snprintf(name, sizeof(name), "ibv_resize_cq to 1000 (got %d)", cq->cqe);
		check(ret == 0 && cq->cqe >= 1000, name);
		check(ibv_poll_cq(cq, 4, wc) == 0, "ibv_poll_cq after resize is 0");
		check(ibv_destroy_cq(cq) == 0, "destroy the armed CQ");
	} else {
		printf("# ibv_create_cq: %s\n", strerror(errno));
	}
	if (ch)
		ibv_destroy_comp_channel(ch);

	/* A QP, and what post_send and post_recv do with its rings. */
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	buf = calloc(1, 4096);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	qp = cq ? make_qp(pd, cq, &init) : NULL;
	if (!qp && errno == EOPNOTSUPP) {
		skip("create RC QP, rings mapped", "the kernel has no user QPs yet");
		skip("QP capacities reported", "no QP");
		skip("QP in RESET, then INIT", "no QP");
		skip("post_recv", "no QP");
		skip("post_send refuses an opcode RC does not have", "no QP");
		skip("post_send refuses too many SGEs", "no QP");
		skip("destroy QP", "no QP");
	} else {
		check(qp != NULL, "create RC QP, rings mapped");
		if (!qp)
			printf("# ibv_create_qp: %s\n", strerror(errno));
		snprintf(name, sizeof(name),
			 "QP capacities reported (send %u/%u sge, recv %u/%u sge, inline %u)",
			 init.cap.max_send_wr, init.cap.max_send_sge,
			 init.cap.max_recv_wr, init.cap.max_recv_sge,
			 init.cap.max_inline_data);
		check(qp && init.cap.max_send_wr >= 64 && init.cap.max_recv_wr >= 32 &&
		      init.cap.max_send_sge >= 4 && init.cap.max_recv_sge >= 2, name);

		memset(&qattr, 0, sizeof(qattr));
		ret = qp ? ibv_query_qp(qp, &qattr, IBV_QP_STATE, &init) : -1;
		check(ret == 0 && qattr.qp_state == IBV_QPS_RESET, "QP in RESET, then INIT");
		if (qp) {
			memset(&qattr, 0, sizeof(qattr));
			qattr.qp_state = IBV_QPS_INIT;
			qattr.port_num = 1;
			qattr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
			ret = ibv_modify_qp(qp, &qattr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
			if (ret)
				printf("# ibv_modify_qp INIT: %s\n", strerror(ret));
		}

		sge.addr = (uintptr_t)buf;
		sge.length = 4096;
		sge.lkey = mr ? mr->lkey : 0;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 7;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		check(qp && ibv_post_recv(qp, &rwr, &bad_rwr) == 0, "post_recv");

		memset(&swr, 0, sizeof(swr));
		swr.opcode = IBV_WR_BIND_MW;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		bad_swr = NULL;
		check(qp && ibv_post_send(qp, &swr, &bad_swr) == EINVAL && bad_swr == &swr,
		      "post_send refuses an opcode RC does not have");
		swr.opcode = IBV_WR_SEND;
		swr.num_sge = 1000;
		bad_swr = NULL;
		check(qp && ibv_post_send(qp, &swr, &bad_swr) == EINVAL && bad_swr == &swr,
		      "post_send refuses too many SGEs");
		check(qp && ibv_destroy_qp(qp) == 0, "destroy QP");
	}
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
	if (cq)
		ibv_destroy_cq(cq);

	ah = make_ah(pd, ctx, gid_index);
	check(ah != NULL, "create AH");
	if (!ah)
		printf("# ibv_create_ah: %s\n", strerror(errno));
	check(ah && ibv_destroy_ah(ah) == 0, "destroy AH");

	check(uverbs_maps() == maps0, "every ring unmapped after destroy");
}

/* Waits up to 10 s for @fd to be readable. */
static int wait_fd(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 10000) == 1;
}

/*
 * The completions metaroce_verbs_test.ko inject_cq=... inject=5 posts: the
 * first 4 fit, the 5th overflows the CQ.
 */
static void events(struct ibv_context *ctx)
{
	struct ibv_async_event aev;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ev_cq;
	struct ibv_wc wc[8];
	char name[256];
	void *ev_ctx;
	int i, n, ok;

	ch = ibv_create_comp_channel(ctx);
	cq = ch ? ibv_create_cq(ctx, 4, (void *)0x5a, ch, 0) : NULL;
	if (!cq || cq->cqe != 4 || ibv_req_notify_cq(cq, 0)) {
		printf("not ok events: set-up\n");
		failed = 1;
		return;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (getchar() != EOF)
		;

	ok = wait_fd(ch->fd) && ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0;
	check(ok && ev_cq == cq && ev_ctx == (void *)0x5a,
	      "the armed CQ's completion event reaches the channel");
	if (ok)
		ibv_ack_cq_events(cq, 1);

	memset(wc, 0, sizeof(wc));
	n = ibv_poll_cq(cq, 8, wc);
	snprintf(name, sizeof(name), "ibv_poll_cq returns the 4 that fit (got %d)", n);
	check(n == 4, name);
	ok = n == 4;
	for (i = 0; ok && i < 4; i++) {
		if (wc[i].wr_id != 0x1000U + i || wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].byte_len != 64U * i || wc[i].qp_num != 0)
			ok = 0;
		else if (i % 2)
			ok = wc[i].opcode == IBV_WC_RDMA_WRITE && !wc[i].wc_flags;
		else
			ok = wc[i].opcode == IBV_WC_RECV &&
			     wc[i].wc_flags == IBV_WC_WITH_IMM &&
			     ntohl(wc[i].imm_data) == 0x100U + i;
		if (!ok)
			printf("# wc[%d]: wr_id %#llx status %d opcode %d flags %#x imm %#x len %u qp %u\n",
			       i, (unsigned long long)wc[i].wr_id, wc[i].status,
			       wc[i].opcode, wc[i].wc_flags, ntohl(wc[i].imm_data),
			       wc[i].byte_len, wc[i].qp_num);
	}
	check(ok, "each CQE translated (wr_id, opcode, flags, immediate, length)");
	check(ibv_poll_cq(cq, 8, wc) == 0, "ibv_poll_cq of the drained CQ is 0");

	ok = wait_fd(ctx->async_fd) && ibv_get_async_event(ctx, &aev) == 0;
	check(ok && aev.event_type == IBV_EVENT_CQ_ERR && aev.element.cq == cq,
	      "the 5th completion overflowed: IBV_EVENT_CQ_ERR");
	if (ok)
		ibv_ack_async_event(&aev);

	check(ibv_destroy_cq(cq) == 0, "destroy the overflowed CQ");
	ibv_destroy_comp_channel(ch);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init;
	struct ibv_context *ctx;
	struct ibv_cq *cq, *cq2;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_pd *pd;
	int gid_index, n;

	if (argc < 4)
		return 2;
	gid_index = atoi(argv[2]);
	ctx = open_dev(argv[1]);
	if (!ctx) {
		printf("not ok ibv_open_device %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		printf("not ok ibv_alloc_pd\n");
		return 1;
	}

	if (!strcmp(argv[3], "checks")) {
		checks(ctx, pd, gid_index);
		if (nchecks != NCHECKS_EXPECTED)
			printf("# %d checks, %d expected\n", nchecks, NCHECKS_EXPECTED);
	} else if (!strcmp(argv[3], "loop") && argc == 5) {
		for (n = atoi(argv[4]); n > 0 && !failed; n--) {
			cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
			qp = cq ? make_qp(pd, cq, &init) : NULL;
			/* Without user QPs in the kernel, CQs and AHs only. */
			failed = !cq || (!qp && errno != EOPNOTSUPP);
			ah = make_ah(pd, ctx, gid_index);
			failed |= !ah;
			if (qp)
				failed |= ibv_destroy_qp(qp) != 0;
			if (ah)
				failed |= ibv_destroy_ah(ah) != 0;
			if (cq)
				failed |= ibv_destroy_cq(cq) != 0;
		}
		if (failed)
			printf("# loop failed: %s\n", strerror(errno));
	} else if (!strcmp(argv[3], "events")) {
		events(ctx);
	} else if (!strcmp(argv[3], "hold")) {
		/* Left for the kernel to clean up when the process exits. */
		cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
		cq2 = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		qp = cq ? make_qp(pd, cq, &init) : NULL;
		failed = !cq || !cq2 || (!qp && errno != EOPNOTSUPP);
		ah = make_ah(pd, ctx, gid_index);
		failed |= !ah;
		printf("%s (%d uverbs mappings)\n", failed ? "failed" : "ready",
		       uverbs_maps());
		fflush(stdout);
		_exit(failed);
	} else {
		return 2;
	}

	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return failed;
}
