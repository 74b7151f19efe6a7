/* fir.c - a 32-tap FIR filter in Q15 (MUL/MLA) and in Q31 with 64-bit
 * accumulation (SMULL/SMLAL). Checked by its impulse response (the taps come
 * out) and by linearity: filtering x1 + x2 gives the sum of the two outputs. */
#include "workload.h"

#define TAPS 32
#define LEN 200

static int16_t h16[TAPS];
static int32_t h32[TAPS];
static int16_t x1[LEN], x2[LEN], xs[LEN];
static int32_t y1[LEN], y2[LEN], ys[LEN];
static int64_t z1[LEN], z2[LEN], zs[LEN];

static void fir16(const int16_t *x, int32_t *y, int n)
{
    for (int i = 0; i < n; i++) {
        int32_t acc = 0;
        int kmax = i < TAPS - 1 ? i : TAPS - 1;
        for (int k = 0; k <= kmax; k++)
            acc += h16[k] * x[i - k];
        y[i] = acc;
    }
}

static void fir32(const int16_t *x, int64_t *y, int n)
{
    for (int i = 0; i < n; i++) {
        int64_t acc = 0;
        int kmax = i < TAPS - 1 ? i : TAPS - 1;
        for (int k = 0; k <= kmax; k++)
            acc += (int64_t)h32[k] * ((int32_t)x[i - k] << 16);
        y[i] = acc;
    }
}

int wl_fir(void)
{
    uint32_t seed = 0xF1F0u;
    for (int k = 0; k < TAPS; k++) {
        h16[k] = (int16_t)((int32_t)(wl_rand(&seed) & 0x7FFF) - 0x4000);
        h32[k] = (int32_t)wl_rand(&seed) >> 1;
    }
    /* Impulse response. */
    for (int i = 0; i < LEN; i++)
        x1[i] = i == 0 ? 1 : 0;
    fir16(x1, y1, TAPS + 4);
    fir32(x1, z1, TAPS + 4);
    for (int k = 0; k < TAPS + 4; k++) {
        if (y1[k] != (k < TAPS ? h16[k] : 0))
            return 1;
        if (z1[k] != (k < TAPS ? (int64_t)h32[k] << 16 : 0))
            return 1;
    }
    /* Linearity on random signals (amplitudes small enough not to overflow). */
    for (int i = 0; i < LEN; i++) {
        x1[i] = (int16_t)((int32_t)(wl_rand(&seed) & 0x1FFF) - 0x1000);
        x2[i] = (int16_t)((int32_t)(wl_rand(&seed) & 0x1FFF) - 0x1000);
        xs[i] = (int16_t)(x1[i] + x2[i]);
    }
    fir16(x1, y1, LEN);
    fir16(x2, y2, LEN);
    fir16(xs, ys, LEN);
    fir32(x1, z1, LEN);
    fir32(x2, z2, LEN);
    fir32(xs, zs, LEN);
    for (int i = 0; i < LEN; i++)
        if (ys[i] != y1[i] + y2[i] || zs[i] != z1[i] + z2[i])
            return 1;
    return 0;
}
