// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: in-kernel test of the verbs objects of one MetaRoCE device.
 *
 *   insmod metaroce_verbs_test.ko dev=mr0
 *
 * Exercises PD, the DMA MR, user MRs (on an anonymous mapping of the insmod
 * process), fast-registration MRs, CQs and AHs through ib_core, and the
 * transport's entry points (metaroce_mr_get() and friends, metaroce_cq_post())
 * directly. Results go to the kernel log as TAP lines prefixed with
 * "metaroce_verbs_test: "; module init fails with -EINVAL if a test failed,
 * and succeeds, leaving nothing allocated, otherwise. The device must have
 * an IPv4 RoCE v2 GID. selftests/metaroce/verbs_objects.sh runs it.
 *
 *   insmod metaroce_verbs_test.ko dev=mr0 inject_cq=ID inject=N
 *
 * instead posts N made-up completions with metaroce_cq_post() to the CQ
 * whose restrack id is ID ("rdma resource show cq": cqn), normally a
 * process's CQ, as the transport will: selftests/metaroce/provider_cq.sh
 * then polls them through libmetaroce. Completion i has wr_id 0x1000 + i,
 * is a receive with immediate 0x100 + i for even i and an RDMA write for odd
 * i, and byte_len 64 * i. Posting stops at the first error (a full CQ).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cache.h>
#include <rdma/restrack.h>

#include "../metaroce.h"

static char *dev = "mr0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "name of the MetaRoCE device to test");

static int inject_cq = -1;
module_param(inject_cq, int, 0444);
MODULE_PARM_DESC(inject_cq, "instead of the tests, post completions to this CQ (restrack id)");

static int inject = 1;
module_param(inject, int, 0444);
MODULE_PARM_DESC(inject, "how many completions inject_cq gets");

static int tests_run;
static int tests_failed;

static void report(bool pass, const char *name, long got)
{
	tests_run++;
	if (pass) {
		pr_info("ok %d - %s\n", tests_run, name);
	} else {
		tests_failed++;
		pr_info("not ok %d - %s (got %ld)\n", tests_run, name, got);
	}
}

/* metaroce_mr_get() returns @expect; the reference is dropped at once. */
static void expect_get(struct metaroce_dev *mdev, u32 key, struct ib_pd *pd,
		       int access, u64 addr, u64 len, int expect,
		       const char *name)
{
	struct metaroce_mr *mr;
	int ret;

	ret = metaroce_mr_get(mdev, key, pd, access, addr, len, &mr);
	if (!ret)
		metaroce_mr_put(mr);
	report(ret == expect, name, ret);
}

static void test_dma_mr(struct metaroce_dev *mdev, struct ib_pd *pd,
			struct ib_pd *pd2)
{
	u32 key = pd->local_dma_lkey;
	struct metaroce_mr *mr;
	unsigned int off;
	struct page *page;
	void *buf;
	int ret;

	buf = kmalloc(256, GFP_KERNEL);
	if (!buf) {
		report(false, "dma mr: buffer", -ENOMEM);
		return;
	}

	ret = metaroce_mr_get(mdev, key, pd, IB_ACCESS_LOCAL_WRITE,
			      (uintptr_t)buf, 256, &mr);
	report(!ret, "dma mr: local_dma_lkey of the PD, local write", ret);
	if (!ret) {
		ret = metaroce_mr_page(mr, (uintptr_t)buf + 100, &page, &off);
		report(ret > 0 && page == virt_to_page(buf + 100) &&
		       off == offset_in_page(buf + 100),
		       "dma mr: translation to the kernel page", ret);
		metaroce_mr_put(mr);
	}
	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_WRITE, (uintptr_t)buf, 8,
		   -EACCES, "dma mr: remote write not granted");
	expect_get(mdev, key, pd2, 0, (uintptr_t)buf, 8, -EPERM,
		   "dma mr: other PD refused");
	expect_get(mdev, key ^ 1, pd, 0, (uintptr_t)buf, 8, -ENOENT,
		   "dma mr: stale key variant refused");
	expect_get(mdev, 0, pd, 0, (uintptr_t)buf, 8, -ENOENT,
		   "key 0 refused");
	expect_get(mdev, 0xffffff00, pd, 0, (uintptr_t)buf, 8, -ENOENT,
		   "unknown key index refused");
	kfree(buf);
}

static void test_user_mr(struct metaroce_dev *mdev, struct ib_pd *pd)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			   IB_ACCESS_REMOTE_READ;
	const u64 iova = 0x700000000010ULL, len = 2 * PAGE_SIZE;
	unsigned long uaddr;
	struct metaroce_mr *mr;
	struct ib_mr *ibmr;
	unsigned int off;
	struct page *page;
	u32 key, val = 0;
	int ret;

	uaddr = vm_mmap(NULL, 0, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(uaddr)) {
		report(false, "user mr: mapping", (long)uaddr);
		return;
	}
	if (put_user(0xabcd1234U, (u32 __user *)(uaddr + PAGE_SIZE + 8))) {
		report(false, "user mr: write pattern", -EFAULT);
		goto out_unmap;
	}

	ibmr = ib_reg_user_mr(pd, uaddr + 16, PAGE_SIZE, uaddr + 16,
			      IB_ACCESS_REMOTE_WRITE);
	report(IS_ERR(ibmr), "user mr: remote write without local write refused",
	       IS_ERR(ibmr) ? PTR_ERR(ibmr) : 0);
	if (!IS_ERR(ibmr))
		ib_dereg_mr(ibmr);

	/* Starts 16 bytes into the mapping, at an unrelated iova. */
	ibmr = ib_reg_user_mr(pd, uaddr + 16, len, iova, access);
	report(!IS_ERR(ibmr), "user mr: registration",
	       IS_ERR(ibmr) ? PTR_ERR(ibmr) : 0);
	if (IS_ERR(ibmr))
		goto out_unmap;
	key = ibmr->rkey;
	report(ibmr->lkey == key, "user mr: lkey == rkey", ibmr->lkey);

	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_WRITE, iova, len, 0,
		   "user mr: whole range");
	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_WRITE, iova + 1, len,
		   -ERANGE, "user mr: one byte past the end refused");
	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_WRITE, iova - 1, 1,
		   -ERANGE, "user mr: one byte before the start refused");
	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_READ, iova + len, 0, 0,
		   "user mr: zero length at the end");
	expect_get(mdev, key, pd, 0, iova + 8, U64_MAX, -ERANGE,
		   "user mr: addr + len wrapping refused");
	expect_get(mdev, key, pd, 0, U64_MAX, 2, -ERANGE,
		   "user mr: address at the top refused");
	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_ATOMIC, iova, 8, -EACCES,
		   "user mr: atomic not granted");

	ret = metaroce_mr_get(mdev, key, pd, IB_ACCESS_REMOTE_READ,
			      iova + PAGE_SIZE - 8, 4, &mr);
	if (!ret) {
		/* iova + PAGE_SIZE - 8 is uaddr + 16 + PAGE_SIZE - 8. */
		ret = metaroce_mr_page(mr, iova + PAGE_SIZE - 8, &page, &off);
		if (ret > 0) {
			void *kva = kmap_local_page(page);

			val = *(u32 *)(kva + off);
			kunmap_local(kva);
		}
		metaroce_mr_put(mr);
	}
	report(ret == PAGE_SIZE - 8 && val == 0xabcd1234U,
	       "user mr: translation reaches the user page", ret);

	ib_dereg_mr(ibmr);
	expect_get(mdev, key, pd, 0, iova, 1, -ENOENT,
		   "user mr: key dead after dereg");
out_unmap:
	vm_munmap(uaddr, 3 * PAGE_SIZE);
}

static void test_fast_reg_mr(struct metaroce_dev *mdev, struct ib_pd *pd)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct ib_device *ibdev = &mdev->ibdev;
	struct page *pages[2] = {};
	struct scatterlist sg[2];
	struct metaroce_mr *mr;
	struct ib_mr *ibmr;
	unsigned int off;
	struct page *page;
	int ret, n;
	u32 key;

	ibmr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	report(!IS_ERR(ibmr), "fast-reg mr: alloc",
	       IS_ERR(ibmr) ? PTR_ERR(ibmr) : 0);
	if (IS_ERR(ibmr))
		return;

	pages[0] = alloc_page(GFP_KERNEL);
	pages[1] = alloc_page(GFP_KERNEL);
	if (!pages[0] || !pages[1]) {
		report(false, "fast-reg mr: pages", -ENOMEM);
		goto out;
	}
	sg_init_table(sg, 2);
	sg_set_page(&sg[0], pages[0], PAGE_SIZE, 0);
	sg_set_page(&sg[1], pages[1], PAGE_SIZE, 0);
	n = ib_dma_map_sg(ibdev, sg, 2, DMA_BIDIRECTIONAL);
	ret = ib_map_mr_sg(ibmr, sg, n, NULL, PAGE_SIZE);
	report(ret == 2 && ibmr->length == 2 * PAGE_SIZE,
	       "fast-reg mr: map two pages", ret);

	ib_update_fast_reg_key(ibmr, ib_inc_rkey(ibmr->rkey) & 0xff);
	key = ibmr->rkey;

	expect_get(mdev, key, pd, 0, ibmr->iova, 1, -ENOENT,
		   "fast-reg mr: not valid before REG_MR");
	ret = metaroce_mr_fast_reg(to_mmr(ibmr), key, access);
	report(!ret, "fast-reg mr: REG_MR with a new key variant", ret);
	ret = metaroce_mr_fast_reg(to_mmr(ibmr), key, access);
	report(ret == -EBUSY, "fast-reg mr: REG_MR on a valid MR refused", ret);

	ret = metaroce_mr_get(mdev, key, pd, IB_ACCESS_REMOTE_WRITE,
			      ibmr->iova, 2 * PAGE_SIZE, &mr);
	report(!ret, "fast-reg mr: whole range, remote write", ret);
	if (!ret) {
		ret = metaroce_mr_page(mr, ibmr->iova + PAGE_SIZE + 4, &page,
				       &off);
		report(ret == PAGE_SIZE - 4 && page == pages[1] && off == 4,
		       "fast-reg mr: translation to the second page", ret);
		metaroce_mr_put(mr);
	}
	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_WRITE, ibmr->iova,
		   2 * PAGE_SIZE + 1, -ERANGE, "fast-reg mr: past the end refused");
	expect_get(mdev, key, pd, IB_ACCESS_REMOTE_READ, ibmr->iova, 1,
		   -EACCES, "fast-reg mr: remote read not granted");

	ret = metaroce_mr_invalidate(mdev, key, pd);
	report(!ret, "fast-reg mr: invalidate", ret);
	expect_get(mdev, key, pd, 0, ibmr->iova, 1, -ENOENT,
		   "fast-reg mr: not valid after invalidate");
	ret = metaroce_mr_invalidate(mdev, key, pd);
	report(ret == -ENOENT, "fast-reg mr: second invalidate refused", ret);

	ib_dma_unmap_sg(ibdev, sg, 2, DMA_BIDIRECTIONAL);
out:
	if (pages[1])
		__free_page(pages[1]);
	if (pages[0])
		__free_page(pages[0]);
	ib_dereg_mr(ibmr);
}

struct cq_ctx {
	int comps;
	int events;
};

static void cq_comp(struct ib_cq *cq, void *ctx)
{
	((struct cq_ctx *)ctx)->comps++;
}

static void cq_event(struct ib_event *event, void *ctx)
{
	if (event->event == IB_EVENT_CQ_ERR)
		((struct cq_ctx *)ctx)->events++;
}

static int cq_post(struct ib_cq *cq, u64 wr_id, bool solicited)
{
	struct ib_wc wc = { .wr_id = wr_id, .status = IB_WC_SUCCESS };

	return metaroce_cq_post(to_mcq(cq), &wc, solicited);
}

static void test_cq(struct metaroce_dev *mdev)
{
	struct ib_cq_init_attr attr = { .cqe = 4 };
	struct cq_ctx ctx = {};
	struct ib_wc wc[8];
	struct ib_cq *cq;
	int ret, n;

	cq = ib_create_cq(&mdev->ibdev, cq_comp, cq_event, &ctx, &attr);
	report(!IS_ERR(cq) && cq->cqe == 4, "cq: create with 4 entries",
	       IS_ERR(cq) ? PTR_ERR(cq) : cq->cqe);
	if (IS_ERR(cq))
		return;

	cq_post(cq, 1, false);
	cq_post(cq, 2, false);
	cq_post(cq, 3, false);
	n = ib_poll_cq(cq, 2, wc);
	report(n == 2 && wc[0].wr_id == 1 && wc[1].wr_id == 2,
	       "cq: poll returns completions in order", n);
	report(ctx.comps == 0, "cq: no event while not armed", ctx.comps);

	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	cq_post(cq, 4, false);
	cq_post(cq, 5, false);
	report(ctx.comps == 1, "cq: one event per arming", ctx.comps);

	ib_req_notify_cq(cq, IB_CQ_SOLICITED);
	cq_post(cq, 6, false);
	report(ctx.comps == 1, "cq: solicited arming ignores unsolicited",
	       ctx.comps);
	ret = ib_req_notify_cq(cq, IB_CQ_SOLICITED | IB_CQ_REPORT_MISSED_EVENTS);
	report(ret == 1, "cq: report missed events on a non-empty CQ", ret);

	ret = ib_resize_cq(cq, 16);
	report(!ret && cq->cqe == 16, "cq: resize to 16 keeps entries", ret);
	ret = cq_post(cq, 7, true);
	report(!ret && ctx.comps == 2, "cq: solicited completion raises event",
	       ctx.comps);
	n = ib_poll_cq(cq, 8, wc);
	report(n == 5 && wc[0].wr_id == 3 && wc[4].wr_id == 7,
	       "cq: all entries after resize, in order", n);

	ret = ib_resize_cq(cq, 2);
	report(!ret && cq->cqe == 2, "cq: resize down to 2", ret);
	cq_post(cq, 8, false);
	cq_post(cq, 9, false);
	ret = ib_resize_cq(cq, 1);
	report(ret == -EINVAL, "cq: resize below pending entries refused", ret);
	ret = cq_post(cq, 10, false);
	report(ret == -ENOSPC && ctx.events == 1,
	       "cq: overflow refused, CQ error event", ret);
	ret = cq_post(cq, 11, false);
	report(ret == -ENOSPC && ctx.events == 1,
	       "cq: stays in error, one event", ret);

	ib_destroy_cq(cq);
}

static void test_ah(struct metaroce_dev *mdev, struct ib_pd *pd)
{
	const struct ib_gid_attr *sgid_attr = NULL;
	struct rdma_ah_attr ah_attr = {};
	struct metaroce_ah *mah;
	union ib_gid dgid = {};
	struct ib_ah *ah;
	int i;

	for (i = 0; i < METAROCE_GID_TABLE_LEN; i++) {
		sgid_attr = rdma_get_gid_attr(&mdev->ibdev, METAROCE_PORT, i);
		if (IS_ERR(sgid_attr))
			continue;
		if (ipv6_addr_v4mapped((struct in6_addr *)sgid_attr->gid.raw))
			break;
		rdma_put_gid_attr(sgid_attr);
	}
	report(i < METAROCE_GID_TABLE_LEN, "ah: the device has an IPv4 GID", i);
	if (i == METAROCE_GID_TABLE_LEN)
		return;

	ipv6_addr_set_v4mapped(htonl(0x0a090902), (struct in6_addr *)dgid.raw);
	ah_attr.type = rdma_ah_find_type(&mdev->ibdev, METAROCE_PORT);
	rdma_ah_set_port_num(&ah_attr, METAROCE_PORT);
	rdma_ah_set_grh(&ah_attr, &dgid, 0, sgid_attr->index, 64, 0);
	eth_broadcast_addr(ah_attr.roce.dmac);

	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	report(!IS_ERR(ah), "ah: create to an IPv4 destination",
	       IS_ERR(ah) ? PTR_ERR(ah) : 0);
	if (!IS_ERR(ah)) {
		mah = to_mah(ah);
		report(mah->net_type == RDMA_NETWORK_IPV4 &&
		       mah->daddr.v4.sin_addr.s_addr == htonl(0x0a090902) &&
		       mah->saddr.v4.sin_family == AF_INET &&
		       mah->hop_limit == 64,
		       "ah: keeps the IPv4 addresses", mah->net_type);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	}

	dgid.global.subnet_prefix = cpu_to_be64(0x20010db800000000ULL);
	dgid.global.interface_id = cpu_to_be64(2);
	rdma_ah_set_grh(&ah_attr, &dgid, 0, sgid_attr->index, 64, 0);
	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	report(IS_ERR(ah) && PTR_ERR(ah) == -EAFNOSUPPORT,
	       "ah: IPv6 destination from an IPv4 GID refused",
	       IS_ERR(ah) ? PTR_ERR(ah) : 0);
	if (!IS_ERR(ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);

	rdma_put_gid_attr(sgid_attr);
}

/* Completions for inject_cq, as the transport would post them. */
static void inject_completions(struct ib_device *ibdev)
{
	struct rdma_restrack_entry *res;
	struct ib_cq *ibcq;
	int i, ret = 0, posted = 0;

	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_CQ, inject_cq);
	report(!IS_ERR(res), "inject: the CQ exists", PTR_ERR_OR_ZERO(res));
	if (IS_ERR(res))
		return;
	ibcq = container_of(res, struct ib_cq, res);

	for (i = 0; i < inject; i++) {
		struct ib_wc wc = {
			.wr_id = 0x1000 + i,
			.status = IB_WC_SUCCESS,
			.opcode = i % 2 ? IB_WC_RDMA_WRITE : IB_WC_RECV,
			.wc_flags = i % 2 ? 0 : IB_WC_WITH_IMM,
			.ex.imm_data = i % 2 ? 0 : cpu_to_be32(0x100 + i),
			.byte_len = 64 * i,
		};

		ret = metaroce_cq_post(to_mcq(ibcq), &wc, false);
		if (ret)
			break;
		posted++;
	}
	pr_info("inject: %d of %d posted to a CQ of %d, then %d\n", posted,
		inject, ibcq->cqe, ret);
	report(posted == min(inject, ibcq->cqe) &&
	       ret == (inject > ibcq->cqe ? -ENOSPC : 0),
	       "inject: posted until the CQ is full, then -ENOSPC", posted);
	rdma_restrack_put(res);
}

static int __init metaroce_verbs_test_init(void)
{
	int base_pd, base_cq, base_mr, base_ah;
	struct metaroce_dev *mdev;
	struct ib_device *ibdev;
	struct ib_pd *pd, *pd2;

	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		pr_err("no RDMA device %s\n", dev);
		return -ENODEV;
	}
	if (!ibdev->ops.owner || strcmp(ibdev->ops.owner->name, "metaroce")) {
		pr_err("%s is not a MetaRoCE device\n", dev);
		ib_device_put(ibdev);
		return -ENODEV;
	}
	mdev = to_mdev(ibdev);
	/* The MAD layer keeps a PD, a CQ and an MR for the GSI QP: count from here. */
	base_pd = atomic_read(&mdev->num_pd);
	base_cq = atomic_read(&mdev->num_cq);
	base_mr = atomic_read(&mdev->num_mr);
	base_ah = atomic_read(&mdev->num_ah);

	if (inject_cq >= 0) {
		inject_completions(ibdev);
		ib_device_put(ibdev);
		pr_info("1..%d\n", tests_run);
		return tests_failed ? -EINVAL : 0;
	}

	pd = ib_alloc_pd(ibdev, 0);
	pd2 = ib_alloc_pd(ibdev, 0);
	report(!IS_ERR(pd) && !IS_ERR(pd2), "pd: alloc two", 0);
	if (!IS_ERR(pd) && !IS_ERR(pd2)) {
		test_dma_mr(mdev, pd, pd2);
		test_user_mr(mdev, pd);
		test_fast_reg_mr(mdev, pd);
		test_cq(mdev);
		test_ah(mdev, pd);
	}
	if (!IS_ERR(pd2))
		ib_dealloc_pd(pd2);
	if (!IS_ERR(pd))
		ib_dealloc_pd(pd);

	report(atomic_read(&mdev->num_pd) == base_pd &&
	       atomic_read(&mdev->num_cq) == base_cq &&
	       atomic_read(&mdev->num_mr) == base_mr &&
	       atomic_read(&mdev->num_ah) == base_ah,
	       "all objects released", atomic_read(&mdev->num_mr) - base_mr);
	ib_device_put(ibdev);

	pr_info("1..%d\n", tests_run);
	return tests_failed ? -EINVAL : 0;
}

static void __exit metaroce_verbs_test_exit(void)
{
}

module_init(metaroce_verbs_test_init);
module_exit(metaroce_verbs_test_exit);

MODULE_DESCRIPTION("MetaRoCE verbs objects test");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(METAROCE);
