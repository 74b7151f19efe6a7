/* etm/tpiu.h - a TPIU with the CoreSight trace formatter: the trace sink of
 * one or two ATB masters (the ETM and, where a test supplies one, a second
 * source with another trace ID), cycle by cycle on the core clock.
 *
 * The formatter packs the sources' bytes into 16-byte frames (the layout
 * etm/coresight.h takes apart: IDs in even bytes, the auxiliary byte 15),
 * one half-word (a "pair") per core clock at most. The pairs leave either on
 * TRACEDATA, PORT_BITS pins wide, one transfer per TRACECLK (CLK_DIV core
 * clocks), in continuous mode: a full frame synchronisation FF FF FF 7F before
 * the first frame and every FSYNC_FRAMES frames, and a half-word
 * synchronisation FF 7F whenever the pins need a half-word and no pair is
 * ready; or into an ETB-style circular buffer of frames (no syncs: the frames
 * are aligned in memory). docs/tpiu.md gives the rules and their timing; the
 * RTL twin is rtl/etm_tpiu.sv.
 *
 * Streaming: a TPIU's state is fixed (the input queue, four pairs, the
 * serializer); only the ETB's buffer, when used, is allocated by the caller's
 * size.
 */
#ifndef ETM_TPIU_H
#define ETM_TPIU_H

#include <stddef.h>
#include <stdint.h>

#include "etm/error.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_TPIU_SOURCES 2        /* ATB slave ports */
#define ETM_TPIU_WORD_MAX 8       /* bytes of an ATB word (ATDATA[63:0]) */
#define ETM_TPIU_QUEUE_MAX 256    /* input queue, bytes */
#define ETM_TPIU_PAIRS 4          /* formatted half-words waiting for the pins */
#define ETM_TPIU_ID_NULL 0x00u    /* the formatter's padding ID */

typedef struct etm_tpiu_params {
    unsigned port_bits;     /* TRACEDATA pins: 1, 2, 4, 8, 16 or 32; 0: ETB */
    unsigned clk_div;       /* core clocks per TRACECLK, 1 to 16 */
    unsigned fsync_frames;  /* pins: a full frame sync every N frames (0: only before the first) */
    unsigned queue_bytes;   /* the input queue: source words wait here (a power of two, 8 to 256) */
    unsigned src_bytes[ETM_TPIU_SOURCES]; /* ATB width of each source in bytes (1, 2, 4, 8; 0: none) */
    unsigned etb_bytes;     /* ETB: buffer size, a multiple of 16 (16 to 2^24) */
} etm_tpiu_params_t;

/* Defaults: 4 pins, TRACECLK at the core clock, a frame sync every 64 frames,
 * a 32-byte queue, source 0 one byte wide (the ETM-M3's ATB), no source 1. */
void etm_tpiu_params_default(etm_tpiu_params_t *p);

/* The defaults with the output side of a command line's "PINS[:DIV]" (pins at
 * TRACECLK = core clock / DIV) or, with allow_etb, "etb:BYTES". Returns ETM_OK,
 * or ETM_ERR_ARG with what it wants in diag; the ranges are etm_tpiu_create's. */
etm_err_t etm_tpiu_params_parse(etm_tpiu_params_t *p, const char *s, int allow_etb, etm_diag_t *diag);

/* One core clock of the ATB slave ports: what each master shows. */
typedef struct etm_tpiu_in {
    struct {
        uint8_t valid;                  /* ATVALID */
        uint8_t id;                     /* ATID[6:0] */
        uint8_t data[ETM_TPIU_WORD_MAX]; /* ATDATA, oldest byte first (src_bytes of them) */
    } src[ETM_TPIU_SOURCES];
} etm_tpiu_in_t;

typedef struct etm_tpiu_out {
    uint8_t atready[ETM_TPIU_SOURCES]; /* ATREADY of each slave port in this cycle */
    uint8_t tclk;        /* pins: a TRACECLK edge in this cycle: TRACEDATA is a transfer */
    uint32_t tracedata;  /* TRACEDATA[port_bits-1:0]: the stream's next bits, least significant first */
    uint8_t etb_wr;      /* ETB: a half-word written in this cycle */
    uint32_t etb_addr;   /* ... at this byte address (even) */
    uint16_t pair;       /* the half-word formatted in this cycle (bytes 2k, 2k+1 of a frame) */
    uint8_t paired;      /*   1 when there is one */
} etm_tpiu_out_t;

typedef struct etm_tpiu_stats {
    uint64_t cycles, words[ETM_TPIU_SOURCES], bytes_in;
    uint64_t frames, fsyncs, hsyncs;  /* frames formatted, syncs on the pins */
    uint64_t id_bytes, pad_bytes;     /* frame bytes spent on IDs, and on padding */
    uint64_t stall_cycles[ETM_TPIU_SOURCES]; /* ATVALID with ATREADY low */
    uint64_t etb_wraps;
} etm_tpiu_stats_t;

typedef struct etm_tpiu etm_tpiu_t;

/* Returns ETM_OK, ETM_ERR_ARG (a parameter out of range; diag says which and
 * why) or ETM_ERR_NOMEM. */
etm_err_t etm_tpiu_create(etm_tpiu_t **out, const etm_tpiu_params_t *p, etm_diag_t *diag);
void etm_tpiu_destroy(etm_tpiu_t *t);
void etm_tpiu_reset(etm_tpiu_t *t);

/* ATREADY of port src for the coming cycle: a function of the TPIU's state
 * only (the queue has room for every source's word), so a master may read it
 * before it computes its ATVALID. 0 for a port without a source. */
int etm_tpiu_ready(const etm_tpiu_t *t, unsigned src);

/* One core clock. */
void etm_tpiu_step(etm_tpiu_t *t, const etm_tpiu_in_t *in, etm_tpiu_out_t *out);

/* in as source 0 driven by an ETM's outputs of the cycle (out NULL: nothing on
 * ATB) and no other source; stalled: ATREADY was held low before the TPIU (a
 * busy interconnect), so the word does not reach it. */
void etm_tpiu_in_from_etm(etm_tpiu_in_t *in, const etm_out_t *out, int stalled);

/* The sources have ended: the formatter completes its frame with padding (ID
 * 0x00) once the queue is empty, so the last bytes reach the pins or the ETB. */
void etm_tpiu_end(etm_tpiu_t *t);
/* Nothing left: queue, frame, pairs and the pins' shift register are empty
 * (after etm_tpiu_end). */
int etm_tpiu_done(const etm_tpiu_t *t);

const etm_tpiu_stats_t *etm_tpiu_get_stats(const etm_tpiu_t *t);

/* The ETB's content, oldest byte first (frame aligned); returns its length. */
size_t etm_tpiu_etb_read(const etm_tpiu_t *t, uint8_t *buf, size_t max);

/* The pins seen by a capture device: collects TRACEDATA transfers into bytes
 * (least significant bits first). */
typedef struct etm_tpiu_cap {
    unsigned port_bits;
    uint32_t acc;
    unsigned nbits;
} etm_tpiu_cap_t;
void etm_tpiu_cap_init(etm_tpiu_cap_t *c, unsigned port_bits);
/* One cycle's output: the bytes it completes go to bytes (at most 4); returns their count. */
unsigned etm_tpiu_cap_step(etm_tpiu_cap_t *c, const etm_tpiu_out_t *o, uint8_t bytes[4]);

#ifdef __cplusplus
}
#endif
#endif
