/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_atomic.h
 * @ingroup base
 * @brief The one place seqring's atomics live (ARCHITECTURE.md, decision 2).
 *
 * Two backends express the same orderings:
 *   - Concurrency Kit's ck_pr (default): inline assembly, tuned per CPU.  On
 *     x86-64 (TSO) acquire and release cost nothing but a compiler barrier.
 *   - C11 <stdatomic.h> (SR_ATOMIC_C11, and always under ThreadSanitizer):
 *     TSan cannot see ck_pr's assembly, so this backend lets TSan check the
 *     ordering choices of the algorithms built on these functions.
 *
 * Operations:  load_relaxed, load_acquire, store_relaxed, store_release,
 * exchange (full barrier), faa (fetch-and-add, full barrier), cas (full
 * barrier), fence_seq_cst (the StoreLoad fence of Dekker-style hand-offs),
 * fence_signal (orders this thread's accesses for the compiler only, as
 * against a signal handler on the same thread), and pause (the spin-wait hint).
 */
#ifndef SR_ATOMIC_H
#define SR_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_build.h"

/* The library's choice (sr_build.h), or ThreadSanitizer's need; SR_ATOMIC_C11 may also be
 * defined by a program that wants the C11 backend in its own inline calls. */
#if !defined(SR_ATOMIC_C11) && (SEQRING_BUILT_WITH_C11_ATOMICS || defined(__SANITIZE_THREAD__))
#define SR_ATOMIC_C11 1
#endif

/** @brief Cache-line size used for padding; Concurrency Kit's value when available. */
#define SR_CACHELINE 64

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__cplusplus) || (defined(SR_ATOMIC_C11) && \
    (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L || defined(__STDC_NO_ATOMICS__)))

/*
 * GCC's and clang's __atomic builtins, with the C11 backend's orderings: for
 * C++ (no <stdatomic.h> before C++23, and Concurrency Kit's headers are not
 * C++) and for C before C11 when the C11 backend is asked for.  The types are
 * plain integers and pointers, laid out as the other backends' (an _Atomic
 * 64-bit integer is aligned to its size), so that these calls and the
 * library's act on the same words.  ThreadSanitizer instruments the builtins.
 */
#if defined(SR_ATOMIC_C11)
typedef int64_t sr_atomic_i64 __attribute__((aligned(8)));
#else
typedef int64_t sr_atomic_i64;
#endif
typedef int32_t sr_atomic_i32;
typedef void *sr_atomic_ptr;

#define SR_ATOMIC_BACKEND "builtins"

static inline int64_t sr_atomic_load_relaxed_i64(const sr_atomic_i64 *p)
{ return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline int64_t sr_atomic_load_acquire_i64(const sr_atomic_i64 *p)
{ return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void sr_atomic_store_relaxed_i64(sr_atomic_i64 *p, int64_t v)
{ __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline void sr_atomic_store_release_i64(sr_atomic_i64 *p, int64_t v)
{ __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline int64_t sr_atomic_faa_i64(sr_atomic_i64 *p, int64_t delta)
{ return __atomic_fetch_add(p, delta, __ATOMIC_SEQ_CST); }
static inline bool sr_atomic_cas_i64(sr_atomic_i64 *p, int64_t expected, int64_t desired)
{ return __atomic_compare_exchange_n(p, &expected, desired, false,
      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); }

static inline int32_t sr_atomic_load_relaxed_i32(const sr_atomic_i32 *p)
{ return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline int32_t sr_atomic_load_acquire_i32(const sr_atomic_i32 *p)
{ return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void sr_atomic_store_relaxed_i32(sr_atomic_i32 *p, int32_t v)
{ __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline void sr_atomic_store_release_i32(sr_atomic_i32 *p, int32_t v)
{ __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline int32_t sr_atomic_exchange_i32(sr_atomic_i32 *p, int32_t v)
{ return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static inline int32_t sr_atomic_faa_i32(sr_atomic_i32 *p, int32_t delta)
{ return __atomic_fetch_add(p, delta, __ATOMIC_SEQ_CST); }
static inline bool sr_atomic_cas_i32(sr_atomic_i32 *p, int32_t expected, int32_t desired)
{ return __atomic_compare_exchange_n(p, &expected, desired, false,
      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); }

static inline void *sr_atomic_load_acquire_ptr(const sr_atomic_ptr *p)
{ return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void sr_atomic_store_release_ptr(sr_atomic_ptr *p, void *v)
{ __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline bool sr_atomic_cas_ptr(sr_atomic_ptr *p, void *expected, void *desired)
{ return __atomic_compare_exchange_n(p, &expected, desired, false,
      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); }

static inline void sr_atomic_fence_seq_cst(void)
{ __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void sr_atomic_fence_acquire(void)
{ __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void sr_atomic_fence_release(void)
{ __atomic_thread_fence(__ATOMIC_RELEASE); }
static inline void sr_atomic_fence_signal(void)
{ __atomic_signal_fence(__ATOMIC_SEQ_CST); }

static inline void sr_atomic_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

#elif defined(SR_ATOMIC_C11)

#include <stdatomic.h>

typedef _Atomic int64_t sr_atomic_i64;
typedef _Atomic int32_t sr_atomic_i32;

#define SR_ATOMIC_BACKEND "c11"

static inline int64_t sr_atomic_load_relaxed_i64(const sr_atomic_i64 *p)
{ return atomic_load_explicit((sr_atomic_i64 *)p, memory_order_relaxed); }
static inline int64_t sr_atomic_load_acquire_i64(const sr_atomic_i64 *p)
{ return atomic_load_explicit((sr_atomic_i64 *)p, memory_order_acquire); }
static inline void sr_atomic_store_relaxed_i64(sr_atomic_i64 *p, int64_t v)
{ atomic_store_explicit(p, v, memory_order_relaxed); }
static inline void sr_atomic_store_release_i64(sr_atomic_i64 *p, int64_t v)
{ atomic_store_explicit(p, v, memory_order_release); }
static inline int64_t sr_atomic_faa_i64(sr_atomic_i64 *p, int64_t delta)
{ return atomic_fetch_add_explicit(p, delta, memory_order_seq_cst); }
static inline bool sr_atomic_cas_i64(sr_atomic_i64 *p, int64_t expected, int64_t desired)
{ return atomic_compare_exchange_strong_explicit(p, &expected, desired,
      memory_order_seq_cst, memory_order_relaxed); }

static inline int32_t sr_atomic_load_relaxed_i32(const sr_atomic_i32 *p)
{ return atomic_load_explicit((sr_atomic_i32 *)p, memory_order_relaxed); }
static inline int32_t sr_atomic_load_acquire_i32(const sr_atomic_i32 *p)
{ return atomic_load_explicit((sr_atomic_i32 *)p, memory_order_acquire); }
static inline void sr_atomic_store_relaxed_i32(sr_atomic_i32 *p, int32_t v)
{ atomic_store_explicit(p, v, memory_order_relaxed); }
static inline void sr_atomic_store_release_i32(sr_atomic_i32 *p, int32_t v)
{ atomic_store_explicit(p, v, memory_order_release); }
static inline int32_t sr_atomic_exchange_i32(sr_atomic_i32 *p, int32_t v)
{ return atomic_exchange_explicit(p, v, memory_order_seq_cst); }
static inline int32_t sr_atomic_faa_i32(sr_atomic_i32 *p, int32_t delta)
{ return atomic_fetch_add_explicit(p, delta, memory_order_seq_cst); }
static inline bool sr_atomic_cas_i32(sr_atomic_i32 *p, int32_t expected, int32_t desired)
{ return atomic_compare_exchange_strong_explicit(p, &expected, desired,
      memory_order_seq_cst, memory_order_relaxed); }

typedef void *_Atomic sr_atomic_ptr;
static inline void *sr_atomic_load_acquire_ptr(const sr_atomic_ptr *p)
{ return atomic_load_explicit((sr_atomic_ptr *)p, memory_order_acquire); }
static inline void sr_atomic_store_release_ptr(sr_atomic_ptr *p, void *v)
{ atomic_store_explicit(p, v, memory_order_release); }
static inline bool sr_atomic_cas_ptr(sr_atomic_ptr *p, void *expected, void *desired)
{ return atomic_compare_exchange_strong_explicit(p, &expected, desired,
      memory_order_seq_cst, memory_order_relaxed); }

static inline void sr_atomic_fence_seq_cst(void)
{ atomic_thread_fence(memory_order_seq_cst); }
static inline void sr_atomic_fence_acquire(void)
{ atomic_thread_fence(memory_order_acquire); }
static inline void sr_atomic_fence_release(void)
{ atomic_thread_fence(memory_order_release); }
static inline void sr_atomic_fence_signal(void)
{ atomic_signal_fence(memory_order_seq_cst); }

static inline void sr_atomic_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

#else /* Concurrency Kit backend */

#include <ck_pr.h>

/** @brief A 64-bit signed integer accessed only through the sr_atomic_*_i64 functions. */
typedef int64_t sr_atomic_i64;
/** @brief A 32-bit signed integer accessed only through the sr_atomic_*_i32 functions. */
typedef int32_t sr_atomic_i32;

/**
 * @brief The backend compiled in: "ck_pr" (Concurrency Kit) or "c11" (<stdatomic.h>).
 *
 * The reference shows the Concurrency Kit backend; the C11 backend declares the
 * same types and functions with the same orderings.
 */
#define SR_ATOMIC_BACKEND "ck_pr"

/* ck_pr works on unsigned types; int64_t and uint64_t may alias (C11 6.5p7). */
/** @brief Loads *p with no ordering. @param p The variable. @return Its value. */
static inline int64_t sr_atomic_load_relaxed_i64(const sr_atomic_i64 *p)
{ return (int64_t)ck_pr_load_64((const uint64_t *)p); }
/** @brief Load-acquire: later loads and stores are not ordered before it. @param p The variable. @return Its value. */
static inline int64_t sr_atomic_load_acquire_i64(const sr_atomic_i64 *p)
{ int64_t v = (int64_t)ck_pr_load_64((const uint64_t *)p); ck_pr_fence_acquire(); return v; }
/** @brief Stores v to *p with no ordering. @param p The variable. @param v The new value. */
static inline void sr_atomic_store_relaxed_i64(sr_atomic_i64 *p, int64_t v)
{ ck_pr_store_64((uint64_t *)p, (uint64_t)v); }
/** @brief Store-release: earlier loads and stores are ordered before it. @param p The variable. @param v The new value. */
static inline void sr_atomic_store_release_i64(sr_atomic_i64 *p, int64_t v)
{ ck_pr_fence_release(); ck_pr_store_64((uint64_t *)p, (uint64_t)v); }
/** @brief Fetch-and-add with a full barrier. @param p The variable. @param delta Added to *p. @return The value before the addition. */
static inline int64_t sr_atomic_faa_i64(sr_atomic_i64 *p, int64_t delta)
{ return (int64_t)ck_pr_faa_64((uint64_t *)p, (uint64_t)delta); }
/** @brief Compare-and-set with a full barrier. @param p The variable. @param expected The value *p must hold. @param desired The value stored when it does. @return true when *p held expected and now holds desired, false otherwise (*p unchanged). */
static inline bool sr_atomic_cas_i64(sr_atomic_i64 *p, int64_t expected, int64_t desired)
{ return ck_pr_cas_64((uint64_t *)p, (uint64_t)expected, (uint64_t)desired); }

/** @brief Loads *p with no ordering. @param p The variable. @return Its value. */
static inline int32_t sr_atomic_load_relaxed_i32(const sr_atomic_i32 *p)
{ return (int32_t)ck_pr_load_32((const uint32_t *)p); }
/** @brief Load-acquire: later loads and stores are not ordered before it. @param p The variable. @return Its value. */
static inline int32_t sr_atomic_load_acquire_i32(const sr_atomic_i32 *p)
{ int32_t v = (int32_t)ck_pr_load_32((const uint32_t *)p); ck_pr_fence_acquire(); return v; }
/** @brief Stores v to *p with no ordering. @param p The variable. @param v The new value. */
static inline void sr_atomic_store_relaxed_i32(sr_atomic_i32 *p, int32_t v)
{ ck_pr_store_32((uint32_t *)p, (uint32_t)v); }
/** @brief Store-release: earlier loads and stores are ordered before it. @param p The variable. @param v The new value. */
static inline void sr_atomic_store_release_i32(sr_atomic_i32 *p, int32_t v)
{ ck_pr_fence_release(); ck_pr_store_32((uint32_t *)p, (uint32_t)v); }
/** @brief Exchange with a full barrier. @param p The variable. @param v The new value. @return The value before the exchange. */
static inline int32_t sr_atomic_exchange_i32(sr_atomic_i32 *p, int32_t v)
{ return (int32_t)ck_pr_fas_32((uint32_t *)p, (uint32_t)v); }
/** @brief Fetch-and-add with a full barrier. @param p The variable. @param delta Added to *p. @return The value before the addition. */
static inline int32_t sr_atomic_faa_i32(sr_atomic_i32 *p, int32_t delta)
{ return (int32_t)ck_pr_faa_32((uint32_t *)p, (uint32_t)delta); }
/** @brief Compare-and-set with a full barrier. @param p The variable. @param expected The value *p must hold. @param desired The value stored when it does. @return true when *p held expected and now holds desired, false otherwise (*p unchanged). */
static inline bool sr_atomic_cas_i32(sr_atomic_i32 *p, int32_t expected, int32_t desired)
{ return ck_pr_cas_32((uint32_t *)p, (uint32_t)expected, (uint32_t)desired); }

/** @brief A pointer accessed only through sr_atomic_load_acquire_ptr and sr_atomic_store_release_ptr. */
typedef void *sr_atomic_ptr;
/** @brief Load-acquire of a pointer. @param p The variable. @return Its value. */
static inline void *sr_atomic_load_acquire_ptr(const sr_atomic_ptr *p)
{ void *v = ck_pr_load_ptr(p); ck_pr_fence_acquire(); return v; }
/** @brief Store-release of a pointer. @param p The variable. @param v The new value. */
static inline void sr_atomic_store_release_ptr(sr_atomic_ptr *p, void *v)
{ ck_pr_fence_release(); ck_pr_store_ptr(p, v); }
/** @brief Compare-and-set of a pointer with a full barrier. @param p The variable. @param expected The value *p must hold. @param desired The value stored when it does. @return true when *p held expected and now holds desired, false otherwise (*p unchanged). */
static inline bool sr_atomic_cas_ptr(sr_atomic_ptr *p, void *expected, void *desired)
{ return ck_pr_cas_ptr(p, expected, desired); }

/**
 * @brief The StoreLoad fence (full barrier).
 *
 * On x86-64 any locked read-modify-write is a full
 * barrier, and a locked increment of a stack word costs a fraction of the
 * mfence of ck_pr_fence_memory (Linux's smp_mb() makes the same choice).  It
 * runs on every publish of the liteblock family, so on every log call.
 */
static inline void sr_atomic_fence_seq_cst(void)
{
#if defined(__x86_64__)
	uint32_t barrier_word = 0;
	ck_pr_inc_32(&barrier_word);
#else
	ck_pr_fence_memory();
#endif
}

/**
 * @brief Acquire fence: earlier loads are ordered before later loads and stores.
 *
 * Release (sr_atomic_fence_release): earlier loads and stores are ordered before later stores.  On
 * x86-64 (TSO) both are compiler barriers only: a sequence lock's reader and
 * writer need nothing stronger (Boehm, "Can seqlocks get along with
 * programming language memory models?", 2012).
 */
static inline void sr_atomic_fence_acquire(void)
{ ck_pr_fence_acquire(); }
/** @brief Release fence: earlier loads and stores are ordered before later stores. */
static inline void sr_atomic_fence_release(void)
{ ck_pr_fence_release(); }
/**
 * @brief Signal fence: orders this thread's accesses for the compiler only, as against a
 * signal handler on the same thread.
 */
static inline void sr_atomic_fence_signal(void)
{ ck_pr_barrier(); }

/** @brief The spin-wait hint (x86 pause): call once per turn of a busy-wait loop. */
static inline void sr_atomic_pause(void)
{ ck_pr_stall(); }

#endif /* backend */

#ifdef __cplusplus
}
#endif

#endif /* SR_ATOMIC_H */
