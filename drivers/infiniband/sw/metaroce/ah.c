// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: address handles.
 *
 * An AH names a RoCE v2 destination: ib_core resolved the source GID entry
 * (kept referenced in ibah->sgid_attr for the life of the AH) and the
 * destination MAC. The AH keeps the IP addresses, the source GID's netdev and
 * the header fields the datapath needs, in the form it needs them.
 */

#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "metaroce.h"

/*
 * The ifindex of @attr's netdev, through which packets from its address
 * leave: the device's netdev or one stacked on it (a VLAN on it, a bridge,
 * bond or VRF it is a port of), as ib_core filled the GID table.
 */
int metaroce_gid_ifindex(const struct ib_gid_attr *attr)
{
	struct net_device *ndev;
	int ifindex;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	ifindex = IS_ERR(ndev) ? PTR_ERR(ndev) : ndev->ifindex;
	rcu_read_unlock();
	return ifindex;
}

/*
 * @mdev's RoCE v2 GID entry for @addr on netdev @ndev, referenced (release
 * with rdma_put_gid_attr()), or an ERR_PTR if it has none.
 */
const struct ib_gid_attr *metaroce_find_gid(struct metaroce_dev *mdev,
					    const struct in6_addr *addr,
					    struct net_device *ndev)
{
	return rdma_find_gid_by_port(&mdev->ibdev, (const union ib_gid *)addr,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, METAROCE_PORT,
				     ndev);
}

/*
 * The VLAN ID of the GID entry for @addr on netdev @ifindex, as ib_core reads
 * it (rdma_read_gid_l2_fields(): the netdev's own, else its first lower
 * device's); 0xffff for none, or if the entry is gone. A UD completion
 * carries it: ib_core finds the GID a datagram was sent to by address and
 * VLAN, as the CM does for each request.
 */
u16 metaroce_gid_vlan_id(struct metaroce_dev *mdev, const struct in6_addr *addr,
			 int ifindex)
{
	const struct ib_gid_attr *attr = ERR_PTR(-ENODEV);
	struct net_device *ndev;
	u16 vlan_id = 0xffff;

	rcu_read_lock();
	ndev = dev_get_by_index_rcu(metaroce_net(mdev), ifindex);
	if (ndev)
		attr = metaroce_find_gid(mdev, addr, ndev);
	rcu_read_unlock();
	if (IS_ERR(attr))
		return vlan_id;
	if (rdma_read_gid_l2_fields(attr, &vlan_id, NULL))
		vlan_id = 0xffff;
	rdma_put_gid_attr(attr);
	return vlan_id;
}

static int metaroce_ah_init(struct metaroce_ah *ah,
			    const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	bool dst_v4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);

	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	ah->net_type = rdma_gid_attr_network_type(sgid_attr);
	switch (ah->net_type) {
	case RDMA_NETWORK_IPV4:
		if (!dst_v4)
			return -EAFNOSUPPORT;
		break;
	case RDMA_NETWORK_IPV6:
		if (dst_v4)
			return -EAFNOSUPPORT;
		break;
	default:
		return -EINVAL;
	}

	ah->ifindex = metaroce_gid_ifindex(sgid_attr);
	if (ah->ifindex < 0)
		return ah->ifindex;
	rdma_gid2ip((struct sockaddr *)&ah->saddr, &sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&ah->daddr, &grh->dgid);
	ether_addr_copy(ah->dmac, attr->roce.dmac);
	ah->traffic_class = grh->traffic_class;
	ah->hop_limit = grh->hop_limit;
	ah->flow_label = grh->flow_label;
	return 0;
}

int metaroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		       struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibah->device);
	const struct rdma_ah_attr *attr = init_attr->ah_attr;
	struct metaroce_ah *ah = to_mah(ibah);
	struct metaroce_create_ah_resp resp = {};
	int ret;

	if (udata) {
		if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EOPNOTSUPP;
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
	}

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != METAROCE_PORT)
		return -EINVAL;

	if (atomic_inc_return(&mdev->num_ah) > METAROCE_MAX_AH) {
		atomic_dec(&mdev->num_ah);
		return -ENOMEM;
	}

	ah->ah_num = 0;
	ret = metaroce_ah_init(ah, attr);
	if (ret)
		goto err;
	if (!udata)
		return 0;

	/* Published last: a lookup may copy it as soon as it is in ah_xa. */
	ret = xa_alloc_irq(&mdev->ah_xa, &ah->ah_num, ah,
			   XA_LIMIT(1, METAROCE_MAX_AH), GFP_KERNEL);
	if (ret)
		goto err;
	resp.ah_num = ah->ah_num;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret) {
		xa_erase_irq(&mdev->ah_xa, ah->ah_num);
		goto err;
	}
	return 0;

err:
	ah->ah_num = 0;
	atomic_dec(&mdev->num_ah);
	return ret;
}

int metaroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct metaroce_dev *mdev = to_mdev(ibah->device);
	struct metaroce_ah *ah = to_mah(ibah);

	/* After this no lookup copies the AH: ib_core frees it when we return. */
	if (ah->ah_num)
		xa_erase_irq(&mdev->ah_xa, ah->ah_num);
	atomic_dec(&mdev->num_ah);
	return 0;
}

/**
 * metaroce_ah_lookup - the address of a user AH, by number
 * @mdev: the device
 * @ah_num: metaroce_create_ah_resp.ah_num, as a send WQE names it
 * @pd: the PD of the QP that sends: the AH must belong to it
 * @copy: receives a copy of the AH (the AH may be destroyed right after)
 *
 * Context: any; takes the ah_xa lock with interrupts disabled.
 * Return: 0, or -EINVAL if there is no such AH on @pd.
 */
int metaroce_ah_lookup(struct metaroce_dev *mdev, u32 ah_num,
		       const struct ib_pd *pd, struct metaroce_ah *copy)
{
	struct metaroce_ah *ah;
	unsigned long flags;
	int ret = -EINVAL;

	xa_lock_irqsave(&mdev->ah_xa, flags);
	ah = xa_load(&mdev->ah_xa, ah_num);
	if (ah && ah->ibah.pd == pd) {
		*copy = *ah;
		ret = 0;
	}
	xa_unlock_irqrestore(&mdev->ah_xa, flags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(metaroce_ah_lookup, METAROCE);
