# SPDX-License-Identifier: GPL-2.0
#
# What differs between the kernels we build for is probed from the headers we build
# against, not from version numbers; compat.h turns these into one set of names.
metaroce_probe = $(shell grep -s -A1 -E '$(2)' $(srctree)/include/$(1) | \
		 grep -q -E '$(3)' && echo -D$(4))
ccflags-y += $(call metaroce_probe,rdma/ib_verbs.h,[*]create_cq\b,uverbs_attr_bundle,METAROCE_HAVE_CQ_ATTR_BUNDLE)
ccflags-y += $(call metaroce_probe,rdma/ib_verbs.h,ib_mark_name_assigned_by_user,.,METAROCE_HAVE_NAME_ASSIGNED)
ccflags-y += $(call metaroce_probe,rdma/ib_verbs.h,IB_WR_ATOMIC_WRITE,.,METAROCE_HAVE_ATOMIC_WRITE)
ccflags-y += $(call metaroce_probe,linux/mm.h,void vm_flags_clear\b,.,METAROCE_HAVE_VM_FLAGS_CLEAR)
ccflags-y += $(call metaroce_probe,linux/workqueue.h,system_bh_wq;,.,METAROCE_HAVE_BH_WQ)
