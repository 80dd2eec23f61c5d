/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: device and verbs objects shared by the files of metaroce.ko.
 */

#ifndef METAROCE_H
#define METAROCE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/udp.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/metaroce-abi.h>

#include "compat.h"

/*
 * MetaRoCE devices have no DMA device: ib_core hands them kernel virtual
 * addresses in scatterlists and SGEs (ib_uses_virt_dma()), and the MR code
 * relies on it.
 */
#if !IS_ENABLED(CONFIG_INFINIBAND_VIRT_DMA)
#error "metaroce needs CONFIG_INFINIBAND_VIRT_DMA"
#endif
#include "counters.h"

#include "datapath.h"
#include "queue.h"

/*
 * Bytes of a netdev MTU that are not RDMA payload: the outer IPv6 header (the
 * larger of the two address families), UDP, and METAROCE_HDR_BUDGET for the
 * MetaRoCE headers. The netdev MTU is the L3 size, so the Ethernet header is
 * not part of it.
 *
 * METAROCE_HDR_BUDGET bounds the MetaRoCE headers and ICRC of a packet that
 * carries payload (device.c checks it against include/metaroce/wire.h). A
 * packet without payload is larger only by less than the smallest MTU a port
 * must carry (256 bytes of payload).
 */
#define METAROCE_HDR_BUDGET	64
#define METAROCE_NET_OVERHEAD	(sizeof(struct ipv6hdr) + sizeof(struct udphdr) + \
				 METAROCE_HDR_BUDGET)

/* Device limits reported by query_device. */
#define METAROCE_VENDOR_ID		0xffffff	/* no OUI: software device */
#define METAROCE_FW_VERSION		METAROCE_FW_VER(0, 1, 0)
#define METAROCE_MAX_QP			16384
#define METAROCE_MAX_QP_WR		16384
#define METAROCE_MAX_SGE		32
#define METAROCE_MAX_CQ			16384
#define METAROCE_MAX_CQE		65536
#define METAROCE_MAX_PD			65536
#define METAROCE_MAX_MR			65536
#define METAROCE_MAX_MW			65536
#define METAROCE_MAX_AH			65536
#define METAROCE_MAX_SRQ		16384
#define METAROCE_MAX_PATHS		64	/* MR_MAX_PATHS of the wire format */
#define METAROCE_MAX_SRQ_WR		16384
#define METAROCE_MAX_QUEUE_ENTRIES	65536	/* any ring, a power of two */
#define METAROCE_MAX_FAST_REG_PAGES	512
#define METAROCE_MAX_MSG_SIZE		BIT(31)
#define METAROCE_MAX_RD_ATOMIC		128
#define METAROCE_GID_TABLE_LEN		256
#define METAROCE_PORT			1

/*
 * Memory keys. lkey == rkey == index << 8 | variant. The index (1 ..
 * 2^24 - 1) names the MR in metaroce_dev.mr_xa; the 8-bit variant is chosen
 * at random on registration and, for fast-registration MRs, set by the
 * consumer on each IB_WR_REG_MR (ib_update_fast_reg_key()), so that a stale
 * key does not reach a re-used MR. Key 0 is never valid.
 */
#define METAROCE_KEY_VARIANT_BITS	8
#define METAROCE_KEY_INDEX(key)		((key) >> METAROCE_KEY_VARIANT_BITS)
#define METAROCE_KEY_VARIANT_MASK	0xffU
#define METAROCE_KEY_INDEX_MAX		(U32_MAX >> METAROCE_KEY_VARIANT_BITS)

struct metaroce_dev {
	struct ib_device ibdev;

	/*
	 * The netdev and its namespace. Both are fixed for the life of the
	 * device: the device is removed when the netdev is unregistered or
	 * moves to another namespace.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	possible_net_t net;

	struct ib_device_attr attr;

	/* On metaroce_devices; see main.c. */
	struct list_head list;

	/* Last state reported to ib_core; changed under RTNL only. */
	bool port_active;

	/* Paths of the RC connections of this device (module parameter at creation). */
	u8 paths;

	struct xarray mr_xa;	/* key index -> struct metaroce_mr (NULL for an MW) */
	struct xarray mw_xa;	/* key index -> struct metaroce_mw, RCU */
	struct xarray qp_xa;	/* QP number -> struct metaroce_qp, RCU */
	u32 qp_next;		/* xa_alloc_cyclic() cursor */
	struct mutex qps_lock;	/* QP removal against the debugfs walk */
	atomic_t num_qp;
	atomic64_t qp_uid_seq;	/* last metaroce_qp.uid handed out */
	struct xarray ah_xa;	/* ah_num -> struct metaroce_ah (user AHs) */
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_mr;
	atomic_t num_mw;
	atomic_t num_ah;
	atomic_t num_srq;

	struct metaroce_counters counters;
	struct dentry *debugfs;

	/* Records of closed connections (linger.c), by QP number. */
	DECLARE_HASHTABLE(linger_ht, 8);
	struct list_head linger_list;	/* oldest first */
	unsigned int linger_num;	/* READ_ONCE outside linger_lock */
	spinlock_t linger_lock;		/* the three above */
	struct delayed_work linger_gc;

	/* Set by the datapath when the device is opened; NULL until then. */
	struct metaroce_datapath *dp;
};

static inline struct metaroce_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct metaroce_dev, ibdev);
}

static inline struct net *metaroce_net(const struct metaroce_dev *mdev)
{
	return read_pnet(&mdev->net);
}

struct metaroce_ucontext {
	struct ib_ucontext ibuc;
};

struct metaroce_pd {
	struct ib_pd ibpd;
};

static inline struct metaroce_pd *to_mpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct metaroce_pd, ibpd);
}

/*
 * A completion queue, power-of-two sized. The transport adds completions
 * with metaroce_cq_post(). A kernel consumer's CQ is a ring of ib_wc that
 * ib_poll_cq() reads; a process's CQ is a struct metaroce_queue of
 * struct metaroce_cqe mapped into the process, which polls it itself: there
 * prod is ours (the ring's copy is only published), cons the process's.
 */
struct metaroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* protects everything below */
	struct ib_wc *ring;	/* kernel CQ; NULL for a user CQ */
	struct metaroce_queue queue;	/* user CQ */
	bool user;
	u32 size;		/* entries in ring, a power of two */
	u32 prod;		/* free-running producer index */
	u32 cons;		/* free-running consumer index (kernel CQ) */
	u8 notify;		/* armed ib_cq_notify_flags, 0 if not armed */
	bool overflow;
};

static inline struct metaroce_cq *to_mcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct metaroce_cq, ibcq);
}

enum metaroce_mr_type {
	METAROCE_MR_DMA,	/* all of kernel memory: get_dma_mr */
	METAROCE_MR_USER,	/* pinned user pages: reg_user_mr */
	METAROCE_MR_FAST_REG,	/* page list: alloc_mr + map_mr_sg + REG_MR */
};

enum metaroce_mr_state {
	METAROCE_MR_INVALID,	/* fast-reg MR not (or no longer) registered */
	METAROCE_MR_VALID,
};

struct metaroce_mr {
	struct ib_mr ibmr;	/* ibmr.iova, ibmr.length: the range */
	struct ib_pd *pd;	/* set before the MR is published */
	enum metaroce_mr_type type;
	int state;		/* enum metaroce_mr_state; acquire/release */
	u32 key;		/* current lkey == rkey */
	int access;		/* IB_ACCESS_* granted */

	refcount_t ref;		/* lookups in flight + 1 while registered */
	struct completion released;
	struct rcu_head rcu;
	atomic_t num_mw;	/* memory windows bound to it: no dereg */

	/* METAROCE_MR_USER */
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	unsigned int first_offset;	/* of ibmr.iova in pages[0] */

	/* METAROCE_MR_FAST_REG: kernel virtual addresses (virt DMA) */
	u64 *fr_pages;
	u32 fr_max;
	u32 fr_npages;
};

static inline struct metaroce_mr *to_mmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct metaroce_mr, ibmr);
}

/*
 * A memory window (mw.c): a range of an MR with rights of its own, reached
 * by its rkey only. Its key index is reserved in mr_xa, so MRs and MWs share
 * one key space; the MW itself is in mw_xa. Type 1 windows are bound to the
 * PD, type 2 windows to the QP that bound them.
 */
struct metaroce_mw {
	struct ib_mw ibmw;
	spinlock_t lock;	/* the binding below */
	u32 rkey;		/* current key */
	bool bound;
	struct metaroce_mr *mr;	/* bound: the MR, its num_mw counts us */
	u64 qp_uid;		/* type 2, bound: the QP's uid; 0 for type 1 */
	u64 addr;
	u64 length;
	int access;		/* remote rights granted */
	refcount_t ref;		/* lookups in flight + 1 while allocated */
	struct completion released;
};

static inline struct metaroce_mw *to_mmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct metaroce_mw, ibmw);
}

/* An address handle: where a UD send or an RC connection goes. */
struct metaroce_ah {
	struct ib_ah ibah;
	u32 ah_num;		/* user AHs: index in metaroce_dev.ah_xa; else 0 */
	int net_type;		/* RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 */
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} saddr, daddr;
	u8 dmac[ETH_ALEN];
	int ifindex;		/* the source GID's netdev */
	u8 traffic_class;
	u8 hop_limit;
	u32 flow_label;
};

static inline struct metaroce_ah *to_mah(struct ib_ah *ibah)
{
	return container_of(ibah, struct metaroce_ah, ibah);
}

/*
 * A shared receive queue: a ring of receive WQEs (struct metaroce_recv_wqe
 * and its SGEs) that the kernel consumer (post_srq_recv) or the process
 * (mapped ring) produces into and the attached QPs' transports take from.
 */
struct metaroce_srq {
	struct ib_srq ibsrq;
	bool user;
	struct metaroce_queue rq;
	spinlock_t post_lock;	/* kernel posters */
	spinlock_t take_lock;	/* the QPs taking WQEs; cons and limit */
	u32 cons;		/* next WQE to take; published in rq.ring->cons */
	u32 limit;		/* armed srq_limit; 0 if not armed */
	u32 max_sge;
	atomic_t num_qp;	/* QPs attached */
};

static inline struct metaroce_srq *to_msrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct metaroce_srq, ibsrq);
}

/* A receive WQE an SRQ QP has bound to RMSN rmsn; its SGEs are in bind_sge. */
struct metaroce_srq_bind {
	u64 wr_id;
	u32 rmsn;
	u32 num_sge;
	bool used;
};

struct mr_conn;
struct mr_pkt;

/* Sport of path p: a random base per QP plus p, within 49152..65535. */
#define METAROCE_SPORT_MIN	49152
#define METAROCE_SPORT_SPAN	16384

/*
 * Send WQE opcode of kernel QPs only (never accepted from a process): an
 * IB_WR_REG_MR, the MR in wr.atomic.remote_addr, key in wr.atomic.rkey,
 * access in wr.atomic.compare_add. A UD send of a kernel QP names its
 * struct ib_ah by pointer, in the WQE's reserved bytes.
 */
#define METAROCE_WR_REG_MR	0xf0

/*
 * A send WQE the transport has taken from the send ring: a validated copy,
 * so that nothing a process writes to the ring later is trusted. Indexed
 * like the ring; its SGEs (or inline data) are in metaroce_qp.sq_data.
 */
struct metaroce_swqe {
	u64 wr_id;
	u8 opcode;		/* enum ib_wr_opcode */
	u8 status;		/* enum ib_wc_status, once done */
	bool signaled;
	bool done;
	bool inline_data;
	u16 num_sge;
	u8 stream;
	bool reported;		/* M > 1: completion reported ahead of sq_done */
	u32 len;		/* message bytes */
	/* IB_WR_REG_MR (kernel QPs only) */
	struct metaroce_mr *reg_mr;
	u32 reg_key;
	int reg_access;
};

/*
 * A reliable-connected QP: one MetaRoCE connection (proto/conn.c). The
 * verbs side (qp.c) fills the rings; the transport (transport.c) runs in
 * one context at a time per QP, so the connection engine needs no lock of
 * its own: received packets are queued to rxq; while the QP waits for one
 * message they run it from softirq and a doorbell runs it in its system
 * call, otherwise (and for the timer and kernel posters) the work item does.
 */
struct metaroce_qp {
	struct ib_qp ibqp;
	struct metaroce_dev *mdev;
	/* Never reused, unlike QP numbers and addresses: what a type 2 MW is bound to. */
	u64 uid;
	bool user;

	/*
	 * Serialises modify_qp, query_qp and the debugfs walk, which pause the
	 * transport while they hold it: the state and the connection engine
	 * change only under it or in the transport.
	 */
	struct mutex mutex;
	int state;			/* enum ib_qp_state; READ_ONCE outside the mutex */
	bool sig_all;			/* IB_SIGNAL_ALL_WR */
	struct ib_qp_attr attr;		/* what query_qp reports */

	struct metaroce_queue sq;
	struct metaroce_queue rq;	/* not allocated with an SRQ */
	spinlock_t sq_post_lock;	/* kernel posters of sq */
	spinlock_t rq_post_lock;	/* kernel posters of rq */
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;

	/* Owned by the transport (transport.c), one context at a time */
	struct metaroce_swqe *swqe;	/* sq.num of them */
	struct metaroce_sge *rx_sge;	/* max(max_recv_sge, 1): a receive WQE's */
	void *sq_data;			/* sq.num * sq.entry_size bytes */
	u32 sq_copy;			/* next ring index to take */
	u32 sq_done;			/* next ring index to complete */
	u32 rq_base;			/* ring index of RMSN 0 */
	u32 rq_done;			/* next ring index to complete */
	bool sq_error;			/* a local error: flush the rest */
	bool has_fatal_nak;		/* refused for good: fatal_nak is repeated */
	struct mr_pkt *fatal_nak;	/* the NAK, for lost-NAK retransmissions */
	bool flushing;			/* state ERR reached: flush everything */
	unsigned int mtu_gen;		/* metaroce_mtu_gen its segments were chosen at */

	/* With an SRQ (srq.c): RMSN -> bound WQE, MR_STREAM_WIN slots */
	struct metaroce_srq *srq;
	struct metaroce_srq_bind *bind;
	struct metaroce_sge *bind_sge;	/* srq->max_sge per slot */
	u32 bind_next;			/* the next RMSN to complete */
	bool last_wqe_reached;		/* IB_EVENT_QP_LAST_WQE_REACHED sent */

	struct mr_conn *conn;		/* NULL before RTR */
	struct metaroce_dp_dest dest;
	struct metaroce_dp_route *routes;	/* per path, from RTR; NULL: none */
	u16 sport_base;
	u8 n_paths;
	u8 n_streams;			/* M: 1 unless set through the dv extension */
	u8 min_rnr_timer;

	/*
	 * M > 1 without an SRQ: receive WQEs completed ahead of rq_done (bit
	 * per ring slot), whose slots are freed once rq_done reaches them.
	 */
	unsigned long *rq_early;
	/* User RC QPs: the page of metaroce_create_qp_resp.stats (dv.c) */
	struct metaroce_qp_stats *stats;
	struct metaroce_mmap_entry *stats_mmap;

	struct sk_buff_head rxq;
	spinlock_t run_lock;		/* run_state */
	unsigned int run_state;		/* who runs the transport (transport.c) */
	struct work_struct work;
	struct metaroce_bh rx_bh;	/* runs it after a receive batch */
	struct hrtimer timer;
	spinlock_t timer_lock;		/* timer_deadline/latest, starting the timer */
	u64 timer_deadline;		/* ns; U64_MAX: the timer has nothing to do */
	u64 timer_latest;		/* ns; it may fire this late (a timeout) */
	bool dying;
};

static inline struct metaroce_qp *to_mqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct metaroce_qp, ibqp);
}

/* UDP source port of path p of a QP whose ports start at base, host order. */
static inline u16 metaroce_sport(u16 base, unsigned int p)
{
	return METAROCE_SPORT_MIN + (base + p) % METAROCE_SPORT_SPAN;
}

static inline u16 metaroce_qp_sport(const struct metaroce_qp *qp, unsigned int p)
{
	return metaroce_sport(qp->sport_base, p);
}

/* RC and UC QPs have a connection (proto/conn.c); UD and GSI send datagrams. */
static inline bool metaroce_qp_connected(const struct metaroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
}

/* main.c */
void metaroce_dealloc_driver(struct ib_device *ibdev);
/* Bumped when any netdev's MTU changes: QPs choose their segments again. */
extern atomic_t metaroce_mtu_gen;

/* device.c */
extern const struct ib_device_ops metaroce_dev_ops;
struct metaroce_dev *metaroce_dev_create(struct net_device *ndev);
void metaroce_port_update(struct metaroce_dev *mdev);
unsigned int metaroce_mtu_payload(unsigned int mtu);
unsigned int metaroce_payload_mtu(const struct net_device *ndev);
unsigned int metaroce_out_payload_mtu(struct metaroce_dev *mdev, int ifindex);

/* ucontext.c */
int metaroce_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void metaroce_dealloc_ucontext(struct ib_ucontext *uctx);
void metaroce_disassociate_ucontext(struct ib_ucontext *uctx);

/* pd.c */
int metaroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int metaroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* cq.c */
int metaroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		       struct metaroce_verbs_attrs *attrs);
int metaroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int metaroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int metaroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int metaroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int metaroce_cq_post(struct metaroce_cq *cq, const struct ib_wc *wc, bool solicited);

/*
 * Functions the transport calls are exported in the METAROCE namespace, for
 * the in-tree test module (tests/) and for datapaths built as modules.
 */

/* mr.c */
struct ib_mr *metaroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *metaroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 iova, int access, struct ib_udata *udata);
struct ib_mr *metaroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				u32 max_num_sg);
int metaroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		       unsigned int *sg_offset);
int metaroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

int metaroce_mr_get(struct metaroce_dev *mdev, u32 key, const struct ib_pd *pd,
		    int access, u64 addr, u64 len, struct metaroce_mr **mrp);
void metaroce_mr_put(struct metaroce_mr *mr);
int metaroce_mr_page(struct metaroce_mr *mr, u64 addr, struct page **page,
		     unsigned int *offset);
int metaroce_mr_fast_reg(struct metaroce_mr *mr, u32 key, int access);
int metaroce_mr_invalidate(struct metaroce_dev *mdev, u32 key,
			   const struct ib_pd *pd);

/* mw.c */
int metaroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int metaroce_dealloc_mw(struct ib_mw *ibmw);
struct metaroce_send_wqe;
int metaroce_mw_bind(struct metaroce_qp *qp, const struct metaroce_send_wqe *e);
int metaroce_mw_invalidate(struct metaroce_qp *qp, u32 rkey);
int metaroce_rkey_get(struct metaroce_qp *qp, u32 rkey, int access, u64 addr,
		      u64 len, struct metaroce_mr **mrp);

/* ah.c */
int metaroce_gid_ifindex(const struct ib_gid_attr *attr);
const struct ib_gid_attr *metaroce_find_gid(struct metaroce_dev *mdev,
					    const struct in6_addr *addr,
					    struct net_device *ndev);
u16 metaroce_gid_vlan_id(struct metaroce_dev *mdev, const struct in6_addr *addr,
			 int ifindex);
int metaroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		       struct ib_udata *udata);
int metaroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int metaroce_ah_lookup(struct metaroce_dev *mdev, u32 ah_num,
		       const struct ib_pd *pd, struct metaroce_ah *copy);

/* qp.c */
extern unsigned int metaroce_default_paths;
void metaroce_qp_follow_mtu(struct metaroce_qp *qp);
int metaroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata);
int metaroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		       struct ib_udata *udata);
int metaroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init);
int metaroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int metaroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr);
int metaroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

/* dv.c */
int metaroce_qp_dv_init(struct metaroce_qp *qp, const struct ib_qp_init_attr *init,
			struct ib_udata *udata);
int metaroce_qp_dv_alloc(struct metaroce_qp *qp);
int metaroce_qp_stats_export(struct metaroce_qp *qp, struct ib_ucontext *uctx,
			     struct metaroce_ring_info *info);
void metaroce_qp_stats_update(struct metaroce_qp *qp);
void metaroce_qp_dv_free(struct metaroce_qp *qp);

/* trace.c */
struct mr_event;
void metaroce_conn_event(void *arg, const struct mr_event *ev);

/* srq.c */
int metaroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			struct ib_udata *udata);
int metaroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			enum ib_srq_attr_mask mask, struct ib_udata *udata);
int metaroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int metaroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int metaroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr);
int metaroce_srq_qp_attach(struct metaroce_qp *qp, struct ib_srq *ibsrq);
void metaroce_srq_qp_detach(struct metaroce_qp *qp);
void metaroce_srq_qp_reset(struct metaroce_qp *qp);
/* The WQE bound to @rmsn, bound now if need be; 0 or a NAK syndrome. */
int metaroce_srq_bind(struct metaroce_qp *qp, u32 rmsn,
		      const struct metaroce_sge **sge, u32 *num_sge);
int metaroce_srq_complete(struct metaroce_qp *qp, u32 rmsn, const struct ib_wc *tmpl,
			  bool solicited);
void metaroce_srq_qp_flush(struct metaroce_qp *qp);

/* icrc.c */
void metaroce_icrc_select(void);

/* transport.c */
int metaroce_transport_init(void);
void metaroce_transport_exit(void);
void metaroce_qp_transport_init(struct metaroce_qp *qp);
void metaroce_qp_kick(struct metaroce_qp *qp);
void metaroce_qp_doorbell(struct metaroce_qp *qp);
void metaroce_qp_pause(struct metaroce_qp *qp);
void metaroce_qp_resume(struct metaroce_qp *qp);
void metaroce_qp_transport_stop(struct metaroce_qp *qp);
void metaroce_rxq_purge(struct metaroce_qp *qp);
void metaroce_qp_rcv(struct metaroce_dev *mdev, struct sk_buff *skb,
		     const struct mr_pkt *pkt,
		     const struct metaroce_dp_rx_info *info);
struct sk_buff *metaroce_pkt_new(const struct mr_pkt *h);

/* linger.c */
void metaroce_linger_init(struct metaroce_dev *mdev);
void metaroce_linger_destroy(struct metaroce_dev *mdev);
void metaroce_linger_add(struct metaroce_qp *qp);
bool metaroce_linger_rcv(struct metaroce_dev *mdev, const struct mr_pkt *pkt,
			 const struct metaroce_dp_rx_info *info);
void metaroce_linger_show(struct seq_file *s, struct metaroce_dev *mdev);

/* debugfs.c */
void metaroce_debugfs_init(void);
void metaroce_debugfs_exit(void);
void metaroce_debugfs_add_dev(struct metaroce_dev *mdev);
void metaroce_debugfs_del_dev(struct metaroce_dev *mdev);

/* xmit_test.c */
void metaroce_xmit_test_add(struct metaroce_dev *mdev);

#endif /* METAROCE_H */
