// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: debugfs "xmit_test", test-only segment generator.
 *
 * Writing "ADDR SPORT COUNT [PATHS]" sends COUNT valid SEND packets (8 bytes
 * of payload, QP 1) to ADDR (IPv4 or IPv6) through the device's datapath,
 * from source ports SPORT .. SPORT + PATHS - 1 in turn. It exists for the
 * datapath selftests until QPs carry traffic; root only, as all of debugfs.
 */

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <metaroce/wire.h>

#include "metaroce.h"
#include "proto/pkt.h"

#define XMIT_TEST_PAYLOAD	8
#define XMIT_TEST_MAX_COUNT	100000

static struct sk_buff *xmit_test_skb(u32 psn)
{
	struct mr_pkt pkt = {
		.opcode = MR_OP_SEND,
		.dqpn = 1,
		.psn = psn,
		.mlen = XMIT_TEST_PAYLOAD,
		.paylen = XMIT_TEST_PAYLOAD,
	};
	unsigned int len = MR_HDR_SEND + XMIT_TEST_PAYLOAD;
	struct sk_buff *skb;
	u8 *p;

	skb = alloc_skb(metaroce_dp_headroom() + len + MR_ICRC_LEN, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, metaroce_dp_headroom());
	p = skb_put_zero(skb, len + MR_ICRC_LEN);
	if (mr_pkt_encode(&pkt, p, len) != MR_HDR_SEND) {
		kfree_skb(skb);
		return NULL;
	}
	mr_pkt_icrc_put(p, len);
	return skb;
}

static ssize_t xmit_test_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct metaroce_dev *mdev = file->private_data;
	struct metaroce_dp_dest dest = { .hop_limit = 0 };
	unsigned int sport, n, paths = 1, i;
	char buf[80], addr[INET6_ADDRSTRLEN];
	int ret;

	if (!mdev->dp)
		return -ENODEV;
	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	if (sscanf(buf, "%45s %u %u %u", addr, &sport, &n, &paths) < 3 ||
	    !sport || sport + paths - 1 > U16_MAX || !paths ||
	    paths > U16_MAX || n > XMIT_TEST_MAX_COUNT)
		return -EINVAL;
	if (in4_pton(addr, -1, (u8 *)&dest.daddr.s6_addr32[3], -1, NULL))
		ipv6_addr_set_v4mapped(dest.daddr.s6_addr32[3], &dest.daddr);
	else if (!in6_pton(addr, -1, dest.daddr.s6_addr, -1, NULL))
		return -EINVAL;
	/* An unspecified source (v4-mapped for IPv4): the route chooses. */
	if (ipv6_addr_v4mapped(&dest.daddr))
		ipv6_addr_set_v4mapped(0, &dest.saddr);

	for (i = 0; i < n; i++) {
		struct sk_buff *skb = xmit_test_skb(i);

		if (!skb)
			return -ENOMEM;
		dest.sport = htons(sport + i % paths);
		ret = mdev->dp->ops->xmit(mdev->dp, skb, &dest);
		if (ret)
			return ret;
		cond_resched();
	}
	return count;
}

static const struct file_operations xmit_test_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = xmit_test_write,
};

void metaroce_xmit_test_add(struct metaroce_dev *mdev)
{
	debugfs_create_file("xmit_test", 0200, mdev->debugfs, mdev,
			    &xmit_test_fops);
}
