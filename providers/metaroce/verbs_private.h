/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The part of libibverbs' provider interface (private ABI IBVERBS_PRIVATE_34,
 * as laid out by rdma-core 44) that libmetaroce uses.
 *
 * rdma-core does not install its provider header (driver.h), so this file
 * declares, from the published interface, exactly the structures and
 * functions libmetaroce needs and nothing more. Each structure that crosses
 * into the library is pinned by size and by the offsets of the members we
 * touch: if the installed library's layout differs, the build fails here
 * rather than at run time. The Makefile separately refuses to build against
 * a libibverbs whose version is not on its allowed list or which does not
 * export verbs_register_driver_34@@IBVERBS_PRIVATE_34.
 *
 * Only x86_64 (LP64) layouts are asserted; the sizes below are those of that
 * ABI.
 */
#ifndef METAROCE_VERBS_PRIVATE_H
#define METAROCE_VERBS_PRIVATE_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#if !defined(__x86_64__) || !defined(__LP64__)
#error "verbs_private.h asserts the x86_64 layouts of rdma-core 44 only"
#endif

/* Sizes of the fixed name buffers in the library's device records. */
#define VPRIV_SYSFS_NAME_LEN	64
#define VPRIV_SYSFS_PATH_LEN	256
#define VPRIV_MODALIAS_LEN	512

/* A link of the library's intrusive doubly linked lists; never touched. */
struct vpriv_list_link {
	struct vpriv_list_link *next;
	struct vpriv_list_link *prev;
};

/*
 * One row of a provider's match table. libmetaroce passes no table (it
 * matches in match_device), but the type is part of the records below.
 */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/*
 * What the library knows about an rdma device before a provider claims it.
 * Filled from netlink (or sysfs on old kernels) and handed to match_device()
 * and alloc_device(); libmetaroce reads driver_id, node_type and abi_ver.
 */
struct verbs_sysfs_dev {
	struct vpriv_list_link entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[VPRIV_SYSFS_NAME_LEN];	/* "uverbsN" */
	dev_t sysfs_cdev;
	char ibdev_name[VPRIV_SYSFS_NAME_LEN];	/* "mr0" */
	char ibdev_path[VPRIV_SYSFS_PATH_LEN];
	char modalias[VPRIV_MODALIAS_LEN];
	uint64_t node_guid;
	uint32_t driver_id;			/* enum rdma_driver_id */
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;			/* ib_device_ops.uverbs_abi_ver */
	struct timespec time_created;
};

struct verbs_device;

/* The provider's entry points, registered once from a constructor. */
struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/*
 * The library's device object. The provider allocates it zeroed (embedded
 * first in its own device structure) in alloc_device(); the library then
 * initialises all of it, the public struct ibv_device included.
 */
struct verbs_device {
	struct ibv_device device;
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct vpriv_list_link entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/*
 * The library's memory region: the public ibv_mr plus two words that
 * ibv_cmd_reg_mr() fills and ibv_dereg_mr() reads.
 */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	uint32_t mr_type;			/* enum ibv_mr_type in the library */
	int access;
};

/*
 * The library's CQ and QP objects. A provider that offers the extended
 * verbs embeds them: ibv_create_cq_ex() hands out the ibv_cq_ex view of the
 * same object whose ibv_cq view the ordinary verbs take, and
 * ibv_qp_to_qp_ex() returns the qp_ex view only if the provider set
 * VERBS_QP_EX in comp_mask (which the library reads right after the
 * v44-sized ibv_qp_ex: see the asserts below).
 */
struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_xrcd;

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;			/* enum verbs_qp_mask */
	struct verbs_xrcd *xrcd;		/* with VERBS_QP_XRCD only */
};

enum verbs_qp_mask {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

/*
 * The context operation table, one function pointer per slot in the order
 * rdma-core 44 defines (alphabetical by name). verbs_set_ops() copies each
 * non-NULL slot into the context; a NULL slot keeps the library's default,
 * which fails with EOPNOTSUPP. Only the slots libmetaroce fills are typed;
 * every other slot is a placeholder of pointer size, named after its op so
 * that the layout can be read and checked against the library.
 */
typedef void (*vpriv_unused_op)(void);

struct verbs_context_ops {
	vpriv_unused_op advise_mr;			/*  0 */
	vpriv_unused_op alloc_dm;
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd,
				   enum ibv_mw_type type);	/*  2 */
	vpriv_unused_op alloc_null_mr;
	vpriv_unused_op alloc_parent_domain;
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);	/*  5 */
	vpriv_unused_op alloc_td;
	vpriv_unused_op async_event;
	vpriv_unused_op attach_counters_point_flow;
	vpriv_unused_op attach_mcast;
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);	/* 10 */
	vpriv_unused_op close_xrcd;
	vpriv_unused_op cq_event;
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);	/* 13 */
	vpriv_unused_op create_counters;
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);	/* 15 */
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
			struct ibv_cq_init_attr_ex *init_attr);	/* 16 */
	vpriv_unused_op create_flow;
	vpriv_unused_op create_flow_action_esp;
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);	/* 19 */
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
			struct ibv_qp_init_attr_ex *attr);	/* 20 */
	vpriv_unused_op create_rwq_ind_table;
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);	/* 22 */
	vpriv_unused_op create_srq_ex;
	vpriv_unused_op create_wq;
	int (*dealloc_mw)(struct ibv_mw *mw);		/* 25 */
	int (*dealloc_pd)(struct ibv_pd *pd);		/* 26 */
	vpriv_unused_op dealloc_td;
	int (*dereg_mr)(struct verbs_mr *vmr);		/* 28 */
	int (*destroy_ah)(struct ibv_ah *ah);		/* 29 */
	vpriv_unused_op destroy_counters;		/* 30 */
	int (*destroy_cq)(struct ibv_cq *cq);		/* 31 */
	vpriv_unused_op destroy_flow;
	vpriv_unused_op destroy_flow_action;
	int (*destroy_qp)(struct ibv_qp *qp);		/* 34 */
	vpriv_unused_op destroy_rwq_ind_table;		/* 35 */
	int (*destroy_srq)(struct ibv_srq *srq);	/* 36 */
	vpriv_unused_op destroy_wq;
	vpriv_unused_op detach_mcast;
	void (*free_context)(struct ibv_context *context);	/* 39 */
	vpriv_unused_op free_dm;			/* 40 */
	vpriv_unused_op get_srq_num;
	vpriv_unused_op import_dm;
	vpriv_unused_op import_mr;
	vpriv_unused_op import_pd;
	vpriv_unused_op modify_cq;			/* 45 */
	vpriv_unused_op modify_flow_action_esp;
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);		/* 47 */
	vpriv_unused_op modify_qp_rate_limit;
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);		/* 49 */
	vpriv_unused_op modify_wq;			/* 50 */
	vpriv_unused_op open_qp;
	vpriv_unused_op open_xrcd;
	int (*poll_cq)(struct ibv_cq *cq, int num_entries,
		       struct ibv_wc *wc);		/* 53 */
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);	/* 54 */
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);	/* 55 */
	vpriv_unused_op post_srq_ops;
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);	/* 57 */
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);	/* 58 */
	vpriv_unused_op query_ece;
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);	/* 60 */
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask,
			struct ibv_qp_init_attr *init_attr);	/* 61 */
	vpriv_unused_op query_qp_data_in_order;
	vpriv_unused_op query_rt_values;
	int (*query_srq)(struct ibv_srq *srq,
			 struct ibv_srq_attr *attr);	/* 64 */
	vpriv_unused_op read_counters;			/* 65 */
	vpriv_unused_op reg_dm_mr;
	vpriv_unused_op reg_dmabuf_mr;
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);	/* 68 */
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);	/* 69 */
	vpriv_unused_op rereg_mr;			/* 70 */
	int (*resize_cq)(struct ibv_cq *cq, int cqe);	/* 71 */
	vpriv_unused_op set_ece;
	vpriv_unused_op unimport_dm;
	vpriv_unused_op unimport_mr;
	vpriv_unused_op unimport_pd;			/* 75 */
};

#define VPRIV_CONTEXT_OPS_SLOTS	76
#define VPRIV_OP_OFFSET(slot)	((slot) * sizeof(void (*)(void)))

/*
 * Core uverbs write commands as libibverbs takes them: the write header
 * followed by the kernel's request structure, then any driver payload.
 * libibverbs fills both parts; the provider only supplies the (zeroed)
 * buffer and its length. The kernel structures end in flexible arrays, so
 * they are the last member here.
 */
struct vpriv_cmd_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core;
};

struct vpriv_cmd_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core;
};

struct vpriv_cmd_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core;
};

struct vpriv_cmd_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core;
};

struct vpriv_cmd_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_mw core;
};

struct vpriv_cmd_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq core;
};

/* Extended write commands carry a second header. */
struct vpriv_ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

struct vpriv_cmd_create_cq_ex {
	struct vpriv_ex_hdr hdr;
	struct ib_uverbs_ex_create_cq core;
};

struct vpriv_cmd_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_resize_cq core;
};

struct vpriv_cmd_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core;
};

struct vpriv_cmd_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core;
};

struct vpriv_cmd_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_qp core;
};

struct vpriv_cmd_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core;
};

struct vpriv_cmd_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq core;
};

struct vpriv_cmd_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_srq core;
};

/* Registration: the version of the private ABI is part of the symbol name. */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

/* Context set-up and tear-down. */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/*
 * Allocate a zeroed provider context of type @type whose struct
 * verbs_context member is @member, and initialise that member.
 */
#define vpriv_alloc_context(ibdev, cmd_fd, type, member, driver_id)	\
	((type *)_verbs_init_and_alloc_context(				\
		ibdev, cmd_fd, sizeof(type),				\
		(struct verbs_context *)offsetof(type, member), driver_id))

/* Core uverbs commands (libibverbs builds and issues them). */
int ibv_cmd_get_context(struct verbs_context *context,
			struct vpriv_cmd_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct vpriv_cmd_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct vpriv_cmd_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct vpriv_cmd_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/* Fills mw's context, pd, rkey, handle and type on success. */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct vpriv_cmd_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);

/*
 * CQs, QPs and AHs. Every CQ and QP is allocated as a verbs_cq/verbs_qp
 * (asserted above against v44); the ordinary commands take their public
 * ibv_cq/ibv_qp view, the extended ones the whole object. The library
 * fills the handles and the fields the public API shows.
 * ibv_cmd_post_send() with no work requests is the send doorbell: it issues
 * IB_USER_VERBS_CMD_POST_SEND with wr_count 0 and writes *bad_wr only on
 * failure.
 */
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct vpriv_cmd_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
/*
 * cmd_flags are mlx5's (CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX); we pass 0. The
 * driver data of the response follows struct ib_uverbs_ex_create_cq_resp
 * whichever command (ioctl, write or extended write) the library uses.
 */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq,
			 struct vpriv_cmd_create_cq_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
		      struct vpriv_cmd_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr,
		      struct vpriv_cmd_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
/*
 * Takes comp_mask PD, XRCD and SEND_OPS_FLAGS only (EINVAL otherwise); the
 * command and response are those of ibv_cmd_create_qp().
 */
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct vpriv_cmd_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct vpriv_cmd_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct vpriv_cmd_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

/*
 * SRQs: the public ibv_srq (libibverbs initialises its context, pd, mutex
 * and cond itself).
 */
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct vpriv_cmd_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct vpriv_cmd_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct vpriv_cmd_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

/*
 * Layout checks against rdma-core 44 on x86_64.
 */
static_assert(sizeof(struct vpriv_list_link) == 16, "list link");

static_assert(sizeof(struct verbs_match_ent) == 24, "verbs_match_ent");

static_assert(sizeof(struct verbs_device_ops) == 72, "verbs_device_ops");
static_assert(offsetof(struct verbs_device_ops, match_min_abi_version) == 8,
	      "verbs_device_ops.match_min_abi_version");
static_assert(offsetof(struct verbs_device_ops, match_device) == 32,
	      "verbs_device_ops.match_device");
static_assert(offsetof(struct verbs_device_ops, alloc_context) == 40,
	      "verbs_device_ops.alloc_context");
static_assert(offsetof(struct verbs_device_ops, alloc_device) == 56,
	      "verbs_device_ops.alloc_device");
static_assert(offsetof(struct verbs_device_ops, uninit_device) == 64,
	      "verbs_device_ops.uninit_device");

static_assert(sizeof(struct verbs_sysfs_dev) == 992, "verbs_sysfs_dev");
static_assert(offsetof(struct verbs_sysfs_dev, ibdev_name) == 112,
	      "verbs_sysfs_dev.ibdev_name");
static_assert(offsetof(struct verbs_sysfs_dev, driver_id) == 952,
	      "verbs_sysfs_dev.driver_id");
static_assert(offsetof(struct verbs_sysfs_dev, node_type) == 956,
	      "verbs_sysfs_dev.node_type");
static_assert(offsetof(struct verbs_sysfs_dev, abi_ver) == 968,
	      "verbs_sysfs_dev.abi_ver");

static_assert(sizeof(struct ibv_device) == 664, "public ibv_device");
static_assert(sizeof(struct verbs_device) == 712, "verbs_device");
static_assert(offsetof(struct verbs_device, ops) == 664, "verbs_device.ops");

static_assert(sizeof(struct verbs_context) == 648, "public verbs_context");

static_assert(sizeof(struct ibv_mr) == 48, "public ibv_mr");
static_assert(sizeof(struct verbs_mr) == 56, "verbs_mr");
static_assert(offsetof(struct verbs_mr, mr_type) == 48, "verbs_mr.mr_type");
static_assert(offsetof(struct verbs_mr, access) == 52, "verbs_mr.access");

static_assert(sizeof(struct verbs_context_ops) ==
	      VPRIV_OP_OFFSET(VPRIV_CONTEXT_OPS_SLOTS), "verbs_context_ops");
static_assert(offsetof(struct verbs_context_ops, alloc_pd) ==
	      VPRIV_OP_OFFSET(5), "verbs_context_ops.alloc_pd");
static_assert(offsetof(struct verbs_context_ops, dealloc_pd) ==
	      VPRIV_OP_OFFSET(26), "verbs_context_ops.dealloc_pd");
static_assert(offsetof(struct verbs_context_ops, dereg_mr) ==
	      VPRIV_OP_OFFSET(28), "verbs_context_ops.dereg_mr");
static_assert(offsetof(struct verbs_context_ops, free_context) ==
	      VPRIV_OP_OFFSET(39), "verbs_context_ops.free_context");
static_assert(offsetof(struct verbs_context_ops, query_device_ex) ==
	      VPRIV_OP_OFFSET(58), "verbs_context_ops.query_device_ex");
static_assert(offsetof(struct verbs_context_ops, query_port) ==
	      VPRIV_OP_OFFSET(60), "verbs_context_ops.query_port");
static_assert(offsetof(struct verbs_context_ops, reg_mr) ==
	      VPRIV_OP_OFFSET(68), "verbs_context_ops.reg_mr");
static_assert(offsetof(struct verbs_context_ops, create_ah) ==
	      VPRIV_OP_OFFSET(13), "verbs_context_ops.create_ah");
static_assert(offsetof(struct verbs_context_ops, create_cq) ==
	      VPRIV_OP_OFFSET(15), "verbs_context_ops.create_cq");
static_assert(offsetof(struct verbs_context_ops, create_qp) ==
	      VPRIV_OP_OFFSET(19), "verbs_context_ops.create_qp");
static_assert(offsetof(struct verbs_context_ops, create_cq_ex) ==
	      VPRIV_OP_OFFSET(16), "verbs_context_ops.create_cq_ex");
static_assert(offsetof(struct verbs_context_ops, create_qp_ex) ==
	      VPRIV_OP_OFFSET(20), "verbs_context_ops.create_qp_ex");
static_assert(offsetof(struct verbs_context_ops, destroy_ah) ==
	      VPRIV_OP_OFFSET(29), "verbs_context_ops.destroy_ah");
static_assert(offsetof(struct verbs_context_ops, destroy_cq) ==
	      VPRIV_OP_OFFSET(31), "verbs_context_ops.destroy_cq");
static_assert(offsetof(struct verbs_context_ops, destroy_qp) ==
	      VPRIV_OP_OFFSET(34), "verbs_context_ops.destroy_qp");
static_assert(offsetof(struct verbs_context_ops, modify_qp) ==
	      VPRIV_OP_OFFSET(47), "verbs_context_ops.modify_qp");
static_assert(offsetof(struct verbs_context_ops, poll_cq) ==
	      VPRIV_OP_OFFSET(53), "verbs_context_ops.poll_cq");
static_assert(offsetof(struct verbs_context_ops, post_recv) ==
	      VPRIV_OP_OFFSET(54), "verbs_context_ops.post_recv");
static_assert(offsetof(struct verbs_context_ops, post_send) ==
	      VPRIV_OP_OFFSET(55), "verbs_context_ops.post_send");
static_assert(offsetof(struct verbs_context_ops, query_qp) ==
	      VPRIV_OP_OFFSET(61), "verbs_context_ops.query_qp");
static_assert(offsetof(struct verbs_context_ops, req_notify_cq) ==
	      VPRIV_OP_OFFSET(69), "verbs_context_ops.req_notify_cq");
static_assert(offsetof(struct verbs_context_ops, resize_cq) ==
	      VPRIV_OP_OFFSET(71), "verbs_context_ops.resize_cq");
static_assert(offsetof(struct verbs_context_ops, create_srq) ==
	      VPRIV_OP_OFFSET(22), "verbs_context_ops.create_srq");
static_assert(offsetof(struct verbs_context_ops, destroy_srq) ==
	      VPRIV_OP_OFFSET(36), "verbs_context_ops.destroy_srq");
static_assert(offsetof(struct verbs_context_ops, modify_srq) ==
	      VPRIV_OP_OFFSET(49), "verbs_context_ops.modify_srq");
static_assert(offsetof(struct verbs_context_ops, post_srq_recv) ==
	      VPRIV_OP_OFFSET(57), "verbs_context_ops.post_srq_recv");
static_assert(offsetof(struct verbs_context_ops, query_srq) ==
	      VPRIV_OP_OFFSET(64), "verbs_context_ops.query_srq");
static_assert(offsetof(struct verbs_context_ops, alloc_mw) ==
	      VPRIV_OP_OFFSET(2), "verbs_context_ops.alloc_mw");
static_assert(offsetof(struct verbs_context_ops, bind_mw) ==
	      VPRIV_OP_OFFSET(10), "verbs_context_ops.bind_mw");
static_assert(offsetof(struct verbs_context_ops, dealloc_mw) ==
	      VPRIV_OP_OFFSET(25), "verbs_context_ops.dealloc_mw");
static_assert(offsetof(struct verbs_context_ops, unimport_pd) ==
	      VPRIV_OP_OFFSET(75), "verbs_context_ops: last slot");

static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8, "uverbs write header");
static_assert(sizeof(struct vpriv_cmd_get_context) == 16, "get_context cmd");
static_assert(sizeof(struct vpriv_cmd_query_port) == 24, "query_port cmd");
static_assert(sizeof(struct vpriv_cmd_alloc_pd) == 16, "alloc_pd cmd");
static_assert(sizeof(struct vpriv_cmd_reg_mr) == 48, "reg_mr cmd");
static_assert(sizeof(struct vpriv_cmd_alloc_mw) == 24, "alloc_mw cmd");
static_assert(sizeof(struct ib_uverbs_alloc_mw_resp) == 8, "alloc_mw resp");
static_assert(sizeof(struct vpriv_cmd_create_cq) == 40, "create_cq cmd");
static_assert(sizeof(struct vpriv_ex_hdr) == 24, "extended write header");
static_assert(sizeof(struct vpriv_cmd_create_cq_ex) == 56, "create_cq_ex cmd");
static_assert(sizeof(struct vpriv_cmd_resize_cq) == 24, "resize_cq cmd");
static_assert(sizeof(struct vpriv_cmd_create_qp) == 64, "create_qp cmd");
static_assert(sizeof(struct vpriv_cmd_modify_qp) == 120, "modify_qp cmd");
static_assert(sizeof(struct vpriv_cmd_query_qp) == 24, "query_qp cmd");
static_assert(sizeof(struct vpriv_cmd_create_srq) == 40, "create_srq cmd");
static_assert(sizeof(struct vpriv_cmd_modify_srq) == 24, "modify_srq cmd");
static_assert(sizeof(struct vpriv_cmd_query_srq) == 24, "query_srq cmd");
static_assert(sizeof(struct ib_uverbs_create_srq_resp) == 16,
	      "create_srq resp");
static_assert(sizeof(struct ib_uverbs_create_cq_resp) == 8, "create_cq resp");
static_assert(sizeof(struct ib_uverbs_resize_cq_resp) == 8, "resize_cq resp");
static_assert(sizeof(struct ib_uverbs_create_qp_resp) == 32, "create_qp resp");
static_assert(sizeof(struct ib_uverbs_create_ah_resp) == 4, "create_ah resp");
static_assert(sizeof(struct ib_uverbs_ex_create_cq_resp) == 16,
	      "create_cq_ex resp");

/* The public objects the library hands the provider (verbs.h). */
static_assert(sizeof(struct ibv_cq) == 128, "public ibv_cq");
static_assert(sizeof(struct ibv_qp) == 160, "public ibv_qp");
static_assert(sizeof(struct ibv_ah) == 24, "public ibv_ah");
static_assert(sizeof(struct ibv_srq) == 128, "public ibv_srq");
static_assert(sizeof(struct ibv_wc) == 48, "public ibv_wc");
static_assert(sizeof(struct ibv_cq_ex) == 288, "public ibv_cq_ex");
static_assert(sizeof(struct verbs_cq) == sizeof(struct ibv_cq_ex),
	      "verbs_cq");
/* v44's ibv_qp_ex (v45 appended wr_flush, moving comp_mask). */
static_assert(sizeof(struct ibv_qp_ex) == 352, "public ibv_qp_ex");
static_assert(offsetof(struct verbs_qp, comp_mask) ==
	      sizeof(struct ibv_qp_ex), "verbs_qp.comp_mask");
static_assert(sizeof(struct verbs_qp) == 368, "verbs_qp");

#endif /* METAROCE_VERBS_PRIVATE_H */
