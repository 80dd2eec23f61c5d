// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: debugfs, /sys/kernel/debug/metaroce/<device>/.
 *
 * "info" describes the binding, "counters" repeats the hardware counters.
 * Per-QP and per-path files will join them with the transport. The directory
 * keeps the name the device had when it was registered.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "metaroce.h"

static struct dentry *metaroce_debugfs_root;

static int info_show(struct seq_file *s, void *unused)
{
	struct metaroce_dev *mdev = s->private;
	struct net_device *ndev = mdev->ndev;

	seq_printf(s, "netdev:\t%s\n", netdev_name(ndev));
	seq_printf(s, "ifindex:\t%d\n", ndev->ifindex);
	seq_printf(s, "netns:\t%u\n", metaroce_net(mdev)->ns.inum);
	seq_printf(s, "mtu:\t%u\n", READ_ONCE(ndev->mtu));
	seq_printf(s, "payload_mtu:\t%u\n", metaroce_payload_mtu(ndev));
	seq_printf(s, "port_active:\t%d\n", READ_ONCE(mdev->port_active));
	seq_printf(s, "pds:\t%d\n", atomic_read(&mdev->num_pd));
	seq_printf(s, "cqs:\t%d\n", atomic_read(&mdev->num_cq));
	seq_printf(s, "mrs:\t%d\n", atomic_read(&mdev->num_mr));
	seq_printf(s, "ahs:\t%d\n", atomic_read(&mdev->num_ah));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(info);

static int counters_show(struct seq_file *s, void *unused)
{
	struct metaroce_dev *mdev = s->private;
	int i;

	for (i = 0; i < METAROCE_CNT_MAX; i++)
		seq_printf(s, "%s\t%llu\n", metaroce_counter_name(i),
			   metaroce_counter_read(&mdev->counters, i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counters);

/*
 * debugfs failures are not errors: the functions below carry on with
 * whatever debugfs returned, as debugfs expects.
 */
void metaroce_debugfs_add_dev(struct metaroce_dev *mdev)
{
	mdev->debugfs = debugfs_create_dir(dev_name(&mdev->ibdev.dev),
					   metaroce_debugfs_root);
	debugfs_create_file("info", 0400, mdev->debugfs, mdev, &info_fops);
	debugfs_create_file("counters", 0400, mdev->debugfs, mdev,
			    &counters_fops);
	metaroce_xmit_test_add(mdev);
}

/* Waits for readers of the device's files to finish. */
void metaroce_debugfs_del_dev(struct metaroce_dev *mdev)
{
	debugfs_remove_recursive(mdev->debugfs);
	mdev->debugfs = NULL;
}

void metaroce_debugfs_init(void)
{
	metaroce_debugfs_root = debugfs_create_dir("metaroce", NULL);
}

void metaroce_debugfs_exit(void)
{
	debugfs_remove_recursive(metaroce_debugfs_root);
	metaroce_debugfs_root = NULL;
}
