#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# metaroce.ko loads, registers its rdma link type (so "rdma link add ... type metaroce"
# autoloads it) and unloads without leaving anything behind.
. "$(dirname "$0")/lib.sh"
require_vm

ktap_plan 5
ktap_check "modprobe metaroce" modprobe metaroce
ktap_check "module is live" grep -q '^metaroce .* Live ' /proc/modules
ktap_check "link type alias is declared" sh -c 'modinfo -F alias metaroce | grep -qx rdma-link-metaroce'
ktap_check "modprobe -r metaroce" modprobe -r metaroce
ktap_check "module is gone" sh -c '! grep -q "^metaroce " /proc/modules'
ktap_finish
