/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the MetaRoCE protocol core needs from its host, and nothing more.
 *
 * The core (this directory) is compiled unchanged into metaroce.ko and into
 * libsoftmetaroce. It makes no operating-system calls:
 *
 * - time is an argument: entry points that need the clock take "now" in nanoseconds, so
 *   that the test bench can run on virtual time and reproduce a run from its seed;
 * - timers: the core never arms one; it reports the next deadline and the host calls the
 *   core's timer entry point once that deadline has passed (one host timer per connection);
 * - memory: all state lives in fixed-size structures the host embeds in its own objects;
 * - randomness (initial PSN, connection token, source ports) is drawn by the host;
 * - packets: the core encodes headers into buffers the host provides and decodes buffers
 *   the host hands in; the host owns sockets, skbs and payload copies.
 *
 * The only function the core calls is mr_crc32c(), with the semantics of the kernel's
 * crc32c(): no pre- or post-inversion.
 */
#ifndef _METAROCE_PROTO_PLATFORM_H
#define _METAROCE_PROTO_PLATFORM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

/* icrc.c: crc32c() or lib/crc32's tables, whichever this CPU runs faster. */
u32 mr_crc32c(u32 crc, const void *p, unsigned int len);

#else /* userspace: libsoftmetaroce, unit tests, fuzzers */
#include <metaroce/compat-user.h>

u32 mr_crc32c(u32 crc, const void *p, unsigned int len);

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
#endif

#include <metaroce/wire.h>

/*
 * Big-endian field access at any alignment. Open-coded rather than get_unaligned_be32()
 * because that header moved between the kernels the module supports, and because the
 * same code must build in userspace; compilers turn these into a load and a bswap.
 */
static inline u16 mr_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 mr_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 mr_get_be64(const u8 *p)
{
	return (u64)mr_get_be32(p) << 32 | mr_get_be32(p + 4);
}

static inline void mr_put_be16(u16 v, u8 *p)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void mr_put_be32(u32 v, u8 *p)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void mr_put_be64(u64 v, u8 *p)
{
	mr_put_be32(v >> 32, p);
	mr_put_be32(v, p + 4);
}

#endif /* _METAROCE_PROTO_PLATFORM_H */
