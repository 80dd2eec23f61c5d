/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: differences between the kernels we build for (Debian 6.1 and 6.12).
 *
 * Kbuild probes the headers we build against for each feature (METAROCE_HAVE_*),
 * rather than trusting version numbers that distributions backport around. This
 * is the only file that tests them; everything else uses the names defined here.
 */

#ifndef METAROCE_COMPAT_H
#define METAROCE_COMPAT_H

#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/workqueue.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * ib_device_ops.create_cq and .reg_user_mr_dmabuf take the whole uverbs
 * attribute bundle since v6.10 (6.12 here) and the driver udata before (6.1).
 * Their last parameter is declared "struct metaroce_verbs_attrs *", and
 * metaroce_attrs_udata() returns the udata: NULL for kernel consumers.
 */
#ifdef METAROCE_HAVE_CQ_ATTR_BUNDLE
#define metaroce_verbs_attrs uverbs_attr_bundle

static inline struct ib_udata *metaroce_attrs_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define metaroce_verbs_attrs ib_udata

static inline struct ib_udata *metaroce_attrs_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * Since v6.9, ib_core records whether a device name was chosen by user space
 * (rdma link add) so that it is not renamed by policy; 6.1 has no such notion.
 */
#ifdef METAROCE_HAVE_NAME_ASSIGNED
static inline void metaroce_mark_name_assigned_by_user(struct ib_device *ibdev)
{
	ib_mark_name_assigned_by_user(ibdev);
}
#else
static inline void metaroce_mark_name_assigned_by_user(struct ib_device *ibdev)
{
}
#endif

/* vm_flags became read-only behind vm_flags_set()/vm_flags_clear() in v6.3. */
#ifdef METAROCE_HAVE_VM_FLAGS_CLEAR
static inline void metaroce_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vm_flags_clear(vma, flags);
}
#else
static inline void metaroce_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * Atomic write (IBTA 1.5) has verbs names since v6.2; 6.1 lacks them. The
 * numbers are the uverbs ABI's (IB_UVERBS_WR_ATOMIC_WRITE = 15,
 * IB_UVERBS_WC_ATOMIC_WRITE = 9), so a 6.1 module still serves a process
 * that posts IBV_WR_ATOMIC_WRITE; kernel consumers cannot name it there.
 */
#ifdef METAROCE_HAVE_ATOMIC_WRITE
#define METAROCE_WR_ATOMIC_WRITE	IB_WR_ATOMIC_WRITE
#define METAROCE_WC_ATOMIC_WRITE	IB_WC_ATOMIC_WRITE
#else
#define METAROCE_WR_ATOMIC_WRITE	15
#define METAROCE_WC_ATOMIC_WRITE	((enum ib_wc_opcode)9)
#endif

/*
 * udp_tunnel6_xmit_skb() returns int on 6.1 (always 0: errors are counted on
 * the netdev) and void on 6.12. Casting either to void is valid C, so one
 * definition serves both; the datapath must not expect a status from it.
 */
#define metaroce_udp_tunnel6_xmit_skb(...) ((void)udp_tunnel6_xmit_skb(__VA_ARGS__))

/*
 * Work run in softirq context on the CPU that queued it, after the softirq
 * that queued it: a BH workqueue item since v6.9 (6.12 here), a tasklet on
 * 6.1, which is what BH workqueues replace.
 */
struct metaroce_bh;
typedef void (*metaroce_bh_fn)(struct metaroce_bh *bh);

#ifdef METAROCE_HAVE_BH_WQ
struct metaroce_bh {
	struct work_struct work;
	metaroce_bh_fn fn;
};

static inline void metaroce_bh_run(struct work_struct *work)
{
	struct metaroce_bh *bh = container_of(work, struct metaroce_bh, work);

	bh->fn(bh);
}

static inline void metaroce_bh_init(struct metaroce_bh *bh, metaroce_bh_fn fn)
{
	INIT_WORK(&bh->work, metaroce_bh_run);
	bh->fn = fn;
}

static inline void metaroce_bh_schedule(struct metaroce_bh *bh)
{
	queue_work(system_bh_wq, &bh->work);
}

/* Waits for a run in progress; @bh must not be scheduled again. */
static inline void metaroce_bh_kill(struct metaroce_bh *bh)
{
	cancel_work_sync(&bh->work);
}
#else
struct metaroce_bh {
	struct tasklet_struct tasklet;
	metaroce_bh_fn fn;
};

static inline void metaroce_bh_run(struct tasklet_struct *t)
{
	struct metaroce_bh *bh = from_tasklet(bh, t, tasklet);

	bh->fn(bh);
}

static inline void metaroce_bh_init(struct metaroce_bh *bh, metaroce_bh_fn fn)
{
	tasklet_setup(&bh->tasklet, metaroce_bh_run);
	bh->fn = fn;
}

static inline void metaroce_bh_schedule(struct metaroce_bh *bh)
{
	tasklet_schedule(&bh->tasklet);
}

static inline void metaroce_bh_kill(struct metaroce_bh *bh)
{
	tasklet_kill(&bh->tasklet);
}
#endif

#endif /* METAROCE_COMPAT_H */
