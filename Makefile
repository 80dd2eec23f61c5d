# SPDX-License-Identifier: GPL-2.0
#
# MetaRoCE for Linux: top-level build. See README.md.
#
#   make                 module (for KDIR), provider and tools
#   make module          metaroce.ko only; KDIR=<headers> picks the kernel (default: newest 6.12)
#   make C=1             ... with sparse on the module
#   make check           every test: host unit tests, then the VM selftests
#   make demo            the main job: a two-node MetaRoCE run in the VM
#   make conformance     rdma-core's test suite on rxe and metaroce in the VM, compared
#                        (CONFORMANCE_KERNEL=6.1 for the other kernel)
#   make deps            install what the build and the tests need (Debian packages)
#   make install         metaroce.ko into /lib/modules/<KVER>/updates (then depmod), the
#                        provider and its .driver file; DESTDIR stages, PREFIX as the provider's
#   make bench-loss      ib_write_bw under loss: MetaRoCE beside rxe and siw
#   make bench-kept      loss off and on inside one ib_write_bw run: what it costs each
#                        driver, measured against the lossless seconds around it
#   make bench-sim       the packet-level simulator: MetaRoCE beside go-back-N (SIM lines)
#
# Kernel objects are built in build/kmod/<kernel release>/, a tree of symlinks to the sources,
# so that builds for 6.12 and 6.1 do not overwrite each other's objects.

METAROCE_CACHE ?= /var/cache/metaroce
export METAROCE_CACHE

BUILD := $(CURDIR)/build
KDIR ?= $(shell ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
# The release the module is built for, as uname -r prints it (kernel.release differs on 6.1).
KVER = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
KOBJ = $(BUILD)/kmod/$(KVER)

KMOD_SRCS := $(wildcard Kbuild drivers include)

USER_CFLAGS := -O2 -g -Wall -Wextra -Werror
export USER_CFLAGS

.PHONY: all module module-tree peer-siw provider tools unit check demo deps clean checkpatch \
	bench-loss bench-kept bench-sim conformance install

all: module provider tools

module-tree:
	@test -n "$(KVER)" || { echo "make: no kernel headers at KDIR='$(KDIR)'; run 'make deps'" >&2; exit 1; }
	@mkdir -p $(KOBJ)
	@cp -rsf $(addprefix $(CURDIR)/,$(KMOD_SRCS)) $(KOBJ)/
	@find $(KOBJ) -xtype l -delete

module: module-tree
	$(MAKE) -C $(KDIR) M=$(KOBJ) W=1 $(if $(C),C=$(C)) modules

# siw, the iWARP peer every benchmark compares against, is not built in Debian's kernels:
# build it out of tree from the matching linux-source package (tools/deps.sh unpacks them).
SIW_SRC = $(METAROCE_CACHE)/linux-source-$(if $(filter 6.1.%,$(KVER)),6.1,6.12)/drivers/infiniband/sw/siw
peer-siw:
	@test -n "$(KVER)" || { echo "make: no kernel headers at KDIR='$(KDIR)'; run 'make deps'" >&2; exit 1; }
	@mkdir -p $(KOBJ)/peers/siw
	@cp -sf $(SIW_SRC)/*.[ch] $(KOBJ)/peers/siw/
	@cp -f $(SIW_SRC)/Makefile $(KOBJ)/peers/siw/Kbuild
	$(MAKE) -C $(KDIR) M=$(KOBJ)/peers/siw CONFIG_RDMA_SIW=m modules

provider:
	$(MAKE) -C providers/metaroce BUILD=$(BUILD)/lib

tools:
	$(MAKE) -C tools BUILD=$(BUILD)

unit:
	$(MAKE) -C tools unit BUILD=$(BUILD)
	$(MAKE) -C providers/metaroce unit BUILD=$(BUILD)/lib

deps:
	tools/deps.sh

# Where Debian puts modules that are not the kernel package's own: updates/ wins over the
# tree (depmod's search order). Only metaroce.ko: the test modules stay in the build tree.
# A staged install (DESTDIR) leaves depmod to the package's postinst, as packages do.
MODDIR = /lib/modules/$(KVER)/updates
install: module provider
	install -d $(DESTDIR)$(MODDIR)
	install -m 0644 $(KOBJ)/drivers/infiniband/sw/metaroce/metaroce.ko $(DESTDIR)$(MODDIR)/
	$(if $(DESTDIR),@echo "install: staged in $(DESTDIR); run depmod $(KVER) once installed",/sbin/depmod $(KVER))
	$(MAKE) -C providers/metaroce BUILD=$(BUILD)/lib install

check:
	tools/deps.sh
	$(MAKE) all
	$(MAKE) unit
	tools/testing/run-tests

demo:
	tools/deps.sh
	$(MAKE) all
	tools/testing/vm/run -- tools/demo.sh

# ib_write_bw under 0-10% loss for MetaRoCE, rxe and siw in one VM run: BENCH lines, CSV, PNG
bench-loss:
	tools/deps.sh
	$(MAKE) all
	tools/bench/bench-loss

# The kept shares of bench-loss, measured inside one run per point: BENCH test=kept lines, CSV
bench-kept:
	tools/deps.sh
	$(MAKE) all
	tools/testing/vm/run --timeout 3000 -- tools/bench/kept.sh

CONFORMANCE_KERNEL ?= 6.12
conformance:
	tools/deps.sh
	tools/testing/conformance/run.sh --kernel $(CONFORMANCE_KERNEL)

# No VM, no root: the seeded simulator in tools/sim, MetaRoCE and go-back-N side by side
bench-sim:
	$(MAKE) -C tools sim BUILD=$(BUILD)
	$(BUILD)/bin/metaroce-sim bench

checkpatch:
	$(METAROCE_CACHE)/linux-source-6.12/scripts/checkpatch.pl --strict --no-tree \
		-f \
		$$(git ls-files 'drivers/*.c' 'drivers/*.h' 'include/*.h')

clean:
	rm -rf $(BUILD)
