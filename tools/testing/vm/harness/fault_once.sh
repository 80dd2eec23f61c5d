#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For harness_check.sh: in the first boot of a run, after its first point, the guest dies
# as the emulator's text-patching race kills it (the same kernel log lines, then a panic).
echo "TAP version 13"
echo "1..2"
echo "ok 1 before the fault"
if [ ! -e "$METAROCE_VM_STATE/faulted" ]; then
	touch "$METAROCE_VM_STATE/faulted" && sync
	echo "<2>Oops: int3: 0000 [#1] PREEMPT SMP NOPTI (written by harness/fault_once.sh)" >/dev/kmsg
	echo "<2> ? text_poke_bp_batch+0x2a6/0x300" >/dev/kmsg
	echo c >/proc/sysrq-trigger
	sleep 30
fi
echo "ok 2 after the fault"
