// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: the ib_device, its single port and the device queries.
 *
 * A MetaRoCE device is bound to one Ethernet netdev (port 1). To ib_core it
 * looks like a RoCE v2 port: link layer Ethernet, core_cap_flags
 * RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP, so ib_core's RoCE GID management fills
 * the GID table from the netdev's IPv4 and IPv6 addresses (type "RoCE v2")
 * and keeps it current; the driver has no query_gid/add_gid/del_gid.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <metaroce/wire.h>

#include "metaroce.h"
#include "queue.h"

/* The opcodes that carry payload: a WRITE's headers are the largest. */
static_assert(MR_HDR_WRITE + MR_ICRC_LEN <= METAROCE_HDR_BUDGET);
static_assert(MR_HDR_SEND <= MR_HDR_WRITE && MR_HDR_READ_RESP <= MR_HDR_WRITE &&
	      MR_HDR_UD <= MR_HDR_WRITE);
/* Headers alone (an ACK is the largest) fit wherever 256 bytes of payload do. */
static_assert(MR_HDR_MAX + MR_ICRC_LEN <= METAROCE_HDR_BUDGET + 256);

/* Payload bytes one segment can carry in a packet of @mtu; 0 if it is too small. */
unsigned int metaroce_mtu_payload(unsigned int mtu)
{
	return mtu > METAROCE_NET_OVERHEAD ? mtu - METAROCE_NET_OVERHEAD : 0;
}

/* The same on @ndev. */
unsigned int metaroce_payload_mtu(const struct net_device *ndev)
{
	return metaroce_mtu_payload(READ_ONCE(ndev->mtu));
}

/*
 * The same for the netdev that packets from a source GID leave through: the
 * GID's netdev @ifindex, or the device's for 0. 0 if that netdev is gone.
 */
unsigned int metaroce_out_payload_mtu(struct metaroce_dev *mdev, int ifindex)
{
	struct net_device *ndev;
	unsigned int mtu = 0;

	if (!ifindex)
		return metaroce_payload_mtu(mdev->ndev);
	rcu_read_lock();
	ndev = dev_get_by_index_rcu(metaroce_net(mdev), ifindex);
	if (ndev)
		mtu = metaroce_payload_mtu(ndev);
	rcu_read_unlock();
	return mtu;
}

static bool metaroce_port_usable(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) &&
	       metaroce_payload_mtu(ndev) >= ib_mtu_enum_to_int(IB_MTU_256);
}

/*
 * Report a change of the port state to ib_core (which updates its port
 * cache and tells the consumers). Called under RTNL from the netdev notifier
 * and once after registration.
 */
void metaroce_port_update(struct metaroce_dev *mdev)
{
	struct ib_event event = {
		.device = &mdev->ibdev,
		.element.port_num = METAROCE_PORT,
	};
	bool active;

	ASSERT_RTNL();

	active = metaroce_port_usable(mdev->ndev);
	if (active == mdev->port_active)
		return;

	/* debugfs reads it without RTNL */
	WRITE_ONCE(mdev->port_active, active);
	event.event = active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}

static int metaroce_query_device(struct ib_device *ibdev,
				 struct ib_device_attr *attr,
				 struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	*attr = to_mdev(ibdev)->attr;
	return 0;
}

static int metaroce_query_port(struct ib_device *ibdev, u32 port,
			       struct ib_port_attr *attr)
{
	struct net_device *ndev = to_mdev(ibdev)->ndev;
	unsigned int payload = metaroce_payload_mtu(ndev);
	int ret;

	/* ib_core zeroes *attr and checks the port number. */
	attr->gid_tbl_len = METAROCE_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = METAROCE_MAX_MSG_SIZE;
	attr->max_vl_num = 1;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(payload);

	if (metaroce_port_usable(ndev)) {
		attr->state = IB_PORT_ACTIVE;
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = netif_running(ndev) ?
				   IB_PORT_PHYS_STATE_POLLING :
				   IB_PORT_PHYS_STATE_DISABLED;
	}

	/* Takes RTNL: query_port is never called from the netdev notifier. */
	ret = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	return ret;
}

static int metaroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			       u16 *pkey)
{
	if (index)
		return -EINVAL;

	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int metaroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				       struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = METAROCE_GID_TABLE_LEN;
	immutable->pkey_tbl_len = 1;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer metaroce_get_link_layer(struct ib_device *ibdev,
						    u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

/* major.minor.sub, as the provider prints it (METAROCE_FW_VER()). */
static void metaroce_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u64 fw_ver = to_mdev(ibdev)->attr.fw_ver;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 (unsigned int)(fw_ver >> 32) & 0xffff,
		 (unsigned int)(fw_ver >> 16) & 0xffff,
		 (unsigned int)fw_ver & 0xffff);
}

static int metaroce_enable_driver(struct ib_device *ibdev)
{
	metaroce_debugfs_add_dev(to_mdev(ibdev));
	return 0;
}

static void metaroce_init_attr(struct metaroce_dev *mdev)
{
	struct ib_device_attr *attr = &mdev->attr;

	attr->fw_ver = METAROCE_FW_VERSION;
	attr->sys_image_guid = mdev->ibdev.node_guid;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = METAROCE_VENDOR_ID;
	attr->vendor_part_id = 0;
	attr->hw_ver = 0;
	attr->max_qp = METAROCE_MAX_QP;
	attr->max_qp_wr = METAROCE_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = METAROCE_MAX_SGE;
	attr->max_recv_sge = METAROCE_MAX_SGE;
	attr->max_sge_rd = METAROCE_MAX_SGE;
	attr->max_cq = METAROCE_MAX_CQ;
	attr->max_cqe = METAROCE_MAX_CQE;
	attr->max_mr = METAROCE_MAX_MR;
	attr->max_mw = METAROCE_MAX_MW;
	attr->max_pd = METAROCE_MAX_PD;
	attr->max_qp_rd_atom = METAROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = METAROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = METAROCE_MAX_RD_ATOMIC * METAROCE_MAX_QP;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = METAROCE_MAX_AH;
	attr->max_srq = METAROCE_MAX_SRQ;
	attr->max_srq_wr = METAROCE_MAX_SRQ_WR;
	attr->max_srq_sge = METAROCE_MAX_SGE;
	attr->max_fast_reg_page_list_len = METAROCE_MAX_FAST_REG_PAGES;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
}

/* Tells whether @ndev can carry a MetaRoCE device. */
static int metaroce_ndev_check(const struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		return -EPROTONOSUPPORT;
	return 0;
}

/*
 * Allocates and initialises (does not register) the device for @ndev. The
 * caller holds a reference on @ndev; the device takes its own.
 */
struct metaroce_dev *metaroce_dev_create(struct net_device *ndev)
{
	struct metaroce_dev *mdev;
	struct ib_device *ibdev;
	u8 mac[ETH_ALEN];
	int ret;

	ret = metaroce_ndev_check(ndev);
	if (ret)
		return ERR_PTR(ret);

	mdev = ib_alloc_device(metaroce_dev, ibdev);
	if (!mdev)
		return ERR_PTR(-ENOMEM);
	ibdev = &mdev->ibdev;

	INIT_LIST_HEAD(&mdev->list);
	xa_init_flags(&mdev->mr_xa, XA_FLAGS_ALLOC1);
	xa_init(&mdev->mw_xa);
	xa_init_flags(&mdev->qp_xa, XA_FLAGS_ALLOC);
	mutex_init(&mdev->qps_lock);
	atomic_set(&mdev->num_qp, 0);
	xa_init_flags(&mdev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	metaroce_counters_init(&mdev->counters);
	metaroce_linger_init(mdev);
	atomic_set(&mdev->num_pd, 0);
	atomic_set(&mdev->num_cq, 0);
	atomic_set(&mdev->num_mr, 0);
	atomic_set(&mdev->num_mw, 0);
	atomic_set(&mdev->num_ah, 0);
	atomic_set(&mdev->num_srq, 0);

	mdev->ndev = ndev;
	netdev_hold(ndev, &mdev->ndev_tracker, GFP_KERNEL);
	write_pnet(&mdev->net, dev_net(ndev));

	/*
	 * The node GUID is the EUI-64 of the MAC at creation. A zero or
	 * multicast MAC (possible on some virtual devices) would not be a
	 * usable identity, so such devices get a random one.
	 */
	ether_addr_copy(mac, ndev->dev_addr);
	if (!is_valid_ether_addr(mac))
		eth_random_addr(mac);
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid, mac);

	ibdev->node_type = RDMA_NODE_IB_CA;
	strscpy(ibdev->node_desc, "MetaRoCE", sizeof(ibdev->node_desc));
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	/*
	 * Besides ib_core's default set of write commands: arming a CQ, and
	 * the send doorbell (POST_SEND with no work requests). POLL_CQ and
	 * POST_RECV stay off: a process uses the rings for them.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);

	metaroce_init_attr(mdev);
	/*
	 * The module parameter as it is when the device is created: ib_core has
	 * no netlink attribute for a driver setting (and sysfs is closed to new
	 * drivers), so "paths" set before "rdma link add" makes a per-device value.
	 */
	mdev->paths = clamp_t(unsigned int, READ_ONCE(metaroce_default_paths), 1,
			      METAROCE_MAX_PATHS);
	ib_set_device_ops(ibdev, &metaroce_dev_ops);

	ret = ib_device_set_netdev(ibdev, ndev, METAROCE_PORT);
	if (ret) {
		/* dealloc_driver drops the netdev reference. */
		ib_dealloc_device(ibdev);
		return ERR_PTR(ret);
	}

	return mdev;
}

const struct ib_device_ops metaroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = METAROCE_UVERBS_ABI_VERSION,

	.alloc_hw_device_stats = metaroce_alloc_hw_device_stats,
	.alloc_hw_port_stats = metaroce_alloc_hw_port_stats,
	.alloc_mr = metaroce_alloc_mr,
	.alloc_pd = metaroce_alloc_pd,
	.alloc_ucontext = metaroce_alloc_ucontext,
	.create_ah = metaroce_create_ah,
	.create_cq = metaroce_create_cq,
	.create_qp = metaroce_create_qp,
	.create_srq = metaroce_create_srq,
	.create_user_ah = metaroce_create_ah,
	.dealloc_driver = metaroce_dealloc_driver,
	.dealloc_pd = metaroce_dealloc_pd,
	.dealloc_ucontext = metaroce_dealloc_ucontext,
	.dereg_mr = metaroce_dereg_mr,
	.alloc_mw = metaroce_alloc_mw,
	.dealloc_mw = metaroce_dealloc_mw,
	.destroy_ah = metaroce_destroy_ah,
	.destroy_cq = metaroce_destroy_cq,
	.destroy_qp = metaroce_destroy_qp,
	.destroy_srq = metaroce_destroy_srq,
	.disassociate_ucontext = metaroce_disassociate_ucontext,
	.enable_driver = metaroce_enable_driver,
	.get_dev_fw_str = metaroce_get_dev_fw_str,
	.get_dma_mr = metaroce_get_dma_mr,
	.get_hw_stats = metaroce_get_hw_stats,
	.get_link_layer = metaroce_get_link_layer,
	.get_port_immutable = metaroce_get_port_immutable,
	.map_mr_sg = metaroce_map_mr_sg,
	.mmap = metaroce_mmap,
	.mmap_free = metaroce_mmap_free,
	.modify_qp = metaroce_modify_qp,
	.modify_srq = metaroce_modify_srq,
	.poll_cq = metaroce_poll_cq,
	.post_recv = metaroce_post_recv,
	.post_send = metaroce_post_send,
	.post_srq_recv = metaroce_post_srq_recv,
	.query_device = metaroce_query_device,
	.query_pkey = metaroce_query_pkey,
	.query_port = metaroce_query_port,
	.query_qp = metaroce_query_qp,
	.query_srq = metaroce_query_srq,
	.reg_user_mr = metaroce_reg_user_mr,
	.req_notify_cq = metaroce_req_notify_cq,
	.resize_cq = metaroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, metaroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, metaroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, metaroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, metaroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, metaroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, metaroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, metaroce_ucontext, ibuc),
};
