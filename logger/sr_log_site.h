/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_site.h
 * @ingroup logger
 * @brief The call site of a log macro and the argument signature
 * parsed from its format.
 *
 * A log call does not format.  Its call site (sr_site, a static descriptor
 * made by the logging macro) carries the printf-style format; the first call
 * through a site parses the format once into an argument signature (one type
 * per argument) cached in the site.  Every call then copies its arguments in
 * binary into a record, and the consumer renders them (sr_fmt_internal.h).
 *
 * Supported: the conversions d i o u x X e E f F g G a A c s p % and m (glibc's
 * strerror(errno); the caller's errno is captured at the call), the flags
 * - + space # 0 ' I, widths and precisions (also '*'), and the length
 * modifiers hh h l ll j z t L (q as ll).  Refused with an error that names the
 * conversion: %n (it writes through a pointer), wide characters and strings
 * (%lc %ls %C %S), positional arguments (%1$d), any other conversion, more
 * than SR_SITE_MAX_ARGS arguments, and widths or precisions above INT_MAX.
 * A refused format is never passed to printf: the logger writes an error line
 * that names the problem and counts it (sr_log_counters.format_errors).
 *
 * Part of the logging API: the macros of sr_log.h need the type.
 */
#ifndef SR_LOG_SITE_H
#define SR_LOG_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "sr_atomic.h"
#include "sr_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Appended where a string argument or a line had to be cut. */
#define SR_FMT_TRUNCATION_MARKER "[truncated]"
/** @brief The length of SR_FMT_TRUNCATION_MARKER, without its NUL. */
#define SR_FMT_TRUNCATION_MARKER_LEN (sizeof SR_FMT_TRUNCATION_MARKER - 1)

/** @brief Most arguments one call site may take ('*' widths and precisions count). */
#define SR_SITE_MAX_ARGS 32
/** @brief The length a record stores for a NULL string argument. */
#define SR_FMT_NULL_STRING UINT32_MAX

/** @brief Argument types of a signature. */
enum sr_fmt_arg {
	SR_FMT_ARG_INT = 1,     /**< int (also char, short: promoted), 4 bytes */
	SR_FMT_ARG_LONG,        /**< long, long long, intmax_t, size_t, ptrdiff_t: 8 bytes */
	SR_FMT_ARG_DOUBLE,      /**< double (float promoted): 8 bytes */
	SR_FMT_ARG_LDOUBLE,     /**< long double: 16 bytes */
	SR_FMT_ARG_PTR,         /**< void *: 8 bytes */
	SR_FMT_ARG_STR,         /**< const char *: by value */
	SR_FMT_ARG_WIDTH,       /**< int from a '*' width */
	SR_FMT_ARG_PRECISION    /**< int from a '*' precision (bounds the next %s) */
};

/** @brief Precision marker in sr_fmt_sig.precision[] for a string argument without precision. */
#define SR_FMT_PREC_NONE (-1)    /* %s: read up to the NUL */
/** @brief Precision marker in sr_fmt_sig.precision[] for a string whose precision is an argument. */
#define SR_FMT_PREC_STAR (-2)    /* %.*s: the preceding SR_FMT_ARG_PRECISION */

/** @brief Why a format was refused (sr_fmt_sig.error). */
enum sr_fmt_error {
	/** the format is accepted */
	SR_FMT_OK = 0,
	SR_FMT_E_N,             /**< %n */
	SR_FMT_E_UNSUPPORTED,   /**< unknown conversion or length combination */
	SR_FMT_E_WIDE,          /**< %lc %ls %C %S */
	SR_FMT_E_POSITIONAL,    /**< %1$d */
	SR_FMT_E_INCOMPLETE,    /**< '%' ... at the end of the format */
	SR_FMT_E_RANGE,         /**< width or precision above INT_MAX */
	SR_FMT_E_TOO_MANY,      /**< more than SR_SITE_MAX_ARGS arguments */
	SR_FMT_E_FIELDS         /**< a call's key-value fields are refused (a repeated key: SR_KV) */
};

/** @brief A format's argument signature: what one call must copy. */
typedef struct sr_fmt_sig {
	/** arguments after the format */
	uint8_t nargs;
	/** of which strings (%s) */
	uint8_t nstrings;
	uint8_t error;                      /**< enum sr_fmt_error */
	uint16_t value_bytes;               /**< size of the value area */
	uint8_t uses_errno;                 /**< the format has %m: records carry the caller's errno */
	uint8_t type[SR_SITE_MAX_ARGS];     /**< enum sr_fmt_arg */
	int32_t precision[SR_SITE_MAX_ARGS];/**< strings: a precision or SR_FMT_PREC_* */
} sr_fmt_sig;

/** @brief sr_site.state: whether the site's format is parsed. */
enum { SR_SITE_UNPARSED = 0, SR_SITE_PARSING = 1, SR_SITE_READY = 2 };
/** @var SR_SITE_UNPARSED
 * sr_site.state: not parsed yet */
/** @var SR_SITE_PARSING
 * sr_site.state: a thread is parsing the format */
/** @var SR_SITE_READY
 * sr_site.state: sig and file_base are filled */
/** @brief sr_site.catalogued: what the process's catalogue of sites holds of the site. */
enum {
	SR_SITE_CATALOGUED = 1,          /**< its format, file, function, line and level */
	SR_SITE_CATALOGUED_HOME = 2,     /**< and its home category */
	SR_SITE_CATALOGUING = 4          /**< a thread is writing its entry */
};
/** @brief sr_site.copy: how the macros' calls copy their arguments. */
enum {
	/** not decided yet (before the first call) */
	SR_SITE_COPY_UNKNOWN = 0,
	SR_SITE_COPY_BY_TYPE = 1,    /**< by C type (a string may have a precision, the format a %m) */
	SR_SITE_COPY_CONVERTED = 2,  /**< converted to the format's types (the general path) */
	SR_SITE_COPY_FAST = 3,       /**< by C type, every char * a %s without precision, no %m: inline (sr_log_fast.h) */
	SR_SITE_COPY_HELD = 4        /**< as FAST, but a run-time rule that names categories holds it to the general path */
};

/**
 * @brief A call site.
 *
 * The logging macros make one `static` per call, so location
 * costs nothing at run time.  The first four fields are constant; the rest is
 * filled by the first call through the site and then only read.  A site must
 * outlive every record made through it (a static one does, unless its code is
 * unloaded with dlclose while a logger still holds its records).
 */
typedef struct sr_site {
	/** the printf-style format (a string literal) */
	const char *format;
	/** __FILE__ */
	const char *file;
	/** __func__ */
	const char *function;
	/** __LINE__ */
	int32_t line;
	int32_t level;                      /**< enum sr_log_level */
	/**
	 * SR_SITE_READY once sig and file_base are filled: the parsing thread's
	 * store-release pairs with the load-acquire in sr_site_sig.
	 */
	sr_atomic_i32 state;
	uint16_t file_base;                 /**< offset of the file's base name */
	/**
	 * How the macros' calls copy their arguments (SR_SITE_COPY_*), decided
	 * by the first: by C type when the types match the signature, else
	 * converted to it.  Deterministic, so racing first calls store the same
	 * values; copy is stored with release after str_mask (see decide_copy).
	 */
	sr_atomic_i32 copy;
	sr_atomic_i32 str_mask;             /**< copy by type: bit i set when argument i is a %s string */
	/**
	 * The site's home category: the one its first typed call named, set
	 * once (before copy) and kept.  A thread ring's inline record leaves out
	 * the category when the call names this one, so that a short message
	 * fits one cache line (sr_log_fast.h).
	 */
	sr_atomic_ptr home_cat;
	/**
	 * Whether the process's catalogue of sites (what a ring directory
	 * writes down before a site's first record) has this site: bits
	 * SR_SITE_CATALOGUED_* (the library's; zero in a new site).
	 */
	sr_atomic_i32 catalogued;
	/** the format's signature, once state is SR_SITE_READY */
	sr_fmt_sig sig;
	/**
	 * The level the macros compare with their category's level: the
	 * site's own level (SR_SITE__INIT sets it), SR_SITE_GATE_OFF when a
	 * run-time rule switched the site off, SR_SITE_GATE_ON when one let it
	 * past every category level but off (sr_log_sites.h).  Relaxed: a
	 * change reaches callers soon; no data rides on it.
	 */
	sr_atomic_i32 gate;
	/**
	 * What the run-time rules made of the site (SR_SITE_CONTROL_*; zero:
	 * none), read by the general path, which decides a call the gate let
	 * through.  Set with gate under the rules' lock.
	 */
	sr_atomic_i32 control;
	/**
	 * Records of the site the consumers took, for the catalogue (relaxed
	 * load and store by each consumer: exact with one logger).
	 */
	sr_atomic_i64 emitted;
	/**
	 * A rate limit a run-time rule put on the site (the library's; NULL:
	 * none), published with release before control says
	 * SR_SITE_CONTROL_LIMITED; never freed.
	 */
	sr_atomic_ptr limit;
	/**
	 * The site's key-value fields (SR_KV): its keys and the signature of the
	 * format's arguments then the fields' (the library's; NULL: none), made
	 * by its first call with fields and published with release before any
	 * of its records; never freed.
	 */
	sr_atomic_ptr fields;
} sr_site;

/*
 * Whether a site's gate lets a call through its category's level: gate >=
 * level, each read once, relaxed.  On x86 with flag outputs the compare
 * reads the gate from memory itself (an aligned 32-bit read, atomic), so
 * that a closed gate costs the load of the level, one compare and one
 * branch, as a disabled level did before sites had gates (two relaxed
 * loads would not fold into the compare).  volatile: each call reads the
 * gate again, as a relaxed atomic load must.
 */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GCC_ASM_FLAG_OUTPUTS__)
static inline __attribute__((always_inline)) int
sr_site__gate_passes(const sr_atomic_i32 *gate, const sr_atomic_i32 *level)
{
	int passes;
	__asm__ volatile("cmpl %[level], %[gate]"
	    : "=@ccge"(passes)
	    : [gate] "m"(*(const int32_t *)(const void *)gate), [level] "r"(sr_atomic_load_relaxed_i32(level)));
	return passes;
}
#else
static inline int
sr_site__gate_passes(const sr_atomic_i32 *gate, const sr_atomic_i32 *level)
{
	return sr_atomic_load_relaxed_i32(gate) >= sr_atomic_load_relaxed_i32(level);
}
#endif

/** @brief sr_site.gate of a site a run-time rule switched off: below every level. */
#define SR_SITE_GATE_OFF (-1)
/** @brief sr_site.gate of a site a run-time rule switched on: every level but off passes it. */
#define SR_SITE_GATE_ON 5
/** @brief sr_site.control: what the run-time rules (sr_log_sites.h) made of a site (bits). */
enum {
	SR_SITE_CONTROL_ON = 1,          /**< written at any category level but off */
	SR_SITE_CONTROL_OFF = 2,         /**< never written */
	SR_SITE_CONTROL_BY_CATEGORY = 4, /**< a rule names categories: each call is decided by its category */
	SR_SITE_CONTROL_LIMITED = 8      /**< a rule put a rate limit on it (sr_site.limit) */
};
/** @brief The bits of sr_site.control that say whether a call is written (not the limit). */
#define SR_SITE_CONTROL_SWITCH (SR_SITE_CONTROL_ON | SR_SITE_CONTROL_OFF | SR_SITE_CONTROL_BY_CATEGORY)

/*
 * The macros' static initialiser of a site: the constant fields, the rest zero.  C++ before
 * C++20 has no designated initialisers, so it lists every field in order.
 */
#ifdef __cplusplus
#define SR_SITE__INIT(format_, file_, function_, line_, level_) \
	{ format_, file_, function_, line_, level_, 0, 0, 0, 0, 0, 0, {}, level_, 0, 0, 0, 0 }
#else
#define SR_SITE__INIT(format_, file_, function_, line_, level_) \
	{ .format = format_, .file = file_, .function = function_, .line = line_, .level = level_, \
	  .gate = level_ }
#endif

/*
 * The process's catalogue of the macros' sites: each expansion puts a
 * pointer to its site in the section sr_log_sites of its module (executable
 * or shared object), and every translation unit that includes this header
 * registers its module's section from a constructor (the registry keeps
 * each module once, counted) and leaves it from a destructor (dlclose).  So
 * a site is in the catalogue before its first call, as the kernel's dynamic
 * debug has it, and switching it costs its calls nothing (sr_log_sites.h).
 */
#if defined(__GNUC__) || defined(__clang__)
#define SR_SITE__CATALOGUE(site_) \
	static sr_site *const sr_log__site_entry __attribute__((section("sr_log_sites"), used)) = &(site_);
extern sr_site *const __start_sr_log_sites[] __attribute__((weak, visibility("hidden")));
extern sr_site *const __stop_sr_log_sites[] __attribute__((weak, visibility("hidden")));
SR_API void sr_log__sites_register(sr_site *const *begin, sr_site *const *end);
SR_API void sr_log__sites_unregister(sr_site *const *begin, sr_site *const *end);
/*
 * Both bounds are NULL in a module without sites (weak, undefined): the
 * registry ignores it.  SR_LOG__NO_MODULE_HOOKS: the library's one unit
 * built for a CPU feature leaves the hooks to the others (they run at load,
 * before any check of the CPU).
 */
#if !defined(SR_LOG__NO_MODULE_HOOKS)
static void __attribute__((constructor, used))
sr_log__sites_register_module(void)
{
	sr_log__sites_register(__start_sr_log_sites, __stop_sr_log_sites);
}
static void __attribute__((destructor, used))
sr_log__sites_unregister_module(void)
{
	sr_log__sites_unregister(__start_sr_log_sites, __stop_sr_log_sites);
}
#endif
#else
#define SR_SITE__CATALOGUE(site_)
#endif

/**
 * @brief Parses format into *sig.
 * @param format The printf-style format; NULL is refused (SR_FMT_E_UNSUPPORTED).
 * @param sig Receives the signature; not NULL.
 * @param msg Receives a message naming the offending
 *        conversion, e.g. "conversion '%n' is refused: it writes through a pointer"
 *        (empty on success); may be NULL.
 * @param msg_size The size of msg in bytes.
 * @return SR_FMT_OK or the sr_fmt_error (also stored in sig->error).
 */
SR_API int sr_fmt_parse(const char *format, sr_fmt_sig *sig, char *msg, size_t msg_size);

/* Slow path of sr_site_sig: parses the site, or into *scratch if another thread is. */
SR_API const sr_fmt_sig *sr_site__parse(sr_site *site, sr_fmt_sig *scratch);

/**
 * @brief The site's signature, parsed on first use.
 *
 * After the first call one load-acquire.  When another
 * thread is parsing the same site at that moment, this thread parses into
 * *scratch instead of waiting (parsing is deterministic).
 * @param site The site; its format set.
 * @param scratch Where to parse when another thread is parsing the site.
 * @return The signature (the site's, or scratch); check its error.
 */
static inline const sr_fmt_sig *
sr_site_sig(sr_site *site, sr_fmt_sig *scratch)
{
	/* pairs with the store-release of SR_SITE_READY in sr_site__parse */
	if (__builtin_expect(sr_atomic_load_acquire_i32(&site->state) == SR_SITE_READY, 1))
		return &site->sig;
	return sr_site__parse(site, scratch);
}

/**
 * @brief The base name of the site's file (cached offset when the site is parsed).
 * @param site The site; not NULL.
 * @return A pointer into site->file after its last '/', or "?" when file is NULL.
 */
SR_API const char *sr_site_file_base(const sr_site *site);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_SITE_H */
