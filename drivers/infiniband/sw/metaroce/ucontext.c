// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: user contexts (uverbs), as include/uapi/rdma/metaroce-abi.h
 * defines them for the provider library.
 *
 * A context has no state yet: the driver part of the GET_CONTEXT response
 * is all zeroes (ABI revision 1, control path only). Nothing is mmap'ed, so
 * disassociation, which lets the device go away while processes still hold
 * contexts (ib_core then destroys their objects), needs no work here.
 */

#include <rdma/uverbs_ioctl.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"

int metaroce_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct metaroce_alloc_ucontext_resp resp = {};

	if (udata->outlen)
		return ib_copy_to_udata(udata, &resp,
					min(udata->outlen, sizeof(resp)));
	return 0;
}

void metaroce_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

void metaroce_disassociate_ucontext(struct ib_ucontext *uctx)
{
}
