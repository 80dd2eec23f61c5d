// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: the CRC32C behind every packet's ICRC, the faster of two on this CPU.
 *
 * crc32c() reaches the CPU's best crypto driver; on x86 that is crc32c-intel,
 * whose path for buffers of a packet's size saves and restores the FPU state.
 * On a real CPU it wins by far; under an emulated one (QEMU TCG, where the
 * tests run) the FPU save and the emulated CRC instruction make it several
 * times slower than the table code of lib/crc32. As the RAID6 and XOR code do,
 * time both once at load and keep the faster; both must agree on the result.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "metaroce.h"
#include "proto/platform.h"

#define METAROCE_ICRC_PROBE_LEN		MR_MAX_PAYLOAD
#define METAROCE_ICRC_PROBE_ROUNDS	8

static bool metaroce_icrc_table __read_mostly;

u32 mr_crc32c(u32 crc, const void *p, unsigned int len)
{
	if (metaroce_icrc_table)
		return __crc32c_le(crc, p, len);
	return crc32c(crc, p, len);
}

/* The shortest of a few runs: the others met an interrupt or a busy host. */
static u64 metaroce_icrc_time(const u8 *buf, bool table, u32 *crc)
{
	u64 best = U64_MAX, t;
	int i;

	for (i = 0; i < METAROCE_ICRC_PROBE_ROUNDS; i++) {
		t = ktime_get_ns();
		*crc = table ? __crc32c_le(~0U, buf, METAROCE_ICRC_PROBE_LEN) :
			       crc32c(~0U, buf, METAROCE_ICRC_PROBE_LEN);
		best = min(best, ktime_get_ns() - t);
	}
	return best;
}

void metaroce_icrc_select(void)
{
	u64 t_lib, t_table;
	u32 c_lib, c_table;
	u8 *buf;
	int i;

	buf = kmalloc(METAROCE_ICRC_PROBE_LEN, GFP_KERNEL);
	if (!buf)
		return;		/* crc32c(): always right, maybe slower */
	for (i = 0; i < METAROCE_ICRC_PROBE_LEN; i++)
		buf[i] = i * 7 + 1;
	t_lib = metaroce_icrc_time(buf, false, &c_lib);
	t_table = metaroce_icrc_time(buf, true, &c_table);
	kfree(buf);

	if (c_lib != c_table) {
		pr_warn("crc32c() and __crc32c_le() disagree; using crc32c()\n");
		return;
	}
	metaroce_icrc_table = t_table < t_lib;
	pr_info("ICRC by %s (%llu ns per 4 KiB; the other %llu ns)\n",
		metaroce_icrc_table ? "lib/crc32 tables" : "crc32c()",
		min(t_lib, t_table), max(t_lib, t_table));
}
