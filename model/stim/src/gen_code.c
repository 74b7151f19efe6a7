/* gen_code.c - the random program of the stimulus generator (etm/gen.h): the
 * code image of the two windows, the Thumb-2 encodings it uses (read back by
 * the project's decoder, etm/thumb.h), and the synthesizer that writes an
 * instruction where the executor first reaches a free halfword (gen.c says why
 * direct branches only go forward).
 */
#include "etm/gen.h"

#include <string.h>

#include "etm/thumb.h"
#include "gen_int.h"

/* ---- Code image -------------------------------------------------------------------- */

static int window_of(const etm_gen_t *g, uint32_t a)
{
    if (a - g->p.thread_base < WIN)
        return 0;
    if (a - g->p.handler_base < WIN)
        return 1;
    return -1;
}

/* Tag of the halfword at a (H_SECOND outside the windows). */
unsigned gen_tag_at(const etm_gen_t *g, uint32_t a)
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
int gen_space_free(const etm_gen_t *g, uint32_t a, unsigned n)
{
    int w = window_of(g, a);
    if (w < 0 || (a & 1))
        return 0;
    uint32_t base = w ? g->p.handler_base : g->p.thread_base;
    if (a - base + n + 64 > WIN)
        return 0;
    for (unsigned k = 0; k < n; k += 2)
        if (gen_tag_at(g, a + k) != H_FREE)
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
    unsigned t = gen_tag_at(g, a);
    return t == H_START || (t == H_FREE && gen_space_free(g, a, 2));
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
        uint32_t t = base + 0x40 + (gen_below(g, WIN - 0x100) & ~1u);
        if (gen_space_free(g, t, 32))
            return t;
    }
    /* The window is nearly full: reuse a known entry. */
    return g->nentries ? g->entries[gen_below(g, g->nentries)] : base + 0x100;
}

static void add_entry(etm_gen_t *g, uint32_t a)
{
    if (g->nentries < MAX_ENTRIES)
        g->entries[g->nentries++] = a;
    else
        g->entries[gen_below(g, MAX_ENTRIES)] = a;
}

/* A random destination for an indirect branch that is not a return. */
uint32_t gen_indirect_target(etm_gen_t *g, uint32_t from)
{
    if (g->nentries && gen_pct(g, 50)) {
        uint32_t t = g->entries[gen_below(g, g->nentries)];
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

/* The generator's kind of an instruction it wrote, decoded by etm/thumb.h. */
static enum kind kind_of(const etm_thumb_insn_t *t)
{
    switch ((etm_thumb_op_t)t->op) {
    case ETM_THUMB_B: return t->size == 4 ? K_BW : K_B;
    case ETM_THUMB_BCOND: return K_BCOND;
    case ETM_THUMB_BL: return K_BL;
    case ETM_THUMB_CBZ: return K_CBZ;
    case ETM_THUMB_BX: return K_BX;
    case ETM_THUMB_BLX: return K_BLX;
    case ETM_THUMB_POP: return t->branch ? K_POPPC : K_LDM;
    case ETM_THUMB_PUSH: return K_PUSH;
    case ETM_THUMB_LDM: return K_LDM;
    case ETM_THUMB_STM: return K_STM;
    case ETM_THUMB_LOAD: return t->branch ? K_LDRPC : t->size == 4 ? K_LDRW : K_LDR;
    case ETM_THUMB_STORE: return K_STR;
    case ETM_THUMB_STREX: return K_STREX;
    case ETM_THUMB_DIV: return K_DIV;
    case ETM_THUMB_IT: return K_IT;
    case ETM_THUMB_SVC: return K_SVC;
    default: return t->size == 4 ? K_ALU32 : K_ALU16;
    }
}

/* Decode an instruction the synthesizer wrote. */
insn_t gen_decode(const etm_gen_t *g, uint32_t a)
{
    insn_t d;
    etm_thumb_insn_t t;
    memset(&d, 0, sizeof d);
    uint32_t op = rd16(g, a);
    d.size = etm_thumb_size(op);
    if (d.size == 4)
        op = op << 16 | rd16(g, a + 2);
    etm_thumb_decode(a, op, d.size, &t);
    d.kind = kind_of(&t);
    if (t.branch == ETM_THUMB_BR_DIRECT)
        d.target = t.target;
    d.nregs = t.nregs;
    d.is_return = d.kind == K_POPPC || (d.kind == K_BX && ((op >> 3) & 0xf) == 14); /* POP {pc}, BX lr */
    if (d.kind == K_IT)
        d.it_count = (t.it_mask & 1) ? 4 : (t.it_mask & 2) ? 3 : (t.it_mask & 4) ? 2 : 1;
    if (t.op == ETM_THUMB_LOAD || t.op == ETM_THUMB_STORE)
        d.msize = t.data_bytes;
    return d;
}

static uint16_t alu16(etm_gen_t *g)
{
    switch (gen_below(g, 4)) {
    case 0: return (uint16_t)(0x2000 | gen_below(g, 8) << 8 | gen_below(g, 256));             /* MOVS Rd,#imm */
    case 1: return (uint16_t)(0x1C00 | gen_below(g, 8) << 6 | gen_below(g, 8) << 3 | gen_below(g, 8)); /* ADDS */
    case 2: return (uint16_t)(0x2800 | gen_below(g, 8) << 8 | gen_below(g, 256));             /* CMP Rn,#imm */
    default: return (uint16_t)(0x4040 | gen_below(g, 8) << 3 | gen_below(g, 8));              /* EORS */
    }
}

static uint8_t reglist(etm_gen_t *g)
{
    uint8_t l = (uint8_t)(1u << gen_below(g, 8));
    while (gen_pct(g, 40))
        l |= (uint8_t)(1u << gen_below(g, 8));
    return l;
}

/* Write an ALU instruction of at most `room` bytes at a (for IT bodies and fallbacks). */
void gen_synth_alu(etm_gen_t *g, uint32_t a, int allow32, unsigned tag)
{
    if (allow32 && gen_space_free(g, a, 4) && gen_pct(g, 25)) {
        wr16(g, a, (uint16_t)(0xEB00 | gen_below(g, 13)), tag);
        wr16(g, a + 2, (uint16_t)(gen_below(g, 13) << 8 | gen_below(g, 13)), H_SECOND);
    } else {
        wr16(g, a, alu16(g), tag);
    }
}

/* LDR/STR 16-bit; with data_mix also byte or halfword, or STREX Rd,Rt,[Rn]. */
static void synth_ldst16(etm_gen_t *g, uint32_t a, int room32)
{
    if (g->p.data_mix && gen_pct(g, 40)) { /* ... byte or halfword; or STREX Rd,Rt,[Rn] */
        if (room32 && gen_pct(g, 25)) {
            wr16(g, a, (uint16_t)(0xE840 | gen_below(g, 13)), H_START);
            wr16(g, a + 2, (uint16_t)(gen_below(g, 13) << 12 | gen_below(g, 13) << 8), H_SECOND);
            return;
        }
        uint16_t op = gen_pct(g, 50) ? (gen_pct(g, 60) ? 0x7800 : 0x7000) : (gen_pct(g, 60) ? 0x8800 : 0x8000);
        wr16(g, a, (uint16_t)(op | gen_below(g, 32) << 6 | gen_below(g, 8) << 3 | gen_below(g, 8)), H_START);
        return;
    }
    wr16(g, a, (uint16_t)((gen_pct(g, 60) ? 0x6800 : 0x6000) | gen_below(g, 32) << 6 | gen_below(g, 8) << 3 | gen_below(g, 8)),
         H_START);
}

/* B<c> to a place a branch may land, either way. Returns 0 when none was found. */
static int synth_bcond(etm_gen_t *g, uint32_t a)
{
    for (int t = 0; t < 8; t++) {
        int off = (int)gen_below(g, 256) - 128;
        uint32_t to = a + 4 + (uint32_t)(off * 2);
        if (to != a && to != a + 2 && landable(g, to)) {
            wr16(g, a, (uint16_t)(0xD000 | gen_below(g, 14) << 8 | (uint8_t)off), H_START);
            gen_reserve(g, to);
            return 1;
        }
    }
    return 0;
}

/* B (16-bit), forward to free space. Returns 0 when none was found. */
static int synth_b16(etm_gen_t *g, uint32_t a)
{
    for (int t = 0; t < 8; t++) {
        unsigned off = 2 + gen_below(g, 1000);
        uint32_t to = a + 4 + off * 2;
        if (gen_space_free(g, to, 8)) {
            wr16(g, a, (uint16_t)(0xE000 | off), H_START);
            return 1;
        }
    }
    return 0;
}

/* B.W forward to a fresh place. Returns 0 when it is not forward or not free. */
static int synth_bw(etm_gen_t *g, uint32_t a)
{
    uint32_t to = fresh_place(g, a);
    if (to > a + 4 && gen_space_free(g, to, 8)) {
        uint16_t h1, h2;
        enc_bl_like(a, to, 0, &h1, &h2);
        wr16(g, a, h1, H_START);
        wr16(g, a + 2, h2, H_SECOND);
        return 1;
    }
    return 0;
}

/* BL to a function, always forward (see the top of gen.c). Returns 0 when the
 * chosen entry does not fit. */
static int synth_bl(etm_gen_t *g, uint32_t a)
{
    uint32_t to = g->nentries && gen_pct(g, 50) ? g->entries[gen_below(g, g->nentries)] : fresh_place(g, a);
    if (window_of(g, to) != window_of(g, a) || !landable(g, to) || to <= a + 4)
        return 0;
    add_entry(g, to);
    uint16_t h1, h2;
    enc_bl_like(a, to, 1, &h1, &h2);
    wr16(g, a, h1, H_START);
    wr16(g, a + 2, h2, H_SECOND);
    return 1;
}

/* CBZ/CBNZ forward. Returns 0 when the target cannot be landed on. */
static int synth_cbz(etm_gen_t *g, uint32_t a)
{
    unsigned off = gen_below(g, 64); /* i:imm5 */
    uint32_t to = a + 4 + off * 2;
    if (!landable(g, to) || to == a + 2)
        return 0;
    wr16(g, a, (uint16_t)(0xB100 | (gen_pct(g, 50) ? 0x0800 : 0) | (off >> 5) << 9 | (off & 0x1f) << 3 |
                          gen_below(g, 8)), H_START);
    gen_reserve(g, to);
    return 1;
}

/* Return: BX LR or POP {..,pc}, more likely with calls or in handlers. Returns 0
 * when this one is skipped. */
static int synth_return(etm_gen_t *g, uint32_t a, int in_handler)
{
    if (g->ncalls == 0 && !in_handler && gen_pct(g, 70))
        return 0;
    if (gen_pct(g, 50))
        wr16(g, a, 0x4770, H_START);
    else
        wr16(g, a, (uint16_t)(0xBD00 | reglist(g)), H_START);
    return 1;
}

/* IT block with its conditional ALU instructions. Returns 0 when there is no room. */
static int synth_it(etm_gen_t *g, uint32_t a)
{
    unsigned n = 1 + gen_below(g, 4);
    if (!gen_space_free(g, a, 2 + 8 * n))
        return 0;
    unsigned cond = gen_below(g, 14);
    unsigned mask = n == 1 ? 0x8 : n == 2 ? 0x4 : n == 3 ? 0x2 : 0x1;
    for (unsigned k = 1; k < n; k++)
        if (gen_pct(g, 50))
            mask |= 1u << (4 - k);
    wr16(g, a, (uint16_t)(0xBF00 | cond << 4 | mask), H_START);
    uint32_t p = a + 2;
    for (unsigned k = 0; k < n; k++) {
        gen_synth_alu(g, p, 1, H_ITBODY);
        p += gen_tag_at(g, p + 2) == H_SECOND ? 4 : 2;
    }
    return 1;
}

/* One try of the synthesizer with the random number r (0..999), which picks the
 * kind of instruction. Returns 0 when nothing was written: try again. */
static int synth_try(etm_gen_t *g, uint32_t a, unsigned r, int room32, int in_handler)
{
    if (r < 300) {
        gen_synth_alu(g, a, 1, H_START);
        return 1;
    }
    if (r < 380) { /* LDR/STR 16-bit */
        synth_ldst16(g, a, room32);
        return 1;
    }
    if (r < 420 && room32) { /* LDR.W Rt,[Rn,#imm12] */
        wr16(g, a, (uint16_t)(0xF8D0 | gen_below(g, 13)), H_START);
        wr16(g, a + 2, (uint16_t)(gen_below(g, 13) << 12 | (gen_below(g, 1024) & ~3u)), H_SECOND);
        return 1;
    }
    if (r < 460) { /* LDM/STM/PUSH */
        unsigned which = gen_below(g, 3);
        uint16_t base16 = which == 0 ? 0xC800 : which == 1 ? 0xC000 : 0xB500;
        wr16(g, a, (uint16_t)(base16 | (which < 2 ? gen_below(g, 8) << 8 : 0) | reglist(g)), H_START);
        return 1;
    }
    if (r < 480 && room32) { /* SDIV/UDIV */
        wr16(g, a, (uint16_t)((gen_pct(g, 50) ? 0xFB90 : 0xFBB0) | gen_below(g, 13)), H_START);
        wr16(g, a + 2, (uint16_t)(0xF0F0 | gen_below(g, 13) << 8 | gen_below(g, 13)), H_SECOND);
        return 1;
    }
    if (r < 580) /* B<c> */
        return synth_bcond(g, a);
    if (r < 620) /* B (16-bit), forward to free space */
        return synth_b16(g, a);
    if (r < 640 && room32) /* B.W forward */
        return synth_bw(g, a);
    if (r < 680 && room32) /* BL to a function, always forward */
        return synth_bl(g, a);
    if (r < 710) /* CBZ/CBNZ forward */
        return synth_cbz(g, a);
    if (r < 760) /* return: BX LR or POP {..,pc} */
        return synth_return(g, a, in_handler);
    if (r < 780) { /* BX Rm (not LR) */
        wr16(g, a, (uint16_t)(0x4700 | gen_below(g, 14) << 3), H_START);
        return 1;
    }
    if (r < 800) { /* BLX Rm */
        wr16(g, a, (uint16_t)(0x4780 | gen_below(g, 14) << 3), H_START);
        return 1;
    }
    if (r < 810 && room32) { /* LDR pc,[Rn,#imm] */
        wr16(g, a, (uint16_t)(0xF8D0 | gen_below(g, 13)), H_START);
        wr16(g, a + 2, (uint16_t)(0xF000 | (gen_below(g, 1024) & ~3u)), H_SECOND);
        return 1;
    }
    if (r < 880) /* IT block with its conditional ALU instructions */
        return synth_it(g, a);
    if (r < 885 && !in_handler) { /* SVC */
        wr16(g, a, (uint16_t)(0xDF00 | gen_below(g, 256)), H_START);
        return 1;
    }
    if (r >= 885) {
        gen_synth_alu(g, a, 1, H_START);
        return 1;
    }
    return 0;
}

/* Write a new instruction at a (a is free). */
void gen_synthesize(etm_gen_t *g, uint32_t a)
{
    uint32_t base = window_base(g, a);
    int room32 = gen_space_free(g, a, 4);
    if (a - base + 96 > WIN) { /* near the end of the window: jump away */
        wr16(g, a, (uint16_t)(0x4700 | gen_below(g, 8) << 3), H_START); /* BX Rm */
        return;
    }
    int in_handler = g->nexc > 0;
    for (;;) {
        unsigned r = gen_below(g, 1000);
        if (synth_try(g, a, r, room32, in_handler))
            return;
    }
}

/* Make sure a place a branch may come back to holds an instruction. */
void gen_reserve(etm_gen_t *g, uint32_t a)
{
    if (gen_tag_at(g, a) == H_FREE)
        wr16(g, a, alu16(g), H_START);
}

