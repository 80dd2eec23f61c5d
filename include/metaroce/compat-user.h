/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers the MetaRoCE wire header and protocol core use, for
 * userspace builds (libsoftmetaroce, unit tests, fuzzers). The kernel build never includes
 * this file. Endianness annotations are empty here; sparse checks them in the kernel build.
 */
#ifndef _METAROCE_COMPAT_USER_H
#define _METAROCE_COMPAT_USER_H

#ifdef __KERNEL__
#error "compat-user.h is for userspace builds only"
#endif

#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>	/* __be16, __be32, __be64 */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define cpu_to_be16(x)	((__be16)htobe16(x))
#define cpu_to_be32(x)	((__be32)htobe32(x))
#define cpu_to_be64(x)	((__be64)htobe64(x))
#define be16_to_cpu(x)	be16toh((u16)(x))
#define be32_to_cpu(x)	be32toh((u32)(x))
#define be64_to_cpu(x)	be64toh((u64)(x))

static inline u16 get_unaligned_be16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline u32 get_unaligned_be32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline u64 get_unaligned_be64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_be64(u64 v, void *p)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define U64_MAX		UINT64_MAX
#define U32_MAX		UINT32_MAX

#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)

#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

static inline unsigned int hweight64(u64 w)
{
	return (unsigned int)__builtin_popcountll(w);
}

/* Index of the lowest set bit; w must not be zero (as the kernel's __ffs64). */
static inline unsigned int __ffs64(u64 w)
{
	return (unsigned int)__builtin_ctzll(w);
}

#endif /* _METAROCE_COMPAT_USER_H */
