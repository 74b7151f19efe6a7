/* uartline.h - a serial line (8N1, least significant bit first, idle 1; or
 * Manchester) drawn sample by sample, for the tests of the UART decoder and
 * the sigrok reader.
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

/* Manchester (a TPIU's SWO with TPIU_SPPR 1), drawn from its definition: the
 * line idles at 0; a packet is a start bit 1, the bytes' bits least
 * significant first, then the line low (the end); each bit is two halves of
 * T/2, a 1 high then low, a 0 low then high. Returns the time after the last
 * data bit. */
static inline double manchline_packet(uint8_t *lv, size_t n, double t0, double T, const uint8_t *v, size_t count)
{
    for (size_t k = 0; k < 1 + 8 * count; k++) {
        unsigned bit = k == 0 ? 1u : (v[(k - 1) / 8] >> ((k - 1) % 8)) & 1u;
        for (unsigned h = 0; h < 2; h++) {
            double a = t0 + k * T + h * T / 2, b = a + T / 2;
            for (size_t i = (size_t)ceil(a); i < n && (double)i < b; i++)
                lv[i] = (uint8_t)(h == 0 ? bit : !bit);
        }
    }
    return t0 + (1 + 8 * count) * T;
}

/* Packets of per bytes each (the last may have fewer) from time t0, gap bits
 * low after each (at least 1: the end), lv[0..n) idle (0) first; starts[k]
 * (may be NULL) gets each packet's first sample of its start bit. Returns the
 * time after the last gap. */
static inline double manchline_bytes(uint8_t *lv, size_t n, double t0, double T, double gap, const uint8_t *v,
                                     size_t count, size_t per, uint64_t *starts)
{
    memset(lv, 0, n);
    double t = t0;
    for (size_t k = 0; k < count; k += per) {
        size_t m = count - k < per ? count - k : per;
        if (starts)
            starts[k / per] = (uint64_t)ceil(t);
        t = manchline_packet(lv, n, t, T, v + k, m) + gap * T;
    }
    return t;
}

#endif
