/* decode_v3.c - streaming decoder of the ETMv3 trace protocol (ETMv3.0-3.5).
 *
 * Written from IHI 0014 chapter 7 and checked against a real ETMv3.5 capture with
 * Arm's own decode (tb/oracle/tc2_ds5.c). It shares nothing with the encoder.
 * docs/decoder.md explains the conventions; the comments here name the rule each
 * step follows.
 *
 * Layout:
 *   1. instruction classifier (A32, T32)
 *   2. packet layer: byte stream -> packets (sync search, header table, payloads)
 *   3. trace layer: packets -> elements (atoms, code following, cancel, cycles)
 */
#include "etm/decode_v3.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/consts.h"
#include "util.h"

/* ---- Header encodings (IHI 0014 table 7.1) --------------------------------- */

#define ETMV3_ASYNC_MIN_ZEROS 5u       /* A-sync: at least five 0x00, then 0x80 */

/* Elements waiting behind an instruction that a cancel may still withdraw. */
#define PEND_MAX 64

static uint32_t sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    return (v ^ m) - m;
}

static uint32_t le16(const uint8_t *b) { return (uint32_t)b[0] | ((uint32_t)b[1] << 8); }
static uint32_t le32(const uint8_t *b) { return le16(b) | (le16(b + 2) << 16); }

/* Mask of the low `bits` bits of a 32-bit value. */
static uint32_t low_mask32(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : ((1u << bits) - 1u); }
static uint64_t low_mask64(unsigned bits) { return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1u); }

const char *etm_v3_isa_name(etm_v3_isa_t isa)
{
    switch (isa) {
    case ETM_V3_ISA_ARM: return "A32";
    case ETM_V3_ISA_THUMB: return "T32";
    case ETM_V3_ISA_THUMBEE: return "TEE";
    case ETM_V3_ISA_JAZELLE: return "JAZ";
    }
    return "?";
}

/* =========================================================================== */
/* 1. Instruction classifier                                                   */
/* =========================================================================== */

/* 16-bit Thumb (ARM ARM A6.2). */
static void classify_t16(uint32_t hw, uint32_t addr, etm_v3_insn_t *o)
{
    uint32_t pc = addr + 4;
    if ((hw & 0xF000u) == 0xD000u) {
        /* B<c> T1; cond 1110 is UDF, 1111 is SVC */
        if (((hw >> 8) & 0xFu) < 0xEu) {
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + sext((hw & 0xFFu) << 1, 9);
        }
    } else if ((hw & 0xF800u) == 0xE000u) {
        o->branch = ETM_V3_BR_DIRECT; /* B T2 */
        o->target = pc + sext((hw & 0x7FFu) << 1, 12);
    } else if ((hw & 0xF500u) == 0xB100u) {
        o->branch = ETM_V3_BR_DIRECT; /* CBZ, CBNZ: forward only */
        o->target = pc + ((((hw >> 9) & 1u) << 6) | (((hw >> 3) & 0x1Fu) << 1));
    } else if ((hw & 0xFF00u) == 0x4700u) {
        o->branch = ETM_V3_BR_INDIRECT; /* BX Rm, BLX Rm */
        o->is_link = (int)((hw >> 7) & 1u);
    } else if ((hw & 0xFF00u) == 0x4400u || (hw & 0xFF00u) == 0x4600u) {
        /* ADD Rdn,Rm / MOV Rd,Rm with high registers: Rd = D:Rd */
        if (((hw & 7u) | ((hw >> 4) & 8u)) == 15u)
            o->branch = ETM_V3_BR_INDIRECT;
    } else if ((hw & 0xFF00u) == 0xBD00u) {
        o->branch = ETM_V3_BR_INDIRECT; /* POP {..., PC} */
    } else if ((hw & 0xFF00u) == 0xBF00u && (hw & 0xFu) != 0) {
        o->is_it = 1; /* IT: an instruction of its own in the trace */
    }
}

/* 32-bit Thumb (ARM ARM A6.3). */
static void classify_t32(uint32_t hw1, uint32_t hw2, uint32_t addr, etm_v3_insn_t *o)
{
    uint32_t pc = addr + 4;
    if ((hw1 & 0xF800u) == 0xF000u && (hw2 & 0x8000u)) {
        /* Branches and miscellaneous control (A6.3.4) */
        uint32_t s = (hw1 >> 10) & 1u, j1 = (hw2 >> 13) & 1u, j2 = (hw2 >> 11) & 1u;
        uint32_t i1 = ~(j1 ^ s) & 1u, i2 = ~(j2 ^ s) & 1u;
        uint32_t op = hw2 & 0x5000u;
        if (op == 0x1000u || op == 0x5000u) {
            /* B.W T4, BL */
            uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FFu) << 12) | ((hw2 & 0x7FFu) << 1);
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + sext(imm, 25);
            o->is_link = op == 0x5000u;
        } else if (op == 0x4000u) {
            /* BLX imm: to A32, target word-aligned */
            uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FFu) << 12) | (((hw2 >> 1) & 0x3FFu) << 2);
            o->branch = ETM_V3_BR_DIRECT;
            o->target = (pc & ~3u) + sext(imm, 25);
            o->target_isa = ETM_V3_ISA_ARM;
            o->is_link = 1;
        } else if (((hw1 >> 6) & 0xEu) != 0xEu) {
            /* B<c>.W T3 */
            uint32_t imm = (s << 20) | (j2 << 19) | (j1 << 18) | ((hw1 & 0x3Fu) << 12) | ((hw2 & 0x7FFu) << 1);
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + sext(imm, 21);
        } else if (hw1 == 0xF3DEu && (hw2 & 0xFF00u) == 0x8F00u) {
            o->branch = ETM_V3_BR_INDIRECT; /* SUBS PC, LR, #imm (and ERET) */
        } else if ((hw1 & 0xFFF0u) == 0xF3C0u && hw2 == 0x8F00u) {
            o->branch = ETM_V3_BR_INDIRECT; /* BXJ */
        }
        /* everything else here (MSR, MRS, hints, barriers, SMC, HVC, UDF) falls through */
    } else if ((hw1 & 0xFE00u) == 0xE800u) {
        /* Load/store multiple, dual, exclusive, table branch (A6.3.5, A6.3.6) */
        if ((hw1 & 0x0040u) == 0) {
            uint32_t op = (hw1 >> 7) & 3u, load = (hw1 >> 4) & 1u;
            if (op == 1u || op == 2u) {
                if (load && (hw2 & 0x8000u))
                    o->branch = ETM_V3_BR_INDIRECT; /* LDM, LDMDB, POP.W with PC */
            } else if (load) {
                o->branch = ETM_V3_BR_INDIRECT; /* RFE */
            }
        } else if ((hw1 & 0xFFF0u) == 0xE8D0u && (hw2 & 0xFFE0u) == 0xF000u) {
            o->branch = ETM_V3_BR_INDIRECT; /* TBB, TBH */
        }
    } else if ((hw1 & 0xFF70u) == 0xF850u && (hw2 >> 12) == 15u) {
        o->branch = ETM_V3_BR_INDIRECT; /* LDR PC (immediate, register, literal) */
    }
}

/* A32 (ARM ARM A5). */
static void classify_a32(uint32_t w, uint32_t addr, etm_v3_insn_t *o)
{
    uint32_t pc = addr + 8;
    if ((w >> 28) == 0xFu) {
        if ((w & 0xFE000000u) == 0xFA000000u) {
            /* BLX imm: to T32 */
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + (sext((w & 0xFFFFFFu) << 2, 26) | (((w >> 24) & 1u) << 1));
            o->target_isa = ETM_V3_ISA_THUMB;
            o->is_link = 1;
        } else if ((w & 0xFE500000u) == 0xF8100000u) {
            o->branch = ETM_V3_BR_INDIRECT; /* RFE */
        }
        return;
    }
    if ((w & 0x0E000000u) == 0x0A000000u) {
        o->branch = ETM_V3_BR_DIRECT; /* B, BL */
        o->target = pc + sext((w & 0xFFFFFFu) << 2, 26);
        o->is_link = (int)((w >> 24) & 1u);
    } else if ((w & 0x0FFFFFD0u) == 0x012FFF10u) {
        o->branch = ETM_V3_BR_INDIRECT; /* BX, BLX register */
        o->is_link = (int)((w >> 5) & 1u);
    } else if ((w & 0x0FFFFFF0u) == 0x012FFF20u) {
        o->branch = ETM_V3_BR_INDIRECT; /* BXJ */
    } else if ((w & 0x0E108000u) == 0x08108000u) {
        o->branch = ETM_V3_BR_INDIRECT; /* LDM with PC in the list */
    } else if ((w & 0x0C500000u) == 0x04100000u && ((w >> 12) & 0xFu) == 15u &&
               (w & 0x02000010u) != 0x02000010u) {
        o->branch = ETM_V3_BR_INDIRECT; /* LDR PC (not the media space) */
    } else if ((w & 0x0C000000u) == 0) {
        uint32_t op = (w >> 21) & 0xFu;
        int is_test = op >= 8u && op <= 11u; /* TST TEQ CMP CMN, or misc when S=0 */
        if ((w & 0x02000090u) == 0x00000090u)
            return; /* multiplies, extra loads/stores */
        if (!is_test && ((w >> 12) & 0xFu) == 15u)
            o->branch = ETM_V3_BR_INDIRECT; /* data processing to PC (MOV PC, SUBS PC,LR, ...) */
    }
}

/* Loads and stores of memory (ARM ARM A6.2.4, A6.3.5-A6.3.11, A5.3, A5.5). PLD
 * and PLI count as loads; coprocessor register transfers (MCR, MRC) do not
 * touch memory and are not data instructions here. */
static int ls_t16(uint32_t hw)
{
    if ((hw & 0xF800u) == 0x4800u)
        return ETM_V3_LS_LOAD; /* LDR (literal) */
    if ((hw & 0xF000u) == 0x5000u)
        return ((hw >> 9) & 7u) >= 3u ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* register offset */
    if ((hw & 0xE000u) == 0x6000u || (hw & 0xF000u) == 0x8000u || (hw & 0xF000u) == 0x9000u ||
        (hw & 0xF000u) == 0xC000u)
        return (hw & 0x0800u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* immediate, SP-relative, LDM/STM */
    if ((hw & 0xFE00u) == 0xB400u)
        return ETM_V3_LS_STORE; /* PUSH */
    if ((hw & 0xFE00u) == 0xBC00u)
        return ETM_V3_LS_LOAD; /* POP */
    return ETM_V3_LS_NONE;
}

static int ls_t32(uint32_t hw1)
{
    if ((hw1 & 0xEE00u) == 0xEC00u && (hw1 & 0xEFE0u) == 0xEC40u)
        return ETM_V3_LS_NONE; /* MCRR, MRRC */
    if ((hw1 & 0xFE00u) == 0xE800u || (hw1 & 0xFE00u) == 0xF800u || (hw1 & 0xEE00u) == 0xEC00u)
        return (hw1 & 0x0010u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* multiple, dual, exclusive, single, LDC/STC */
    return ETM_V3_LS_NONE;
}

static int ls_a32(uint32_t w)
{
    if ((w >> 28) == 0xFu)
        return ETM_V3_LS_NONE;
    if ((w & 0x0FB00FF0u) == 0x01000090u)
        return ETM_V3_LS_SWAP; /* SWP, SWPB */
    if ((w & 0x0C000000u) == 0x04000000u && (w & 0x02000010u) != 0x02000010u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDR, STR, LDRB, STRB */
    if ((w & 0x0E000000u) == 0x08000000u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDM, STM */
    if ((w & 0x0E000090u) == 0x00000090u && (w & 0x60u)) { /* halfword, signed byte, dual */
        if (w & 0x00100000u)
            return ETM_V3_LS_LOAD;
        return (w & 0x60u) == 0x40u ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDRD has L=0 */
    }
    if ((w & 0x0F8000F0u) == 0x01800090u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDREX, STREX */
    if ((w & 0x0E000000u) == 0x0C000000u && (w & 0x0FE00000u) != 0x0C400000u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDC, STC */
    return ETM_V3_LS_NONE;
}

int etm_v3_insn_classify(etm_v3_isa_t isa, uint32_t addr, const uint8_t *b, unsigned n, etm_v3_insn_t *out)
{
    memset(out, 0, sizeof *out);
    out->target_isa = isa;
    if (isa == ETM_V3_ISA_JAZELLE)
        return -1;
    if (isa == ETM_V3_ISA_ARM) {
        if (n < 4)
            return 1;
        out->size = 4;
        out->opcode = le32(b);
        classify_a32(out->opcode, addr, out);
        out->ls = ls_a32(out->opcode);
        return 0;
    }
    if (n < 2)
        return 1;
    uint32_t hw1 = le16(b);
    if ((hw1 >> 11) >= 0x1Du) {
        if (n < 4)
            return 1;
        uint32_t hw2 = le16(b + 2);
        out->size = 4;
        out->opcode = (hw1 << 16) | hw2;
        classify_t32(hw1, hw2, addr, out);
        out->ls = ls_t32(hw1);
    } else {
        out->size = 2;
        out->opcode = hw1;
        classify_t16(hw1, addr, out);
        out->ls = ls_t16(hw1);
    }
    return 0;
}

/* ---- Exception names ----------------------------------------------------------- */

const char *etm_v3_exception_name(unsigned number, int v7m, char *buf, size_t size)
{
    /* ARMv7-M traced numbers (Cortex-M3 TRM table "exception tracing mapping") */
    static const char *const m_names[24] = {
        "none",      "IRQ1",     "IRQ2",  "IRQ3",     "IRQ4",      "IRQ5",   "IRQ6",     "IRQ7",
        "IRQ0",      "UsageFault", "NMI", "SVC",      "DebugMon",  "MemManage", "PendSV", "SysTick",
        "reserved16", "Reset",   "reserved18", "HardFault", "reserved20", "BusFault", "reserved22", "reserved23",
    };
    /* ARMv7-A/R (IHI 0014 exception information byte 0) */
    static const char *const ar_names[16] = {
        "none",  "DebugHalt", "SMC",       "Hyp",       "AsyncDataAbort", "Jazelle", "reserved6", "reserved7",
        "Reset", "Undef",     "SVC",       "PrefetchAbort", "DataAbort", "Generic", "IRQ",       "FIQ",
    };
    if (!buf || size == 0)
        return "";
    if (v7m) {
        if (number < 24)
            snprintf(buf, size, "%s", m_names[number]);
        else
            snprintf(buf, size, "IRQ%u", number - 16);
    } else if (number < 16) {
        snprintf(buf, size, "%s", ar_names[number]);
    } else {
        snprintf(buf, size, "exception%u", number);
    }
    return buf;
}

/* =========================================================================== */
/* 2. Decoder state                                                            */
/* =========================================================================== */

typedef struct pend {
    etm_v3el_t el;
    int cancellable; /* a Cancel bit would withdraw it */
} pend_t;

struct etm_v3dec {
    /* configuration, decoded once */
    unsigned minor;       /* ETMIDR[7:4] */
    int cycle_acc;        /* ETMCR[12] */
    unsigned ctxid_bytes; /* ETMCR[15:14]: 0, 1, 2, 4 */
    int ts_on;            /* ETMCR[28] */
    int ts64;             /* ETMCCER[29] */
    int ts_binary;        /* ETMCCER[28] */
    int vmid_on;          /* ETMCR[30] */
    int virt;             /* ETMCCER[26]: Hyp bits are meaningful */
    int alt_branch;       /* ETMIDR[20] with minor >= 4 */
    int data_value;       /* ETMCR[2] */
    int data_addr;        /* ETMCR[3] */
    int data_only;        /* ETMCR[20] */
    int v7m;

    etm_v3pkt_fn pkt_fn;
    void *pkt_user;
    etm_v3el_fn el_fn;
    void *el_user;
    etm_v3_read_fn read_fn;
    void *read_user;

    /* ---- packet layer ---- */
    uint64_t pos;         /* offset of the next byte fed */
    int synced;           /* an A-sync has been seen */
    /* while not synced */
    uint64_t skip_start;  /* offset of the first byte not yet reported */
    unsigned zeros;       /* 0x00 bytes in a row (also inside an A-sync when synced) */
    /* current packet */
    int in_async;         /* synced and inside an A-sync */
    uint8_t buf[ETM_V3_RAW_MAX];
    unsigned len;
    uint64_t pkt_off;

    /* state that decompression needs */
    uint32_t last_addr;   /* address of the last I-sync or branch packet */
    etm_v3_isa_t isa;     /* current instruction set */
    uint32_t last_data_addr;
    uint64_t ts_raw;      /* timestamp as transmitted (Gray or binary) */
    uint32_t context_id;

    /* ---- trace layer ---- */
    int isync_seen;       /* an I-sync since the last A-sync search */
    int addr_valid;       /* pc is the address of the next instruction */
    uint32_t pc;
    int gap_reported;     /* NO_IMAGE sent for the current gap */
    uint64_t cycle;
    pend_t pend[PEND_MAX];
    unsigned npend;

    /* data trace */
    int dinsn_valid;      /* the most recent data instruction executed is known */
    uint32_t dinsn_addr;
    int dinsn_ls;
    int dnext_valid;      /* the address of the next sequential transfer is known */
    uint32_t dnext;
    uint64_t dseq;        /* transfers so far */
    struct {
        int valid;        /* a placeholder with this tag waits for its value */
        etm_v3_data_t data;
        uint64_t offset;
    } ph[4];
    int ddata_held;       /* a NORMAL or OOO element waits for a store-failed packet */
    etm_v3el_t ddata;

    etm_v3dec_stats_t stats;
};

static const char *const pkt_names[] = {
#define ETM_V3_X_NAME(name, text) text,
    ETM_V3_PKT_LIST(ETM_V3_X_NAME)
#undef ETM_V3_X_NAME
};

static const char *const el_names[] = {
#define ETM_V3_X_NAME(name, text) text,
    ETM_V3_EL_LIST(ETM_V3_X_NAME)
#undef ETM_V3_X_NAME
};

const char *etm_v3pkt_kind_name(etm_v3pkt_kind_t kind)
{
    return (unsigned)kind < ETM_V3PKT_KIND_COUNT ? pkt_names[kind] : "?";
}

const char *etm_v3el_kind_name(etm_v3el_kind_t kind)
{
    return (unsigned)kind < ETM_V3EL_KIND_COUNT ? el_names[kind] : "?";
}

static void state_reset(etm_v3dec_t *d)
{
    d->synced = 0;
    d->skip_start = d->pos;
    d->zeros = 0;
    d->in_async = 0;
    d->len = 0;
    d->pkt_off = d->pos;
    d->last_addr = 0;
    d->last_data_addr = 0;
    d->ts_raw = 0;
    d->isync_seen = 0;
    d->addr_valid = 0;
    d->pc = 0;
    d->gap_reported = 0;
    d->npend = 0;
    d->dinsn_valid = 0;
    d->dnext_valid = 0;
    memset(d->ph, 0, sizeof d->ph);
    d->ddata_held = 0;
}

etm_err_t etm_v3dec_create(etm_v3dec_t **out, const etm_config_t *cfg, unsigned flags, etm_diag_t *diag)
{
    if (!out || !cfg)
        return etm_util_fail(diag, ETM_ERR_ARG, "etm_v3dec_create needs an output pointer and a configuration");
    *out = NULL;
    if (!ETM_FIELD_GET(ETM_CCR_ETMIDR, cfg->etmccr) || ETM_FIELD_GET(ETM_IDR_MAJOR, cfg->etmidr) != 2)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "the ETMv3 decoder needs an ETMv3 (ETMCCR[31]=1 and ETMIDR[11:8]=2); "
                             "ETMIDR is 0x%08x", (unsigned)cfg->etmidr);
    if (ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr) > 5)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "ETMIDR[7:4]=%u: the decoder knows ETMv3.0 to ETMv3.5",
                             (unsigned)ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr));
    etm_v3dec_t *d = (etm_v3dec_t *)calloc(1, sizeof *d);
    if (!d)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory for the ETMv3 decoder");
    static const unsigned ctxid_sizes[4] = { 0, 1, 2, 4 };
    d->minor = ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr);
    d->cycle_acc = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cfg->etmcr) != 0;
    d->ctxid_bytes = ctxid_sizes[ETM_FIELD_GET(ETM_CR_CTXID_SIZE, cfg->etmcr)];
    d->ts_on = ETM_FIELD_GET(ETM_CR_TIMESTAMP, cfg->etmcr) != 0;
    d->ts64 = ETM_FIELD_GET(ETM_CCER_TS_SIZE, cfg->etmccer) != 0;
    d->ts_binary = ETM_FIELD_GET(ETM_CCER_TS_ENCODING, cfg->etmccer) != 0;
    d->vmid_on = ETM_FIELD_GET(ETM_CR_VMID, cfg->etmcr) != 0;
    d->virt = ETM_FIELD_GET(ETM_CCER_VIRTUALIZATION, cfg->etmccer) != 0;
    d->alt_branch = d->minor >= 4 && ETM_FIELD_GET(ETM_IDR_ALT_BRANCH, cfg->etmidr) != 0;
    d->data_value = (cfg->etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE)) != 0;
    d->data_addr = (cfg->etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR)) != 0;
    d->data_only = ETM_FIELD_GET(ETM_CR_DATA_ONLY, cfg->etmcr) != 0;
    d->v7m = (flags & ETM_V3DEC_V7M) != 0;
    d->isa = ETM_V3_ISA_ARM;
    state_reset(d);
    *out = d;
    return ETM_OK;
}

void etm_v3dec_destroy(etm_v3dec_t *d) { free(d); }

void etm_v3dec_on_packet(etm_v3dec_t *d, etm_v3pkt_fn fn, void *user)
{
    d->pkt_fn = fn;
    d->pkt_user = user;
}

void etm_v3dec_on_element(etm_v3dec_t *d, etm_v3el_fn fn, void *user)
{
    d->el_fn = fn;
    d->el_user = user;
}

void etm_v3dec_set_image(etm_v3dec_t *d, etm_v3_read_fn fn, void *user)
{
    d->read_fn = fn;
    d->read_user = user;
}

const etm_v3dec_stats_t *etm_v3dec_get_stats(const etm_v3dec_t *d) { return &d->stats; }

void etm_v3dec_reset(etm_v3dec_t *d)
{
    d->pos = 0;
    d->cycle = 0;
    d->isa = ETM_V3_ISA_ARM;
    d->context_id = 0;
    d->dseq = 0;
    memset(&d->stats, 0, sizeof d->stats);
    state_reset(d);
}

/* =========================================================================== */
/* 3. Trace layer: elements, held-back instruction, cancel                     */
/* =========================================================================== */

static void deliver(etm_v3dec_t *d, const etm_v3el_t *el)
{
    if (el->kind == ETM_V3EL_INSN)
        d->stats.insns++;
    if (el->kind == ETM_V3EL_ATOM && d->read_fn)
        d->stats.unknown_atoms++;
    if (d->el_fn)
        d->el_fn(d->el_user, el);
}

/* Deliver everything held back: nothing can cancel it any more. */
static void commit(etm_v3dec_t *d)
{
    for (unsigned i = 0; i < d->npend; i++)
        deliver(d, &d->pend[i].el);
    d->npend = 0;
}

/* An element that no cancel can remove; it keeps its place behind held ones. */
static void emit(etm_v3dec_t *d, const etm_v3el_t *el)
{
    if (d->npend == 0) {
        deliver(d, el);
        return;
    }
    if (d->npend == PEND_MAX) {
        /* More packets between an atom and its possible cancel than we keep: give
         * up holding (documented limit, never met in real trace). */
        commit(d);
        deliver(d, el);
        return;
    }
    d->pend[d->npend].el = *el;
    d->pend[d->npend].cancellable = 0;
    d->npend++;
}

/* Hold an element back until the next packet says whether it was cancelled. */
static void hold(etm_v3dec_t *d, const etm_v3el_t *el)
{
    if (d->npend == PEND_MAX)
        commit(d);
    d->pend[d->npend].el = *el;
    d->pend[d->npend].cancellable = 1;
    d->npend++;
}

/* Cancel bit: withdraw the held elements, deliver the rest. Returns how many
 * were withdrawn; *addr gets the address of a withdrawn instruction. */
static int cancel_held(etm_v3dec_t *d, uint32_t *addr)
{
    int n = 0;
    for (unsigned i = 0; i < d->npend; i++) {
        const etm_v3el_t *el = &d->pend[i].el;
        if (d->pend[i].cancellable) {
            n++;
            if ((el->kind == ETM_V3EL_INSN || el->kind == ETM_V3EL_ATOM) && el->addr_valid)
                *addr = el->addr;
        } else {
            deliver(d, el);
        }
    }
    d->npend = 0;
    d->stats.withdrawn += (uint64_t)n;
    return n;
}

static void el_init(const etm_v3dec_t *d, etm_v3el_t *el, etm_v3el_kind_t kind, uint64_t offset)
{
    memset(el, 0, sizeof *el);
    el->kind = kind;
    el->offset = offset;
    el->cycle = d->cycle;
    el->isa = d->isa;
}

/* Read and classify the instruction at pc. 0: ok; -1: not in the image. */
static int fetch(etm_v3dec_t *d, etm_v3_insn_t *insn)
{
    uint8_t b[4];
    int got = d->read_fn(d->read_user, d->pc, b, d->isa == ETM_V3_ISA_ARM ? 4u : 2u);
    if (got < (d->isa == ETM_V3_ISA_ARM ? 4 : 2))
        return -1;
    int r = etm_v3_insn_classify(d->isa, d->pc, b, (unsigned)got, insn);
    if (r == 1) {
        if (d->read_fn(d->read_user, d->pc + 2, b + 2, 2) < 2)
            return -1;
        r = etm_v3_insn_classify(d->isa, d->pc, b, 4, insn);
    }
    return r == 0 ? 0 : -1;
}

/* One E or N atom. */
static void on_atom(etm_v3dec_t *d, int executed, uint64_t offset)
{
    etm_v3el_t el;
    commit(d); /* a new atom: the previous one can no longer be cancelled */
    d->stats.atoms++;
    el_init(d, &el, ETM_V3EL_ATOM, offset);
    el.executed = executed;
    if (!d->isync_seen || !d->addr_valid || d->isa == ETM_V3_ISA_JAZELLE) {
        hold(d, &el); /* address unknown: wait for an I-sync or a branch packet */
        return;
    }
    el.addr = d->pc;
    el.addr_valid = 1;
    if (!d->read_fn) {
        hold(d, &el); /* the address of this one is known, not of the next */
        d->addr_valid = 0;
        return;
    }
    if (fetch(d, &el.insn) != 0) {
        if (!d->gap_reported) {
            etm_v3el_t gap;
            el_init(d, &gap, ETM_V3EL_NO_IMAGE, offset);
            gap.addr = d->pc;
            gap.addr_valid = 1;
            emit(d, &gap);
            d->gap_reported = 1;
        }
        memset(&el.insn, 0, sizeof el.insn);
        hold(d, &el);
        d->addr_valid = 0;
        return;
    }
    el.kind = ETM_V3EL_INSN;
    hold(d, &el);
    if (executed && el.insn.ls != ETM_V3_LS_NONE) {
        /* data packets that follow belong to it (IHI 0014 7.4.2) */
        d->dinsn_valid = 1;
        d->dinsn_addr = el.addr;
        d->dinsn_ls = el.insn.ls;
    }
    if (!executed || el.insn.branch == ETM_V3_BR_NONE) {
        d->pc += el.insn.size;
    } else if (el.insn.branch == ETM_V3_BR_DIRECT) {
        d->pc = el.insn.target;
        d->isa = el.insn.target_isa;
    } else {
        d->addr_valid = 0; /* indirect: the next branch packet or I-sync gives the target */
    }
}

/* ---- Data --------------------------------------------------------------------------------- */

/* A normal or out-of-order data element waits for the next packet, which may
 * be a store-failed packet about it (IHI 0014 7.4.7). */
static void data_release(etm_v3dec_t *d)
{
    if (d->ddata_held) {
        d->ddata_held = 0;
        emit(d, &d->ddata);
    }
}

/* Placeholders still waiting will not get their values (overflow, end). */
static void data_lose_placeholders(etm_v3dec_t *d)
{
    for (unsigned t = 1; t < 4; t++)
        if (d->ph[t].valid) {
            d->ph[t].valid = 0;
            d->stats.unresolved++;
        }
}

/* Normal data, value not traced, placeholder, out-of-order data, data
 * suppressed. A data packet belongs to the most recent data instruction traced
 * (IHI 0014 7.4); it does not settle a held instruction, so its element queues
 * behind it. */
static void on_data(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
    etm_v3el_t el;
    el_init(d, &el, ETM_V3EL_DATA, p->offset);
    etm_v3_data_t *x = &el.data;
    x->insn_valid = d->dinsn_valid;
    x->insn_addr = d->dinsn_addr;
    x->ls = d->dinsn_valid ? d->dinsn_ls : ETM_V3_LS_NONE;
    if (p->kind == ETM_V3PKT_DATA_SUPPRESSED) {
        x->kind = ETM_V3_DATA_SUPPRESSED;
        d->dnext_valid = 0;
        emit(d, &el);
        return;
    }
    if (p->kind == ETM_V3PKT_OOO_DATA) {
        unsigned t = p->tag;
        if (d->ph[t].valid) {
            *x = d->ph[t].data; /* the transfer the placeholder stood for */
            d->ph[t].valid = 0;
        } else {
            x->seq = 0; /* its placeholder is not in the trace we saw */
        }
        x->kind = ETM_V3_DATA_OOO;
        x->tag = t;
        x->value_valid = 1;
        x->value = p->value;
        x->value_bytes = p->value_size;
        d->ddata = el;
        d->ddata_held = 1;
        return;
    }
    x->kind = p->kind == ETM_V3PKT_NORMAL_DATA ? ETM_V3_DATA_NORMAL
              : p->kind == ETM_V3PKT_VALUE_NOT_TRACED ? ETM_V3_DATA_NOT_TRACED : ETM_V3_DATA_PLACEHOLDER;
    x->seq = ++d->dseq;
    d->stats.transfers++;
    x->first = p->data_first;
    if (p->has_data_addr) {
        x->addr_given = 1;
        x->addr_valid = 1;
        x->addr = p->data_addr;
    } else if (!p->data_first && d->dnext_valid) {
        x->addr_valid = 1; /* the word after the last transfer (IHI 0014 7.4, Tracing LSMs) */
        x->addr = d->dnext;
    }
    d->dnext_valid = x->addr_valid;
    d->dnext = x->addr + 4;
    if (x->kind == ETM_V3_DATA_PLACEHOLDER) {
        unsigned t = p->tag;
        if (d->ph[t].valid)
            d->stats.unresolved++; /* a tag used again: the older one's value never came */
        x->tag = t;
        d->ph[t].valid = 1;
        d->ph[t].data = *x;
        emit(d, &el);
        return;
    }
    if (x->kind == ETM_V3_DATA_NOT_TRACED) {
        emit(d, &el);
        return;
    }
    x->value_valid = d->data_value;
    x->value = p->value;
    x->value_bytes = p->value_size;
    d->ddata = el;
    d->ddata_held = 1;
}

static void on_packet(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
    etm_v3el_t el;
    if (p->kind == ETM_V3PKT_STORE_FAILED) {
        d->ddata.data.store_failed = 1; /* feed_byte checked that a data element waits */
        data_release(d);
        return;
    }
    data_release(d);
    switch (p->kind) {
    case ETM_V3PKT_PHDR:
        for (const char *a = p->atoms; *a; a++) {
            if (*a == 'W')
                d->cycle++;
            else
                on_atom(d, *a == 'E', p->offset);
        }
        break;

    case ETM_V3PKT_ISYNC:
    case ETM_V3PKT_ISYNC_CC: {
        commit(d);
        if (p->kind == ETM_V3PKT_ISYNC_CC)
            d->cycle += p->cycle_count;
        el_init(d, &el, ETM_V3EL_SYNC, p->offset);
        el.reason = p->reason;
        el.trace_on = !d->isync_seen || p->reason != ETM_V3_REASON_PERIODIC;
        el.has_cycle_count = p->kind == ETM_V3PKT_ISYNC_CC;
        el.cycle_count = p->cycle_count;
        el.ns = p->ns;
        el.hyp = p->hyp;
        el.has_context_id = p->has_context_id;
        el.context_id = p->context_id;
        if (p->has_addr) {
            el.addr = p->addr;
            el.addr_valid = 1;
            el.isa = p->isa;
            /* A periodic I-sync gives the next instruction to execute: where the
             * decoder should already be when it has been following the code. */
            if (p->reason == ETM_V3_REASON_PERIODIC && d->isync_seen && d->addr_valid && d->read_fn &&
                !p->lsip && (d->pc != p->addr || d->isa != p->isa)) {
                el.addr_mismatch = 1;
                el.expected_addr = d->pc;
            }
        }
        if (p->reason == ETM_V3_REASON_OVERFLOW) {
            etm_v3el_t ov;
            el_init(d, &ov, ETM_V3EL_OVERFLOW, p->offset);
            emit(d, &ov);
            data_lose_placeholders(d); /* their values were lost with the trace */
        }
        if (p->reason != ETM_V3_REASON_PERIODIC) {
            /* trace starts again: no data instruction is known */
            d->dinsn_valid = 0;
            d->dnext_valid = 0;
        }
        emit(d, &el);
        d->isync_seen = 1;
        d->gap_reported = 0;
        if (!p->has_addr) {
            d->addr_valid = 0;
            break;
        }
        d->isa = p->isa;
        d->pc = p->addr;
        d->addr_valid = p->isa != ETM_V3_ISA_JAZELLE;
        d->last_addr = p->addr;
        if (p->lsip) {
            /* LSiP: the load/store at the I-sync address is still executing (its
             * execution is implied); the program goes on at the second address. */
            etm_v3el_t li;
            el_init(d, &li, ETM_V3EL_ATOM, p->offset);
            li.addr = p->addr;
            li.addr_valid = 1;
            li.executed = 1;
            li.lsip = 1;
            if (d->read_fn && d->addr_valid && fetch(d, &li.insn) == 0)
                li.kind = ETM_V3EL_INSN;
            emit(d, &li);
            d->pc = p->lsip_addr;
            d->last_addr = p->lsip_addr;
        }
        break;
    }

    case ETM_V3PKT_BRANCH: {
        uint32_t waddr = 0;
        int withdrawn = 0;
        if (p->exception && p->cancel)
            withdrawn = cancel_held(d, &waddr);
        else
            commit(d);
        d->last_addr = p->addr;
        d->isa = p->isa;
        el_init(d, &el, p->exception ? ETM_V3EL_EXCEPTION : ETM_V3EL_BRANCH, p->offset);
        el.addr = p->addr;
        el.isa = p->isa;
        el.addr_valid = d->isync_seen || p->addr_bits >= 32;
        if (p->exception) {
            el.exc_number = p->exc_number;
            el.cancel = p->cancel;
            el.withdrawn = withdrawn;
            el.withdrawn_addr = waddr;
            el.has_resume = p->has_resume;
            el.resume = p->resume;
            el.ns = p->ns;
            el.hyp = p->hyp;
        }
        emit(d, &el);
        if (d->isync_seen) {
            d->pc = p->addr;
            d->addr_valid = p->isa != ETM_V3_ISA_JAZELLE;
            d->gap_reported = 0;
        }
        break;
    }

    case ETM_V3PKT_CYCLE_COUNT:
        d->cycle += p->cycle_count;
        el_init(d, &el, ETM_V3EL_CYCLE_COUNT, p->offset);
        el.has_cycle_count = 1;
        el.cycle_count = p->cycle_count;
        emit(d, &el);
        break;

    case ETM_V3PKT_TRIGGER:
        el_init(d, &el, ETM_V3EL_TRIGGER, p->offset);
        emit(d, &el);
        break;

    case ETM_V3PKT_CONTEXT_ID:
        el_init(d, &el, ETM_V3EL_CONTEXT, p->offset);
        el.has_context_id = 1;
        el.context_id = p->context_id;
        emit(d, &el);
        break;

    case ETM_V3PKT_VMID:
        el_init(d, &el, ETM_V3EL_CONTEXT, p->offset);
        el.has_vmid = 1;
        el.vmid = p->vmid;
        emit(d, &el);
        break;

    case ETM_V3PKT_TIMESTAMP:
        el_init(d, &el, ETM_V3EL_TIMESTAMP, p->offset);
        el.timestamp = p->timestamp;
        emit(d, &el);
        break;

    case ETM_V3PKT_EXC_RETURN:
        /* IHI 0014 7.6: the packet follows the atom of the return instruction.
         * ARMv7-M: the return completed, so a later cancel withdraws the return,
         * not the instruction (Cortex-M3 TRM 15.5.2). ARMv7-A/R: both may still
         * be cancelled. */
        el_init(d, &el, ETM_V3EL_EXC_RETURN, p->offset);
        if (d->v7m)
            commit(d);
        hold(d, &el);
        break;

    case ETM_V3PKT_NORMAL_DATA:
    case ETM_V3PKT_VALUE_NOT_TRACED:
    case ETM_V3PKT_OOO_PLACEHOLDER:
    case ETM_V3PKT_OOO_DATA:
    case ETM_V3PKT_DATA_SUPPRESSED:
        on_data(d, p);
        break;

    default:
        break; /* A-sync, ignore, exception entry marker */
    }
}

/* =========================================================================== */
/* 4. Packet layer                                                             */
/* =========================================================================== */

enum { PARSE_DONE = 0, PARSE_MORE = 1, PARSE_ERR = -1 };

/* The parser re-reads the packet from its first byte each time a byte is added,
 * so it needs no per-kind resume state; packets are at most ~20 bytes. It fills
 * p only; the decoder state changes after the packet is complete. */
#define NEED(idx)                                                                     \
    do {                                                                              \
        if ((idx) >= n)                                                               \
            return PARSE_MORE;                                                        \
    } while (0)

typedef struct perr {
    unsigned at;    /* index of the offending byte in the packet */
    char msg[200];
} perr_t;

static int perr_set(perr_t *e, unsigned at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int perr_set(perr_t *e, unsigned at, const char *fmt, ...)
{
    va_list ap;
    e->at = at;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return PARSE_ERR;
}

/* Cycle count field: 1-5 bytes of 7 bits, bit 7 = more; the 5th byte gives [31:28]. */
static int parse_count(const uint8_t *b, unsigned n, unsigned *i, uint32_t *v)
{
    uint32_t x = 0;
    for (unsigned k = 0; k < 5; k++) {
        NEED(*i);
        uint8_t c = b[(*i)++];
        if (k < 4) {
            x |= (uint32_t)(c & 0x7Fu) << (7 * k);
            if (!(c & ETMV3_CONTINUE))
                break;
        } else {
            x |= (uint32_t)(c & 0x0Fu) << 28;
        }
    }
    *v = x;
    return PARSE_DONE;
}

/* Branch-format address at b[*i] (a branch packet's first byte, or an LSiP
 * address), compressed against base. allow_exc: exception bytes may follow.
 * IHI 0014 7.3.5; the alternative encoding from ETMv3.4 (ETMIDR[20]). */
static int parse_address(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *i, uint32_t base,
                         etm_v3_isa_t isa, int allow_exc, etm_v3pkt_t *p, perr_t *e)
{
    unsigned start = *i;
    uint32_t value, bits;
    int more, exc = 0;
    uint8_t c;
    int isa_given = 0;

    NEED(*i);
    c = b[(*i)++];
    value = (uint32_t)(c >> 1) & 0x3Fu; /* byte 0: C A[6:1] 1 (Thumb numbering) */
    bits = 6;
    more = (c & ETMV3_CONTINUE) != 0;
    while (more && *i - start < 4) {
        NEED(*i);
        c = b[(*i)++];
        more = (c & ETMV3_CONTINUE) != 0;
        if (d->alt_branch && !more) {
            /* alternative encoding: the last of bytes 1-3 has 6 address bits and E */
            value |= (uint32_t)(c & 0x3Fu) << bits;
            bits += 6;
            exc = (c & 0x40u) != 0;
        } else {
            value |= (uint32_t)(c & 0x7Fu) << bits;
            bits += 7;
        }
    }
    if (more) {
        /* byte 4: 0 E state-field, or (original encoding) 1 C exception[2:0] ... */
        unsigned at = *i;
        NEED(*i);
        c = b[(*i)++];
        isa_given = 1;
        if (c & 0x80u) {
            if (d->alt_branch || !allow_exc)
                return perr_set(e, at, "byte 4 of a branch address (0x%02x) has bit 7 set, which only the "
                                       "original encoding's deprecated ARM exception form uses", c);
            isa = ETM_V3_ISA_ARM;
            value |= (uint32_t)(c & 0x07u) << bits;
            bits += 3;
            p->exception = 1;
            p->deprecated_exc = 1;
            p->exc_number = (c >> 3) & 7u;
            p->cancel = (c & 0x40u) != 0;
        } else {
            exc = (c & 0x40u) != 0;
            if ((c & 0x38u) == 0x08u) {
                isa = ETM_V3_ISA_ARM; /* 0 E 0 0 1 A[31:29] */
                value |= (uint32_t)(c & 0x07u) << bits;
                bits += 3;
            } else if ((c & 0x30u) == 0x10u) {
                isa = ETM_V3_ISA_THUMB; /* 0 E 0 1 A[31:28] */
                value |= (uint32_t)(c & 0x0Fu) << bits;
                bits += 4;
            } else if ((c & 0x20u) == 0x20u) {
                isa = ETM_V3_ISA_JAZELLE; /* 0 E 1 A[31:27] */
                value |= (uint32_t)(c & 0x1Fu) << bits;
                bits += 5;
            } else {
                return perr_set(e, at, "byte 4 of a branch address (0x%02x) names no instruction set: "
                                       "bits [5:3] are 000", c);
            }
        }
    }
    if (exc) {
        if (!allow_exc)
            return perr_set(e, *i - 1, "the LSiP address of an I-sync says exception bytes follow; "
                                       "only branch packets carry them");
        /* exception byte 0: C AltISA Cancel Exception[3:0] NS */
        NEED(*i);
        c = b[(*i)++];
        p->exception = 1;
        p->ns = c & 1u;
        p->exc_number = (c >> 1) & 0xFu;
        p->cancel = (c >> 5) & 1u;
        p->altisa = (c >> 6) & 1u;
        if (c & ETMV3_CONTINUE) {
            unsigned at = *i;
            NEED(*i);
            c = b[(*i)++];
            if (c & 0x40u) {
                /* byte 2 directly (byte 1 skipped): 0 1 x x Resume[3:0] */
                if (c & ETMV3_CONTINUE)
                    return perr_set(e, at, "exception byte 2 (0x%02x) has its continue bit set; "
                                           "no exception byte follows byte 2", c);
                p->has_resume = 1;
                p->resume = c & 0xFu;
            } else {
                /* byte 1: C 0 Hyp Exception[8:4] */
                if (d->v7m)
                    p->exc_number |= (uint32_t)(c & 0x1Fu) << 4;
                p->hyp = d->virt ? (c >> 5) & 1u : 0;
                if (c & ETMV3_CONTINUE) {
                    at = *i;
                    NEED(*i);
                    c = b[(*i)++];
                    if (c & ETMV3_CONTINUE)
                        return perr_set(e, at, "exception byte 2 (0x%02x) has its continue bit set; "
                                               "no exception byte follows byte 2", c);
                    p->has_resume = 1;
                    p->resume = c & 0xFu;
                }
            }
        }
        if (isa == ETM_V3_ISA_THUMB || isa == ETM_V3_ISA_THUMBEE) {
            isa = p->altisa ? ETM_V3_ISA_THUMBEE : ETM_V3_ISA_THUMB;
            isa_given = 1;
        }
    }
    /* bits of byte 0 are A[6:1] for Thumb, A[7:2] for ARM, A[5:0] for Jazelle */
    unsigned shift = isa == ETM_V3_ISA_ARM ? 2u : isa == ETM_V3_ISA_JAZELLE ? 0u : 1u;
    unsigned total = bits + shift;
    uint32_t mask = low_mask32(total);
    p->addr = (base & ~mask) | ((value << shift) & mask);
    p->addr_bits = total > 32 ? 32 : total;
    p->isa = isa;
    p->isa_given = isa_given;
    return PARSE_DONE;
}

/* P-header atoms (IHI 0014 tables 7.2 and 7.3). */
static int parse_phdr(const etm_v3dec_t *d, uint8_t h, etm_v3pkt_t *p, perr_t *e)
{
    char *a = p->atoms;
    if (!d->cycle_acc) {
        if ((h & 0x83u) == 0x80u) {
            /* format 1: 1 N EEEE 0 0 */
            p->format = 1;
            for (unsigned k = 0; k < ((h >> 2) & 0xFu); k++)
                *a++ = 'E';
            if (h & 0x40u)
                *a++ = 'N';
        } else if ((h & 0xF3u) == 0x82u) {
            /* format 2: 1 0 0 0 F F 1 0, bit 3 first, 1 = N */
            p->format = 2;
            *a++ = (h & 0x08u) ? 'N' : 'E';
            *a++ = (h & 0x04u) ? 'N' : 'E';
        } else {
            return perr_set(e, 0, "P-header 0x%02x is reserved when not cycle-accurate "
                                  "(IHI 0014 table 7.2: 1001xx10, 101xxx10, 11xxxx10)", h);
        }
    } else if (h == 0x80u) {
        if (d->minor != 0)
            return perr_set(e, 0, "P-header 0x80 (format 0) exists only in ETMv3.0; "
                                  "this ETM is ETMv3.%u, where it is reserved", d->minor);
        p->format = 0;
        *a++ = 'W';
    } else if ((h & 0xA3u) == 0x80u) {
        /* format 1: 1 N 0 EEE 0 0 -> EEE x (W E), N x (W N) */
        p->format = 1;
        for (unsigned k = 0; k < ((h >> 2) & 7u); k++) {
            *a++ = 'W';
            *a++ = 'E';
        }
        if (h & 0x40u) {
            *a++ = 'W';
            *a++ = 'N';
        }
    } else if ((h & 0xF3u) == 0x82u) {
        /* format 2: W, then two atoms */
        p->format = 2;
        *a++ = 'W';
        *a++ = (h & 0x08u) ? 'N' : 'E';
        *a++ = (h & 0x04u) ? 'N' : 'E';
    } else if ((h & 0xA3u) == 0xA0u) {
        /* format 3: 1 E 1 WWW 0 0 -> (WWW+1) x W, then E if bit 6 */
        p->format = 3;
        for (unsigned k = 0; k <= ((h >> 2) & 7u); k++)
            *a++ = 'W';
        if (h & 0x40u)
            *a++ = 'E';
    } else if ((h & 0xFBu) == 0x92u) {
        if (d->minor < 3)
            return perr_set(e, 0, "P-header 0x%02x (format 4) exists from ETMv3.3; "
                                  "this ETM is ETMv3.%u, where 10010x10 is reserved", h, d->minor);
        p->format = 4;
        *a++ = (h & 0x04u) ? 'N' : 'E';
    } else {
        return perr_set(e, 0, "P-header 0x%02x is reserved in cycle-accurate mode "
                              "(IHI 0014 table 7.3: 10011x10, 101xxx10, 11xxxx10)", h);
    }
    *a = '\0';
    return PARSE_DONE;
}

/* Data address: 1-5 bytes, 7 bits each with bit 7 = more; the 5th gives [31:28]. */
static int parse_data_addr(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *i, etm_v3pkt_t *p)
{
    uint32_t v = 0;
    unsigned bits = 0;
    for (unsigned k = 0; k < 5; k++) {
        NEED(*i);
        uint8_t c = b[(*i)++];
        if (k < 4) {
            v |= (uint32_t)(c & 0x7Fu) << (7 * k);
            bits += 7;
            if (!(c & ETMV3_CONTINUE))
                break;
        } else {
            v |= (uint32_t)(c & 0x0Fu) << 28;
            bits += 4;
        }
    }
    uint32_t mask = low_mask32(bits);
    p->has_data_addr = 1;
    p->data_addr = (d->last_data_addr & ~mask) | (v & mask);
    p->data_addr_bits = bits;
    return PARSE_DONE;
}

static int parse_value(const uint8_t *b, unsigned n, unsigned *i, unsigned size_field, etm_v3pkt_t *p)
{
    unsigned bytes = size_field == 3 ? 4 : size_field;
    uint32_t v = 0;
    for (unsigned k = 0; k < bytes; k++) {
        NEED(*i);
        v |= (uint32_t)b[(*i)++] << (8 * k);
    }
    p->value_size = bytes;
    p->value = v;
    return PARSE_DONE;
}

static int need_data(const etm_v3dec_t *d, uint8_t h, int value_needed, perr_t *e)
{
    if (value_needed ? d->data_value : (d->data_value || d->data_addr))
        return PARSE_DONE;
    return perr_set(e, 0, "header 0x%02x is a data-trace packet, but ETMCR[3:2] say %s is not traced",
                    h, value_needed ? "the data value" : "data");
}

/* Classify the header and parse the packet in b[0..n-1]. */
static int parse_packet(const etm_v3dec_t *d, const uint8_t *b, unsigned n, etm_v3pkt_t *p, perr_t *e)
{
    uint8_t h = b[0];
    unsigned i = 1;
    int r;

    if (h & 1u) {
        p->kind = ETM_V3PKT_BRANCH;
        i = 0;
        r = parse_address(d, b, n, &i, d->last_addr, d->isa, 1, p, e);
        if (r != PARSE_DONE)
            return r;
    } else if ((h & 0x81u) == 0x80u) {
        p->kind = ETM_V3PKT_PHDR;
        r = parse_phdr(d, h, p, e);
        if (r != PARSE_DONE)
            return r;
    } else if (h == ETMV3_HDR_CYCLE_COUNT) {
        p->kind = ETM_V3PKT_CYCLE_COUNT;
        if (!d->cycle_acc)
            return perr_set(e, 0, "cycle-count packet (0x04) while ETMCR[12] says the trace is not cycle-accurate");
        r = parse_count(b, n, &i, &p->cycle_count);
        if (r != PARSE_DONE)
            return r;
    } else if (h == ETMV3_HDR_ISYNC || h == ETMV3_HDR_ISYNC_CC) {
        p->kind = h == ETMV3_HDR_ISYNC ? ETM_V3PKT_ISYNC : ETM_V3PKT_ISYNC_CC;
        if (h == ETMV3_HDR_ISYNC_CC) {
            if (!d->cycle_acc)
                return perr_set(e, 0, "I-sync with cycle count (0x70) while ETMCR[12] says the trace is not "
                                      "cycle-accurate");
            r = parse_count(b, n, &i, &p->cycle_count);
            if (r != PARSE_DONE)
                return r;
        }
        if (d->ctxid_bytes) {
            NEED(i + d->ctxid_bytes - 1);
            p->has_context_id = 1;
            for (unsigned k = 0; k < d->ctxid_bytes; k++)
                p->context_id |= (uint32_t)b[i + k] << (8 * k);
            i += d->ctxid_bytes;
        }
        /* information byte: LSiP reason[1:0] J NS AltISA Hyp x */
        NEED(i);
        uint8_t info = b[i++];
        p->lsip = (info >> 7) & 1u;
        p->reason = (info >> 5) & 3u;
        p->jazelle = (info >> 4) & 1u;
        p->ns = (info >> 3) & 1u;
        p->altisa = d->minor >= 3 ? (info >> 2) & 1u : 0;
        p->hyp = d->virt ? (info >> 1) & 1u : 0;
        if (!d->data_only) {
            NEED(i + 3);
            uint32_t a = le32(b + i);
            i += 4;
            p->has_addr = 1;
            p->addr_bits = 32;
            p->isa_given = 1;
            if (p->jazelle) {
                p->isa = ETM_V3_ISA_JAZELLE;
                p->addr = a;
            } else if (a & 1u) {
                p->isa = p->altisa ? ETM_V3_ISA_THUMBEE : ETM_V3_ISA_THUMB;
                p->addr = a & ~1u;
            } else {
                p->isa = ETM_V3_ISA_ARM;
                p->addr = a;
            }
            if (p->lsip) {
                etm_v3pkt_t q;
                memset(&q, 0, sizeof q);
                r = parse_address(d, b, n, &i, p->addr, p->isa, 0, &q, e);
                if (r != PARSE_DONE)
                    return r;
                p->lsip_addr = q.addr;
            }
        }
    } else if (h == ETMV3_HDR_ASYNC) {
        p->kind = ETM_V3PKT_ASYNC; /* handled by the caller; not reached */
    } else if (h == ETMV3_HDR_TRIGGER) {
        p->kind = ETM_V3PKT_TRIGGER;
    } else if (h == ETMV3_HDR_VMID) {
        p->kind = ETM_V3PKT_VMID;
        if (!d->vmid_on)
            return perr_set(e, 0, "VMID packet (0x3C) while ETMCR[30] says VMIDs are not traced");
        NEED(i);
        p->vmid = b[i++];
    } else if ((h & ETMV3_HDR_TIMESTAMP_MASK) == ETMV3_HDR_TIMESTAMP) {
        p->kind = ETM_V3PKT_TIMESTAMP;
        if (!d->ts_on)
            return perr_set(e, 0, "timestamp packet (0x%02x) while ETMCR[28] says timestamps are off", h);
        p->ts_rate_changed = (h >> 2) & 1u;
        /* 7 bits a byte, bit 7 = more; the last possible byte (7th, or 9th for 64-bit
         * timestamps) carries 6 (or 8) bits and no continue bit (IHI 0014 7.7.4) */
        unsigned maxb = d->ts64 ? 9u : 7u, bits = 0;
        uint64_t v = 0;
        for (unsigned k = 0; k < maxb; k++) {
            NEED(i);
            uint8_t c = b[i++];
            if (k + 1 < maxb) {
                v |= (uint64_t)(c & 0x7Fu) << (7 * k);
                bits += 7;
                if (!(c & ETMV3_CONTINUE))
                    break;
            } else {
                unsigned last = d->ts64 ? 8u : 6u;
                v |= (uint64_t)(c & (uint8_t)low_mask32(last)) << (7 * k);
                bits += last;
            }
        }
        uint64_t mask = low_mask64(bits);
        p->ts_bits = bits;
        p->timestamp = (d->ts_raw & ~mask) | (v & mask); /* as transmitted; see feed_byte() */
    } else if (h == ETMV3_HDR_IGNORE) {
        p->kind = ETM_V3PKT_IGNORE;
    } else if (h == ETMV3_HDR_CONTEXT_ID) {
        p->kind = ETM_V3PKT_CONTEXT_ID;
        if (!d->ctxid_bytes)
            return perr_set(e, 0, "context ID packet (0x6E) while ETMCR[15:14] say context IDs are not traced");
        NEED(i + d->ctxid_bytes - 1);
        p->has_context_id = 1;
        for (unsigned k = 0; k < d->ctxid_bytes; k++)
            p->context_id |= (uint32_t)b[i + k] << (8 * k);
        i += d->ctxid_bytes;
    } else if (h == ETMV3_HDR_EXC_RETURN) {
        p->kind = ETM_V3PKT_EXC_RETURN;
    } else if (h == ETMV3_HDR_EXC_ENTRY) {
        p->kind = ETM_V3PKT_EXC_ENTRY;
    } else if (h == ETMV3_HDR_STORE_FAILED) {
        p->kind = ETM_V3PKT_STORE_FAILED;
        if (need_data(d, h, 1, e) != PARSE_DONE)
            return PARSE_ERR;
    } else if (h == ETMV3_HDR_DATA_SUPPRESSED) {
        p->kind = ETM_V3PKT_DATA_SUPPRESSED;
        if (need_data(d, h, 0, e) != PARSE_DONE)
            return PARSE_ERR;
    } else if ((h & 0x93u) == 0x00u && (h & 0x60u) != 0) {
        /* out-of-order data 0 TT 0 SS 0 0, TT != 00 */
        p->kind = ETM_V3PKT_OOO_DATA;
        if (need_data(d, h, 1, e) != PARSE_DONE)
            return PARSE_ERR;
        p->tag = (h >> 5) & 3u;
        r = parse_value(b, n, &i, (h >> 2) & 3u, p);
        if (r != PARSE_DONE)
            return r;
    } else if ((h & 0xD3u) == 0x50u && (h & 0x0Cu) != 0) {
        /* out-of-order placeholder 0 1 A 1 TT 0 0, TT != 00 */
        p->kind = ETM_V3PKT_OOO_PLACEHOLDER;
        if (need_data(d, h, 0, e) != PARSE_DONE)
            return PARSE_ERR;
        p->tag = (h >> 2) & 3u;
        p->data_first = (h & 0x20u) != 0;
        if ((h & 0x20u) && d->data_addr) {
            r = parse_data_addr(d, b, n, &i, p);
            if (r != PARSE_DONE)
                return r;
        }
    } else if ((h & 0xD3u) == 0x02u) {
        /* normal data 0 0 A 0 SS 1 0 */
        p->kind = ETM_V3PKT_NORMAL_DATA;
        if (need_data(d, h, 0, e) != PARSE_DONE)
            return PARSE_ERR;
        p->data_first = (h & 0x20u) != 0;
        if ((h & 0x20u) && d->data_addr) {
            r = parse_data_addr(d, b, n, &i, p);
            if (r != PARSE_DONE)
                return r;
        }
        r = parse_value(b, n, &i, (h >> 2) & 3u, p);
        if (r != PARSE_DONE)
            return r;
    } else if ((h & 0xEFu) == 0x6Au) {
        /* value not traced 0 1 1 A 1 0 1 0 */
        p->kind = ETM_V3PKT_VALUE_NOT_TRACED;
        if (need_data(d, h, 0, e) != PARSE_DONE)
            return PARSE_ERR;
        p->data_first = (h & 0x10u) != 0;
        if ((h & 0x10u) && d->data_addr) {
            r = parse_data_addr(d, b, n, &i, p);
            if (r != PARSE_DONE)
                return r;
        }
    } else {
        return perr_set(e, 0, "header 0x%02x is a reserved encoding (IHI 0014 table 7.1)", h);
    }
    return PARSE_DONE; /* i == n: the caller parses again after every byte */
}

static void send_packet(etm_v3dec_t *d, etm_v3pkt_t *p)
{
    d->stats.packets[p->kind]++;
    if (d->pkt_fn)
        d->pkt_fn(d->pkt_user, p);
}

static void send_nosync(etm_v3dec_t *d, uint64_t upto)
{
    if (upto <= d->skip_start)
        return;
    etm_v3pkt_t p;
    memset(&p, 0, sizeof p);
    p.kind = ETM_V3PKT_NOSYNC;
    p.offset = d->skip_start;
    p.size = upto - d->skip_start;
    p.raw = d->buf;
    p.raw_len = (unsigned)(p.size < d->len ? p.size : d->len);
    send_packet(d, &p);
    d->skip_start = upto;
}

static void send_async(etm_v3dec_t *d, uint64_t start)
{
    uint8_t raw[ETM_V3_RAW_MAX];
    etm_v3pkt_t p;
    memset(&p, 0, sizeof p);
    p.kind = ETM_V3PKT_ASYNC;
    p.offset = start;
    p.size = d->pos + 1 - start;
    p.raw_len = (unsigned)(p.size < ETM_V3_RAW_MAX ? p.size : ETM_V3_RAW_MAX);
    memset(raw, 0, sizeof raw);
    raw[p.raw_len - 1] = ETMV3_HDR_ASYNC_LAST;
    p.raw = raw;
    send_packet(d, &p);
    on_packet(d, &p);
}

/* Lose synchronisation after an error: commit what was decoded, look for A-sync. */
static etm_err_t fail(etm_v3dec_t *d, etm_diag_t *diag, uint64_t offset, const char *msg)
{
    data_release(d);
    commit(d);
    uint64_t next = d->pos + 1;
    d->pos = next;
    state_reset(d);
    if (diag) {
        etm_util_fail(diag, ETM_ERR_DECODE, "%s", msg);
        diag->offset = offset;
    }
    return ETM_ERR_DECODE;
}

/* One byte. */
static etm_err_t feed_byte(etm_v3dec_t *d, uint8_t c, etm_diag_t *diag)
{
    if (!d->synced) {
        /* skip until at least five 0x00 then 0x80 */
        if (d->len < ETM_V3_RAW_MAX)
            d->buf[d->len++] = c;
        if (c == 0) {
            d->zeros++;
        } else if (c == ETMV3_HDR_ASYNC_LAST && d->zeros >= ETMV3_ASYNC_MIN_ZEROS) {
            uint64_t start = d->pos - d->zeros;
            send_nosync(d, start);
            d->synced = 1;
            d->len = 0;
            d->zeros = 0;
            send_async(d, start);
        } else {
            d->zeros = 0;
        }
        d->pos++;
        return ETM_OK;
    }

    if (d->in_async) {
        if (c == 0) {
            d->zeros++;
        } else if (c == ETMV3_HDR_ASYNC_LAST && d->zeros >= ETMV3_ASYNC_MIN_ZEROS) {
            send_async(d, d->pkt_off);
            d->in_async = 0;
            d->zeros = 0;
        } else {
            char msg[200];
            if (c == ETMV3_HDR_ASYNC_LAST)
                snprintf(msg, sizeof msg, "A-sync at offset %llu has %u bytes 0x00 before 0x80; it needs at "
                         "least %u", (unsigned long long)d->pkt_off, d->zeros, ETMV3_ASYNC_MIN_ZEROS);
            else
                snprintf(msg, sizeof msg, "byte 0x%02x inside the A-sync that started at offset %llu; an A-sync "
                         "is 0x00 bytes then 0x80", c, (unsigned long long)d->pkt_off);
            return fail(d, diag, d->pos, msg);
        }
        d->pos++;
        return ETM_OK;
    }

    if (d->len == 0) {
        d->pkt_off = d->pos;
        if (c == ETMV3_HDR_ASYNC) {
            d->in_async = 1;
            d->zeros = 1;
            d->pos++;
            return ETM_OK;
        }
    }
    d->buf[d->len++] = c;

    etm_v3pkt_t p;
    perr_t e;
    memset(&p, 0, sizeof p);
    e.at = 0;
    e.msg[0] = '\0';
    int r = parse_packet(d, d->buf, d->len, &p, &e);
    if (r == PARSE_ERR)
        return fail(d, diag, d->pkt_off + e.at, e.msg);
    if (r == PARSE_MORE) {
        if (d->len == ETM_V3_RAW_MAX)
            return fail(d, diag, d->pos, "packet longer than any ETMv3 packet"); /* not reached */
        d->pos++;
        return ETM_OK;
    }
    /* complete */
    p.offset = d->pkt_off;
    p.size = d->len;
    p.raw = d->buf;
    p.raw_len = d->len;
    switch (p.kind) {
    case ETM_V3PKT_ISYNC:
    case ETM_V3PKT_ISYNC_CC:
        if (p.has_context_id)
            d->context_id = p.context_id;
        break;
    case ETM_V3PKT_CONTEXT_ID:
        d->context_id = p.context_id;
        break;
    case ETM_V3PKT_TIMESTAMP:
        /* compression works on the value as transmitted; Gray code (ETMCCER[28]=0)
         * is converted after: binary[n] = XOR of Gray[N:n] (IHI 0014 7.7.3) */
        d->ts_raw = p.timestamp;
        if (!d->ts_binary) {
            uint64_t g = p.timestamp;
            for (unsigned s = 1; s < 64; s <<= 1)
                g ^= g >> s;
            p.timestamp = g;
        }
        break;
    default:
        break;
    }
    if (p.kind == ETM_V3PKT_STORE_FAILED && !d->ddata_held) {
        char msg[200];
        snprintf(msg, sizeof msg, "store-failed packet (0x50) not right after a normal or out-of-order data packet "
                                  "(IHI 0014 7.4.7: it follows the packet of the failed STREX)");
        return fail(d, diag, d->pkt_off, msg);
    }
    if (p.has_data_addr)
        d->last_data_addr = p.data_addr;
    send_packet(d, &p);
    on_packet(d, &p);
    d->len = 0;
    d->pos++;
    return ETM_OK;
}

etm_err_t etm_v3dec_feed(etm_v3dec_t *d, const uint8_t *data, size_t n, size_t *used, etm_diag_t *diag)
{
    size_t k;
    for (k = 0; k < n; k++) {
        etm_err_t err = feed_byte(d, data[k], diag);
        d->stats.bytes++;
        if (err != ETM_OK) {
            if (used)
                *used = k + 1;
            d->stats.cycles = d->cycle;
            return err;
        }
    }
    if (used)
        *used = n;
    d->stats.cycles = d->cycle;
    return ETM_OK;
}

etm_err_t etm_v3dec_end(etm_v3dec_t *d, etm_diag_t *diag)
{
    data_release(d);
    data_lose_placeholders(d);
    commit(d);
    d->stats.cycles = d->cycle;
    if (!d->synced) {
        send_nosync(d, d->pos);
        return ETM_OK;
    }
    if (d->in_async || d->len > 0) {
        char msg[200];
        etm_v3pkt_t p;
        perr_t e;
        memset(&p, 0, sizeof p);
        if (d->in_async)
            p.kind = ETM_V3PKT_ASYNC;
        else
            (void)parse_packet(d, d->buf, d->len, &p, &e);
        snprintf(msg, sizeof msg, "the trace ends inside a %s packet (%llu bytes of it seen)",
                 etm_v3pkt_kind_name(p.kind),
                 (unsigned long long)(d->in_async ? d->zeros : d->len));
        uint64_t off = d->pkt_off;
        d->in_async = 0;
        d->len = 0;
        d->zeros = 0;
        if (diag) {
            etm_util_fail(diag, ETM_ERR_DECODE, "%s", msg);
            diag->offset = off;
        }
        return ETM_ERR_DECODE;
    }
    return ETM_OK;
}
