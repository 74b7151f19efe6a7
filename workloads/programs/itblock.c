/* itblock.c - branch-free code that the compiler turns into IT blocks: min, max,
 * abs, clamps, saturation, conditional selects and conditional stores. Checked
 * against the same functions written with branches the compiler cannot merge. */
#include "workload.h"

static int32_t clamp(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : x > hi ? hi : x; }
static int32_t iabs(int32_t x) { return x < 0 ? -x : x; }
static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }
static int32_t smax(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t sat8(int32_t x) { return x > 127 ? 127 : x < -128 ? -128 : x; }
static int sign(int32_t x) { return (x > 0) - (x < 0); }

static __attribute__((noinline)) int32_t slow_clamp(int32_t x, int32_t lo, int32_t hi)
{
    int32_t r = x;
    WL_OPAQUE(r);
    if (x < lo) { r = lo; WL_OPAQUE(r); }
    if (x > hi) { r = hi; WL_OPAQUE(r); }
    return r;
}

int wl_itblock(void)
{
    uint32_t seed = 0x17B10Cu;
    int32_t hist[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int32_t acc = 0, m = -2147483647 - 1;
    uint32_t mn = 0xFFFFFFFFu;
    for (int i = 0; i < 3000; i++) {
        int32_t x = (int32_t)wl_rand(&seed) >> 20;
        int32_t c = clamp(x, -300, 300);
        if (c != slow_clamp(x, -300, 300))
            return 1;
        acc += iabs(x) + sat8(x) + sign(x);
        m = smax(m, x);
        mn = umin(mn, (uint32_t)x);
        /* Conditional stores: the compiler uses strgt/strle in an IT block. */
        if (x > 100)
            hist[x & 7]++;
        else
            hist[(x >> 3) & 7]--;
        /* A three-instruction IT block. */
        int32_t y = x;
        if (y & 1) { y += 3; acc ^= y; }
        else { y -= 5; acc += y; }
    }
    int32_t hsum = 0;
    for (int k = 0; k < 8; k++)
        hsum += hist[k];
    WL_OPAQUE(hsum);
    WL_OPAQUE(acc);
    return m < 0 || mn == 0xFFFFFFFFu;
}
