/* divide.c - a divide-heavy loop: Euclid's GCD with the remainder operator,
 * base conversion by variable radices, and signed divisions of mixed sizes, so
 * that SDIV and UDIV see both small and large quotients (the Cortex-M3 divider
 * terminates early: 2 to 12 cycles). Checked by identities. */
#include "workload.h"

static uint32_t gcd(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static unsigned digits(uint32_t v, uint32_t radix, uint8_t *out)
{
    unsigned n = 0;
    do {
        out[n++] = (uint8_t)(v % radix);
        v /= radix;
    } while (v);
    return n;
}

int wl_divide(void)
{
    uint32_t seed = 0xD1D1u;
    for (int i = 0; i < 300; i++) {
        uint32_t a = wl_rand(&seed), b = wl_rand(&seed) >> (i & 15);
        uint32_t k = (wl_rand(&seed) & 0xFF) + 1;
        uint32_t g = gcd(a * 0 + a / k * k, b * k);
        if (g == 0 || (a / k * k) % g || (b * k) % g)
            return 1;
    }
    uint8_t d[40];
    for (int i = 0; i < 200; i++) {
        uint32_t v = wl_rand(&seed) >> (i % 24);
        uint32_t radix = 2 + (uint32_t)(i % 35);
        WL_OPAQUE(radix);
        unsigned n = digits(v, radix, d);
        uint32_t back = 0;
        while (n--)
            back = back * radix + d[n];
        if (back != v)
            return 1;
    }
    for (int i = 0; i < 400; i++) {
        int32_t x = (int32_t)wl_rand(&seed) >> (i & 31);
        int32_t y = ((int32_t)wl_rand(&seed) >> (31 - (i % 29))) | 1;
        int32_t q = x / y, r = x % y;
        if (q * y + r != x || (r != 0 && (r < 0) != (x < 0)))
            return 1;
    }
    return 0;
}
