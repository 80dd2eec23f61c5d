#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP: what tools/testing/vm/run does when the guest dies. The emulator's text-patching race
# ("Oops: int3" while text_poke works) is booted again and run_selftests.sh resumes: the
# scripts an earlier boot finished count once, the interrupted one runs again. Any other
# guest death fails the run after one boot. A run under --icount tells the guest so (its
# power-off must not wait on the guest's clock). Four boots, about a minute and a half.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit
h=tools/testing/vm/harness
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "TAP version 13"
echo "1..6"
n=0
point() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

tools/testing/vm/run --no-build --timeout 300 -- selftests/run_selftests.sh \
	"$h/one_point.sh" "$h/fault_once.sh" >"$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
point "$rc" "a run the emulator fault interrupted ends with status 0"
grep -q '^vm/run: emulator fault: ' "$out"
point $? "vm/run names the emulator fault and boots again"
grep -q '^# selftest: .*/one_point.sh: finished before the guest was booted again: 1 passed' "$out"
point $? "the second boot counts the script the first one finished, without running it"
[ "$(grep -c '^ok 2 after the fault' "$out")" -eq 1 ] &&
	grep -qx 'SELFTESTS passed=3 failed=0 skipped=0' "$out"
point $? "the interrupted script runs again: 3 points in all, each counted once"

tools/testing/vm/run --no-build --timeout 300 -- selftests/run_selftests.sh "$h/panic.sh" \
	>"$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
# (An early death, before /init, would still be booted again: that is not this point.)
[ "$rc" -eq 125 ] && ! grep -q 'emulator fault' "$out"
point $? "any other guest death fails the run, not booted again (status $rc)"

# Under icount the guest's clock jumps over idle time: guest-init's power-off fallback
# must not be a timer there (an idle guest would reach it while the host still works).
tools/testing/vm/run --no-build --icount 2 --timeout 300 -- \
	sh -c 'echo "icount=${METAROCE_VM_ICOUNT:-unset}"' >"$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
[ "$rc" -eq 0 ] && grep -qx 'icount=2' "$out"
point $? "a run under --icount tells the guest, and ends with status 0"
