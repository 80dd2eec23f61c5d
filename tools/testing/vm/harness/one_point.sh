#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A selftest of one passing point, for harness_check.sh.
echo "TAP version 13"
echo "1..1"
echo "ok 1 ${0##*/} ran in boot $(cat /proc/sys/kernel/random/boot_id)"
