// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: records of closed connections that answer the retransmissions
 * of what they had received (Documentation/infiniband/metaroce.rst, "The
 * last ACK"). Verbs has no closing handshake: the receiver of the last
 * message may destroy its QP before its ACK of that message has arrived,
 * and if that ACK was lost the sender would fail a message that was
 * delivered.
 *
 * A device keeps at most METAROCE_LINGER_MAX records, by QP number, for
 * MR_LINGER_NS each. They are added under linger_lock, oldest first on
 * linger_list (all live equally long, so that is also expiry order), and
 * looked up under RCU by the receive path. A delayed work frees expired
 * ones.
 */

#include <linux/hashtable.h>
#include <linux/seq_file.h>
#include <net/inet_ecn.h>

#include "metaroce.h"
#include "proto/linger.h"
#include "proto/params.h"

/* Records per device; beyond, the oldest goes. */
#define METAROCE_LINGER_MAX	1024

struct metaroce_linger {
	struct hlist_node hnode;	/* mdev->linger_ht, RCU */
	struct list_head lnode;		/* mdev->linger_list, oldest first */
	struct rcu_head rcu;
	u32 qpn;
	u64 expires;			/* ktime_get_ns() */
	struct metaroce_dp_dest dest;	/* the peer, as the QP sent to it */
	u16 sport_base;
	atomic_t next_path;
	struct mr_linger rx;
};

/* Under mdev->linger_lock. */
static void metaroce_linger_unlink(struct metaroce_dev *mdev, struct metaroce_linger *l)
{
	hash_del_rcu(&l->hnode);
	list_del(&l->lnode);
	WRITE_ONCE(mdev->linger_num, mdev->linger_num - 1);
	kfree_rcu(l, rcu);
}

/* Under mdev->linger_lock: drop expired records. Returns the next expiry, U64_MAX if none. */
static u64 metaroce_linger_expire(struct metaroce_dev *mdev, u64 now)
{
	struct metaroce_linger *l, *tmp;

	list_for_each_entry_safe(l, tmp, &mdev->linger_list, lnode) {
		if (l->expires > now)
			return l->expires;
		metaroce_linger_unlink(mdev, l);
	}
	return U64_MAX;
}

static void metaroce_linger_gc_at(struct metaroce_dev *mdev, u64 when, u64 now)
{
	queue_delayed_work(system_wq, &mdev->linger_gc, nsecs_to_jiffies(when - now) + 1);
}

static void metaroce_linger_gc(struct work_struct *work)
{
	struct metaroce_dev *mdev = container_of(to_delayed_work(work),
						 struct metaroce_dev, linger_gc);
	u64 now = ktime_get_ns(), next;

	spin_lock_bh(&mdev->linger_lock);
	next = metaroce_linger_expire(mdev, now);
	if (next != U64_MAX)
		metaroce_linger_gc_at(mdev, next, now);
	spin_unlock_bh(&mdev->linger_lock);
}

/*
 * @qp leaves RTR and RTS (to ERR or RESET, or destroyed), its transport held
 * still: keep what its receive direction had received, if anything. Any
 * context the transport runs in.
 */
void metaroce_linger_add(struct metaroce_qp *qp)
{
	struct metaroce_dev *mdev = qp->mdev;
	struct metaroce_linger *l, *old;
	u64 now = ktime_get_ns();

	if (qp->ibqp.qp_type != IB_QPT_RC || !qp->conn || qp->has_fatal_nak ||
	    (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS))
		return;
	l = kzalloc(sizeof(*l), GFP_ATOMIC);
	if (!l)
		return;		/* as if the record had expired */
	if (!mr_conn_linger(qp->conn, &l->rx)) {
		kfree(l);
		return;
	}
	l->qpn = qp->ibqp.qp_num;
	l->expires = now + MR_LINGER_NS;
	l->dest = qp->dest;
	l->dest.route = NULL;
	l->sport_base = qp->sport_base;

	spin_lock_bh(&mdev->linger_lock);
	metaroce_linger_expire(mdev, now);
	hash_for_each_possible(mdev->linger_ht, old, hnode, l->qpn) {
		if (old->qpn == l->qpn) {
			metaroce_linger_unlink(mdev, old);
			break;
		}
	}
	if (mdev->linger_num >= METAROCE_LINGER_MAX)
		metaroce_linger_unlink(mdev, list_first_entry(&mdev->linger_list,
							      struct metaroce_linger, lnode));
	hash_add_rcu(mdev->linger_ht, &l->hnode, l->qpn);
	list_add_tail(&l->lnode, &mdev->linger_list);
	WRITE_ONCE(mdev->linger_num, mdev->linger_num + 1);
	/* Pending already if an older record is left; else this one is next. */
	if (mdev->linger_num == 1)
		metaroce_linger_gc_at(mdev, l->expires, now);
	spin_unlock_bh(&mdev->linger_lock);
}

static void metaroce_linger_send(struct metaroce_dev *mdev, struct metaroce_linger *l,
				 const struct mr_pkt *ack)
{
	struct metaroce_datapath *dp = mdev->dp;
	struct metaroce_dp_dest dest = l->dest;
	struct sk_buff *skb;

	skb = metaroce_pkt_new(ack);
	if (IS_ERR(skb))
		return;
	mr_pkt_icrc_put(skb->data, skb->len - MR_ICRC_LEN);
	dest.sport = htons(metaroce_sport(l->sport_base, ack->path));
	metaroce_count(&mdev->counters, METAROCE_CNT_TX_PACKETS);
	metaroce_count(&mdev->counters, METAROCE_CNT_SACK_TX);
	metaroce_count(&mdev->counters, METAROCE_CNT_LINGER_ACK_TX);
	dp->ops->xmit(dp, skb, &dest);
}

/*
 * Softirq: a packet that found no QP in RTR or RTS. True if a record of
 * the connection it belongs to answered it.
 */
bool metaroce_linger_rcv(struct metaroce_dev *mdev, const struct mr_pkt *pkt,
			 const struct metaroce_dp_rx_info *info)
{
	struct metaroce_linger *l;
	struct mr_pkt ack;
	bool found = false;
	u8 path;

	if (!READ_ONCE(mdev->linger_num))
		return false;
	rcu_read_lock();
	hash_for_each_possible_rcu(mdev->linger_ht, l, hnode, pkt->dqpn) {
		if (l->qpn != pkt->dqpn)
			continue;
		if (l->expires <= ktime_get_ns() ||
		    !ipv6_addr_equal(&info->saddr, &l->dest.daddr))
			break;
		path = (u32)atomic_inc_return(&l->next_path) % l->rx.n_paths;
		found = mr_linger_ack(&l->rx, pkt, info->ecn == INET_ECN_CE, path, &ack);
		if (found)
			metaroce_linger_send(mdev, l, &ack);
		break;
	}
	rcu_read_unlock();
	return found;
}

/* debugfs "linger": the records, oldest first; expired ones until the work frees them. */
void metaroce_linger_show(struct seq_file *s, struct metaroce_dev *mdev)
{
	struct metaroce_linger *l;
	u64 now = ktime_get_ns();

	spin_lock_bh(&mdev->linger_lock);
	list_for_each_entry(l, &mdev->linger_list, lnode)
		seq_printf(s, "qp %u: peer %pI6c qpn %u cack %u rx_cnt %u ms_left %llu\n",
			   l->qpn, &l->dest.daddr, l->rx.peer_qpn, l->rx.rx.cack,
			   l->rx.rx_cnt,
			   l->expires > now ? div_u64(l->expires - now, NSEC_PER_MSEC) : 0);
	spin_unlock_bh(&mdev->linger_lock);
}

void metaroce_linger_init(struct metaroce_dev *mdev)
{
	spin_lock_init(&mdev->linger_lock);
	hash_init(mdev->linger_ht);
	INIT_LIST_HEAD(&mdev->linger_list);
	INIT_DELAYED_WORK(&mdev->linger_gc, metaroce_linger_gc);
}

/* The device goes away: nothing receives for it any more. */
void metaroce_linger_destroy(struct metaroce_dev *mdev)
{
	cancel_delayed_work_sync(&mdev->linger_gc);
	spin_lock_bh(&mdev->linger_lock);
	metaroce_linger_expire(mdev, U64_MAX);
	spin_unlock_bh(&mdev->linger_lock);
}
