/* etm/uart.h - bytes from the samples of an asynchronous serial line (UART,
 * NRZ, 8N1: a start bit 0, eight data bits least significant first, a stop
 * bit 1; the line idles at 1): how a Cortex-M's TPIU sends trace on its SWO
 * pin in NRZ mode (TPIU_SPPR = 2), at TRACECLKIN / (TPIU_ACPR + 1) baud.
 *
 * Decoding. The line is taken sample by sample. A falling edge (a sample 0
 * after a sample 1) starts a byte; the start bit's edge lies between the two
 * samples, and bit k of the frame (k = 0 the start bit, 1 to 8 the data
 * bits, 9 the stop bit) is read at the sample nearest its centre,
 *     edge + floor((2k + 1) * samplerate / (2 * baud)) samples,
 * measured from that edge, so each byte is timed afresh: a line whose clock
 * is a little off its nominal rate still decodes. A start bit that reads 1 at
 * its centre was a glitch: it is counted and the search goes on. A stop bit
 * that reads 0 is a framing error: the byte is reported with the flag and
 * where the stop bit was read, and the next byte starts at the next falling
 * edge after the line has been seen at 1 again. The first byte needs the line
 * seen at 1 before it (a capture that begins inside a byte starts at the
 * first falling edge after the line was high).
 *
 * Tolerance. With s = samplerate / baud samples a bit, the edge is known to
 * within one sample and each centre to within half a sample; the stop bit,
 * read 9.5 bits after the edge, is read inside itself for any phase of the
 * samples as long as the line's real rate is within
 *     +-(0.5 - 1/s) / 10   of the nominal rate:
 * +-1.7 % at 3 samples a bit (8 Mbaud at 24 MHz), +-3.8 % at 8, +-4.5 % at 20,
 * toward +-5 % with many samples a bit. A bit needs at least 2 samples
 * (etm_uart_init refuses fewer).
 *
 * Measuring the real rate. Inside each good byte, every falling edge after the
 * start bit's lies a whole number of bits j after it; the sums of their
 * distances in samples and of their j give the line's bit time, whatever the
 * idle time between bytes (rising edges are left out: a probe's threshold may
 * favour one direction). etm_uart_measured_baud returns it.
 *
 * Manchester (TPIU_SPPR = 1; etm_uart_init_manchester). The line idles at 0.
 * A packet is a start bit (a 1), one or more bytes of eight data bits least
 * significant first, then the line low for at least a bit's time (the end);
 * each bit is two halves, 1 high then low, 0 low then high, so every bit has
 * a transition at its middle. A rising edge after the line was low starts a
 * packet; its middle's fall must come between a quarter and three quarters
 * of a bit after it (else a glitch). Each next bit is the next transition
 * between three quarters and five quarters of a bit after the last middle,
 * its value the level before it (high: 1); timing from each middle, so the
 * rate may be off by +-(0.25 - 1/s) (s samples a bit, at least 4). No
 * transition there ends the packet: with the line low after whole bytes it
 * ended well; high, or after a part of a byte, the byte is a framing error
 * (a byte cut short reports its bits so far) and the next packet starts at
 * the next rising edge after the line was low. A byte's start is the sample
 * of its first bit's start (the packet's rising edge for the first), its
 * stop the sample at which its last bit was read. The middles of a good
 * packet measure the rate.
 *
 * Streaming: the decoder holds one byte's state; memory does not grow.
 */
#ifndef ETM_UART_H
#define ETM_UART_H

#include <stddef.h>
#include <stdint.h>

#include "etm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_UART_FRAME_BITS 10 /* start, 8 data, stop */

typedef struct etm_uart_byte {
    uint64_t start;        /* sample of the start bit's falling edge: the first that reads 0 */
    uint64_t stop;         /* sample at which the stop bit was read */
    uint8_t value;
    uint8_t framing_error; /* the stop bit read 0 */
} etm_uart_byte_t;

typedef struct etm_uart {
    uint64_t samplerate, baud;
    uint64_t at[ETM_UART_FRAME_BITS]; /* bit k's centre, in samples after the start edge */
    uint8_t manchester;    /* the line's code: 0 NRZ, 1 Manchester */
    /* Manchester: the packet being read. */
    uint64_t q1, q3, q5;   /* a quarter, three and five quarters of a bit, in samples (rounded) */
    uint64_t mid;          /* the last bit's middle */
    uint64_t first_mid;    /* the start bit's middle */
    unsigned pbits;        /* bits read in the packet after the start */
    uint64_t q2;           /* half a bit, in samples (rounded) */
    uint64_t byte_start;   /* the byte being read: its first bit's start */
    uint8_t pending;       /* a whole byte waits for what follows it: more bits, or the end */
    uint8_t pending_value;
    uint64_t pending_start, pending_stop;
    /* The byte being read. */
    uint64_t pos;          /* samples taken so far */
    uint8_t prev;          /* the last sample's level; 0 until the line is first high (Manchester:
                            * the level, and hunting starts once it has been 0) */
    uint8_t seen_idle;     /* Manchester: the line has been low since the last packet */
    uint8_t in_byte;
    unsigned bit;          /* the next bit to read, 0 to 9 */
    unsigned value;
    uint64_t start;        /* its start edge */
    uint64_t fall_samples, fall_bits; /* its falling edges: distance from the start edge, in samples, in bits */
    uint64_t fall_count;   /*   and how many */
    /* What was found. */
    uint64_t bytes;           /* with a good stop bit */
    uint64_t framing_errors;  /* bytes whose stop bit read 0 */
    uint64_t glitches;        /* start bits that read 1 at their centre */
    uint64_t cut;             /* after etm_uart_end: the start of the byte the end cut short, or UINT64_MAX */
    uint64_t edge_samples, edge_bits; /* falling edges inside good bytes, summed (the measurement) */
    uint64_t edges;           /* how many */
} etm_uart_t;

/* A decoder for a line sampled at samplerate (Hz) sending baud bits a second.
 * Returns ETM_OK, or ETM_ERR_ARG (a rate of 0, fewer than 2 samples a bit, or
 * more than 2^24; diag says which). */
etm_err_t etm_uart_init(etm_uart_t *u, uint64_t samplerate, uint64_t baud, etm_diag_t *diag);
/* The same for a Manchester line (at least 4 samples a bit). */
etm_err_t etm_uart_init_manchester(etm_uart_t *u, uint64_t samplerate, uint64_t baud, etm_diag_t *diag);

/* Take the next samples (levels[i]: 0, or non-zero for 1). Each byte finished
 * goes to out (a framing error too, flagged); *nout of them, at most max (1 or more).
 * Returns the samples taken: n, unless out filled up first (then call again
 * with the rest). */
size_t etm_uart_feed(etm_uart_t *u, const uint8_t *levels, size_t n, etm_uart_byte_t *out, size_t max,
                     size_t *nout);

/* The end of the samples: a byte begun and not finished sets u->cut to its start. */
void etm_uart_end(etm_uart_t *u);

/* The line's rate measured from the falling edges inside good bytes, in bits
 * a second; 0 when there were none. */
double etm_uart_measured_baud(const etm_uart_t *u);

/* How far off its nominal rate the line may run and still decode at any
 * phase: (0.5 - 1/s) / 10 for s samples a bit (0.017 for 3); Manchester
 * 0.25 - 1/s. */
double etm_uart_tolerance(const etm_uart_t *u);

/* ---- A first guess of the rate (etm swo --baud auto) ------------------------ */

#define ETM_UART_RUN_MAX 1024 /* pulses longer than this (in samples) are not counted */

/* The lengths of the pulses (runs of one level between two edges). */
typedef struct etm_uart_runs {
    uint64_t count[ETM_UART_RUN_MAX];
    uint64_t total;     /* pulses counted */
    uint64_t run;       /* samples in the current run */
    uint8_t level;
    uint8_t seen_edge;  /* the current run began at an edge */
    uint8_t started;
} etm_uart_runs_t;

void etm_uart_runs_init(etm_uart_runs_t *r);
void etm_uart_runs_feed(etm_uart_runs_t *r, const uint8_t *levels, size_t n);

/* One bit's time in samples, from the shortest pulses: the mean length of the
 * pulses from the shortest length L that at least 1 % of the pulses have, to
 * L + L/4 + 1 (one bit's pulses last floor or ceil of a bit's time; pulses of
 * a bit and a half, which idle times of half a bit make, stay above that from
 * about 10 samples a bit). 0 when fewer than 10 pulses were seen. A first
 * guess, within a few percent: a decoding at it measures the rate
 * (etm_uart_measured_baud) to decode at. */
double etm_uart_runs_bit(const etm_uart_runs_t *r);

#ifdef __cplusplus
}
#endif
#endif
