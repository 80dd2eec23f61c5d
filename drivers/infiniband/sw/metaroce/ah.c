// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: address handles.
 *
 * An AH names a RoCE v2 destination: ib_core resolved the source GID entry
 * (kept referenced in ibah->sgid_attr for the life of the AH) and the
 * destination MAC. The AH keeps the IP addresses and the header fields the
 * datapath needs, in the form it needs them.
 */

#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "metaroce.h"

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
	int ret;

	/* User AHs come with the uverbs ABI. */
	if (udata)
		return -EOPNOTSUPP;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != METAROCE_PORT)
		return -EINVAL;

	if (atomic_inc_return(&mdev->num_ah) > METAROCE_MAX_AH) {
		atomic_dec(&mdev->num_ah);
		return -ENOMEM;
	}

	ret = metaroce_ah_init(to_mah(ibah), attr);
	if (ret)
		atomic_dec(&mdev->num_ah);
	return ret;
}

int metaroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_dec(&to_mdev(ibah->device)->num_ah);
	return 0;
}
