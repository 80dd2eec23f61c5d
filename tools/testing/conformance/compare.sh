#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compares two results files of pyverbs.sh (--results): lists every test that passes in A
# but not in B, with B's outcome ("missing" when B has no line for it), and exits 1 if there
# is any. With A from rxe and B from metaroce this is the check "MetaRoCE passes at least
# every test rxe passes".
#
#   tools/testing/conformance/compare.sh A B
#
# Exit status: 0 when B passes everything A passes, 1 when not, 2 on unreadable input.
set -u
# Byte order for sort and comm, the same on every machine.
export LC_ALL=C

[ $# -eq 2 ] || { echo "usage: compare.sh A B" >&2; exit 2; }
a=$1
b=$2

# A results line is "OUTCOME<TAB>TEST-ID"; anything else means a wrong or damaged file,
# which must not pass as "nothing regressed".
LINE=$'^(pass|skip|fail|error|xfail|upass|hang|notrun)\t[^\t]+$'
valid() {
	[ -s "$1" ] || { echo "compare.sh: $1: missing or empty" >&2; return 1; }
	if grep -vqE "$LINE" "$1"; then
		echo "compare.sh: $1: not a pyverbs.sh results file:" >&2
		grep -vnE "$LINE" "$1" | head -n 3 >&2
		return 1
	fi
	if [ -n "$(cut -f2 "$1" | sort | uniq -d)" ]; then
		echo "compare.sh: $1: a test appears twice" >&2
		return 1
	fi
}
valid "$a" && valid "$b" || exit 2

awk -F '\t' -v A="$a" -v B="$b" '
	FNR == NR { inb[$2] = $1; next }
	$1 == "pass" || $1 == "xfail" {
		npass++
		o = ($2 in inb) ? inb[$2] : "missing"
		if (o != "pass" && o != "xfail") {
			printf "conformance: compare: not passed in B: %s (A %s, B %s)\n", $2, $1, o
			nbad++
		}
	}
	END {
		printf "conformance: compare: A=%s B=%s: %d tests pass in A, " \
			"%d of them do not pass in B\n", A, B, npass, nbad
		exit nbad > 0
	}' "$b" "$a"
