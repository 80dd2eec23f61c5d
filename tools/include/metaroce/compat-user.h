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

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>	/* __be16, __be32, __be64 */

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#define cpu_to_be16(x)	((__be16)htobe16(x))
#define cpu_to_be32(x)	((__be32)htobe32(x))
#define cpu_to_be64(x)	((__be64)htobe64(x))
#define be16_to_cpu(x)	be16toh((u16)(x))
#define be32_to_cpu(x)	be32toh((u32)(x))
#define be64_to_cpu(x)	be64toh((u64)(x))

/* As the kernel's: the message is optional. */
#undef static_assert
#define static_assert(expr, ...)	__mr_static_assert(expr, ##__VA_ARGS__, #expr)
#define __mr_static_assert(expr, msg, ...)	_Static_assert(expr, msg)

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define U64_MAX		((u64)~0ULL)
#define U32_MAX		((u32)~0U)
#define U16_MAX		((u16)~0U)
#define U8_MAX		((u8)~0U)

#define min_t(t, a, b)	({ t __a = (a); t __b = (b); __a < __b ? __a : __b; })
#define max_t(t, a, b)	({ t __a = (a); t __b = (b); __a > __b ? __a : __b; })
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
