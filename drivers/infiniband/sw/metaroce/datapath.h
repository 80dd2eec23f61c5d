/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: the interface between the transport and a datapath.
 *
 * The transport (QPs and the protocol core) builds MetaRoCE segments and
 * decides on which path each one goes; a datapath only moves segments
 * between a device and the network. Two datapaths are planned: the
 * software one (UDP sockets in the namespace of the device's netdev) and a
 * Pensando firmware one. Nothing here knows the wire format.
 *
 * Life cycle: the device opens its datapath just before it is registered
 * and closes it in dealloc_driver; after close() returns, the datapath
 * calls nothing of the device and holds no skb or reference of it.
 */

#ifndef METAROCE_DATAPATH_H
#define METAROCE_DATAPATH_H

#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/udp.h>
#include <net/dst.h>

struct metaroce_dev;
struct metaroce_datapath;

/*
 * The route of one destination and path, kept by a datapath between
 * segments (the software datapath looks it up once, not per packet). Its
 * owner zeroes it, sends through it from one context at a time, and calls
 * metaroce_dp_route_release() when the destination changes and before
 * freeing it.
 */
struct metaroce_dp_route {
	struct dst_entry *dst;
	struct in6_addr saddr;	/* the source address chosen with it */
	u32 cookie;		/* IPv6: what dst_check() compares */
	unsigned int mtu;	/* the route's MTU at the last segment; 0: none yet */
};

static inline void metaroce_dp_route_release(struct metaroce_dp_route *route)
{
	dst_release(route->dst);
	route->dst = NULL;
}

/*
 * Where a segment goes. Addresses are IPv6 or IPv4-mapped IPv6 (as in
 * RoCE v2 GIDs); the datapath picks the family from the destination.
 */
struct metaroce_dp_dest {
	struct in6_addr saddr;	/* unspecified: the route chooses */
	struct in6_addr daddr;
	__be16 sport;		/* the path: chosen by the transport */
	u8 tos;			/* DSCP; the datapath sets ECN to ECT(0) */
	u8 hop_limit;		/* 0: the route's default */
	__be32 flow_label;	/* IPv6 only; 0 lets the stack choose */
	int ifindex;		/* the source address's netdev; 0: the device's */
	struct metaroce_dp_route *route;	/* NULL: look the route up */
	/*
	 * Let it pass in fragments (IPv4: DF clear, for routers; IPv6: the
	 * sender's own, of IPV6_MIN_MTU): the connection found that larger
	 * packets vanish without an ICMP answer (spec, "Segments").
	 */
	bool frag_ok;
};

/* What the datapath tells the transport about a received segment. */
struct metaroce_dp_rx_info {
	struct in6_addr saddr;
	struct in6_addr daddr;
	__be16 sport;		/* the peer's path */
	u8 ecn;			/* INET_ECN_* of the outer IP header */
	int addr_ifindex;	/* the netdev holding daddr (its GID entry's) */
};

struct metaroce_datapath_ops {
	const char *name;

	/*
	 * Create the datapath of @mdev (sockets or firmware queues in
	 * metaroce_net(@mdev)) and store it in *@dp. Process context, may
	 * sleep. Segments may be delivered (metaroce_dp_rcv()) as soon as
	 * open returns.
	 */
	int (*open)(struct metaroce_dev *mdev, struct metaroce_datapath **dp);

	/*
	 * Stop receiving, wait for receive and transmit in progress, free.
	 * Process context, may sleep.
	 */
	void (*close)(struct metaroce_datapath *dp);

	/*
	 * Send one segment: @skb holds it from skb->data, with at least
	 * metaroce_dp_headroom() bytes of headroom for the outer headers.
	 * The datapath consumes @skb in every case. Returns 0 if the packet
	 * was handed to the network (not a delivery guarantee), or a
	 * negative errno if it was dropped here: -ENETUNREACH (no route),
	 * -ENOBUFS (queue full; the transport treats it as a loss and backs
	 * off). A segment larger than its route's MTU (the netdev's was
	 * lowered, or a router reported a smaller one, under a message) is
	 * sent in IP fragments.
	 * @dest->route may keep the route for the next segment of the same
	 * destination and path; the caller serialises sends through it. When
	 * the MTU of a kept route changes, or a new one is below its
	 * netdev's, the datapath records it there and calls
	 * metaroce_dp_mtu_changed().
	 * Context: process or softirq; never hard irq.
	 */
	int (*xmit)(struct metaroce_datapath *dp, struct sk_buff *skb,
		    const struct metaroce_dp_dest *dest);
};

/* A datapath instance; implementations embed it. */
struct metaroce_datapath {
	const struct metaroce_datapath_ops *ops;
	struct metaroce_dev *mdev;
};

/* Headroom a transmitted skb needs for Ethernet, IPv6 and UDP headers. */
static inline unsigned int metaroce_dp_headroom(void)
{
	return LL_MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(struct udphdr);
}

/*
 * Implemented by the transport: the datapath hands it every received
 * segment, skb->data at the MetaRoCE header, outer headers pulled. The
 * transport consumes @skb and validates everything in it.
 * Context: softirq (or process with BH disabled).
 */
void metaroce_dp_rcv(struct metaroce_dev *mdev, struct sk_buff *skb,
		     const struct metaroce_dp_rx_info *info);

/*
 * Implemented by the transport: the MTU of a route kept in a
 * metaroce_dp_route changed (path MTU discovery); the transport sizes the
 * segments of later messages again. Any context.
 */
void metaroce_dp_mtu_changed(struct metaroce_dev *mdev);

#endif /* METAROCE_DATAPATH_H */
