// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: rdma_cm between two network namespaces, in the kernel.
 *
 *   insmod metaroce_cm_test.ko a=mr_a b=mr_b addr_a=10.7.0.1 addr_b=10.7.0.2
 *
 * A listener in b's namespace and a client in a's namespace connect RC QPs
 * through rdma_cm, which resolves the route and runs the IB CM protocol in
 * MADs over the GSI QPs (MetaRoCE datagrams). The client sends a message
 * and reads the server's buffer with the rkey the server passed in its
 * private data, then both disconnect. Results go to the kernel log as TAP
 * lines prefixed "metaroce_cm_test: "; init fails with -EINVAL if a test
 * failed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "../metaroce.h"

static char *a = "mr_a";
module_param(a, charp, 0444);
MODULE_PARM_DESC(a, "client's MetaRoCE device");
static char *b = "mr_b";
module_param(b, charp, 0444);
MODULE_PARM_DESC(b, "server's MetaRoCE device");
static char *addr_a = "10.7.0.1";
module_param(addr_a, charp, 0444);
MODULE_PARM_DESC(addr_a, "client's IPv4 address");
static char *addr_b = "10.7.0.2";
module_param(addr_b, charp, 0444);
MODULE_PARM_DESC(addr_b, "server's IPv4 address");

#define CM_PORT		18515
#define MSG_LEN		4000
#define WAIT		(20 * HZ)

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

struct end {
	struct rdma_cm_id *id;		/* the connected id */
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;
	struct completion ev_done;
	enum rdma_cm_event_type last;
	int status;
	struct rdma_cm_id *req_id;	/* server: the CONNECT_REQUEST id */
};

static struct end cli, srv;
static struct rdma_cm_id *listener;

struct priv {
	__be64 addr;
	__be32 rkey;
	__be32 len;
};

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct end *e = id->context;

	pr_debug("%s: %s (status %d)\n", e == &cli ? "client" : "server",
		 rdma_event_msg(ev->event), ev->status);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		e->req_id = id;
		id->context = e;
	}
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED && e == &cli &&
	    ev->param.conn.private_data_len >= sizeof(struct priv))
		memcpy(e->buf + MSG_LEN, ev->param.conn.private_data, sizeof(struct priv));
	e->last = ev->event;
	e->status = ev->status;
	complete(&e->ev_done);
	return 0;
}

static bool wait_event_type(struct end *e, enum rdma_cm_event_type want)
{
	if (!wait_for_completion_timeout(&e->ev_done, WAIT)) {
		pr_info("# timeout waiting for %s\n", rdma_event_msg(want));
		return false;
	}
	reinit_completion(&e->ev_done);
	if (e->last != want)
		pr_info("# got %s (status %d), wanted %s\n", rdma_event_msg(e->last),
			e->status, rdma_event_msg(want));
	return e->last == want;
}

static int wait_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + WAIT;

	do {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return wc->status == IB_WC_SUCCESS ? 0 : -EIO;
		usleep_range(50, 200);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

static int end_qp(struct end *e, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };

	/* The server hands out the global rkey: a test, not a pattern to copy. */
	e->pd = ib_alloc_pd(id->device, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(e->pd))
		return PTR_ERR(e->pd);
	e->cq = ib_create_cq(id->device, NULL, NULL, e, &cq_attr);
	if (IS_ERR(e->cq))
		return PTR_ERR(e->cq);
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	return rdma_create_qp(id, e->pd, &init);
}

static void end_fini(struct end *e)
{
	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);
	if (e->id)
		rdma_destroy_id(e->id);
	if (!IS_ERR_OR_NULL(e->cq))
		ib_destroy_cq(e->cq);
	if (!IS_ERR_OR_NULL(e->pd))
		ib_dealloc_pd(e->pd);
	kfree(e->buf);
	e->id = NULL;
	e->cq = NULL;
	e->pd = NULL;
	e->buf = NULL;
}

static struct net *dev_netns(const char *name)
{
	struct ib_device *ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	struct net *net;

	if (!ibdev)
		return NULL;
	net = get_net(metaroce_net(to_mdev(ibdev)));
	ib_device_put(ibdev);
	return net;
}

static void run(struct net *net_a, struct net *net_b)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(CM_PORT) };
	struct sockaddr_in da = { .sin_family = AF_INET, .sin_port = htons(CM_PORT) };
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	struct ib_sge sge;
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ib_send_wr swr = { .sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_rdma_wr rdwr = {};
	struct priv pv;
	struct ib_wc wc;
	int ret, i;
	bool ok;

	in4_pton(addr_b, -1, (u8 *)&sa.sin_addr, -1, NULL);
	in4_pton(addr_b, -1, (u8 *)&da.sin_addr, -1, NULL);

	listener = rdma_create_id(net_b, cm_handler, &srv, RDMA_PS_TCP, IB_QPT_RC);
	ret = PTR_ERR_OR_ZERO(listener);
	if (!ret)
		ret = rdma_bind_addr(listener, (struct sockaddr *)&sa);
	if (!ret)
		ret = rdma_listen(listener, 4);
	report(!ret, "server: listen in b's namespace", ret);
	if (ret)
		return;

	cli.id = rdma_create_id(net_a, cm_handler, &cli, RDMA_PS_TCP, IB_QPT_RC);
	ret = PTR_ERR_OR_ZERO(cli.id);
	if (ret) {
		cli.id = NULL;
		report(false, "client: create id in a's namespace", ret);
		return;
	}
	ret = rdma_resolve_addr(cli.id, NULL, (struct sockaddr *)&da, 5000);
	report(!ret && wait_event_type(&cli, RDMA_CM_EVENT_ADDR_RESOLVED) &&
	       !strcmp(dev_name(&cli.id->device->dev), a),
	       "client: address resolved to device a", ret);
	ret = rdma_resolve_route(cli.id, 5000);
	report(!ret && wait_event_type(&cli, RDMA_CM_EVENT_ROUTE_RESOLVED),
	       "client: route resolved", ret);
	ret = end_qp(&cli, cli.id);
	report(!ret, "client: QP on the cm id", ret);
	if (ret)
		return;

	ret = rdma_connect(cli.id, &param);
	report(!ret && wait_event_type(&srv, RDMA_CM_EVENT_CONNECT_REQUEST) && srv.req_id &&
	       !strcmp(dev_name(&srv.req_id->device->dev), b),
	       "server: connect request arrives on device b (CM MADs over GSI)", ret);
	if (!srv.req_id)
		return;
	srv.id = srv.req_id;
	ret = end_qp(&srv, srv.id);
	if (!ret) {
		for (i = 0; i < MSG_LEN; i++)
			srv.buf[MSG_LEN + 64 + i] = i * 13;
		pv.addr = cpu_to_be64((uintptr_t)srv.buf + MSG_LEN + 64);
		pv.rkey = cpu_to_be32(srv.pd->unsafe_global_rkey);
		pv.len = cpu_to_be32(MSG_LEN);
		param.private_data = &pv;
		param.private_data_len = sizeof(pv);
		sge = (struct ib_sge){ (uintptr_t)srv.buf, MSG_LEN, srv.pd->local_dma_lkey };
		ret = ib_post_recv(srv.id->qp, &rwr, NULL);
	}
	if (!ret) {
		/* Outside its event handler, rdma_accept() needs the handler lock. */
		rdma_lock_handler(srv.id);
		ret = rdma_accept(srv.id, &param);
		rdma_unlock_handler(srv.id);
	}
	report(!ret && wait_event_type(&cli, RDMA_CM_EVENT_ESTABLISHED) &&
	       wait_event_type(&srv, RDMA_CM_EVENT_ESTABLISHED),
	       "both sides established", ret);
	if (ret)
		return;

	for (i = 0; i < MSG_LEN; i++)
		cli.buf[i] = i * 7;
	sge = (struct ib_sge){ (uintptr_t)cli.buf, MSG_LEN, cli.pd->local_dma_lkey };
	ret = ib_post_send(cli.id->qp, &swr, NULL);
	ret = ret ?: wait_wc(cli.cq, &wc);
	ret = ret ?: wait_wc(srv.cq, &wc);
	report(!ret && wc.byte_len == MSG_LEN && !memcmp(cli.buf, srv.buf, MSG_LEN),
	       "send over the rdma_cm connection, data intact", ret);

	memcpy(&pv, cli.buf + MSG_LEN, sizeof(pv));
	sge = (struct ib_sge){ (uintptr_t)cli.buf + 2 * MSG_LEN, MSG_LEN,
			       cli.pd->local_dma_lkey };
	rdwr.wr.sg_list = &sge;
	rdwr.wr.num_sge = 1;
	rdwr.wr.opcode = IB_WR_RDMA_READ;
	rdwr.wr.send_flags = IB_SEND_SIGNALED;
	rdwr.remote_addr = be64_to_cpu(pv.addr);
	rdwr.rkey = be32_to_cpu(pv.rkey);
	ret = ib_post_send(cli.id->qp, &rdwr.wr, NULL);
	ret = ret ?: wait_wc(cli.cq, &wc);
	report(!ret && !memcmp(cli.buf + 2 * MSG_LEN, srv.buf + MSG_LEN + 64, MSG_LEN),
	       "read with the rkey from the accept's private data", ret);

	/* The server answers the client's DREQ with its own disconnect (DREP). */
	ret = rdma_disconnect(cli.id);
	ok = !ret && wait_event_type(&srv, RDMA_CM_EVENT_DISCONNECTED);
	ret = ret ?: rdma_disconnect(srv.id);
	report(ok && !ret && wait_event_type(&cli, RDMA_CM_EVENT_DISCONNECTED),
	       "disconnect reaches both sides", ret);
}

static int __init metaroce_cm_test_init(void)
{
	struct net *net_a = dev_netns(a), *net_b = dev_netns(b);

	init_completion(&cli.ev_done);
	init_completion(&srv.ev_done);
	cli.buf = kzalloc(4 * MSG_LEN, GFP_KERNEL);
	srv.buf = kzalloc(4 * MSG_LEN, GFP_KERNEL);
	report(net_a && net_b && cli.buf && srv.buf, "devices a and b, their namespaces", 0);
	if (net_a && net_b && cli.buf && srv.buf)
		run(net_a, net_b);

	end_fini(&cli);
	end_fini(&srv);
	if (!IS_ERR_OR_NULL(listener))
		rdma_destroy_id(listener);
	listener = NULL;
	if (net_a)
		put_net(net_a);
	if (net_b)
		put_net(net_b);
	pr_info("1..%d\n", tests_run);
	return tests_failed ? -EINVAL : 0;
}

static void __exit metaroce_cm_test_exit(void)
{
}

module_init(metaroce_cm_test_init);
module_exit(metaroce_cm_test_exit);

MODULE_DESCRIPTION("MetaRoCE rdma_cm test between two namespaces");
MODULE_LICENSE("GPL");
