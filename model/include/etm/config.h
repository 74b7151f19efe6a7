/* etm/config.h - the configuration of a model instance: the ETM register image
 * with the architecture's bit positions, plus the few parameters a real ETM fixes
 * in silicon (FIFO depth, port bytes per cycle, issue width).
 *
 * Text form, one setting per line:   NAME=0xVALUE
 * also accepted: OpenCSD snapshot form  NAME(0xADDR)=0xVALUE  (ADDR must match).
 * '#' starts a comment. Names are case-insensitive. docs/registers.md lists every
 * register and field and which ETM versions have it.
 */
#ifndef ETM_CONFIG_H
#define ETM_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_NUM_ADDR_COMP 16 /* ETMACVR1..16 / ETMACTR1..16 */
#define ETM_NUM_COUNTERS 4   /* ETMCNT*1..4 */

typedef struct etm_config {
    /* Register image; the comment gives the register number (word offset). */
    uint32_t etmcr;        /* 0x000 main control */
    uint32_t etmccr;       /* 0x001 configuration code: the resources this ETM has */
    uint32_t etmtrigger;   /* 0x002 trigger event */
    uint32_t etmtsscr;     /* 0x006 trace start/stop resource control */
    uint32_t etmtecr2;     /* 0x007 TraceEnable control 2 (data comparators) */
    uint32_t etmteevr;     /* 0x008 TraceEnable event */
    uint32_t etmtecr1;     /* 0x009 TraceEnable control 1 */
    uint32_t etmfflr;      /* 0x00B FIFOFULL level */
    uint32_t etmvdevr;     /* 0x00C ViewData event */
    uint32_t etmvdcr1;     /* 0x00D ViewData control 1 (single address comparators) */
    uint32_t etmvdcr3;     /* 0x00F ViewData control 3 (address range comparators) */
    uint32_t etmacvr[ETM_NUM_ADDR_COMP];     /* 0x010.. address comparator values */
    uint32_t etmactr[ETM_NUM_ADDR_COMP];     /* 0x020.. address comparator access types */
    uint32_t etmcntrldvr[ETM_NUM_COUNTERS];  /* 0x050.. counter reload values */
    uint32_t etmcntenr[ETM_NUM_COUNTERS];    /* 0x054.. counter enable (decrement) events */
    uint32_t etmcntrldevr[ETM_NUM_COUNTERS]; /* 0x058.. counter reload events */
    uint32_t etmcntvr[ETM_NUM_COUNTERS];     /* 0x05C.. counter values at start */
    uint32_t etmsyncfr;    /* 0x078 synchronisation frequency */
    uint32_t etmtesseicr;  /* 0x07C TraceEnable start/stop by EmbeddedICE (DWT) inputs */
    uint32_t etmidr;       /* 0x079 ID: architecture version, alternative branch encoding */
    uint32_t etmccer;      /* 0x07A configuration code extension */
    uint32_t etmtraceidr;  /* 0x080 CoreSight trace ID */

    /* Model parameters (no register in a real ETM). */
    uint32_t fifo_depth;   /* FIFO_DEPTH  bytes of trace FIFO */
    uint32_t port_bytes;   /* PORT_BYTES  ETMv3 bytes drained per core cycle: 1, 2, 4 or 8 */
    uint32_t issue_width;  /* ISSUE_WIDTH instructions per cycle: 1, or 2 for dual issue */
} etm_config_t;

/* ---- Selected fields, named after the architecture ----------------------- */

/* ETMCR */
#define ETM_CR_POWERDOWN     (1u << 0)
#define ETM_CR_MONITOR_CPRT  (1u << 1)
#define ETM_CR_DATA_VALUE    (1u << 2)  /* [3:2] data access: 01 value */
#define ETM_CR_DATA_ADDR     (1u << 3)  /*                   10 address, 11 both */
#define ETM_CR_PORTSIZE_SHIFT 4         /* [6:4] port size[2:0] */
#define ETM_CR_STALL         (1u << 7)
#define ETM_CR_BRANCH_OUTPUT (1u << 8)
#define ETM_CR_DBGRQ         (1u << 9)
#define ETM_CR_PROGRAMMING   (1u << 10)
#define ETM_CR_PORT_SELECT   (1u << 11)
#define ETM_CR_CYCLE_ACCURATE (1u << 12)
#define ETM_CR_HALF_RATE     (1u << 13) /* ETMv1/v2: half-rate clocking; ETMv3: port mode[2] */
#define ETM_CR_CTXID_SHIFT   14         /* [15:14] context ID size */
#define ETM_CR_PORTMODE_SHIFT 16        /* [17:16] port mode[1:0] */
#define ETM_CR_DATA_ONLY     (1u << 20)
#define ETM_CR_PORTSIZE3     (1u << 21) /* port size[3] */
#define ETM_CR_TIMESTAMP     (1u << 28)

/* ETMIDR */
#define ETM_IDR_MINOR(v)   (((v) >> 4) & 0xfu)
#define ETM_IDR_MAJOR(v)   (((v) >> 8) & 0xfu)
#define ETM_IDR_ALT_BRANCH (1u << 20)

/* ETMCCR */
#define ETM_CCR_PAIRS(v)      ((v) & 0xfu)          /* [3:0] address comparator pairs */
#define ETM_CCR_COUNTERS(v)   (((v) >> 13) & 0x7u)  /* [15:13] counters */
#define ETM_CCR_ETMIDR        (1u << 31)            /* ETMIDR present (ETMv2.0 and later) */
#define ETM_CCR_PROTOCOL(v)   (((v) >> 28) & 0x7u)  /* [30:28] ETMv1 protocol number */

/* ETM architecture versions, as major*16 + minor: ETM_V(3,4) is ETMv3.4. The model
 * speaks ETMv1.0-1.3 (PIPESTAT/TRACEPKT) and ETMv3.0-3.5 (packet stream).
 *
 * Where the version comes from, as in a real ETM: ETMCCR[31] says whether ETMIDR
 * exists. When it is 0 the ETM is an ETMv1.x and ETMCCR[30:28] is its protocol
 * number (0: v1.0, 1: v1.1, 2 or 4: v1.2, 3, 5 or 7: v1.3), and ETMIDR must be 0.
 * When it is 1, ETMIDR[11:8] (2 for ETMv3) and [7:4] give the version. */
#define ETM_V(major, minor) ((unsigned)((major) * 16 + (minor)))
#define ETM_V_MAJOR(v) ((v) >> 4)
#define ETM_V_MINOR(v) ((v) & 0xfu)

/* The version a register image selects, as ETM_V(). ETM_ERR_UNSUPPORTED (with a
 * sentence in diag, if given) for ETMv2, PFT or an unknown encoding. */
etm_err_t etm_config_version(const etm_config_t *cfg, unsigned *version, etm_diag_t *diag);

/* The default configuration: the ETM of a Cortex-M3 r1 (ETM-M3, ETMv3.4 with the
 * alternative branch encoding; ETMIDR 0x4114F240, ETMCCR 0x8C802000), programmed
 * to trace everything: not cycle-accurate, 1 byte per cycle, 64-byte FIFO. */
void etm_config_default(etm_config_t *cfg);

/* Named starting points: "etm-m3" (the default), "etm-m3-r2" (ETMv3.5), and
 * generic ETMs "etmv1.0".."etmv1.3", "etmv3.0".."etmv3.5" with 4 address
 * comparator pairs, 2 counters and FIFOFULL. Configuration text may begin with
 * a line "preset NAME". Returns ETM_OK or ETM_ERR_UNKNOWN_NAME. */
etm_err_t etm_config_preset(etm_config_t *cfg, const char *name);
extern const char *const etm_config_preset_names[]; /* NULL-terminated */

/* Check a whole configuration against the architecture: version known, no bit
 * set that the chosen version lacks, no reserved field value, no resource used
 * that ETMCCR/ETMCCER say is absent, model parameters in range. It does not say
 * whether the model implements every feature selected (etm_model_supports() does).
 * *bad_slot (may be NULL) gets the register slot of the offending register, or -1.
 * Returns ETM_OK, ETM_ERR_UNSUPPORTED, ETM_ERR_RESERVED_BITS or ETM_ERR_FIELD_WIDTH. */
etm_err_t etm_config_validate(const etm_config_t *cfg, etm_diag_t *diag, int *bad_slot);

/* ---- Register table ------------------------------------------------------- */

typedef struct etm_regdesc {
    const char *name;  /* "ETMCR"; arrays: "ETMACVR" numbered 1..count */
    uint16_t addr;     /* register number of element 1; 0xFFFF for model parameters */
    uint8_t count;     /* 1, or the array length */
    uint16_t offset;   /* offsetof(etm_config_t, field) */
    const char *doc;
} etm_regdesc_t;

extern const etm_regdesc_t etm_registers[];
extern const size_t etm_register_count;

/* Find a register by name ("ETMACVR3" gives the ETMACVR entry with index 2).
 * Returns the table entry or NULL. */
const etm_regdesc_t *etm_register_find(const char *name, unsigned *index);

/* Pointer to the value of register `d`, element `index`, in cfg. */
uint32_t *etm_register_ptr(etm_config_t *cfg, const etm_regdesc_t *d, unsigned index);
uint32_t etm_register_get(const etm_config_t *cfg, const etm_regdesc_t *d, unsigned index);

/* Registers are numbered 0..ETM_CONFIG_SLOTS-1 over all array elements ("slots"). */
#define ETM_CONFIG_SLOTS 80
int etm_register_slot(const etm_regdesc_t *d, unsigned index);
/* Name of a slot ("ETMACVR3"), written into buf. */
const char *etm_register_slot_name(int slot, char *buf, size_t size);

/* ---- Text form ------------------------------------------------------------- */

/* Parse one line of configuration text into cfg. Blank and comment lines are
 * accepted and ignored (*slot = -1). `seen` (may be NULL) is a bitmap of
 * ETM_CONFIG_SLOTS bits used to reject a register given twice; *slot (may be NULL)
 * gets the slot set. diag gets the reason; the caller fills in file and line.
 * Returns ETM_OK, ETM_ERR_SYNTAX, ETM_ERR_BAD_NUMBER, ETM_ERR_UNKNOWN_NAME,
 * ETM_ERR_DUPLICATE, ETM_ERR_FIELD_WIDTH. */
etm_err_t etm_config_parse_line(etm_config_t *cfg, const char *line, uint8_t *seen, int *slot,
                                etm_diag_t *diag);

/* Size in bytes of the `seen` bitmap for etm_config_parse_line(). */
#define ETM_CONFIG_SEEN_BYTES ((ETM_CONFIG_SLOTS + 7) / 8)

/* Print every register with its fields decoded, one register per block, for
 * people ("ETMCR=0x00001000  cycle-accurate=1 ..."). Returns ETM_OK or ETM_ERR_IO. */
etm_err_t etm_config_explain(const etm_config_t *cfg, FILE *f);

/* Read a whole configuration file: starts from etm_config_default(), applies every
 * line, then validates. diag names file and line of the first problem. */
etm_err_t etm_config_read_file(etm_config_t *cfg, const char *path, etm_diag_t *diag);

/* Write the configuration as NAME=0xVALUE lines, each prefixed with `prefix`
 * (may be ""): every scalar register and parameter, and the elements of register
 * arrays that are not zero (arrays default to zero). Reading the text back with
 * etm_config_parse_line() on top of etm_config_default() gives the same image.
 * Returns ETM_OK or ETM_ERR_IO. */
etm_err_t etm_config_write(const etm_config_t *cfg, FILE *f, const char *prefix);

/* Equal register images and parameters. */
int etm_config_equal(const etm_config_t *a, const etm_config_t *b);

#ifdef __cplusplus
}
#endif
#endif
