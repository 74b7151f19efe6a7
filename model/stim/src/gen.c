/* gen.c - constrained-random stimulus from a random Thumb-2 program (etm/gen.h).
 *
 * The executor keeps a PC. When it reaches a halfword that holds no instruction
 * yet, it writes one there (synthesis); then it decodes the instruction from the
 * image and executes it (so code that runs twice behaves the same way twice).
 * Each executed instruction appends its cycles to a small queue; etm_gen_next()
 * hands them out one by one.
 *
 * Unconditional direct branches (B, B.W, BL) only go forward, so any loop in
 * the program passes a random decision (a conditional branch, an indirect
 * branch, an exception) and the core never gets stuck in it.
 *
 * Cortex-M3-like timing: ALU 1 cycle, loads and stores 2, LDM/STM/PUSH/POP n+1,
 * divide 2-12, taken branch 1 + 2 refill cycles (ETMFLUSH in the first), exception
 * entry 12 cycles (stacking) and return 10 (unstacking), tail-chain 6.
 */
#include "etm/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define WIN 0x10000u
#define QCAP 128u
#define MAX_NEST 4
#define MAX_CALLS 64
#define MAX_ENTRIES 256
#define MAX_DDS 16

/* Halfword tags in the code image. */
enum { H_FREE = 0, H_START = 1, H_SECOND = 2, H_ITBODY = 3 };

enum kind {
    K_ALU16, K_ALU32, K_LDR, K_STR, K_LDRW, K_LDM, K_STM, K_PUSH, K_DIV,
    K_BCOND, K_B, K_BW, K_BL, K_CBZ, K_BX, K_BLX, K_POPPC, K_LDRPC, K_IT, K_SVC, K_STREX
};

typedef struct insn {
    enum kind kind;
    unsigned size;
    uint32_t target;  /* direct branches */
    unsigned nregs;   /* LDM/STM/PUSH/POP: registers transferred */
    int is_return;    /* BX LR, POP {pc} */
    unsigned it_count; /* IT: instructions in the block */
    unsigned msize;   /* LDR/STR: bytes accessed (1, 2 or 4) */
} insn_t;

typedef struct qent {
    etm_in_t in;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    unsigned nev;
    etm_gen_xfer_t x;  /* the transfer whose address is in this cycle */
} qent_t;

typedef struct exc_frame {
    uint32_t ret;
    uint16_t prev_num;
    int call_base;
    unsigned it_left;
} exc_frame_t;

struct etm_gen {
    etm_gen_params_t p;
    uint64_t rng;
    uint8_t mem[2][WIN];
    uint8_t tag[2][WIN / 2];
    uint32_t pc;
    uint16_t cur_num;              /* exception number of the current context, 0 thread */
    exc_frame_t exc[MAX_NEST];
    int nexc;
    uint32_t calls[MAX_CALLS];
    int ncalls;
    uint32_t entries[MAX_ENTRIES]; /* known function entries / indirect targets */
    unsigned nentries;
    unsigned it_left;              /* conditional instructions left in the IT block */
    /* Flags for the next instruction signalled. */
    int next_ibranch, next_iindbr;
    uint8_t next_intstat;
    uint16_t next_intnum;
    etm_gen_event_t next_event;    /* exception event to attach to it */
    int has_next_event;
    /* Cycle queue. */
    qent_t q[QCAP];
    unsigned qhead, qlen;
    uint64_t cycle;                /* absolute number of q[qhead] */
    /* Data values scheduled for future cycles (acycle: their address's). */
    struct { uint64_t cycle, acycle; uint8_t slot, flags; uint64_t value; } dd[MAX_DDS];
    unsigned ndd;
    etm_gen_xfer_t last_x;         /* the transfer of the cycle returned last */
    unsigned next_slot;
    uint64_t next_irq;
    uint64_t sleep_left;           /* idle cycles of a WFI still to come */
};

static void reserve(etm_gen_t *g, uint32_t a);

/* ---- Random numbers ------------------------------------------------------------ */

static uint64_t rnd(etm_gen_t *g)
{
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 2685821657736338717ull;
}
static unsigned below(etm_gen_t *g, unsigned n) { return n ? (unsigned)((rnd(g) >> 16) % n) : 0; }
static int pct(etm_gen_t *g, unsigned p) { return below(g, 100) < p; }

static void schedule_irq(etm_gen_t *g, uint64_t now)
{
    if (g->p.irq_period)
        g->next_irq = now + 1 + below(g, 2 * g->p.irq_period);
    else
        g->next_irq = UINT64_MAX;
}

/* ---- Parameters ------------------------------------------------------------------ */

void etm_gen_params_default(etm_gen_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->seed = 1;
    p->issue_width = 1;
    p->irq_period = 300;
    p->max_intnum = 79;
    p->stall_pct = 10;
    p->fold_pct = 50;
    p->sleep_pct = 0;
    p->thread_base = 0x00000000;
    p->handler_base = 0x20000000;
}

etm_err_t etm_gen_create(etm_gen_t **out, const etm_gen_params_t *p, etm_diag_t *diag)
{
    *out = NULL;
    if (p->issue_width < 1 || p->issue_width > 2)
        return etm_util_fail(diag, ETM_ERR_ARG, "issue width %u: must be 1 or 2", p->issue_width);
    if (p->max_intnum < 16 || p->max_intnum > 511)
        return etm_util_fail(diag, ETM_ERR_ARG, "highest exception number %u: must be 16 to 511", p->max_intnum);
    if (p->stall_pct > 100 || p->fold_pct > 100 || p->sleep_pct > 1000)
        return etm_util_fail(diag, ETM_ERR_ARG, "a percentage is above 100");
    if (p->data_delay > 16)
        return etm_util_fail(diag, ETM_ERR_ARG, "data value delay %u: at most 16 extra cycles", p->data_delay);
    if ((p->thread_base | p->handler_base) & (WIN - 1))
        return etm_util_fail(diag, ETM_ERR_ARG, "code windows must start on a 64 KiB boundary");
    if (p->thread_base == p->handler_base)
        return etm_util_fail(diag, ETM_ERR_ARG, "thread and handler windows must differ");
    etm_gen_t *g = (etm_gen_t *)calloc(1, sizeof *g);
    if (!g)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    g->p = *p;
    g->rng = p->seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
    if (!g->rng)
        g->rng = 1;
    g->pc = p->thread_base + 0x100;
    schedule_irq(g, 0);
    /* Handler entries hold an instruction from the start, so that code running
     * past one handler never covers another's entry with half an instruction. */
    for (uint16_t n = 0; n < 200; n++)
        reserve(g, p->handler_base + 0x100 + (uint32_t)n * 0x140);
    *out = g;
    return ETM_OK;
}

void etm_gen_free(etm_gen_t *g) { free(g); }

const uint8_t *etm_gen_image(const etm_gen_t *g, unsigned window, uint32_t *base, uint32_t *size)
{
    if (window > 1)
        return NULL;
    if (base)
        *base = window ? g->p.handler_base : g->p.thread_base;
    if (size)
        *size = WIN;
    return g->mem[window];
}

etm_err_t etm_gen_write_image(const etm_gen_t *g, const char *path_thread, const char *path_handler)
{
    const char *paths[2] = { path_thread, path_handler };
    for (int w = 0; w < 2; w++) {
        FILE *f = fopen(paths[w], "wb");
        if (!f)
            return ETM_ERR_IO;
        size_t n = fwrite(g->mem[w], 1, WIN, f);
        if (fclose(f) != 0 || n != WIN)
            return ETM_ERR_IO;
    }
    return ETM_OK;
}

/* ---- Code image -------------------------------------------------------------------- */

static int window_of(const etm_gen_t *g, uint32_t a)
{
    if (a - g->p.thread_base < WIN)
        return 0;
    if (a - g->p.handler_base < WIN)
        return 1;
    return -1;
}

static unsigned tag_at(const etm_gen_t *g, uint32_t a)
{
    int w = window_of(g, a);
    if (w < 0)
        return H_SECOND; /* outside: never usable */
    uint32_t off = a - (w ? g->p.handler_base : g->p.thread_base);
    return g->tag[w][off / 2];
}

static uint16_t rd16(const etm_gen_t *g, uint32_t a)
{
    int w = window_of(g, a);
    uint32_t off = a - (w ? g->p.handler_base : g->p.thread_base);
    return (uint16_t)(g->mem[w][off] | g->mem[w][off + 1] << 8);
}

static void wr16(etm_gen_t *g, uint32_t a, uint16_t v, unsigned tag)
{
    int w = window_of(g, a);
    uint32_t off = a - (w ? g->p.handler_base : g->p.thread_base);
    g->mem[w][off] = (uint8_t)v;
    g->mem[w][off + 1] = (uint8_t)(v >> 8);
    g->tag[w][off / 2] = (uint8_t)tag;
}

/* Are n bytes from a free, inside one window, away from its last 64 bytes? */
static int space_free(const etm_gen_t *g, uint32_t a, unsigned n)
{
    int w = window_of(g, a);
    if (w < 0 || (a & 1))
        return 0;
    uint32_t base = w ? g->p.handler_base : g->p.thread_base;
    if (a - base + n + 64 > WIN)
        return 0;
    for (unsigned k = 0; k < n; k += 2)
        if (tag_at(g, a + k) != H_FREE)
            return 0;
    return 1;
}

/* Is a a place a branch may land: a free halfword or an instruction start? */
static int landable(const etm_gen_t *g, uint32_t a)
{
    int w = window_of(g, a);
    if (w < 0 || (a & 1))
        return 0;
    uint32_t base = w ? g->p.handler_base : g->p.thread_base;
    if (a - base + 64 > WIN)
        return 0;
    unsigned t = tag_at(g, a);
    return t == H_START || (t == H_FREE && space_free(g, a, 2));
}

static uint32_t window_base(const etm_gen_t *g, uint32_t a)
{
    return window_of(g, a) ? g->p.handler_base : g->p.thread_base;
}

/* A fresh place for new code in a's window, with room for 32 bytes. */
static uint32_t fresh_place(etm_gen_t *g, uint32_t a)
{
    uint32_t base = window_base(g, a);
    for (int tries = 0; tries < 64; tries++) {
        uint32_t t = base + 0x40 + (below(g, WIN - 0x100) & ~1u);
        if (space_free(g, t, 32))
            return t;
    }
    /* The window is nearly full: reuse a known entry. */
    return g->nentries ? g->entries[below(g, g->nentries)] : base + 0x100;
}

static void add_entry(etm_gen_t *g, uint32_t a)
{
    if (g->nentries < MAX_ENTRIES)
        g->entries[g->nentries++] = a;
    else
        g->entries[below(g, MAX_ENTRIES)] = a;
}

/* A random destination for an indirect branch that is not a return. */
static uint32_t indirect_target(etm_gen_t *g, uint32_t from)
{
    if (g->nentries && pct(g, 50)) {
        uint32_t t = g->entries[below(g, g->nentries)];
        if (window_of(g, t) == window_of(g, from) && landable(g, t))
            return t;
    }
    uint32_t t = fresh_place(g, from);
    add_entry(g, t);
    return t;
}

/* ---- Thumb-2 encodings ----------------------------------------------------------- */

static void enc_bl_like(uint32_t from, uint32_t to, int link, uint16_t *hw1, uint16_t *hw2)
{
    int32_t off = (int32_t)(to - (from + 4));
    uint32_t u = (uint32_t)off;
    unsigned s = (u >> 24) & 1, i1 = (u >> 23) & 1, i2 = (u >> 22) & 1;
    unsigned j1 = (~(i1 ^ s)) & 1, j2 = (~(i2 ^ s)) & 1;
    *hw1 = (uint16_t)(0xF000 | s << 10 | ((u >> 12) & 0x3ff));
    *hw2 = (uint16_t)((link ? 0xD000 : 0x9000) | j1 << 13 | j2 << 11 | ((u >> 1) & 0x7ff));
}

static uint32_t dec_bl_like(uint32_t from, uint16_t hw1, uint16_t hw2)
{
    unsigned s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
    unsigned i1 = (~(j1 ^ s)) & 1, i2 = (~(j2 ^ s)) & 1;
    uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (uint32_t)(hw1 & 0x3ff) << 12 | (uint32_t)(hw2 & 0x7ff) << 1;
    if (s)
        imm |= 0xFE000000u;
    return from + 4 + imm;
}

static unsigned popcount8(unsigned v)
{
    unsigned n = 0;
    for (v &= 0xff; v; v &= v - 1)
        n++;
    return n;
}

/* Decode an instruction the synthesizer wrote. */
static insn_t decode(const etm_gen_t *g, uint32_t a)
{
    insn_t d;
    memset(&d, 0, sizeof d);
    uint16_t h = rd16(g, a);
    d.size = 2;
    if ((h & 0xF800) == 0xE800 || (h & 0xF000) == 0xF000) { /* 32-bit */
        uint16_t h2 = rd16(g, a + 2);
        d.size = 4;
        if ((h & 0xF800) == 0xF000 && (h2 & 0xD000) == 0xD000) {
            d.kind = K_BL;
            d.target = dec_bl_like(a, h, h2);
        } else if ((h & 0xF800) == 0xF000 && (h2 & 0xD000) == 0x9000) {
            d.kind = K_BW;
            d.target = dec_bl_like(a, h, h2);
        } else if ((h & 0xFFF0) == 0xF8D0) {
            d.kind = (h2 >> 12) == 15 ? K_LDRPC : K_LDRW;
        } else if ((h & 0xFFF0) == 0xE840) {
            d.kind = K_STREX;
        } else if ((h & 0xFFF0) == 0xFB90 || (h & 0xFFF0) == 0xFBB0) {
            d.kind = K_DIV;
        } else {
            d.kind = K_ALU32;
        }
        return d;
    }
    if ((h & 0xF000) == 0xD000 && ((h >> 8) & 0xF) < 14) {
        d.kind = K_BCOND;
        d.target = a + 4 + (uint32_t)((int32_t)(int8_t)(h & 0xff) * 2);
    } else if ((h & 0xFF00) == 0xDF00) {
        d.kind = K_SVC;
    } else if ((h & 0xF800) == 0xE000) {
        d.kind = K_B;
        int32_t off = (int32_t)(h & 0x7ff);
        if (off & 0x400)
            off -= 0x800;
        d.target = a + 4 + (uint32_t)(off * 2);
    } else if ((h & 0xF500) == 0xB100) {
        d.kind = K_CBZ;
        d.target = a + 4 + (((h >> 9) & 1u) << 6 | ((h >> 3) & 0x1fu) << 1);
    } else if ((h & 0xFF80) == 0x4700) {
        d.kind = K_BX;
        d.is_return = ((h >> 3) & 0xf) == 14;
    } else if ((h & 0xFF80) == 0x4780) {
        d.kind = K_BLX;
    } else if ((h & 0xFF00) == 0xBD00) {
        d.kind = K_POPPC;
        d.is_return = 1;
        d.nregs = (unsigned)popcount8(h) + 1;
    } else if ((h & 0xFF00) == 0xB500) {
        d.kind = K_PUSH;
        d.nregs = (unsigned)popcount8(h) + 1;
    } else if ((h & 0xFF00) == 0xBF00 && (h & 0xf)) {
        d.kind = K_IT;
        unsigned m = h & 0xf;
        d.it_count = (m & 1) ? 4 : (m & 2) ? 3 : (m & 4) ? 2 : 1;
    } else if ((h & 0xF800) == 0xC800) {
        d.kind = K_LDM;
        d.nregs = (unsigned)popcount8(h);
    } else if ((h & 0xF800) == 0xC000) {
        d.kind = K_STM;
        d.nregs = (unsigned)popcount8(h);
    } else if ((h & 0xF800) == 0x6800 || (h & 0xF800) == 0x7800 || (h & 0xF800) == 0x8800) {
        d.kind = K_LDR; /* LDR, LDRB, LDRH (immediate) */
        d.msize = (h & 0xF000) == 0x6000 ? 4 : (h & 0xF000) == 0x7000 ? 1 : 2;
    } else if ((h & 0xF800) == 0x6000 || (h & 0xF800) == 0x7000 || (h & 0xF800) == 0x8000) {
        d.kind = K_STR; /* STR, STRB, STRH (immediate) */
        d.msize = (h & 0xF000) == 0x6000 ? 4 : (h & 0xF000) == 0x7000 ? 1 : 2;
    } else {
        d.kind = K_ALU16;
    }
    return d;
}

static uint16_t alu16(etm_gen_t *g)
{
    switch (below(g, 4)) {
    case 0: return (uint16_t)(0x2000 | below(g, 8) << 8 | below(g, 256));             /* MOVS Rd,#imm */
    case 1: return (uint16_t)(0x1C00 | below(g, 8) << 6 | below(g, 8) << 3 | below(g, 8)); /* ADDS */
    case 2: return (uint16_t)(0x2800 | below(g, 8) << 8 | below(g, 256));             /* CMP Rn,#imm */
    default: return (uint16_t)(0x4040 | below(g, 8) << 3 | below(g, 8));              /* EORS */
    }
}

static uint8_t reglist(etm_gen_t *g)
{
    uint8_t l = (uint8_t)(1u << below(g, 8));
    while (pct(g, 40))
        l |= (uint8_t)(1u << below(g, 8));
    return l;
}

/* Write an ALU instruction of at most `room` bytes at a (for IT bodies and fallbacks). */
static void synth_alu(etm_gen_t *g, uint32_t a, int allow32, unsigned tag)
{
    if (allow32 && space_free(g, a, 4) && pct(g, 25)) {
        wr16(g, a, (uint16_t)(0xEB00 | below(g, 13)), tag);
        wr16(g, a + 2, (uint16_t)(below(g, 13) << 8 | below(g, 13)), H_SECOND);
    } else {
        wr16(g, a, alu16(g), tag);
    }
}

/* Write a new instruction at a (a is free). */
static void synthesize(etm_gen_t *g, uint32_t a)
{
    uint32_t base = window_base(g, a);
    int room32 = space_free(g, a, 4);
    if (a - base + 96 > WIN) { /* near the end of the window: jump away */
        wr16(g, a, (uint16_t)(0x4700 | below(g, 8) << 3), H_START); /* BX Rm */
        return;
    }
    int in_handler = g->nexc > 0;
    for (;;) {
        unsigned r = below(g, 1000);
        if (r < 300) {
            synth_alu(g, a, 1, H_START);
            return;
        }
        if (r < 380) { /* LDR/STR 16-bit */
            if (g->p.data_mix && pct(g, 40)) { /* ... byte or halfword; or STREX Rd,Rt,[Rn] */
                if (room32 && pct(g, 25)) {
                    wr16(g, a, (uint16_t)(0xE840 | below(g, 13)), H_START);
                    wr16(g, a + 2, (uint16_t)(below(g, 13) << 12 | below(g, 13) << 8), H_SECOND);
                    return;
                }
                uint16_t op = pct(g, 50) ? (pct(g, 60) ? 0x7800 : 0x7000) : (pct(g, 60) ? 0x8800 : 0x8000);
                wr16(g, a, (uint16_t)(op | below(g, 32) << 6 | below(g, 8) << 3 | below(g, 8)), H_START);
                return;
            }
            wr16(g, a, (uint16_t)((pct(g, 60) ? 0x6800 : 0x6000) | below(g, 32) << 6 | below(g, 8) << 3 | below(g, 8)),
                 H_START);
            return;
        }
        if (r < 420 && room32) { /* LDR.W Rt,[Rn,#imm12] */
            wr16(g, a, (uint16_t)(0xF8D0 | below(g, 13)), H_START);
            wr16(g, a + 2, (uint16_t)(below(g, 13) << 12 | (below(g, 1024) & ~3u)), H_SECOND);
            return;
        }
        if (r < 460) { /* LDM/STM/PUSH */
            unsigned which = below(g, 3);
            uint16_t base16 = which == 0 ? 0xC800 : which == 1 ? 0xC000 : 0xB500;
            wr16(g, a, (uint16_t)(base16 | (which < 2 ? below(g, 8) << 8 : 0) | reglist(g)), H_START);
            return;
        }
        if (r < 480 && room32) { /* SDIV/UDIV */
            wr16(g, a, (uint16_t)((pct(g, 50) ? 0xFB90 : 0xFBB0) | below(g, 13)), H_START);
            wr16(g, a + 2, (uint16_t)(0xF0F0 | below(g, 13) << 8 | below(g, 13)), H_SECOND);
            return;
        }
        if (r < 580) { /* B<c> */
            for (int t = 0; t < 8; t++) {
                int off = (int)below(g, 256) - 128;
                uint32_t to = a + 4 + (uint32_t)(off * 2);
                if (to != a && to != a + 2 && landable(g, to)) {
                    wr16(g, a, (uint16_t)(0xD000 | below(g, 14) << 8 | (uint8_t)off), H_START);
                    reserve(g, to);
                    return;
                }
            }
            continue;
        }
        if (r < 620) { /* B (16-bit), forward to free space */
            for (int t = 0; t < 8; t++) {
                unsigned off = 2 + below(g, 1000);
                uint32_t to = a + 4 + off * 2;
                if (space_free(g, to, 8)) {
                    wr16(g, a, (uint16_t)(0xE000 | off), H_START);
                    return;
                }
            }
            continue;
        }
        if (r < 640 && room32) { /* B.W forward */
            uint32_t to = fresh_place(g, a);
            if (to > a + 4 && space_free(g, to, 8)) {
                uint16_t h1, h2;
                enc_bl_like(a, to, 0, &h1, &h2);
                wr16(g, a, h1, H_START);
                wr16(g, a + 2, h2, H_SECOND);
                return;
            }
            continue;
        }
        if (r < 680 && room32) { /* BL to a function, always forward: see below */
            uint32_t to = g->nentries && pct(g, 50) ? g->entries[below(g, g->nentries)] : fresh_place(g, a);
            if (window_of(g, to) != window_of(g, a) || !landable(g, to) || to <= a + 4)
                continue;
            add_entry(g, to);
            uint16_t h1, h2;
            enc_bl_like(a, to, 1, &h1, &h2);
            wr16(g, a, h1, H_START);
            wr16(g, a + 2, h2, H_SECOND);
            return;
        }
        if (r < 710) { /* CBZ/CBNZ forward */
            unsigned off = below(g, 64); /* i:imm5 */
            uint32_t to = a + 4 + off * 2;
            if (!landable(g, to) || to == a + 2)
                continue;
            wr16(g, a, (uint16_t)(0xB100 | (pct(g, 50) ? 0x0800 : 0) | (off >> 5) << 9 | (off & 0x1f) << 3 |
                                  below(g, 8)), H_START);
            reserve(g, to);
            return;
        }
        if (r < 760) { /* return: BX LR or POP {..,pc} (more likely with calls or in handlers) */
            if (g->ncalls == 0 && !in_handler && pct(g, 70))
                continue;
            if (pct(g, 50))
                wr16(g, a, 0x4770, H_START);
            else
                wr16(g, a, (uint16_t)(0xBD00 | reglist(g)), H_START);
            return;
        }
        if (r < 780) { /* BX Rm (not LR) */
            wr16(g, a, (uint16_t)(0x4700 | below(g, 14) << 3), H_START);
            return;
        }
        if (r < 800) { /* BLX Rm */
            wr16(g, a, (uint16_t)(0x4780 | below(g, 14) << 3), H_START);
            return;
        }
        if (r < 810 && room32) { /* LDR pc,[Rn,#imm] */
            wr16(g, a, (uint16_t)(0xF8D0 | below(g, 13)), H_START);
            wr16(g, a + 2, (uint16_t)(0xF000 | (below(g, 1024) & ~3u)), H_SECOND);
            return;
        }
        if (r < 880) { /* IT block with its conditional ALU instructions */
            unsigned n = 1 + below(g, 4);
            if (!space_free(g, a, 2 + 8 * n))
                continue;
            unsigned cond = below(g, 14);
            unsigned mask = n == 1 ? 0x8 : n == 2 ? 0x4 : n == 3 ? 0x2 : 0x1;
            for (unsigned k = 1; k < n; k++)
                if (pct(g, 50))
                    mask |= 1u << (4 - k);
            wr16(g, a, (uint16_t)(0xBF00 | cond << 4 | mask), H_START);
            uint32_t p = a + 2;
            for (unsigned k = 0; k < n; k++) {
                synth_alu(g, p, 1, H_ITBODY);
                p += tag_at(g, p + 2) == H_SECOND ? 4 : 2;
            }
            return;
        }
        if (r < 885 && !in_handler) { /* SVC */
            wr16(g, a, (uint16_t)(0xDF00 | below(g, 256)), H_START);
            return;
        }
        if (r >= 885) {
            synth_alu(g, a, 1, H_START);
            return;
        }
    }
}

/* Make sure a place a branch may come back to holds an instruction. */
static void reserve(etm_gen_t *g, uint32_t a)
{
    if (tag_at(g, a) == H_FREE)
        wr16(g, a, alu16(g), H_START);
}

/* ---- Cycle queue ------------------------------------------------------------------- */

static qent_t *push_cycle(etm_gen_t *g)
{
    qent_t *e = &g->q[(g->qhead + g->qlen) % QCAP];
    memset(e, 0, sizeof *e);
    e->in.intnum = g->cur_num;
    g->qlen++;
    return e;
}

static uint64_t tail_cycle(const etm_gen_t *g) { return g->cycle + g->qlen - 1; }

static void add_event(qent_t *e, const etm_gen_event_t *ev)
{
    if (e->nev < ETM_GEN_MAX_EVENTS)
        e->ev[e->nev++] = *ev;
}

static void idle_cycles(etm_gen_t *g, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        push_cycle(g);
}

/* ---- Data transfers ------------------------------------------------------------------ */

/* What an instruction's transfers are. */
typedef struct xspec {
    unsigned n;           /* registers (words); 1 for a single access */
    unsigned size;        /* bytes of a single access: 1, 2 or 4 */
    int write;
    int allow_unaligned;
    int strex;            /* STREX: its value may say the store failed */
    int pc_first;         /* POP {.., pc}: the PC may be loaded first */
    uint32_t insn;        /* the instruction's address */
} xspec_t;

/* The latest value cycle of slot s still to come (0 if none). */
static uint64_t slot_busy(const etm_gen_t *g, unsigned s)
{
    uint64_t t = 0;
    for (unsigned i = 0; i < g->ndd; i++)
        if (g->dd[i].slot == s && g->dd[i].cycle > t)
            t = g->dd[i].cycle;
    return t;
}

static int value_cycle_taken(const etm_gen_t *g, uint64_t c)
{
    for (unsigned i = 0; i < g->ndd; i++)
        if (g->dd[i].cycle == c)
            return 1;
    return 0;
}

/* A slot for an address in cycle c whose last value is due by c. With three
 * slots and values at least two cycles late one always exists, or one can be
 * made free: the latest value of a slot whose address is from c-2 or before is
 * brought forward to c, where no value is due (a value due at c would be its
 * slot's latest, and that slot free). */
static unsigned pick_slot(etm_gen_t *g, uint64_t c)
{
    for (unsigned k = 0; k < 3; k++) {
        unsigned s = 1 + (g->next_slot + k) % 3;
        if (slot_busy(g, s) <= c) {
            g->next_slot = s % 3;
            return s;
        }
    }
    for (unsigned k = 0; k < 3; k++) {
        unsigned s = 1 + (g->next_slot + k) % 3, latest = MAX_DDS;
        for (unsigned i = 0; i < g->ndd; i++)
            if (g->dd[i].slot == s && (latest == MAX_DDS || g->dd[i].cycle > g->dd[latest].cycle))
                latest = i;
        if (latest == MAX_DDS || g->dd[latest].acycle + 2 > c)
            continue;
        for (uint64_t t = c; t >= g->dd[latest].acycle + 2 && t >= g->cycle; t--)
            if (!value_cycle_taken(g, t)) {
                g->dd[latest].cycle = t;
                g->next_slot = s % 3;
                return s;
            }
    }
    return 1; /* not reached */
}

/* Memory bytes of an access of `size` bytes at addr holding register value v. */
static uint8_t mem_byte(uint32_t v, unsigned size, int be, unsigned k)
{
    return (uint8_t)(v >> (8 * (be ? size - 1 - k : k)));
}

/* Transfers of an instruction whose IVALID cycle is queue entry `first`.
 * Transfer i goes into the cycle first+i; its value follows two cycles later,
 * or (data_delay) up to data_delay cycles more. With data_mix the accesses vary
 * (sizes, unaligned, big-endian, PC first, failed STREX, imprecise aborts) and
 * ETMDD carries the memory bytes of a chosen register value, the other lanes
 * random. */
static void data_transfers(etm_gen_t *g, unsigned first_idx, const xspec_t *xs)
{
    if (!g->p.data || xs->n == 0)
        return;
    int mix = g->p.data_mix, rich = mix || g->p.data_delay;
    uint32_t addr = 0x20000000u | (uint32_t)(below(g, 0x10000) & ~3u);
    unsigned size = xs->n == 1 ? xs->size : 4;
    unsigned xfers = xs->n;
    int unaligned = 0;
    if (xs->allow_unaligned && xs->n == 1 && size > 1 && pct(g, 15)) {
        addr |= size == 4 ? 1 + below(g, 3) : (below(g, 2) ? 3u : 1u);
        unaligned = (addr & 3) + size > 4;
        xfers = unaligned ? 2 : 1;
    } else if (mix && size < 4) {
        addr |= size == 2 ? 2 * below(g, 2) : below(g, 4);
    }
    int be = mix && pct(g, 25);
    int fail = mix && xs->strex && pct(g, 30);
    int imp = mix && xs->write && !xs->strex && pct(g, 4);
    int pc_first = mix && xs->pc_first && xs->n >= 2 && pct(g, 50);
    uint32_t v = 0;
    for (unsigned i = 0; i < xfers; i++) {
        unsigned qi = (g->qhead + first_idx + i) % QCAP;
        while (first_idx + i >= g->qlen)
            push_cycle(g);
        etm_in_t *in = &g->q[qi].in;
        uint64_t c = g->cycle + first_idx + i;
        unsigned slot;
        if (rich) {
            slot = pick_slot(g, c);
        } else {
            slot = 1 + g->next_slot;
            g->next_slot = (g->next_slot + 1) % 3;
        }
        /* The word: in order, or (PC first) the last word, then the others. */
        unsigned w = pc_first ? (i == 0 ? xfers - 1 : i - 1) : i;
        uint32_t a = unaligned ? (i == 0 ? addr : (addr & ~3u) + 4) : addr + 4 * w;
        unsigned lane = a & 7, bytes = unaligned ? (i == 0 ? 4 - (addr & 3) : (addr & 3) + size - 4) : size;
        unsigned blsel = ((1u << bytes) - 1u) << lane;
        int last = unaligned ? 1 : i == xfers - 1;
        int second = unaligned && i == 1;
        unsigned rot = second ? (mix ? below(g, 4) : 0) : be ? (4u - (a & 3u) - bytes) & 3u : a & 3u;
        unsigned swz = second ? (unsigned)(mix && pct(g, 50)) : (unsigned)be;
        in->dactl = slot | (unsigned)xs->write << 2 | (blsel & 0xff) << 3 | (unsigned)(unaligned && i == 0) << 11 |
                    rot << 12 | swz << 14 | (unsigned)last << 16 | (unsigned)(i == 0 || (pc_first && i == 1)) << 17;
        in->da = a;
        in->dvalid = 1;
        if (rich && (!unaligned || i == 0)) { /* the register value of this access; some small, some 0 */
            v = (uint32_t)(rnd(g) >> 32);
            unsigned k = below(g, 10);
            v = k == 0 ? 0 : k == 1 ? v & 0xFFu : k == 2 ? v & 0xFFFFu : v;
            if (size < 4)
                v &= (1u << (8 * size)) - 1u;
        }
        etm_gen_xfer_t *x = &g->q[qi].x;
        memset(x, 0, sizeof *x);
        x->valid = 1;
        x->half = (uint8_t)(unaligned ? i + 1 : 0);
        x->first = (uint8_t)(i == 0);
        x->write = (uint8_t)xs->write;
        x->bytes = (uint8_t)size;
        x->be = (uint8_t)be;
        x->fail = (uint8_t)(fail && last);
        x->imprecise = (uint8_t)(imp && last);
        x->insn = xs->insn;
        x->addr = unaligned ? addr : a;
        x->value = v;
        if (g->ndd < MAX_DDS) {
            uint64_t dd = rnd(g);
            uint64_t vc = c + 2;
            if (rich) {
                vc += below(g, g->p.data_delay + 1);
                while (value_cycle_taken(g, vc))
                    vc++;
            }
            /* The access's bytes in their lanes; without data_mix or data_delay
             * the lanes keep their random bytes, which (little-endian, DARot the
             * address) are the register view's bytes in order. */
            etm_gen_xfer_t *xa = unaligned ? &g->q[(g->qhead + first_idx) % QCAP].x : x; /* the access's */
            for (unsigned k = 0; k < bytes; k++) {
                unsigned off = unaligned && i == 1 ? 4 - (addr & 3) + k : k;
                if (rich)
                    dd = (dd & ~(0xFFull << (8 * (lane + k)))) | (uint64_t)mem_byte(v, size, be, off) << (8 * (lane + k));
                else
                    xa->value |= (uint32_t)(uint8_t)(dd >> (8 * (lane + k))) << (8 * off);
            }
            g->dd[g->ndd].cycle = vc;
            g->dd[g->ndd].acycle = c;
            g->dd[g->ndd].slot = (uint8_t)slot;
            g->dd[g->ndd].flags = (uint8_t)((fail && last ? 4 : 0) | (imp && last ? 8 : 0));
            g->dd[g->ndd].value = dd;
            g->ndd++;
        }
    }
}

/* ---- Execution ----------------------------------------------------------------------- */

/* The cycle in which an instruction is signalled: applies the pending branch and
 * exception flags and logs the instruction. */
static qent_t *signal_insn(etm_gen_t *g, uint32_t a, unsigned size, int passed, int is_it)
{
    qent_t *e = push_cycle(g);
    e->in.ivalid = 1;
    e->in.ia = a;
    e->in.iccfail = (uint8_t)!passed;
    e->in.ibranch = (uint8_t)g->next_ibranch;
    e->in.iindbr = (uint8_t)g->next_iindbr;
    e->in.intstat = g->next_intstat;
    e->in.intnum = g->next_intstat ? g->next_intnum : g->cur_num;
    if (g->has_next_event) {
        g->next_event.cycle = tail_cycle(g);
        add_event(e, &g->next_event);
        g->has_next_event = 0;
    }
    etm_gen_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETM_GEN_EV_INSN;
    ev.size = (uint8_t)size;
    ev.passed = (uint8_t)passed;
    ev.is_it = (uint8_t)is_it;
    ev.addr = a;
    ev.cycle = tail_cycle(g);
    add_event(e, &ev);
    g->next_ibranch = g->next_iindbr = 0;
    g->next_intstat = 0;
    return e;
}

static uint16_t pick_intnum(etm_gen_t *g)
{
    static const uint16_t system[] = { 2, 3, 4, 5, 6, 12, 14, 15 };
    if (pct(g, 25))
        return system[below(g, sizeof system / sizeof system[0])];
    return (uint16_t)(16 + below(g, g->p.max_intnum - 15));
}

static uint32_t handler_addr(const etm_gen_t *g, uint16_t num)
{
    return g->p.handler_base + 0x100 + (uint32_t)(num % 200) * 0x140;
}

/* Exception entry after the current cycles: stacking, then the handler's first
 * instruction carries ETMINTSTAT=entry. */
static void exception_entry(etm_gen_t *g, uint16_t num, uint32_t ret, int cancel, int tail_chain)
{
    qent_t *e = push_cycle(g);
    e->in.flush = 1;
    e->in.findbr = 1;
    if (!tail_chain)
        e->in.intstat = ETM_INTSTAT_FETCH;
    e->in.cancel = (uint8_t)cancel;
    e->in.intnum = g->cur_num;
    if (cancel) {
        etm_gen_event_t ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = ETM_GEN_EV_CANCEL;
        ev.cycle = tail_cycle(g);
        add_event(e, &ev);
    }
    idle_cycles(g, (tail_chain ? 5 : 10) + below(g, 2));
    if (!tail_chain) {
        reserve(g, ret);
        g->exc[g->nexc].ret = ret;
        g->exc[g->nexc].prev_num = g->cur_num;
        g->exc[g->nexc].call_base = g->ncalls;
        g->exc[g->nexc].it_left = g->it_left;
        g->nexc++;
    }
    g->cur_num = num;
    g->pc = handler_addr(g, num);
    g->it_left = 0;
    g->next_ibranch = g->next_iindbr = 1;
    g->next_intstat = ETM_INTSTAT_ENTRY;
    g->next_intnum = num;
    memset(&g->next_event, 0, sizeof g->next_event);
    g->next_event.kind = ETM_GEN_EV_EXC_ENTRY;
    g->next_event.excnum = num;
    g->next_event.addr = g->pc;
    g->has_next_event = 1;
}

/* Exception return after the return instruction: exit, then unstacking and the
 * first instruction back in the interrupted context (or a tail-chain). */
static void exception_return(etm_gen_t *g)
{
    qent_t *e = push_cycle(g);
    e->in.intstat = ETM_INTSTAT_EXIT;
    e->in.intnum = g->cur_num;
    e->in.flush = 1;
    e->in.findbr = 1;
    if (g->p.irq_period && (g->cycle + g->qlen >= g->next_irq || pct(g, 15))) { /* pending: tail-chain */
        schedule_irq(g, g->cycle + g->qlen);
        g->ncalls = g->exc[g->nexc - 1].call_base;
        exception_entry(g, pick_intnum(g), 0, 0, 1);
        return;
    }
    idle_cycles(g, 9 + below(g, 2));
    exc_frame_t f = g->exc[--g->nexc];
    g->ncalls = f.call_base;
    g->cur_num = f.prev_num;
    g->pc = f.ret;
    g->it_left = f.it_left; /* the IT state comes back with the context */
    g->next_ibranch = g->next_iindbr = 1;
    g->next_intstat = ETM_INTSTAT_RETURN;
    g->next_intnum = f.prev_num;
    memset(&g->next_event, 0, sizeof g->next_event);
    g->next_event.kind = ETM_GEN_EV_EXC_RETURN;
    g->next_event.excnum = f.prev_num;
    g->next_event.addr = f.ret;
    g->has_next_event = 1;
}

static void taken_branch(etm_gen_t *g, uint32_t to, int indirect)
{
    qent_t *e = push_cycle(g);
    e->in.flush = 1;
    e->in.findbr = (uint8_t)indirect;
    push_cycle(g);
    g->pc = to;
    g->next_ibranch = 1;
    g->next_iindbr = indirect;
}

/* Dual issue: the target of an indirect branch retires in slot 1 of the
 * branch's own cycle, when it is a simple ALU instruction. */
static int slot1_target(etm_gen_t *g, qent_t *e, uint32_t to)
{
    if (g->p.issue_width < 2 || !pct(g, 25))
        return 0;
    if (tag_at(g, to) == H_FREE)
        synthesize(g, to);
    insn_t d = decode(g, to);
    if (d.kind != K_ALU16 && d.kind != K_ALU32)
        return 0;
    e->in.ivalid1 = 1;
    e->in.ia1 = to;
    e->in.ibranch1 = 1;
    e->in.iindbr1 = 1;
    etm_gen_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETM_GEN_EV_INSN;
    ev.size = (uint8_t)d.size;
    ev.passed = 1;
    ev.slot = 1;
    ev.addr = to;
    ev.cycle = tail_cycle(g);
    add_event(e, &ev);
    g->pc = to + d.size;
    return 1;
}

/* Where a return goes: the caller, or (in a handler at its own depth) an
 * exception return; in thread mode without calls, anywhere. */
static int do_return(etm_gen_t *g, uint32_t from)
{
    int base = g->nexc ? g->exc[g->nexc - 1].call_base : 0;
    if (g->ncalls > base) {
        taken_branch(g, g->calls[--g->ncalls], 1);
        return 0;
    }
    if (g->nexc)
        return 1;
    taken_branch(g, indirect_target(g, from), 1);
    return 0;
}

/* Execute one instruction (or a folded pair, or a dual-issued pair). */
static void step(etm_gen_t *g)
{
    /* Asynchronous exception between instructions (not before the first
     * instruction of a new context: that would be a late arrival, which the
     * core resolves before signalling anything). */
    if (g->cycle + g->qlen >= g->next_irq && !g->has_next_event) {
        schedule_irq(g, g->cycle + g->qlen);
        if (g->nexc < MAX_NEST) {
            exception_entry(g, pick_intnum(g), g->pc, 0, 0);
            return;
        }
    }
    /* Instruction fetch stalls. */
    if (pct(g, g->p.stall_pct)) {
        unsigned n = 1 + below(g, 3);
        for (unsigned i = 0; i < n; i++)
            push_cycle(g)->in.istall = 1;
    }
    uint32_t a = g->pc;
    if (tag_at(g, a) == H_FREE)
        synthesize(g, a);
    insn_t d = decode(g, a);
    int in_it = g->it_left > 0;
    int passed = in_it ? pct(g, 60) : 1;
    if (in_it)
        g->it_left--;

    /* Fold: a 16-bit ALU instruction outside an IT block followed by an IT. */
    if (d.kind == K_ALU16 && !in_it && g->p.fold_pct) {
        uint32_t b = a + 2;
        if (tag_at(g, b) == H_START && decode(g, b).kind == K_IT && pct(g, g->p.fold_pct)) {
            insn_t it = decode(g, b);
            qent_t *e = signal_insn(g, a, 2, 1, 0);
            e->in.fold = 1;
            etm_gen_event_t ev = e->ev[e->nev - 1];
            ev.addr = b;
            ev.is_it = 1;
            add_event(e, &ev);
            g->it_left = it.it_count;
            g->pc = a + 4;
            return;
        }
    }

    unsigned first = g->qlen;
    qent_t *e = signal_insn(g, a, d.size, d.kind == K_BCOND || d.kind == K_CBZ ? 1 : passed, d.kind == K_IT);
    uint32_t next = a + d.size;
    switch (d.kind) {
    case K_ALU16:
    case K_ALU32:
        g->pc = next;
        /* Dual issue: a following ALU instruction retires in slot 1. */
        if (g->p.issue_width > 1 && pct(g, 40)) {
            if (tag_at(g, next) == H_FREE && space_free(g, next, 2))
                synth_alu(g, next, 1, H_START);
            if (tag_at(g, next) == H_START || tag_at(g, next) == H_ITBODY) {
                insn_t d2 = decode(g, next);
                if (d2.kind == K_ALU16 || d2.kind == K_ALU32) {
                    int in_it2 = g->it_left > 0;
                    int passed2 = in_it2 ? pct(g, 60) : 1;
                    if (in_it2)
                        g->it_left--;
                    e->in.ivalid1 = 1;
                    e->in.ia1 = next;
                    e->in.iccfail1 = (uint8_t)!passed2;
                    etm_gen_event_t ev;
                    memset(&ev, 0, sizeof ev);
                    ev.kind = ETM_GEN_EV_INSN;
                    ev.size = (uint8_t)d2.size;
                    ev.passed = (uint8_t)passed2;
                    ev.slot = 1;
                    ev.addr = next;
                    ev.cycle = tail_cycle(g);
                    add_event(e, &ev);
                    g->pc = next + d2.size;
                }
            }
        }
        break;
    case K_IT:
        g->it_left = d.it_count;
        g->pc = next;
        break;
    case K_LDR:
    case K_STR:
    case K_LDRW:
    case K_STREX:
    case K_LDM:
    case K_STM:
    case K_PUSH:
    case K_DIV: {
        unsigned extra = d.kind == K_DIV ? 1 + below(g, 11)
                         : (d.kind == K_LDM || d.kind == K_STM || d.kind == K_PUSH) ? d.nregs : 1;
        /* An exception may arrive during the extra cycles and cancel it. */
        uint64_t start = tail_cycle(g);
        if (g->next_irq > start && g->next_irq <= start + extra && g->nexc < MAX_NEST && passed) {
            unsigned k = (unsigned)(g->next_irq - start);
            idle_cycles(g, k - 1);
            schedule_irq(g, g->next_irq);
            exception_entry(g, pick_intnum(g), a, 1, 0);
            return;
        }
        idle_cycles(g, extra);
        if (passed && d.kind != K_DIV) {
            int single = d.kind == K_LDR || d.kind == K_STR || d.kind == K_LDRW || d.kind == K_STREX;
            xspec_t xs = { single ? 1 : d.nregs, d.msize ? d.msize : 4,
                           d.kind == K_STR || d.kind == K_STREX || d.kind == K_STM || d.kind == K_PUSH,
                           d.kind != K_PUSH && d.kind != K_STREX, d.kind == K_STREX, 0, a };
            data_transfers(g, first, &xs);
        }
        g->pc = next;
        break;
    }
    case K_BCOND:
    case K_CBZ: {
        int taken = pct(g, 50);
        e->in.iccfail = (uint8_t)!taken;
        e->ev[e->nev - 1].passed = (uint8_t)taken;
        if (taken)
            taken_branch(g, d.target, 0);
        else
            g->pc = next;
        break;
    }
    case K_B:
    case K_BW:
        taken_branch(g, d.target, 0);
        break;
    case K_BL:
        if (g->ncalls < MAX_CALLS)
            g->calls[g->ncalls++] = next;
        taken_branch(g, d.target, 0);
        break;
    case K_BLX: {
        if (g->ncalls < MAX_CALLS)
            g->calls[g->ncalls++] = next;
        uint32_t to = indirect_target(g, a);
        if (!slot1_target(g, e, to))
            taken_branch(g, to, 1);
        break;
    }
    case K_BX:
    case K_POPPC:
        if (d.kind == K_POPPC) {
            idle_cycles(g, d.nregs);
            xspec_t xs = { d.nregs, 4, 0, 0, 0, 1, a };
            data_transfers(g, first, &xs);
        }
        if (d.is_return) {
            if (do_return(g, a))
                exception_return(g);
        } else {
            uint32_t to = indirect_target(g, a);
            if (d.kind == K_POPPC || !slot1_target(g, e, to))
                taken_branch(g, to, 1);
        }
        break;
    case K_LDRPC: {
        idle_cycles(g, 1);
        xspec_t xs = { 1, 4, 0, 0, 0, 0, a };
        data_transfers(g, first, &xs);
        taken_branch(g, indirect_target(g, a), 1);
        break;
    }
    case K_SVC:
        if (g->nexc < MAX_NEST)
            exception_entry(g, 11, next, 0, 0);
        else
            g->pc = next;
        break;
    }
    /* A long idle gap (WFI) now and then; an exception ends it. */
    if (g->p.sleep_pct && below(g, 1000) < g->p.sleep_pct)
        g->sleep_left = 50 + below(g, 3000);
}

void etm_gen_last_xfer(const etm_gen_t *g, etm_gen_xfer_t *x) { *x = g->last_x; }

unsigned etm_gen_next(etm_gen_t *g, etm_in_t *in, etm_gen_event_t *events)
{
    qent_t idle;
    const qent_t *e = &idle;
    memset(&idle, 0, sizeof idle);
    if (g->qlen == 0 && g->sleep_left && g->cycle < g->next_irq) {
        g->sleep_left--;
    } else {
        g->sleep_left = 0;
        while (g->qlen == 0)
            step(g);
        e = &g->q[g->qhead];
        g->qhead = (g->qhead + 1) % QCAP;
        g->qlen--;
    }
    *in = e->in;
    g->last_x = e->x;
    if (e == &idle)
        in->intnum = g->cur_num;
    /* Data values due in this cycle. */
    for (unsigned i = 0; i < g->ndd; i++) {
        if (g->dd[i].cycle == g->cycle) {
            in->ddctl = (uint8_t)(g->dd[i].slot | g->dd[i].flags);
            in->dd = g->dd[i].value;
            g->dd[i] = g->dd[--g->ndd];
            break;
        }
    }
    if (g->p.triggers && pct(g, 2)) {
        in->trigger = (uint8_t)(1u << below(g, 4));
        in->triginotd = (uint8_t)below(g, 16);
    }
    unsigned n = e->nev;
    if (events)
        memcpy(events, e->ev, n * sizeof *events);
    g->cycle++;
    return n;
}
