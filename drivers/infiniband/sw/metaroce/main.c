// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: an RDMA transport for lossy, multipath Ethernet.
 *
 * Module entry. Devices are created with "rdma link add NAME type metaroce netdev DEV";
 * until the verbs provider lands (see Documentation/infiniband/metaroce.rst, "Status"),
 * the link type is registered so that the command autoloads this module and gets a clear
 * "not supported" answer instead of an unknown-type error.
 */

#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>

static int metaroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	pr_info_ratelimited("metaroce: %s on %s: the verbs device is not implemented yet\n",
			    ibdev_name, netdev_name(ndev));
	return -EOPNOTSUPP;
}

static struct rdma_link_ops metaroce_link_ops = {
	.type = "metaroce",
	.newlink = metaroce_newlink,
};

static int __init metaroce_init(void)
{
	rdma_link_register(&metaroce_link_ops);
	return 0;
}

static void __exit metaroce_exit(void)
{
	rdma_link_unregister(&metaroce_link_ops);
}

module_init(metaroce_init);
module_exit(metaroce_exit);

MODULE_AUTHOR("MetaRoCE for Linux developers");
MODULE_DESCRIPTION("MetaRoCE RDMA transport over lossy multipath Ethernet");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("metaroce");
