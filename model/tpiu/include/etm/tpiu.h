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
#define ETM_TPIU_ID_TRIGGER 0x7Du /* the trigger marker's ID (its data byte is 0x00) */

/* The pin protocol: TPIU_SPPR's values. */
enum {
    ETM_TPIU_PARALLEL = 0,   /* the trace port: TRACECLK and TRACEDATA (or, port_bits 0, an ETB) */
    ETM_TPIU_MANCHESTER = 1, /* SWO, Manchester */
    ETM_TPIU_NRZ = 2         /* SWO, NRZ (UART 8N1) */
};
#define ETM_TPIU_ACPR_MAX 0x1FFFu     /* TPIU_ACPR's prescaler: 13 bits */
#define ETM_TPIU_FFCR_ENFCONT 0x002u  /* formatter on (continuous); clear: bypassed (SWO only) */
#define ETM_TPIU_FFCR_TRIGIN 0x100u   /* trigger markers on TRIGIN */

typedef struct etm_tpiu_params {
    unsigned port_bits;     /* TRACEDATA pins: 1, 2, 4, 8, 16 or 32; 0: ETB */
    unsigned clk_div;       /* core clocks per TRACECLK, 1 to 16 */
    unsigned fsync_frames;  /* pins: a full frame sync every N frames (0: only before the first) */
    unsigned queue_bytes;   /* the input queue: source words wait here (a power of two, 4 to 256; the Cortex-M3 TPIU has 4) */
    unsigned src_bytes[ETM_TPIU_SOURCES]; /* ATB width of each source in bytes (1, 2, 4, 8; 0: none) */
    unsigned etb_bytes;     /* ETB: buffer size, a multiple of 16 (16 to 2^24) */
    /* The registers' values at reset (the APB below changes them): */
    unsigned protocol;      /* TPIU_SPPR: ETM_TPIU_PARALLEL, _MANCHESTER or _NRZ */
    unsigned acpr;          /* TPIU_ACPR: SWO's clock is the core clock / (acpr + 1), 0 to 8191 */
    unsigned ffcr;          /* TPIU_FFCR: ETM_TPIU_FFCR_ENFCONT | ETM_TPIU_FFCR_TRIGIN */
    unsigned id_restate;    /* state an unchanged ID again after this many frames (0: never) */
    unsigned trig_delay;    /* core clocks from TRIGIN to the marker, 0 to 7: its synchroniser into
                               the TPIU's clock (TRACECLKIN may be asynchronous) */
} etm_tpiu_params_t;

/* Defaults: 4 pins, TRACECLK at the core clock, a frame sync every 64 frames,
 * a 32-byte queue, source 0 one byte wide (the ETM-M3's ATB), no source 1;
 * formatter on, trigger markers on, an unchanged ID stated again after 8
 * frames (the CoreSight TPIU's rule), TRIGIN's marker 2 clocks late (a
 * two-flop synchroniser: on the STM32F105 the marker follows the first byte
 * the ETM sends after the trigger, docs/tpiu.md). */
void etm_tpiu_params_default(etm_tpiu_params_t *p);

/* The defaults with a command line's output side: "PINS[:DIV]" (pins at
 * TRACECLK = core clock / DIV), "nrz[:ACPR]" or "manchester[:ACPR]" (SWO at
 * the core clock / (ACPR + 1)) or, with allow_etb, "etb:BYTES"; then any of
 * ",ffcr=V" (a TPIU_FFCR value), ",fsync=N", ",queue=N", ",restate=N",
 * ",trigdelay=N".
 * Returns ETM_OK, or ETM_ERR_ARG with what it wants in diag; the ranges are
 * etm_tpiu_create's. */
etm_err_t etm_tpiu_params_parse(etm_tpiu_params_t *p, const char *s, int allow_etb, etm_diag_t *diag);

/* One core clock of the ATB slave ports: what each master shows. */
typedef struct etm_tpiu_in {
    struct {
        uint8_t valid;                  /* ATVALID */
        uint8_t id;                     /* ATID[6:0] */
        uint8_t data[ETM_TPIU_WORD_MAX]; /* ATDATA, oldest byte first (src_bytes of them) */
    } src[ETM_TPIU_SOURCES];
    uint8_t trigin;  /* TRIGIN: a trigger (the ETM's trigger output): a marker follows this cycle's words */
    /* The TPIU's APB (a Cortex-M3's private peripheral bus), as etm_in_t's: */
    uint8_t psel, penable, pwrite;
    uint16_t paddr;  /* byte offset in the 4 KB block */
    uint32_t pwdata;
} etm_tpiu_in_t;

typedef struct etm_tpiu_out {
    uint8_t atready[ETM_TPIU_SOURCES]; /* ATREADY of each slave port in this cycle */
    uint8_t tclk;        /* pins: a TRACECLK edge in this cycle: TRACEDATA is a transfer */
    uint32_t tracedata;  /* TRACEDATA[port_bits-1:0]: the stream's next bits, least significant first */
    uint8_t etb_wr;      /* ETB: a half-word written in this cycle */
    uint32_t etb_addr;   /* ... at this byte address (even) */
    uint16_t pair;       /* the half-word formatted in this cycle (bytes 2k, 2k+1 of a frame) */
    uint8_t paired;      /*   1 when there is one */
    uint8_t single;      /*   1 when it is one byte (the formatter bypassed: bits 7:0) */
    uint8_t swo;         /* SWO: the pin's level in this cycle (idle: 1 NRZ, 0 Manchester) */
    uint32_t prdata;     /* APB read data in the access phase of a read (else 0) */
} etm_tpiu_out_t;

typedef struct etm_tpiu_stats {
    uint64_t cycles, words[ETM_TPIU_SOURCES], bytes_in;
    uint64_t frames, fsyncs, hsyncs;  /* frames formatted, syncs on the pins */
    uint64_t id_bytes, pad_bytes;     /* frame bytes spent on IDs, and on padding */
    uint64_t stall_cycles[ETM_TPIU_SOURCES]; /* ATVALID with ATREADY low */
    uint64_t etb_wraps;
    uint64_t triggers;                /* trigger markers put in the stream */
    uint64_t restates;                /* IDs stated again after id_restate frames */
    uint64_t swo_bytes, swo_busy;     /* SWO: bytes sent, cycles the line was not idle */
    uint64_t bypass_dropped;          /* formatter bypassed: bytes of source 1 discarded */
    uint64_t apb_writes, apb_ignored; /* APB writes; those to a read-only or absent register, or a value the part does not take */
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

/* The TPIU's APB from an interface record (stim NULL: idle): the transfer the
 * record's PSELTPIU selects, on the PENABLE, PWRITE, PADDR and PWDATA it shares
 * with the ETM's PSEL (a Cortex-M3's external PPB; etm-qemu stimulus --apb). */
void etm_tpiu_in_apb(etm_tpiu_in_t *in, const etm_in_t *stim);

/* The sources have ended: the formatter completes its frame with padding (ID
 * 0x00) once the queue is empty, so the last bytes reach the pins or the ETB. */
void etm_tpiu_end(etm_tpiu_t *t);
/* Nothing left: queue, frame, pairs and the pins' shift register are empty
 * (after etm_tpiu_end). */
int etm_tpiu_done(const etm_tpiu_t *t);

const etm_tpiu_stats_t *etm_tpiu_get_stats(const etm_tpiu_t *t);

/* The ETB's content, oldest byte first (frame aligned); returns its length. */
size_t etm_tpiu_etb_read(const etm_tpiu_t *t, uint8_t *buf, size_t max);

/* The registers as they stand: the output side they select. */
unsigned etm_tpiu_protocol(const etm_tpiu_t *t); /* TPIU_SPPR */
unsigned etm_tpiu_acpr(const etm_tpiu_t *t);
unsigned etm_tpiu_ffcr(const etm_tpiu_t *t);

/* A register's value as an APB read returns it (no side effect); off: byte
 * offset in the block. The map is docs/tpiu.md's. */
uint32_t etm_tpiu_reg_read(const etm_tpiu_t *t, unsigned off);
/* A write as the APB makes it; returns 1 when the register took it, 0 when
 * it was ignored (counted in apb_ignored). */
int etm_tpiu_reg_write(etm_tpiu_t *t, unsigned off, uint32_t v);

/* The pins seen by a capture device: collects TRACEDATA transfers into bytes
 * (least significant bits first), or, for SWO, samples the pin each core
 * clock and decodes the line (NRZ: 8N1; Manchester: start bit, bytes, a low
 * stop) at the rate the TPIU's registers give; framing errors are counted. */
typedef struct etm_tpiu_cap {
    unsigned port_bits;
    uint32_t acc;
    unsigned nbits;
    /* SWO */
    unsigned protocol, unit;   /* the line, and core clocks a bit (NRZ) or half-bit (Manchester) */
    unsigned phase, bit, cnt, prev, in_byte;
    uint32_t sh;
    uint64_t framing_errors;
} etm_tpiu_cap_t;
void etm_tpiu_cap_init(etm_tpiu_cap_t *c, unsigned port_bits);
/* The same for the output side a TPIU's registers select (pins or SWO). */
void etm_tpiu_cap_init_for(etm_tpiu_cap_t *c, const etm_tpiu_t *t);
/* One cycle's output: the bytes it completes go to bytes (at most 4); returns their count. */
unsigned etm_tpiu_cap_step(etm_tpiu_cap_t *c, const etm_tpiu_out_t *o, uint8_t bytes[4]);
/* A receiver of t's SWO pin follows t's programming: once TPIU_SPPR or
 * TPIU_ACPR has changed (firmware setting the line up), it reads the new line
 * from the next character on, as a probe is told the line's protocol and rate. */
void etm_tpiu_cap_follow(etm_tpiu_cap_t *c, const etm_tpiu_t *t);

#ifdef __cplusplus
}
#endif
#endif
