// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: the first stage of receive, from the datapath to a connection.
 *
 * Nothing in a packet is used before the protocol core has validated it
 * (proto/pkt.c, Documentation/infiniband/metaroce.rst "Validation"); a packet
 * that fails is counted under its first failed check and dropped.
 */

#include <net/inet_ecn.h>
#include <metaroce/wire.h>

#include "metaroce.h"
#include "proto/pkt.h"

/* The largest UDP payload the protocol defines. */
#define METAROCE_RX_MAX	(MR_HDR_MAX + MR_MAX_PAYLOAD + MR_ICRC_LEN)

static_assert(METAROCE_CNT_RX_ERR_NAK - METAROCE_CNT_RX_ERR_SHORT ==
	      MR_PERR_NAK - MR_PERR_SHORT);
static_assert(MR_PERR_NAK + 1 == MR_PERR_NUM);

static void metaroce_rx_malformed(struct metaroce_dev *mdev, enum mr_perr err)
{
	metaroce_count(&mdev->counters, METAROCE_CNT_RX_MALFORMED);
	metaroce_count(&mdev->counters,
		       METAROCE_CNT_RX_ERR_SHORT + (err - MR_PERR_SHORT));
}

/*
 * The connection stage: the QP named by the packet takes it (transport.c),
 * which checks the token, the peer address and everything else.
 */
static void metaroce_rx_conn(struct metaroce_dev *mdev, struct sk_buff *skb,
			     const struct mr_pkt *pkt,
			     const struct metaroce_dp_rx_info *info)
{
	metaroce_qp_rcv(mdev, skb, pkt, info);
}

void metaroce_dp_rcv(struct metaroce_dev *mdev, struct sk_buff *skb,
		     const struct metaroce_dp_rx_info *info)
{
	enum mr_perr err;
	struct mr_pkt pkt;
	u32 len = skb->len;

	/* Too short or too long for any packet: no need to look inside. */
	if (len < MR_BTH_LEN + MR_ICRC_LEN) {
		err = MR_PERR_SHORT;
		goto malformed;
	}
	if (len > METAROCE_RX_MAX) {
		err = MR_PERR_LENGTH;
		goto malformed;
	}

	/*
	 * The ICRC covers the whole packet, so all of it is read here: at
	 * most METAROCE_RX_MAX bytes. Placement will copy the payload from
	 * where it lies, and this may then shrink to the headers.
	 */
	if (skb_linearize(skb)) {
		metaroce_count(&mdev->counters, METAROCE_CNT_RX_NOMEM);
		goto drop;
	}

	if (!mr_pkt_icrc_ok(skb->data, len)) {
		err = MR_PERR_ICRC;
		goto malformed;
	}
	err = mr_pkt_decode(skb->data, len, &pkt);
	if (err != MR_PERR_OK)
		goto malformed;

	if (info->ecn == INET_ECN_CE)
		metaroce_count(&mdev->counters, METAROCE_CNT_ECN_MARKED_RX);

	metaroce_rx_conn(mdev, skb, &pkt, info);
	return;

malformed:
	metaroce_rx_malformed(mdev, err);
drop:
	kfree_skb(skb);
}
