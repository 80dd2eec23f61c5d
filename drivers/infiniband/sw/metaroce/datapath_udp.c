// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: the software datapath, segments in UDP over the device's netdev.
 *
 * Sockets: one kernel UDP tunnel socket pair (IPv4, and IPv6 if the kernel
 * has it) per (namespace, port), shared by every device of that namespace
 * and demultiplexed by destination address. Sockets bound to each device's
 * netdev would not do: a packet between two devices of one namespace (or one
 * kernel, through a shared namespace) arrives on lo, where no socket bound
 * to the netdev matches, and the stack would answer "port unreachable". The
 * address a packet is sent to names the netdev that owns it, whichever
 * interface it came in on, and so the device (that of the netdev, or the one
 * below it whose GID table holds the address); where VRFs hold the same
 * address, the VRF the packet came in through names which.
 *
 * A device's namespace is that of its netdev, fixed for the device's life:
 * a netdev leaving the namespace takes its device with it (main.c), so the
 * sockets never move.
 */

#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_fib.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/l3mdev.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_cache.h>
#include <metaroce/wire.h>

#include "metaroce.h"
#include "datapath_udp.h"

static ushort udp_port = MR_UDP_PORT;
module_param(udp_port, ushort, 0644);
MODULE_PARM_DESC(udp_port,
		 "UDP destination port of devices created from now on (default 4793)");

/* The sockets of one (namespace, port), shared by the devices there. */
struct metaroce_udp_sock {
	struct list_head node;		/* on metaroce_udp_socks */
	struct net *net;		/* no reference: see metaroce_udp_open() */
	__be16 port;
	unsigned int users;		/* devices; under metaroce_udp_lock */
	struct socket *sock4;
	struct socket *sock6;		/* NULL if IPv6 is not available */
	struct list_head devs;		/* metaroce_udp_dp.node; RCU readers */
};

struct metaroce_udp_dp {
	struct metaroce_datapath dp;
	struct metaroce_udp_sock *us;
	struct list_head node;		/* on us->devs */
};

static LIST_HEAD(metaroce_udp_socks);
static DEFINE_MUTEX(metaroce_udp_lock);	/* the list, users, devs writers */

static struct metaroce_udp_dp *to_udp_dp(struct metaroce_datapath *dp)
{
	return container_of(dp, struct metaroce_udp_dp, dp);
}

/* Whether @ndev has the IPv4 address @addr; RCU read side. */
static bool metaroce_udp_has_addr4(struct net_device *ndev, __be32 addr)
{
	const struct in_device *in_dev = __in_dev_get_rcu(ndev);
	const struct in_ifaddr *ifa;

	if (!in_dev)
		return false;
	in_dev_for_each_ifa_rcu(ifa, in_dev)
		if (ifa->ifa_local == addr)
			return true;
	return false;
}

/* Whether @ndev, in the L3 domain (VRF) @l3, has @daddr; RCU read side. */
static bool metaroce_udp_owns(struct net_device *ndev, int l3,
			      const struct in6_addr *daddr)
{
	if (l3mdev_master_ifindex_rcu(ndev) != l3)
		return false;
	if (ipv6_addr_v4mapped(daddr))
		return metaroce_udp_has_addr4(ndev, daddr->s6_addr32[3]);
	return IS_ENABLED(CONFIG_IPV6) &&
	       ipv6_chk_addr(dev_net(ndev), daddr, ndev, 1);
}

/* Whether @mdev's GID table holds @daddr on @ndev; RCU read side. */
static bool metaroce_udp_has_gid(struct metaroce_dev *mdev,
				 const struct in6_addr *daddr,
				 struct net_device *ndev)
{
	const struct ib_gid_attr *attr = metaroce_find_gid(mdev, daddr, ndev);

	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/*
 * The device whose netdev owns @daddr in the L3 domain the packet came in
 * through (@ingress: a VRF device, one of its slaves, lo or another netdev),
 * and in *@addr_dev the netdev that holds @daddr; RCU read side. VRFs may
 * hold the same address, so an address alone does not name the netdev. The
 * namespace-wide lookup answers the common case; when its netdev is in
 * another domain, or it finds none (ipv6_dev_find() without a device passes
 * over the addresses of VRF slaves), each device's netdev is asked in turn:
 * a few checks for a packet to a VRF's address, or to none of ours.
 *
 * An address of a netdev stacked on a device's (a VLAN, or a bridge, bond or
 * VRF with it as a port) is in that device's GID table, as ib_core filled
 * it, and a QP may send from it: the first device whose table holds it takes
 * the packet. That search, as rxe makes for every packet, is made only for
 * an address that no device's own netdev has.
 */
static struct metaroce_dev *metaroce_udp_demux(struct metaroce_udp_sock *us,
					       const struct net_device *ingress,
					       const struct in6_addr *daddr,
					       struct net_device **addr_dev)
{
	int l3 = l3mdev_master_ifindex_rcu(ingress);
	bool v4 = ipv6_addr_v4mapped(daddr);
	struct metaroce_udp_dp *udp;
	struct net_device *ndev;

	if (v4)
		ndev = __ip_dev_find(us->net, daddr->s6_addr32[3], false);
	else if (IS_ENABLED(CONFIG_IPV6))
		ndev = ipv6_dev_find(us->net, daddr, NULL);
	else
		return NULL;
	if (!ndev && v4)
		return NULL;	/* no netdev of the namespace has it */
	if (ndev && l3mdev_master_ifindex_rcu(ndev) != l3)
		ndev = NULL;

	list_for_each_entry_rcu(udp, &us->devs, node) {
		struct net_device *own = udp->dp.mdev->ndev;

		if (ndev ? own == ndev : metaroce_udp_owns(own, l3, daddr)) {
			*addr_dev = own;
			return udp->dp.mdev;
		}
	}
	if (!ndev)
		return NULL;
	list_for_each_entry_rcu(udp, &us->devs, node) {
		if (metaroce_udp_has_gid(udp->dp.mdev, daddr, ndev)) {
			*addr_dev = ndev;
			return udp->dp.mdev;
		}
	}
	return NULL;
}

/*
 * encap_rcv of both sockets, in softirq under rcu_read_lock. skb->data is at
 * the UDP header; the stack has checked the UDP length and checksum and
 * trimmed the skb to the datagram. Returns 0: the skb is always consumed.
 */
static int metaroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct metaroce_udp_sock *us = rcu_dereference_sk_user_data(sk);
	struct metaroce_dp_rx_info info;
	struct net_device *addr_dev;
	struct metaroce_dev *mdev;
	u8 dsfield;

	if (!us)
		goto drop;

	info.sport = udp_hdr(skb)->source;
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		ipv6_addr_set_v4mapped(iph->saddr, &info.saddr);
		ipv6_addr_set_v4mapped(iph->daddr, &info.daddr);
		dsfield = iph->tos;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		info.saddr = ip6h->saddr;
		info.daddr = ip6h->daddr;
		dsfield = ipv6_get_dsfield(ip6h);
	} else {
		goto drop;
	}
	info.ecn = dsfield & INET_ECN_MASK;

	mdev = metaroce_udp_demux(us, skb->dev, &info.daddr, &addr_dev);
	if (!mdev)
		goto drop;	/* no device owns the address: not ours */
	info.addr_ifindex = addr_dev->ifindex;

	__skb_pull(skb, sizeof(struct udphdr));
	metaroce_count(&mdev->counters, METAROCE_CNT_DP_RX_PACKETS);
	metaroce_count_add(&mdev->counters, METAROCE_CNT_DP_RX_BYTES, skb->len);
	metaroce_dp_rcv(mdev, skb, &info);
	return 0;

drop:
	kfree_skb(skb);
	return 0;
}

/*
 * encap_err_lookup of both sockets: an ICMP error about a packet we sent
 * (the stack found this socket by the packet's destination port, the same at
 * both ends) is ours. The stack then keeps a reported MTU ("fragmentation
 * needed", "packet too big") with the route (path MTU discovery, spec
 * "Segments"), where the transmit path finds it. 6.12 keeps it for any UDP
 * packet; 6.1's IPv6 only for a socket that claims the error. Nothing else
 * in the error is read.
 */
static int metaroce_udp_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return 0;
}

static struct socket *metaroce_udp_sock_create(struct net *net, __be16 port,
					       bool ipv6,
					       struct metaroce_udp_sock *us)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.sk_user_data = us,
		.encap_type = 1,
		.encap_rcv = metaroce_udp_encap_rcv,
		.encap_err_lookup = metaroce_udp_err_lookup,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = port,
	};
	struct socket *sock;
	int ret;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
	} else {
		cfg.family = AF_INET;
	}

	ret = udp_sock_create(net, &cfg, &sock);
	if (ret < 0)
		return ERR_PTR(ret);

	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

/* The sockets of (@net, @port), created on first use; under metaroce_udp_lock. */
static struct metaroce_udp_sock *metaroce_udp_sock_get(struct net *net,
						       __be16 port)
{
	struct metaroce_udp_sock *us;
	struct socket *sock;

	list_for_each_entry(us, &metaroce_udp_socks, node) {
		if (net_eq(us->net, net) && us->port == port) {
			us->users++;
			return us;
		}
	}

	us = kzalloc(sizeof(*us), GFP_KERNEL);
	if (!us)
		return ERR_PTR(-ENOMEM);
	us->net = net;
	us->port = port;
	us->users = 1;
	INIT_LIST_HEAD(&us->devs);

	sock = metaroce_udp_sock_create(net, port, false, us);
	if (IS_ERR(sock)) {
		kfree(us);
		return ERR_CAST(sock);
	}
	us->sock4 = sock;

	/* A kernel without IPv6 (ipv6.disable=1) still carries IPv4. */
	if (IS_ENABLED(CONFIG_IPV6)) {
		sock = metaroce_udp_sock_create(net, port, true, us);
		if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT) {
			udp_tunnel_sock_release(us->sock4);
			synchronize_net();
			kfree(us);
			return ERR_CAST(sock);
		}
		us->sock6 = IS_ERR(sock) ? NULL : sock;
	}

	list_add(&us->node, &metaroce_udp_socks);
	return us;
}

/* Under metaroce_udp_lock. */
static void metaroce_udp_sock_put(struct metaroce_udp_sock *us)
{
	if (--us->users)
		return;

	list_del(&us->node);
	if (us->sock6)
		udp_tunnel_sock_release(us->sock6);
	udp_tunnel_sock_release(us->sock4);
	/*
	 * A receiver that found a socket before its release may still be in
	 * metaroce_udp_encap_rcv(), reading us: wait for it, which also keeps
	 * the module from going away under it.
	 */
	synchronize_net();
	kfree(us);
}

/*
 * The namespace is not referenced: kernel sockets do not hold it, and a
 * namespace going away removes its devices (and so closes their datapaths)
 * in metaroce_net_exit() before it is freed.
 */
static int metaroce_udp_open(struct metaroce_dev *mdev,
			     struct metaroce_datapath **dpp)
{
	u16 port = READ_ONCE(udp_port);
	struct metaroce_udp_sock *us;
	struct metaroce_udp_dp *udp;

	/* Port 0 would bind a random port that no peer knows. */
	if (!port)
		return -EINVAL;

	udp = kzalloc(sizeof(*udp), GFP_KERNEL);
	if (!udp)
		return -ENOMEM;
	udp->dp.ops = &metaroce_udp_dp_ops;
	udp->dp.mdev = mdev;

	mutex_lock(&metaroce_udp_lock);
	us = metaroce_udp_sock_get(metaroce_net(mdev), htons(port));
	if (IS_ERR(us)) {
		mutex_unlock(&metaroce_udp_lock);
		kfree(udp);
		return PTR_ERR(us);
	}
	udp->us = us;
	list_add_tail_rcu(&udp->node, &us->devs);
	mutex_unlock(&metaroce_udp_lock);

	*dpp = &udp->dp;
	return 0;
}

static void metaroce_udp_close(struct metaroce_datapath *dp)
{
	struct metaroce_udp_dp *udp = to_udp_dp(dp);

	mutex_lock(&metaroce_udp_lock);
	list_del_rcu(&udp->node);
	mutex_unlock(&metaroce_udp_lock);

	/*
	 * Receivers that found the device, and transmitters (which run under
	 * rcu_read_lock_bh), are done after this; none starts again.
	 */
	synchronize_net();

	mutex_lock(&metaroce_udp_lock);
	metaroce_udp_sock_put(udp->us);
	mutex_unlock(&metaroce_udp_lock);

	kfree(udp);
}

/*
 * Whether @skb with @outer bytes of IP and UDP headers fits the MTU of
 * @dst, its route. A segment larger than that (chosen before the netdev's
 * MTU was lowered, or before a router reported a smaller one, for a message
 * already under way: spec "Segments") leaves in IP fragments instead of
 * being dropped, so that the message completes. A kept route records its
 * MTU, and a change tells the transport, which sizes later messages by it;
 * a new route below its netdev's MTU (one learnt before) tells it too.
 */
static bool metaroce_udp_fits(struct metaroce_udp_dp *udp, struct sk_buff *skb,
			      const struct metaroce_dp_dest *dest,
			      struct dst_entry *dst, unsigned int outer)
{
	struct metaroce_dp_route *route = dest->route;
	unsigned int mtu = dst_mtu(dst);

	if (route && unlikely(route->mtu != mtu)) {
		bool known = route->mtu;

		WRITE_ONCE(route->mtu, mtu);
		if (known || mtu < READ_ONCE(dst->dev->mtu))
			metaroce_dp_mtu_changed(udp->dp.mdev);
	}
	if (likely(skb->len + outer <= mtu))
		return true;
	metaroce_count(&udp->dp.mdev->counters, METAROCE_CNT_DP_TX_FRAGMENTED);
	return false;
}

/*
 * The ECN field is the datapath's: always ECT(0) (the spec requires it for
 * data and recommends it for ACK and NAK), whatever @tos carries there.
 */
static u8 metaroce_udp_tos(const struct metaroce_dp_dest *dest)
{
	return (dest->tos & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}

/*
 * The netdev @dest's segments leave through: that of its source address (a
 * GID's, which may be a netdev stacked on the device's, such as a VLAN),
 * else the device's. NULL if it is gone. RCU read side.
 */
static struct net_device *metaroce_udp_out_dev(struct metaroce_udp_dp *udp,
					       const struct metaroce_dp_dest *dest)
{
	if (!dest->ifindex)
		return udp->dp.mdev->ndev;
	return dev_get_by_index_rcu(udp->us->net, dest->ifindex);
}

/*
 * Segments leave through @ndev (the flow's oif), except to an address of the
 * namespace's main tables: another device there, or this one, is reached
 * through lo, and a route bound to the netdev would not exist. A netdev in a
 * VRF is always the oif: the lookup bound to it goes through the VRF's
 * tables, whose local routes reach the VRF's own addresses through the VRF
 * device, and the same address in another VRF is not this device's.
 *
 * The paths are spread by the routers' ECMP hash of the UDP source port, and
 * by the host's own multipath route (metaroce_udp_lookup4/6). The flow
 * carries both ports for that hash and for policy routing, and a kept route
 * is one path's (metaroce_dp_route).
 */
static int metaroce_udp_oif(struct net *net, const struct net_device *ndev,
			    const struct in6_addr *daddr)
{
	bool local;

	if (netif_is_l3_slave(ndev))
		return ndev->ifindex;
	if (ipv6_addr_v4mapped(daddr))
		local = inet_addr_type(net, daddr->s6_addr32[3]) == RTN_LOCAL;
	else
		local = ipv6_chk_addr(net, daddr, NULL, 0);
	return local ? 0 : ndev->ifindex;
}

/*
 * The route kept in @route while dst_check() accepts it (no route, address
 * or device change since) and its device is up, as dst_cache does; a
 * lookup per packet was a twentieth of the kernel's time in ib_write_bw.
 * Returns it with a reference for the caller and its source address.
 */
static struct dst_entry *metaroce_udp_route_get(struct metaroce_dp_route *route,
						struct in6_addr *saddr)
{
	struct dst_entry *dst = route ? route->dst : NULL;

	if (!dst)
		return NULL;
	if (!dst_check(dst, route->cookie) || !(dst->dev->flags & IFF_UP)) {
		metaroce_dp_route_release(route);
		return NULL;
	}
	dst_hold(dst);
	*saddr = route->saddr;
	return dst;
}

/* Keep @dst (a looked-up route the caller holds) for the next segment. */
static void metaroce_udp_route_keep(struct metaroce_dp_route *route,
				    struct dst_entry *dst,
				    const struct in6_addr *saddr, u32 cookie)
{
	if (!route)
		return;
	dst_hold(dst);
	route->dst = dst;
	route->saddr = *saddr;
	route->cookie = cookie;
}

/*
 * A lookup bound to an output interface takes the first next hop of a
 * multipath route (fib_select_path() and its IPv6 twin select only without
 * one), so every path would leave through it. Look up without one first and
 * keep that route if it leaves through @oif, the netdev of the source; else (a
 * route through another interface, a rule on the oif, the VRF's own address)
 * bind the lookup to @oif. @oif 0: an address in the namespace's main
 * tables, reached through lo. The flow names the netdev's VRF (flowi_l3mdev,
 * as the lookup bound to a slave would), so that the unbound lookup, too, is
 * made in the VRF's tables.
 */
static struct rtable *metaroce_udp_lookup4(struct net *net, struct flowi4 *fl4,
					   int oif)
{
	struct flowi4 any = *fl4;
	struct rtable *rt;

	if (oif) {
		any.flowi4_oif = 0;
		rt = ip_route_output_key(net, &any);
		if (!IS_ERR(rt)) {
			if (rt->dst.dev->ifindex == oif) {
				*fl4 = any;
				return rt;
			}
			ip_rt_put(rt);
		}
	}
	fl4->flowi4_oif = oif;
	return ip_route_output_key(net, fl4);
}

static struct dst_entry *metaroce_udp_lookup6(struct net *net, struct sock *sk,
					      struct flowi6 *fl6, int oif)
{
	struct flowi6 any = *fl6;
	struct dst_entry *dst;

	if (oif) {
		any.flowi6_oif = 0;
		dst = ipv6_stub->ipv6_dst_lookup_flow(net, sk, &any, NULL);
		if (!IS_ERR(dst)) {
			if (dst->dev->ifindex == oif) {
				*fl6 = any;
				return dst;
			}
			dst_release(dst);
		}
	}
	fl6->flowi6_oif = oif;
	return ipv6_stub->ipv6_dst_lookup_flow(net, sk, fl6, NULL);
}

static struct rtable *metaroce_udp_route4(struct metaroce_udp_dp *udp,
					  const struct metaroce_dp_dest *dest,
					  struct flowi4 *fl4)
{
	struct net *net = udp->us->net;
	struct net_device *ndev;
	struct in6_addr saddr;
	struct dst_entry *dst;
	struct rtable *rt;

	dst = metaroce_udp_route_get(dest->route, &saddr);
	if (dst) {
		fl4->saddr = saddr.s6_addr32[3];
		return container_of(dst, struct rtable, dst);
	}
	ndev = metaroce_udp_out_dev(udp, dest);
	if (!ndev)
		return ERR_PTR(-ENODEV);
	fl4->flowi4_l3mdev = l3mdev_master_ifindex_rcu(ndev);
	rt = metaroce_udp_lookup4(net, fl4,
				  metaroce_udp_oif(net, ndev, &dest->daddr));
	if (!IS_ERR(rt)) {
		ipv6_addr_set_v4mapped(fl4->saddr, &saddr);
		metaroce_udp_route_keep(dest->route, &rt->dst, &saddr, 0);
	}
	return rt;
}

static struct dst_entry *metaroce_udp_route6(struct metaroce_udp_dp *udp,
					     const struct metaroce_dp_dest *dest,
					     struct sock *sk, struct flowi6 *fl6)
{
	struct net *net = udp->us->net;
	struct net_device *ndev;
	struct dst_entry *dst;

	dst = metaroce_udp_route_get(dest->route, &fl6->saddr);
	if (dst)
		return dst;
	ndev = metaroce_udp_out_dev(udp, dest);
	if (!ndev)
		return ERR_PTR(-ENODEV);
	fl6->flowi6_l3mdev = l3mdev_master_ifindex_rcu(ndev);
	dst = metaroce_udp_lookup6(net, sk, fl6,
				   metaroce_udp_oif(net, ndev, &dest->daddr));
	if (!IS_ERR(dst))
		metaroce_udp_route_keep(dest->route, dst, &fl6->saddr,
					rt6_get_cookie(dst_rt6_info(dst)));
	return dst;
}

static int metaroce_udp_xmit4(struct metaroce_udp_dp *udp, struct sk_buff *skb,
			      const struct metaroce_dp_dest *dest)
{
	struct sock *sk = udp->us->sock4->sk;
	u8 tos = metaroce_udp_tos(dest);
	struct flowi4 fl4 = {
		.flowi4_tos = RT_TOS(tos),
		.flowi4_proto = IPPROTO_UDP,
		.daddr = dest->daddr.s6_addr32[3],
		.saddr = dest->saddr.s6_addr32[3],
		.fl4_sport = dest->sport,
		.fl4_dport = udp->us->port,
	};
	struct rtable *rt;
	__be16 df;
	u8 ttl;

	rt = metaroce_udp_route4(udp, dest, &fl4);
	if (IS_ERR(rt))
		return -ENETUNREACH;
	df = metaroce_udp_fits(udp, skb, dest, &rt->dst, sizeof(struct iphdr) +
			       sizeof(struct udphdr)) && !dest->frag_ok ? htons(IP_DF) : 0;

	if (skb_cow_head(skb, LL_RESERVED_SPACE(rt->dst.dev) +
			 sizeof(struct iphdr) + sizeof(struct udphdr))) {
		ip_rt_put(rt);
		return -ENOBUFS;
	}

	ttl = dest->hop_limit ?: ip4_dst_hoplimit(&rt->dst);
	/* Takes the route reference. */
	udp_tunnel_xmit_skb(rt, sk, skb, fl4.saddr, fl4.daddr, tos, ttl, df,
			    dest->sport, udp->us->port, false, false);
	return 0;
}

/*
 * A connection that found an ICMP black hole (dest->frag_ok) sends its IPv6
 * packets in fragments of at most IPV6_MIN_MTU bytes, which every IPv6 link
 * carries: IPv6 routers never fragment. The headers are built here because
 * udp_tunnel6_xmit_skb() clears IP6CB(), where ip6_fragment() finds that
 * limit.
 */
static void metaroce_udp_xmit6_fragments(struct metaroce_udp_dp *udp,
					 struct sock *sk, struct sk_buff *skb,
					 struct dst_entry *dst,
					 const struct flowi6 *fl6, u8 tos,
					 u8 ttl, __be32 label)
{
	struct ipv6hdr *ip6h;
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = fl6->fl6_sport;
	uh->dest = fl6->fl6_dport;
	uh->len = htons(skb->len);
	skb_dst_set(skb, dst);
	udp6_set_csum(false, skb, &fl6->saddr, &fl6->daddr, skb->len);

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, tos, label);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = ttl;
	ip6h->saddr = fl6->saddr;
	ip6h->daddr = fl6->daddr;

	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	if (skb->len > IPV6_MIN_MTU) {
		/* Counted already if it does not fit the route either. */
		if (!skb->ignore_df)
			metaroce_count(&udp->dp.mdev->counters,
				       METAROCE_CNT_DP_TX_FRAGMENTED);
		IP6CB(skb)->frag_max_size = IPV6_MIN_MTU;
		skb->ignore_df = 1;
	}
	ip6_local_out(dev_net(dst->dev), sk, skb);
}

static int metaroce_udp_xmit6(struct metaroce_udp_dp *udp, struct sk_buff *skb,
			      const struct metaroce_dp_dest *dest)
{
	u8 tos = metaroce_udp_tos(dest);
	struct flowi6 fl6 = {
		.flowi6_proto = IPPROTO_UDP,
		.daddr = dest->daddr,
		.saddr = dest->saddr,
		.flowlabel = ip6_make_flowinfo(tos, dest->flow_label),
		.fl6_sport = dest->sport,
		.fl6_dport = udp->us->port,
	};
	struct dst_entry *dst;
	struct sock *sk;
	u8 ttl;

	if (!IS_ENABLED(CONFIG_IPV6) || !udp->us->sock6)
		return -ENETUNREACH;
	sk = udp->us->sock6->sk;

	dst = metaroce_udp_route6(udp, dest, sk, &fl6);
	if (IS_ERR(dst))
		return -ENETUNREACH;
	/* No DF in IPv6: only the source fragments, and only when let. */
	if (!metaroce_udp_fits(udp, skb, dest, dst, sizeof(struct ipv6hdr) +
			       sizeof(struct udphdr)))
		skb->ignore_df = 1;

	if (skb_cow_head(skb, LL_RESERVED_SPACE(dst->dev) +
			 sizeof(struct ipv6hdr) + sizeof(struct udphdr))) {
		dst_release(dst);
		return -ENOBUFS;
	}

	ttl = dest->hop_limit ?: ip6_dst_hoplimit(dst);
	if (dest->frag_ok) {
		/* Takes the dst reference, as below. */
		metaroce_udp_xmit6_fragments(udp, sk, skb, dst, &fl6, tos, ttl,
					     dest->flow_label);
		return 0;
	}
	/*
	 * Takes the dst reference; always checksummed, as IPv6 requires. No
	 * tunnel device: given one, the helper adds to its per-CPU tunnel
	 * stats, which the egress device need not have (6.12 warns; 6.1
	 * writes through dev->tstats whatever the device keeps there).
	 */
	metaroce_udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &fl6.saddr,
				      &fl6.daddr, tos, ttl, dest->flow_label,
				      dest->sport, udp->us->port, false);
	return 0;
}

static int metaroce_udp_xmit(struct metaroce_datapath *dp, struct sk_buff *skb,
			     const struct metaroce_dp_dest *dest)
{
	struct metaroce_udp_dp *udp = to_udp_dp(dp);
	struct metaroce_counters *cnt = &dp->mdev->counters;
	unsigned int len = skb->len;
	int ret;

	/* A fresh packet to the stack: no state of an earlier owner. */
	skb_scrub_packet(skb, false);
	skb->protocol = ipv6_addr_v4mapped(&dest->daddr) ? htons(ETH_P_IP) :
							  htons(ETH_P_IPV6);

	rcu_read_lock_bh();
	if (skb->protocol == htons(ETH_P_IP))
		ret = metaroce_udp_xmit4(udp, skb, dest);
	else
		ret = metaroce_udp_xmit6(udp, skb, dest);
	rcu_read_unlock_bh();
	if (ret)
		goto drop;

	metaroce_count(cnt, METAROCE_CNT_DP_TX_PACKETS);
	metaroce_count_add(cnt, METAROCE_CNT_DP_TX_BYTES, len);
	return 0;

drop:
	metaroce_count(cnt, METAROCE_CNT_DP_TX_DROPPED);
	kfree_skb(skb);
	return ret;
}

const struct metaroce_datapath_ops metaroce_udp_dp_ops = {
	.name = "udp",
	.open = metaroce_udp_open,
	.close = metaroce_udp_close,
	.xmit = metaroce_udp_xmit,
};
