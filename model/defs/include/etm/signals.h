/* etm/signals.h - the per-cycle interface of the model: one input record and one
 * output record per core clock, and the table that names every signal.
 *
 * Input signals are those of the Cortex-M3 ETM interface (Cortex-M3 TRM table
 * 16.1), a second instruction slot for dual-issue studies (ETM architecture
 * section 2.11.1), and the ARM11-style data slot interface (ARM1176 TRM table
 * 15-5). Names in the signal table are the column names of vector files, the
 * signal names looked up in VCD files, and the port names of the RTL top level.
 */
#ifndef ETM_SIGNALS_H
#define ETM_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ETMINTSTAT[2:0] codes (Cortex-M3 TRM table 16.1). 5, 6 and 7 are reserved. */
enum {
    ETM_INTSTAT_NONE = 0,   /* no status */
    ETM_INTSTAT_ENTRY = 1,  /* first cycle of the handler */
    ETM_INTSTAT_EXIT = 2,   /* leaving a handler; comes without ETMIVALID */
    ETM_INTSTAT_RETURN = 3, /* first cycle back in the interrupted context */
    ETM_INTSTAT_FETCH = 4   /* vector fetch and stack push */
};

/* ETMDACTL[17:0] fields (ARM1176 TRM table 15-5). */
#define ETM_DACTL_SLOT(v)      ((unsigned)(v) & 0x3u)          /* [1:0] DASlot */
#define ETM_DACTL_WRITE(v)     (((unsigned)(v) >> 2) & 1u)     /* [2] DAWrite */
#define ETM_DACTL_BLSEL(v)     (((unsigned)(v) >> 3) & 0xffu)  /* [10:3] DABLSel */
#define ETM_DACTL_UNALIGNED(v) (((unsigned)(v) >> 11) & 1u)    /* [11] DAUnaligned */
#define ETM_DACTL_ROT(v)       (((unsigned)(v) >> 12) & 3u)    /* [13:12] DARot */
#define ETM_DACTL_SWIZZLE(v)   (((unsigned)(v) >> 14) & 1u)    /* [14] DASwizzle */
#define ETM_DACTL_CPRT(v)      (((unsigned)(v) >> 15) & 1u)    /* [15] DACPRT */
#define ETM_DACTL_LAST(v)      (((unsigned)(v) >> 16) & 1u)    /* [16] DALast */
#define ETM_DACTL_NSEQ(v)      (((unsigned)(v) >> 17) & 1u)    /* [17] DANSeq */

/* ETMDDCTL[3:0] fields: the data value's slot and its qualifiers (ARM1176 TRM table 15-7). */
#define ETM_DDCTL_SLOT(v)        ((unsigned)(v) & 0x3u)        /* [1:0] DDSlot */
#define ETM_DDCTL_STREX_FAIL(v)  (((unsigned)(v) >> 2) & 1u)   /* [2] store-exclusive failed */
#define ETM_DDCTL_IMPRECISE(v)   (((unsigned)(v) >> 3) & 1u)   /* [3] imprecise abort: ignore the value */

/* One core clock of input. Single-bit signals are 0 or 1. */
typedef struct etm_in {
    /* Instruction slot 0: the Cortex-M3 interface of table 16.1. */
    uint8_t ivalid;     /* ETMIVALID   instruction entered its first execute cycle */
    uint8_t ibranch;    /* ETMIBRANCH  that instruction is the target of a PC change */
    uint8_t iindbr;     /* ETMIINDBR   ... whose destination cannot be deduced (indirect) */
    uint8_t iccfail;    /* ETMICCFAIL  the instruction failed its condition code */
    uint8_t fold;       /* ETMFOLD     an IT instruction following it was folded */
    uint8_t dvalid;     /* ETMDVALID   data address valid for the DWT (not traced by the ETM) */
    uint8_t flush;      /* ETMFLUSH    a PC-modifying event is under way */
    uint8_t findbr;     /* ETMFINDBR   ... and its destination is indirect */
    uint8_t cancel;     /* ETMCANCEL   the instruction in execute was cancelled */
    uint8_t istall;     /* ETMISTALL   the last signalled instruction has not entered execute */
    uint8_t intstat;    /* ETMINTSTAT[2:0], ETM_INTSTAT_* */
    uint8_t trigger;    /* ETMTRIGGER[3:0]   DWT comparator matches */
    uint8_t triginotd;  /* ETMTRIGINOTD[3:0] per comparator: 1 instruction match, 0 data match */
    uint16_t intnum;    /* ETMINTNUM[8:0]    exception number of the execution context */
    uint32_t ia;        /* ETMIA[31:1] as a byte address: bit 0 is always 0 */

    /* Instruction slot 1: a second instruction in the same cycle, after slot 0
     * in program order (dual-issue studies; needs ISSUE_WIDTH=2). */
    uint8_t ivalid1;    /* ETMIVALID1 */
    uint8_t ibranch1;   /* ETMIBRANCH1 */
    uint8_t iindbr1;    /* ETMIINDBR1 */
    uint8_t iccfail1;   /* ETMICCFAIL1 */
    uint32_t ia1;       /* ETMIA1[31:1] as a byte address */

    /* Data slot interface (ARM11 style). */
    uint32_t dactl;     /* ETMDACTL[17:0], fields ETM_DACTL_* */
    uint32_t da;        /* ETMDA[31:0]   data address, qualified by DASlot != 0 */
    uint8_t ddctl;      /* ETMDDCTL[3:0], fields ETM_DDCTL_* */
    uint64_t dd;        /* ETMDD[63:0]   data value (memory view), qualified by DDSlot != 0 */
} etm_in_t;

/* Most ETMv3 trace bytes that can leave the port in one core cycle. */
#define ETM_MAX_PORT_BYTES 8

/* One core clock of output. */
typedef struct etm_out {
    uint8_t pipestat;   /* PIPESTAT[2:0] (ETMv1) */
    uint8_t tracesync;  /* TRACESYNC (ETMv1) */
    uint16_t tracepkt;  /* TRACEPKT[15:0] (ETMv1; unused high bits are 0) */
    uint8_t v3_count;   /* number of ETMv3 bytes leaving the port this cycle */
    uint8_t v3_bytes[ETM_MAX_PORT_BYTES]; /* those bytes, oldest first; the rest 0 */
    uint16_t fifo_level; /* bytes held in the FIFO after this cycle */
    uint8_t overflow;   /* 1 in a cycle in which trace was lost to a full FIFO */
    uint8_t trigger;    /* 1 in the cycle the trigger event fires */
    uint8_t fifofull;   /* FIFOFULL: ETMCR[7] set and fewer than ETMFFLR bytes free after this cycle */
    /* The filter's decisions (not port signals): which cycles and transfers are traced. */
    uint8_t trace_enable; /* TraceEnable: this cycle's instructions are traced */
    uint8_t view_data;  /* ViewData: this cycle's data transfer (DASlot != 0) is traced */
} etm_out_t;

/* ---- The signal table ------------------------------------------------------ */

typedef enum etm_sigkind {
    ETM_SIG_SCALAR, /* an unsigned field of width bits, placed at bit lsb */
    ETM_SIG_BYTES   /* output only: the v3_count/v3_bytes pair */
} etm_sigkind_t;

typedef struct etm_signal {
    const char *name;   /* e.g. "ETMIA": vector column, VCD name, RTL port */
    uint8_t width;      /* number of bits of the signal */
    uint8_t lsb;        /* index of its lowest bit (ETMIA[31:1] has lsb 1) */
    uint8_t size;       /* sizeof the struct field: 1, 2, 4 or 8 */
    uint8_t kind;       /* etm_sigkind_t */
    uint16_t offset;    /* offsetof the field in etm_in_t or etm_out_t */
    const char *doc;    /* one line */
} etm_signal_t;

extern const etm_signal_t etm_in_signals[];
extern const size_t etm_in_signal_count;
extern const etm_signal_t etm_out_signals[];
extern const size_t etm_out_signal_count;

/* Index of a signal by name (case-insensitive), or -1. */
int etm_signal_find(const etm_signal_t *table, size_t count, const char *name);

/* Read or write a scalar signal's value in a record. The value is the field as
 * stored, i.e. with the signal's bits at [lsb+width-1:lsb]. */
uint64_t etm_signal_get(const etm_signal_t *s, const void *record);
void etm_signal_set(const etm_signal_t *s, void *record, uint64_t value);

/* Mask of the bits a scalar signal may hold. */
uint64_t etm_signal_mask(const etm_signal_t *s);

#ifdef __cplusplus
}
#endif
#endif
