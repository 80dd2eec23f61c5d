// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: an RDMA transport for lossy, multipath Ethernet.
 *
 * Module entry, device life cycle and the netdev notifier.
 *
 * "rdma link add NAME type metaroce netdev DEV" creates a device bound to DEV
 * (metaroce_newlink); "rdma link delete NAME" removes it (ib_core, allowed by
 * IBK_ALLOW_USER_UNREG). A device also goes away when its netdev is
 * unregistered or moved to another network namespace, when that namespace is
 * destroyed, and on module unload.
 *
 * Namespaces: a device works in the namespace of its netdev (metaroce_net()),
 * where its datapath sockets live (datapath_udp.c). How the ib_device itself is visible
 * is ib_core's netns mode: shared (the default) shows every device in every
 * namespace; in exclusive mode ib_core places every new device in init_net
 * and offers drivers no way to change that.
 */

#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <rdma/rdma_netlink.h>

#include "metaroce.h"
#include "datapath_udp.h"

/*
 * Every MetaRoCE device from allocation in metaroce_newlink() until
 * dealloc_driver. ib_core's own look-ups (ib_device_get_by_netdev(),
 * ib_unregister_driver()) select devices by driver_id, and ours is
 * RDMA_DRIVER_UNKNOWN, which any other driver without an id shares: the
 * module keeps its own list and never uses them.
 */
static LIST_HEAD(metaroce_devices);
static DEFINE_SPINLOCK(metaroce_devices_lock);

/*
 * The registered device on @ndev, with a registration reference
 * (ib_device_put() it), or NULL.
 */
static struct metaroce_dev *metaroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct metaroce_dev *mdev, *found = NULL;

	spin_lock(&metaroce_devices_lock);
	list_for_each_entry(mdev, &metaroce_devices, list) {
		if (mdev->ndev == ndev && ib_device_try_get(&mdev->ibdev)) {
			found = mdev;
			break;
		}
	}
	spin_unlock(&metaroce_devices_lock);

	return found;
}

/* ib_device_ops.dealloc_driver: the last driver callback of a device. */
void metaroce_dealloc_driver(struct ib_device *ibdev)
{
	struct metaroce_dev *mdev = to_mdev(ibdev);

	spin_lock(&metaroce_devices_lock);
	list_del_init(&mdev->list);
	spin_unlock(&metaroce_devices_lock);

	metaroce_debugfs_del_dev(mdev);

	/* After the debugfs files, which may transmit; nothing else does now. */
	if (mdev->dp) {
		mdev->dp->ops->close(mdev->dp);
		mdev->dp = NULL;
	}
	/* Only the receive path used the records. */
	metaroce_linger_destroy(mdev);

	/* ib_core destroyed every MR and AH before this point. */
	WARN_ON(!xa_empty(&mdev->mr_xa));
	xa_destroy(&mdev->mr_xa);
	WARN_ON(!xa_empty(&mdev->mw_xa));
	xa_destroy(&mdev->mw_xa);
	WARN_ON(!xa_empty(&mdev->ah_xa));
	xa_destroy(&mdev->ah_xa);

	netdev_put(mdev->ndev, &mdev->ndev_tracker);
}

static int metaroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct metaroce_dev *mdev, *other;
	int ret = 0;

	/*
	 * ib_core puts a VLAN's addresses in the GID table of the device on
	 * its real netdev, not of one on the VLAN, which would have a
	 * link-local GID alone. Refused, as rxe does.
	 */
	if (is_vlan_dev(ndev)) {
		pr_err("%s: %s is a VLAN: create the device on %s, whose GIDs include the VLAN's addresses\n",
		       ibdev_name, ndev->name, vlan_dev_real_dev(ndev)->name);
		return -EPERM;
	}

	mdev = metaroce_dev_create(ndev);
	if (IS_ERR(mdev))
		return PTR_ERR(mdev);

	/* One device per netdev; checked and claimed atomically. */
	spin_lock(&metaroce_devices_lock);
	list_for_each_entry(other, &metaroce_devices, list) {
		if (other->ndev == ndev) {
			spin_unlock(&metaroce_devices_lock);
			ret = -EEXIST;
			goto err_dealloc;
		}
	}
	list_add_tail(&mdev->list, &metaroce_devices);
	spin_unlock(&metaroce_devices_lock);

	metaroce_mark_name_assigned_by_user(&mdev->ibdev);

	/*
	 * Before registration, so that a registered device always has its
	 * datapath; dealloc_driver closes it on every path from here.
	 */
	ret = metaroce_udp_dp_ops.open(mdev, &mdev->dp);
	if (ret)
		goto err_dealloc;

	/*
	 * Once registered, the device can be unregistered and freed by
	 * another thread at any time: pin its memory for the check below.
	 */
	get_device(&mdev->ibdev.dev);
	ret = ib_register_device(&mdev->ibdev, ibdev_name, NULL);
	if (ret) {
		put_device(&mdev->ibdev.dev);
		goto err_dealloc;
	}

	/*
	 * The netdev notifier ignores devices that are not registered yet, so
	 * an unregistration or namespace move of the netdev during
	 * ib_register_device() went unseen. Both happen under RTNL, and
	 * reg_state is set before the notifier runs: looking under RTNL, either
	 * the notifier has not run yet and will find the device, or its effect
	 * is visible here.
	 */
	rtnl_lock();
	if (ib_device_try_get(&mdev->ibdev)) {
		if (ndev->reg_state != NETREG_REGISTERED ||
		    !net_eq(dev_net(ndev), metaroce_net(mdev))) {
			ib_unregister_device_queued(&mdev->ibdev);
			ret = -ENODEV;
		} else {
			metaroce_port_update(mdev);
		}
		ib_device_put(&mdev->ibdev);
	}
	rtnl_unlock();
	put_device(&mdev->ibdev.dev);

	return ret;

err_dealloc:
	ib_dealloc_device(&mdev->ibdev);
	return ret;
}

static struct rdma_link_ops metaroce_link_ops = {
	.type = "metaroce",
	.newlink = metaroce_newlink,
};

/*
 * Unregisters, synchronously, every device whose netdev is in @net, or every
 * device if @net is NULL. Callers guarantee that no device of that set is
 * being registered (no newlink can run for it).
 *
 * A device is picked once (reaped); ib_unregister_device() returns only when
 * the device is unregistered, by this call or by a concurrent one (the netdev
 * notifier's queued work, rdma link delete), so that on return no driver
 * callback of those devices can run any more.
 */
static void metaroce_unregister_devices(struct net *net)
{
	struct metaroce_dev *mdev;
	LIST_HEAD(reaped);

	for (;;) {
		struct metaroce_dev *victim = NULL;

		spin_lock(&metaroce_devices_lock);
		list_for_each_entry(mdev, &metaroce_devices, list) {
			if (!net || net_eq(metaroce_net(mdev), net)) {
				victim = mdev;
				get_device(&victim->ibdev.dev);
				break;
			}
		}
		if (victim)
			list_move_tail(&victim->list, &reaped);
		spin_unlock(&metaroce_devices_lock);

		if (!victim)
			break;

		ib_unregister_device(&victim->ibdev);

		/* dealloc_driver took it off the reaped list. */
		put_device(&victim->ibdev.dev);
	}

	/* Not reachable by a caller keeping to the rule above. */
	spin_lock(&metaroce_devices_lock);
	WARN_ON(!list_empty(&reaped));
	list_splice(&reaped, &metaroce_devices);
	spin_unlock(&metaroce_devices_lock);
}

atomic_t metaroce_mtu_gen = ATOMIC_INIT(0);

/* A route's MTU: the QPs size their segments again, as for a netdev's. */
void metaroce_dp_mtu_changed(struct metaroce_dev *mdev)
{
	atomic_inc(&metaroce_mtu_gen);
}

static int metaroce_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct metaroce_dev *mdev;

	/* Any netdev: a QP may send through a VLAN or bridge above its device's. */
	if (event == NETDEV_CHANGEMTU)
		atomic_inc(&metaroce_mtu_gen);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}

	mdev = metaroce_dev_get_by_netdev(ndev);
	if (!mdev)
		return NOTIFY_DONE;

	/*
	 * NETDEV_UNREGISTER also announces a move to another namespace. Either
	 * way the device goes: its sockets and GIDs belong to the namespace
	 * the netdev leaves. Unregistration sleeps and takes RTNL, hence the
	 * work queue; netdev_run_todo() waits for the netdev reference it
	 * releases.
	 */
	if (event == NETDEV_UNREGISTER)
		ib_unregister_device_queued(&mdev->ibdev);
	else
		metaroce_port_update(mdev);

	ib_device_put(&mdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block metaroce_netdev_nb = {
	.notifier_call = metaroce_netdev_event,
};

/*
 * A namespace going away takes its devices with it, synchronously and before
 * its netdevs go: registered with register_pernet_device() after the
 * networking core, this exit runs before the core unregisters the netdevs.
 */
static void __net_exit metaroce_net_exit(struct net *net)
{
	metaroce_unregister_devices(net);
}

static struct pernet_operations metaroce_net_ops = {
	.exit = metaroce_net_exit,
};

static int __init metaroce_init(void)
{
	int ret;

	metaroce_icrc_select();
	ret = metaroce_transport_init();
	if (ret)
		return ret;
	metaroce_debugfs_init();

	ret = register_pernet_device(&metaroce_net_ops);
	if (ret)
		goto err_debugfs;

	ret = register_netdevice_notifier(&metaroce_netdev_nb);
	if (ret)
		goto err_pernet;

	rdma_link_register(&metaroce_link_ops);
	return 0;

err_pernet:
	unregister_pernet_device(&metaroce_net_ops);
err_debugfs:
	metaroce_debugfs_exit();
	metaroce_transport_exit();
	return ret;
}

static void __exit metaroce_exit(void)
{
	/* Waits for newlink calls in progress; no device is created after. */
	rdma_link_unregister(&metaroce_link_ops);

	metaroce_unregister_devices(NULL);

	unregister_netdevice_notifier(&metaroce_netdev_nb);
	unregister_pernet_device(&metaroce_net_ops);
	metaroce_debugfs_exit();
	metaroce_transport_exit();
}

module_init(metaroce_init);
module_exit(metaroce_exit);

MODULE_AUTHOR("MetaRoCE for Linux developers");
MODULE_DESCRIPTION("MetaRoCE RDMA transport over lossy multipath Ethernet");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("metaroce");
