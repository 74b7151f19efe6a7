/* core_inline.h - the core's compiler hints (internal): what is kept out of line, what is
 * inlined, which pointers alias nothing */
#ifndef ETM_CORE_INLINE_H
#define ETM_CORE_INLINE_H

#include <stdint.h>

/* A path kept out of line, so that the common path beside it needs no stack
 * frame of its own. */
#if defined(__GNUC__)
#define ETM_NOINLINE __attribute__((noinline))
#else
#define ETM_NOINLINE
#endif
/* A step of the common path, inlined into it. */
#if defined(__GNUC__)
#define ETM_INLINE inline __attribute__((always_inline))
#else
#define ETM_INLINE inline
#endif

/* A pointer through which alone its object is reached in the function (the
 * plain-cycle path's context, inputs and outputs), so that a store to one
 * output byte does not make the compiler read the context again. */
#if defined(__GNUC__)
#define ETM_RESTRICT __restrict__
#else
#define ETM_RESTRICT
#endif

/* Header codes, reasons, PIPESTAT codes and sizes: etm/consts.h (etm/consts.def). */

/* The index of the lowest set bit of m (m not 0). */
static inline unsigned etm_lowest_bit(uint32_t m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(m);
#else
    unsigned k = 0;
    while (!(m & 1u)) {
        m >>= 1;
        k++;
    }
    return k;
#endif
}

#endif
