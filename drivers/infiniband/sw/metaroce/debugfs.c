// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: debugfs, /sys/kernel/debug/metaroce/<device>/.
 *
 * "info" describes the binding, "counters" repeats the hardware counters,
 * "qps" shows the state of every QP's connection and of each of its paths,
 * "linger" the records that closed connections left (linger.c).
 * The directory keeps the name the device had when it was registered.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "metaroce.h"
#include "proto/conn.h"
#include "proto/params.h"

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

static const char *const qp_state_names[] = {
	[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT", [IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS", [IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

static void qp_conn_show(struct seq_file *s, const struct metaroce_qp *qp)
{
	const struct mr_conn *c = qp->conn;
	unsigned int i;

	seq_printf(s, "  tx: una %u nxt %u in_flight %u lost %u retries %u backoff %u\n",
		   c->tx.una, c->tx.nxt, c->tx.in_flight, c->tx.nlost, c->tx.retries,
		   c->tx.backoff);
	seq_printf(s, "  cc: cwnd %u alpha %u rate_hint %u srtt_ns %llu rttvar_ns %llu min_rtt_ns %llu\n",
		   c->cc.cwnd >> MR_FP_SHIFT, c->cc.alpha, c->cc.rate_hint,
		   c->paths.conn.srtt, c->paths.conn.rttvar, c->paths.conn.min);
	seq_printf(s, "  loss: congestive %llu random %llu paths_retired %llu\n",
		   c->cc.stat_loss_cong, c->cc.stat_loss_random, c->paths.stat_retired);
	seq_printf(s, "  sent: pkts %llu retx %llu spurious %llu probes %llu rto %llu acks %llu\n",
		   c->stats.tx_pkts, c->tx.stat_retx, c->tx.stat_spurious,
		   c->stats.tx_probes, c->tx.stat_rto, c->stats.acks_sent);
	seq_printf(s, "  rto: shift %u spurious %llu\n", c->tx.rto_shift, c->tx.stat_spurious_rto);
	/* Timer precision (spec): whether timeouts may fire late now. */
	seq_printf(s, "  timeouts: %s\n",
		   mr_conn_loss_quiet(c, ktime_get_ns()) ? "quiet" : "precise");
	/* Waiting for responses (spec): probes with a request, unanswered ones. */
	seq_printf(s, "  rsp: waiting %u probes %llu unanswered %u\n",
		   c->rsp_waiting, c->stats.tx_rsp_probes, c->rsp_probes);
	seq_printf(s, "  rcvd: pkts %llu dup %llu stale %llu beyond %llu bad_token %llu nak %llu cack %u\n",
		   c->stats.rx_pkts, c->stats.rx_dup, c->stats.rx_stale,
		   c->stats.rx_beyond, c->stats.rx_bad_token, c->stats.rx_nak,
		   c->rx.cack);
	/* Responses before RTS (spec): which side started from a derived PSN. */
	seq_printf(s, "  disn: tx %u rx_mode %u bad_disn %llu\n",
		   c->tx_disn, c->rx_mode, c->stats.rx_bad_disn);
	seq_printf(s, "  uc: %u bad_type %llu msgs_lost %llu holes %llu discarded %llu skip %u\n",
		   c->cfg.uc, c->stats.rx_bad_type, c->stats.uc_msgs_lost, c->stats.uc_holes,
		   c->stats.uc_discarded, c->uc_skip);
	/* Segments (spec): what the next message gets, what we and the peer take. */
	seq_printf(s, "  seg: path_mtu %u tx %u own %u rx %u peer_rx %u blackhole %u\n",
		   c->cfg.mtu, mr_conn_tx_seg(c), c->cfg.seg, c->cfg.rx_seg, c->peer_rx_seg,
		   c->pmtu_blackhole);
	for (i = 0; i < c->paths.n; i++) {
		const struct mr_path *p = &c->paths.p[i];
		/* The MTU of the route the datapath keeps for the path; 0: none yet. */
		unsigned int mtu = qp->routes && i < qp->n_paths ? qp->routes[i].mtu : 0;

		seq_printf(s,
			   "  path %u: %s weight %u srtt_ns %llu ce_frac %u losses %llu sent %u retx %llu probe_ival_us %llu route_mtu %u\n",
			   i, p->up ? "up" : p->probing ? "retired (probing)" : "retired",
			   p->weight, p->rtt.srtt, p->ce_frac, p->losses, c->tx.path_seq[i],
			   p->stat_retx, div_u64(p->probe_ival_ns, NSEC_PER_USEC), mtu);
	}
}

/*
 * Destroy takes qps_lock to unpublish a QP, so a QP found here stays until
 * the walk ends; its mutex and a pause keep the transport still while it is read.
 */
static int qps_show(struct seq_file *s, void *unused)
{
	struct metaroce_dev *mdev = s->private;
	struct metaroce_qp *qp;
	unsigned long qpn;

	mutex_lock(&mdev->qps_lock);
	xa_for_each(&mdev->qp_xa, qpn, qp) {
		mutex_lock(&qp->mutex);
		metaroce_qp_pause(qp);
		seq_printf(s, "qp %lu: %s%s peer %u sq %u/%u/%u ", qpn,
			   qp_state_names[qp->state], qp->user ? " user" : "",
			   qp->attr.dest_qp_num, qp->sq_done, qp->sq_copy,
			   READ_ONCE(qp->sq.ring->prod));
		if (qp->srq)	/* no ring of its own: the next RMSN to complete */
			seq_printf(s, "srq %u\n", qp->bind_next);
		else
			seq_printf(s, "rq %u/%u\n", qp->rq_done,
				   READ_ONCE(qp->rq.ring->prod));
		if (qp->conn)
			qp_conn_show(s, qp);
		metaroce_qp_resume(qp);
		mutex_unlock(&qp->mutex);
	}
	mutex_unlock(&mdev->qps_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qps);

static int linger_show(struct seq_file *s, void *unused)
{
	metaroce_linger_show(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(linger);

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
	debugfs_create_file("qps", 0400, mdev->debugfs, mdev, &qps_fops);
	debugfs_create_file("linger", 0400, mdev->debugfs, mdev, &linger_fops);
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
