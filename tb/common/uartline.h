/* uartline.h - a serial line (8N1, least significant bit first, idle 1) drawn
 * sample by sample, for the tests of the UART decoder and the sigrok reader.
 * Written from the frame's definition, not from the decoder: sample i reads
 * the bit whose time span [t0 + k*T, t0 + (k+1)*T) holds i. */
#ifndef ETM_TB_UARTLINE_H
#define ETM_TB_UARTLINE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The level of a byte's frame bit k: 0 start, 1-8 data, 9 stop. */
static inline uint8_t uartline_bit(uint8_t value, unsigned k)
{
    return k == 0 ? 0 : k == 9 ? 1 : (uint8_t)((value >> (k - 1)) & 1u);
}

/* Draw the byte value into lv[0..n) with its start edge at time t0 (samples)
 * and bits of T samples; bits past n are not drawn. Returns the first sample
 * that reads the start bit (the edge a decoder sees). */
static inline uint64_t uartline_byte(uint8_t *lv, size_t n, double t0, double T, uint8_t value)
{
    for (unsigned k = 0; k < 10; k++) {
        double a = t0 + k * T, b = t0 + (k + 1) * T;
        for (size_t i = (size_t)ceil(a); i < n && (double)i < b; i++)
            lv[i] = uartline_bit(value, k);
    }
    return (uint64_t)ceil(t0);
}

/* Bytes one after another from time t0, gap bits of idle between them (0:
 * back to back); lv[0..n) idle first. starts[k] (may be NULL) gets each
 * byte's first start-bit sample. Returns the time after the last stop bit. */
static inline double uartline_bytes(uint8_t *lv, size_t n, double t0, double T, double gap, const uint8_t *v,
                                    size_t count, uint64_t *starts)
{
    memset(lv, 1, n);
    double t = t0;
    for (size_t k = 0; k < count; k++) {
        uint64_t s = uartline_byte(lv, n, t, T, v[k]);
        if (starts)
            starts[k] = s;
        t += (10 + gap) * T;
    }
    return t;
}

#endif
