/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: device and verbs objects shared by the files of metaroce.ko.
 */

#ifndef METAROCE_H
#define METAROCE_H

#include <linux/atomic.h>
#include <linux/completion.h>
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

/*
 * Bytes of a netdev MTU that are not RDMA payload: the outer IPv6 header (the
 * larger of the two address families), UDP, and METAROCE_HDR_BUDGET for the
 * MetaRoCE headers. The netdev MTU is the L3 size, so the Ethernet header is
 * not part of it.
 *
 * METAROCE_HDR_BUDGET is provisional: it is a budget, not the size of the
 * wire header (include/metaroce/wire.h), and must become that size, or an
 * upper bound checked at build time against it, once the wire header lands.
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
#define METAROCE_MAX_AH			65536
#define METAROCE_MAX_SRQ		16384
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

	struct xarray mr_xa;	/* key index -> struct metaroce_mr */
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_mr;
	atomic_t num_ah;

	struct metaroce_counters counters;
	struct dentry *debugfs;

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
 * A completion queue of kernel consumers: a ring of ib_wc, power-of-two
 * sized. The transport adds completions with metaroce_cq_post().
 */
struct metaroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* protects everything below */
	struct ib_wc *ring;
	u32 size;		/* entries in ring, a power of two */
	u32 prod;		/* free-running producer index */
	u32 cons;		/* free-running consumer index */
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

/* An address handle: where a UD send or an RC connection goes. */
struct metaroce_ah {
	struct ib_ah ibah;
	int net_type;		/* RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 */
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} saddr, daddr;
	u8 dmac[ETH_ALEN];
	u8 traffic_class;
	u8 hop_limit;
	u32 flow_label;
};

static inline struct metaroce_ah *to_mah(struct ib_ah *ibah)
{
	return container_of(ibah, struct metaroce_ah, ibah);
}

/* main.c */
void metaroce_dealloc_driver(struct ib_device *ibdev);

/* device.c */
extern const struct ib_device_ops metaroce_dev_ops;
struct metaroce_dev *metaroce_dev_create(struct net_device *ndev);
void metaroce_port_update(struct metaroce_dev *mdev);
unsigned int metaroce_payload_mtu(const struct net_device *ndev);

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

/* ah.c */
int metaroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		       struct ib_udata *udata);
int metaroce_destroy_ah(struct ib_ah *ibah, u32 flags);

/* debugfs.c */
void metaroce_debugfs_init(void);
void metaroce_debugfs_exit(void);
void metaroce_debugfs_add_dev(struct metaroce_dev *mdev);
void metaroce_debugfs_del_dev(struct metaroce_dev *mdev);

/* xmit_test.c */
void metaroce_xmit_test_add(struct metaroce_dev *mdev);

#endif /* METAROCE_H */
