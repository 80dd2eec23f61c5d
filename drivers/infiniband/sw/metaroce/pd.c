// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: protection domains.
 *
 * A PD has no state of its own: MRs, AHs and (later) QPs point to their
 * ib_pd, and the MR look-up compares those pointers.
 */

#include "metaroce.h"

int metaroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibpd->device);

	if (atomic_inc_return(&mdev->num_pd) > METAROCE_MAX_PD) {
		atomic_dec(&mdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

int metaroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_mdev(ibpd->device)->num_pd);
	return 0;
}
