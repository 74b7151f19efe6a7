/* etm/signals.h - the per-cycle interface of the model: one input record and one
 * output record per core clock, and the table that names every signal.
 *
 * Input signals are those of the Cortex-M3 ETM interface (Cortex-M3 TRM table
 * 16.1), a second instruction slot for dual-issue studies (ETM architecture
 * section 2.11.1), and the ARM11-style data slot interface (ARM1176 TRM table
 * 15-5), all listed once in etm/signals.def. Names in the signal table are the
 * column names of vector files, the signal names looked up in VCD files, and
 * the port names of the RTL top level.
 */
#ifndef ETM_SIGNALS_H
#define ETM_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

#include "etm/consts.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* One core clock of input, a field per input of etm/signals.def (ETMIVALID is
 * ivalid, ETMIA is ia, ...). Single-bit signals are 0 or 1; ETMIA[31:1] and
 * ETMIA1[31:1] are byte addresses (bit 0 clear). Slot 1 is a second
 * instruction in the same cycle, after slot 0 in program order (needs
 * ISSUE_WIDTH=2); ETMDACTL and ETMDDCTL have the fields ETM_DACTL_* and
 * ETM_DDCTL_* above. */
typedef struct etm_in {
#define ETM_IN(field, name, width, lsb, ctype, part, doc) ctype field;
#include "etm/signals.def"
} etm_in_t;

/* Where an output appears (etm/signals.def). */
#define ETM_SIGF_FILE 1u /* a port and a column of vector and VCD files */
#define ETM_SIGF_PORT 2u /* a port only: compared in lockstep, not in files */
/* The part of the interface an input belongs to (etm/signals.def). */
#define ETM_SIGF_CORE 4u   /* Cortex-M3 TRM table 16.1: a VCD without it is refused */
#define ETM_SIGF_SLOT1 8u  /* the second instruction of a dual-issue cycle: absent reads 0 */
#define ETM_SIGF_DATA 16u  /* the data slot: absent reads 0 */
#define ETM_SIGF_APB 32u   /* the debug APB (register accesses): absent reads 0 */
#define ETM_SIGF_ATB 64u   /* the trace sink's side of ATB (ATREADY, AFVALID): absent reads 0 */
#define ETM_SIGF_INV 128u  /* with a part: the field holds the port's complement (ATREADY) */
/* What to XOR a field with to get its port's value (and back). */
#define ETM_SIG_PORT_XOR(part) (((part) & ETM_SIGF_INV) ? 1u : 0u)

/* One core clock of output, a field per output of etm/signals.def: the ETMv1
 * port (pipestat, tracepkt, tracesync), the ETMv3 bytes leaving the port
 * (v3_count of them in v3_bytes, oldest first, the rest 0), the FIFO level
 * after the cycle, overflow, trigger, FIFOFULL, and the filter's decisions
 * (trace_enable, view_data: not port signals). */
typedef struct etm_out {
#define ETM_OUT(field, name, width, ctype, where, doc) ctype field;
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) uint8_t count; uint8_t bytes[n];
#include "etm/signals.def"
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
    uint8_t flags;      /* ETM_SIGF_*: the part of an input, the place of an output */
    const char *doc;    /* one line */
} etm_signal_t;

extern const etm_signal_t etm_in_signals[];
extern const size_t etm_in_signal_count;
extern const etm_signal_t etm_out_signals[];
extern const size_t etm_out_signal_count;

/* sizeof(etm_in_t) and sizeof(etm_out_t): with the tables' offsets and sizes,
 * what a binding needs to lay records out (an array of etm_in_t, say). */
size_t etm_in_size(void);
size_t etm_out_size(void);

/* Index of a signal by name (case-insensitive), or -1. */
int etm_signal_find(const etm_signal_t *table, size_t count, const char *name);

/* Read or write a scalar signal's value in a record. The value is the port's,
 * placed as the field is, i.e. with the signal's bits at [lsb+width-1:lsb]
 * (the field as stored, complemented for ETM_SIGF_INV). */
uint64_t etm_signal_get(const etm_signal_t *s, const void *record);
void etm_signal_set(const etm_signal_t *s, void *record, uint64_t value);

/* Inputs whose X or Z matters. `unknown` has bit i set when input i
 * (etm_in_signals) held X or Z in a cycle, `in` the cycle's known values (0
 * where unknown). Returns the bits of those that matter: not qualified off by a
 * known qualifier of etm/signals.def (ETM_QUALIFIED), and not of slot 1 when
 * issue_width is 1 (0: slot 1 may be in use). */
uint64_t etm_in_unknown_harmful(const etm_in_t *in, uint64_t unknown, unsigned issue_width);

/* The names of the qualifiers of input i, "ETMIVALID" or "ETMIBRANCH or
 * ETMIVALID", into buf; "" when it has none. */
const char *etm_in_qualifiers(size_t i, char *buf, size_t size);

/* Bit i set for each signal i of the table with a flag of `flags`. */
uint64_t etm_signal_flag_mask(const etm_signal_t *table, size_t count, unsigned flags);

/* Mask of the bits a scalar signal may hold. */
uint64_t etm_signal_mask(const etm_signal_t *s);

#ifdef __cplusplus
}
#endif
#endif
