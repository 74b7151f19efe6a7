/* dataslot.c - memory view to register view for the data slot interface
 * (etm/dataslot.h, docs/data-trace.md). */
#include "etm/dataslot.h"

#include "etm/signals.h"

unsigned etm_dslot_lanes(uint32_t dactl)
{
    unsigned l = ETM_DACTL_BLSEL(dactl), n = 0;
    for (; l; l &= l - 1)
        n++;
    return n;
}

unsigned etm_dslot_rotation(uint32_t da, unsigned n, int swizzle)
{
    return swizzle ? (4u - (da & 3u) - n) & 3u : da & 3u;
}

static uint32_t bswap32(uint32_t w)
{
    return (w >> 24) | ((w >> 8) & 0xFF00u) | ((w << 8) & 0xFF0000u) | (w << 24);
}

static uint32_t ror32(uint32_t w, unsigned bits)
{
    bits &= 31u;
    return bits ? (w >> bits) | (w << (32u - bits)) : w;
}

static uint32_t low_bytes(uint32_t w, unsigned n)
{
    return n >= 4 ? w : w & ((1u << (8 * n)) - 1u);
}

/* Steps 1-4 with an explicit rotation and swizzle. */
static uint32_t view(uint32_t lanes, uint64_t dd, unsigned rot, int swizzle)
{
    unsigned n = 0;
    for (uint32_t l = lanes; l; l &= l - 1)
        n++;
    if (!n)
        return 0;
    uint32_t w = (uint32_t)((lanes & 0x0Fu) ? dd : dd >> 32);
    if (swizzle)
        w = bswap32(w);
    return low_bytes(ror32(w, 8 * rot), n);
}

uint32_t etm_dslot_register_view(uint32_t dactl, uint64_t dd)
{
    return view(ETM_DACTL_BLSEL(dactl), dd, ETM_DACTL_ROT(dactl), (int)ETM_DACTL_SWIZZLE(dactl));
}

uint32_t etm_dslot_register_view2(uint32_t dactl1, uint64_t dd1, uint32_t dactl2, uint64_t dd2)
{
    int swz = (int)ETM_DACTL_SWIZZLE(dactl1);
    unsigned n1 = etm_dslot_lanes(dactl1), n2 = etm_dslot_lanes(dactl2);
    uint32_t lo = etm_dslot_register_view(dactl1, dd1);
    uint32_t hi = view(ETM_DACTL_BLSEL(dactl2), dd2, etm_dslot_rotation(0, n2, swz), swz);
    if (n1 >= 4 || n2 >= 4) /* not an unaligned pair: nothing to combine */
        return lo;
    return swz ? low_bytes(lo << (8 * n2) | hi, n1 + n2) : low_bytes(lo | hi << (8 * n1), n1 + n2);
}
