/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * MetaRoCE user/kernel ABI: the one header shared by the kernel driver
 * (drivers/infiniband/sw/metaroce) and the rdma-core provider
 * (providers/metaroce, libmetaroce-rdmav34.so).
 *
 * Device identification
 * ---------------------
 * MetaRoCE is built out of tree and has no entry of its own in
 * enum rdma_driver_id, so the kernel driver leaves ib_device_ops.driver_id
 * at RDMA_DRIVER_UNKNOWN (the ioctl header's driver_id must equal it) and
 * the provider cannot match on it. Device names are chosen by the user
 * ("rdma link add NAME type metaroce ...") and can be changed with
 * "rdma dev set NAME name NEW", so they cannot identify the driver either.
 *
 * Instead the per-device uverbs ABI version (ib_device_ops.uverbs_abi_ver,
 * reported over netlink as RDMA_NLDEV_ATTR_CHARDEV_ABI and in
 * /sys/class/infiniband_verbs/uverbsN/abi_version) carries a MetaRoCE tag
 * in its upper 16 bits and the ABI revision in its lower 16 bits. The
 * kernel driver must set
 *
 *	.uverbs_abi_ver = METAROCE_UVERBS_ABI_VERSION,
 *
 * and the provider claims a device only if its driver_id is
 * RDMA_DRIVER_UNKNOWN and METAROCE_ABI_IS_METAROCE(abi_ver) holds. A device
 * carrying the tag with a revision the provider does not implement is
 * reported by libibverbs ("does not support the kernel ABI of ...") rather
 * than silently ignored.
 */
#ifndef _UAPI_RDMA_METAROCE_ABI_H
#define _UAPI_RDMA_METAROCE_ABI_H

#include <linux/types.h>

/* "MR" in the upper half: no in-tree driver uses a uverbs ABI this large. */
#define METAROCE_ABI_TAG		0x4d520000U
#define METAROCE_ABI_TAG_MASK		0xffff0000U
#define METAROCE_ABI_REVISION_MASK	0x0000ffffU

#define METAROCE_ABI_IS_METAROCE(abi)	\
	(((abi) & METAROCE_ABI_TAG_MASK) == METAROCE_ABI_TAG)
#define METAROCE_ABI_REVISION(abi)	((abi) & METAROCE_ABI_REVISION_MASK)

/*
 * Revision 1: control path only (device, port, PD, MR).
 * Revision 2: CQs, QPs and AHs with the rings below.
 * Bump it, and the provider's accepted range, whenever a structure below
 * changes incompatibly.
 */
#define METAROCE_ABI_REVISION_CURRENT	2
#define METAROCE_UVERBS_ABI_VERSION	\
	(METAROCE_ABI_TAG | METAROCE_ABI_REVISION_CURRENT)

/*
 * Encoding of ib_device_attr.fw_ver (QUERY_DEVICE's fw_ver): 16 bits each of
 * major, minor and sub-minor, shown as "major.minor.sub" by the provider
 * (ibv_devinfo). The kernel driver's get_dev_fw_str() (sysfs fw_ver) should
 * print it the same way.
 */
#define METAROCE_FW_VER(major, minor, sub)			\
	((((__u64)(major) & 0xffff) << 32) |			\
	 (((__u64)(minor) & 0xffff) << 16) |			\
	 ((__u64)(sub) & 0xffff))

/*
 * Driver-specific part of the IB_USER_VERBS_CMD_GET_CONTEXT response
 * (ib_alloc_ucontext's udata->outbuf), placed after
 * struct ib_uverbs_get_context_resp. Nothing is defined yet: the kernel
 * writes zeroes. comp_mask will flag the fields later revisions append.
 */
struct metaroce_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 reserved;
};

/*
 * Rings
 * -----
 * Every queue (send queue, receive queue, completion queue) is a ring that
 * the kernel allocates and the process maps with mmap() on its uverbs file,
 * at the offset and length that the create response gives. A mapped ring is
 * a struct metaroce_ring header followed, at METAROCE_RING_HDR_SIZE, by
 * num_entries (a power of two) entries of entry_size bytes each.
 *
 * prod and cons are free-running 32-bit counters: entry i lives at index
 * i & (num_entries - 1); the ring holds prod - cons entries. The producer
 * writes an entry, then prod with release semantics; the consumer reads prod
 * with acquire semantics, then the entry, then writes cons with release
 * semantics. The process produces into send and receive queues and consumes
 * completion queues; the kernel the opposite. The kernel copies each entry
 * before it looks at it and validates every field of the copy: a process
 * that scribbles on a ring hurts only its own QP.
 *
 * Posting a receive and polling a CQ make no system call. After producing
 * send WQEs the process rings the doorbell: IB_USER_VERBS_CMD_POST_SEND with
 * no work requests (wr_count = 0).
 */
#define METAROCE_RING_HDR_SIZE	128

struct metaroce_ring {
	__u32 prod;
	__u32 reserved0[15];	/* prod and cons on separate cache lines */
	__u32 cons;
	__u32 reserved1[15];
};

/* Where a ring is and how it is cut; part of every create response. */
struct metaroce_ring_info {
	__aligned_u64 mmap_offset;	/* pass to mmap() on the uverbs fd */
	__aligned_u64 mmap_length;	/* header and entries, page aligned */
	__u32 num_entries;		/* a power of two */
	__u32 entry_size;		/* bytes, a multiple of 64 */
};

struct metaroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* send_flags: the values of IBV_SEND_* (and the kernel's IB_SEND_*). */
#define METAROCE_SEND_FENCE	(1U << 0)
#define METAROCE_SEND_SIGNALED	(1U << 1)
#define METAROCE_SEND_SOLICITED	(1U << 2)
#define METAROCE_SEND_INLINE	(1U << 3)

/*
 * A send queue entry. opcode is an enum ib_uverbs_wr_opcode (the values of
 * IBV_WR_*). After the 64-byte header come num_sge struct metaroce_sge, or
 * with METAROCE_SEND_INLINE inline_len bytes of data; both must fit in the
 * entry (entry_size - 64 bytes). stream selects the ordered stream of a
 * multi-stream QP; it is 0 for an ordinary RC QP.
 */
struct metaroce_send_wqe {
	__aligned_u64 wr_id;
	__u8 opcode;
	__u8 stream;
	__u16 num_sge;
	__u32 send_flags;
	__u32 imm_inv;		/* immediate (network order) or rkey to invalidate */
	__u32 inline_len;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__aligned_u64 addr;	/* window start, in the MR */
			__aligned_u64 length;	/* 0: unbind (type 1) */
			__u32 mr_lkey;		/* the MR the window goes on */
			__u32 mw_rkey;		/* the window's current rkey */
			__u32 rkey;		/* its new rkey, same index */
			__u32 access;		/* IBV_ACCESS_* of the window */
		} bind;			/* IBV_WR_BIND_MW and ibv_bind_mw() */
		struct {
			__u32 ah_num;		/* metaroce_create_ah_resp.ah_num */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
	} wr;
	__u8 reserved[8];
	/* struct metaroce_sge sge[]; or inline data */
};

/*
 * IBV_WR_ATOMIC_WRITE uses wr.atomic: remote_addr and rkey, and swap holds
 * the 8 bytes to write in memory order (copied by the provider at post time;
 * the WQE has no SGE). IBV_WR_BIND_MW uses wr.bind; ibv_bind_mw() of a type
 * 1 window posts the same WQE.
 */

/* A receive queue entry: 16 bytes, then num_sge struct metaroce_sge. */
struct metaroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	/* struct metaroce_sge sge[]; */
};

/*
 * A completion. status is an IBV_WC_* status (the values of the kernel's
 * enum ib_wc_status), opcode an enum ib_uverbs_wc_opcode, or
 * METAROCE_WC_RECV / METAROCE_WC_RECV_RDMA_WITH_IMM (IBV_WC_RECV and
 * IBV_WC_RECV_RDMA_WITH_IMM), wc_flags IBV_WC_* flags.
 */
#define METAROCE_WC_RECV		128
#define METAROCE_WC_RECV_RDMA_WITH_IMM	129
#define METAROCE_WC_GRH			(1U << 0)	/* UD receive: a GRH precedes the data */
#define METAROCE_WC_WITH_IMM		(1U << 1)
#define METAROCE_WC_WITH_INV		(1U << 3)

struct metaroce_cqe {
	__aligned_u64 wr_id;
	__u8 status;
	__u8 opcode;
	__u8 wc_flags;
	__u8 reserved0;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 imm_inv;		/* immediate (network order) or invalidated rkey */
	__u32 qp_num;
	__u32 src_qp;
	__u8 reserved1[32];
};

/* IB_USER_VERBS_CMD_CREATE_CQ: driver data of the response. */
struct metaroce_create_cq_resp {
	struct metaroce_ring_info ring;
};

/* IB_USER_VERBS_CMD_RESIZE_CQ: the new ring replaces the old one. */
struct metaroce_resize_cq_resp {
	struct metaroce_ring_info ring;
};

/*
 * IB_USER_VERBS_CMD_CREATE_QP: driver data of the request, optional (a
 * provider may send none: udata inlen 0 gives the defaults). The direct-verbs
 * extension (infiniband/metaroce_dv.h) fills it. 0 in num_paths or
 * num_streams asks for the default. No comp_mask bit is defined yet: the
 * kernel refuses any (EOPNOTSUPP), a reserved field that is not zero or a
 * value out of range (EINVAL), and anything but the defaults for a QP that is
 * not RC or, with more than one stream, that uses an SRQ (EOPNOTSUPP).
 */
#define METAROCE_MAX_QP_PATHS		64
#define METAROCE_MAX_QP_STREAMS		16

struct metaroce_create_qp_req {
	__u32 comp_mask;
	__u8 num_paths;		/* default: the device's paths (module parameter) */
	__u8 num_streams;	/* default: 1, verbs RC ordering */
	__u16 reserved;
};

/*
 * IB_USER_VERBS_CMD_CREATE_QP: driver data of the response. The fields after
 * rq were appended; the kernel writes as much as the provider's buffer holds
 * (at least up to rq), so providers that know only sq and rq keep working.
 * comp_mask says which appended fields are valid.
 */
#define METAROCE_CREATE_QP_RESP_PATHS	(1U << 0)	/* num_paths, num_streams */
#define METAROCE_CREATE_QP_RESP_STATS	(1U << 1)	/* stats */

struct metaroce_create_qp_resp {
	struct metaroce_ring_info sq;
	struct metaroce_ring_info rq;	/* num_entries 0 with an SRQ */
	__u32 comp_mask;
	__u8 num_paths;
	__u8 num_streams;
	__u16 reserved;
	/* A read-only struct metaroce_qp_stats page; num_entries 1, entry_size its size. */
	struct metaroce_ring_info stats;
};

/*
 * Per-path statistics of an RC QP's sending direction, in a page the process
 * maps read-only (metaroce_create_qp_resp.stats) and the kernel rewrites
 * while the QP runs. seq is a sequence count: odd while the kernel writes.
 * A reader loads seq (acquire), copies, then loads seq again after an
 * acquire fence, and retries if it was odd or changed. Counters are those of
 * the current connection (they start at zero at RTR). path[i] for i below
 * num_paths is valid.
 */
#define METAROCE_PATH_ACTIVE	1	/* in service */
#define METAROCE_PATH_RETIRED	2	/* out of service, probed */

struct metaroce_path_stats {
	__aligned_u64 tx_pkts;		/* data packets sent on it, retransmissions too */
	__aligned_u64 tx_retx;		/* retransmissions (and probes) sent on it */
	__aligned_u64 lost;		/* packets sent on it declared lost */
	__aligned_u64 ecn_marks;	/* acknowledgements echoing a CE mark */
	__aligned_u64 srtt_ns;		/* smoothed RTT, 0 before the first sample */
	__u16 udp_sport;		/* UDP source port, host order */
	__u8 state;			/* METAROCE_PATH_*, 0 before RTR */
	__u8 reserved[5];
};

struct metaroce_qp_stats {
	__u32 seq;
	__u8 num_paths;
	__u8 num_streams;
	__u16 reserved0;
	__aligned_u64 tx_pkts;		/* sum over the paths */
	__u8 reserved1[48];
	struct metaroce_path_stats path[METAROCE_MAX_QP_PATHS];
};

/*
 * IB_USER_VERBS_CMD_CREATE_SRQ: driver data of the response (the request has
 * none). The ring holds struct metaroce_recv_wqe entries like a QP's receive
 * queue: the process produces, the kernel consumes for whichever attached QP
 * a message arrives on. Part of revision 2 from the start: a kernel without
 * SRQs refuses CREATE_SRQ, and QPs on an SRQ have no receive ring.
 */
struct metaroce_create_srq_resp {
	struct metaroce_ring_info rq;
};

/* IB_USER_VERBS_CMD_CREATE_AH: the number send WQEs name the AH by. */
struct metaroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

#endif /* _UAPI_RDMA_METAROCE_ABI_H */
