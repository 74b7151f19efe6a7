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
 *
 * This file has the parameters, the cycle queue and the executor; gen_code.c
 * the code image and the synthesizer, gen_data.c the data transfers.
 */
#include "etm/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_int.h"
#include "util.h"

/* ---- Interrupts --------------------------------------------------------------------- */

/* The cycle of the next asynchronous exception: about irq_period cycles after now
 * (never with irq_period 0). */
static void schedule_irq(etm_gen_t *g, uint64_t now)
{
    if (g->p.irq_period)
        g->next_irq = now + 1 + gen_below(g, 2 * g->p.irq_period);
    else
        g->next_irq = UINT64_MAX;
}

/* ---- Parameters ------------------------------------------------------------------ */

size_t etm_gen_params_size(void) { return sizeof(etm_gen_params_t); }

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
    p->atb_stall_pct = 0;
    p->atb_burst = 1;
}

etm_err_t etm_gen_create(etm_gen_t **out, const etm_gen_params_t *p, etm_diag_t *diag)
{
    *out = NULL;
    if (p->issue_width < 1 || p->issue_width > 2)
        return etm_util_fail(diag, ETM_ERR_ARG, "issue width %u: must be 1 or 2", p->issue_width);
    if (p->max_intnum < 16 || p->max_intnum > 511)
        return etm_util_fail(diag, ETM_ERR_ARG, "highest exception number %u: must be 16 to 511", p->max_intnum);
    if (p->stall_pct > 100 || p->fold_pct > 100)
        return etm_util_fail(diag, ETM_ERR_ARG, "stall %u %%, fold %u %%: a percentage is 0 to 100", p->stall_pct,
                             p->fold_pct);
    if (p->sleep_pct > 1000)
        return etm_util_fail(diag, ETM_ERR_ARG, "sleep %u per mille: 0 to 1000", p->sleep_pct);
    if (p->data_delay > 16)
        return etm_util_fail(diag, ETM_ERR_ARG, "data value delay %u: at most 16 extra cycles", p->data_delay);
    if (p->atb_stall_pct > 99)
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "ATB stall share %u%%: at most 99 (a sink that never takes trace drains nothing)",
                             p->atb_stall_pct);
    if (p->atb_stall_pct && (p->atb_burst < 1 || p->atb_burst > 1000000))
        return etm_util_fail(diag, ETM_ERR_ARG, "ATB stall burst %u: 1 to 1000000 cycles", p->atb_burst);
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
    etm_atb_stall_init(&g->atb, p->atb_stall_pct, p->atb_burst, p->seed ^ 0xA7B0A7B0ull);
    g->pc = p->thread_base + 0x100;
    schedule_irq(g, 0);
    /* Handler entries hold an instruction from the start, so that code running
     * past one handler never covers another's entry with half an instruction. */
    for (uint16_t n = 0; n < 200; n++)
        gen_reserve(g, p->handler_base + 0x100 + (uint32_t)n * 0x140);
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

/* ---- Cycle queue ------------------------------------------------------------------- */

/* A new cycle at the end of the queue, in the current context. */
qent_t *gen_push_cycle(etm_gen_t *g)
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
        gen_push_cycle(g);
}

/* ---- Execution ----------------------------------------------------------------------- */

/* The cycle in which an instruction is signalled: applies the pending branch and
 * exception flags and logs the instruction. */
static qent_t *signal_insn(etm_gen_t *g, uint32_t a, unsigned size, int passed, int is_it)
{
    qent_t *e = gen_push_cycle(g);
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
    if (gen_pct(g, 25))
        return system[gen_below(g, sizeof system / sizeof system[0])];
    return (uint16_t)(16 + gen_below(g, g->p.max_intnum - 15));
}

static uint32_t handler_addr(const etm_gen_t *g, uint16_t num)
{
    return g->p.handler_base + 0x100 + (uint32_t)(num % 200) * 0x140;
}

/* Exception entry after the current cycles: stacking, then the handler's first
 * instruction carries ETMINTSTAT=entry. */
static void exception_entry(etm_gen_t *g, uint16_t num, uint32_t ret, int cancel, int tail_chain)
{
    qent_t *e = gen_push_cycle(g);
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
    idle_cycles(g, (tail_chain ? 5 : 10) + gen_below(g, 2));
    if (!tail_chain) {
        gen_reserve(g, ret);
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
    g->next_event.tailchain = (uint8_t)(tail_chain != 0);
    g->has_next_event = 1;
}

/* Exception return after the return instruction: exit, then unstacking and the
 * first instruction back in the interrupted context (or a tail-chain). */
static void exception_return(etm_gen_t *g)
{
    qent_t *e = gen_push_cycle(g);
    e->in.intstat = ETM_INTSTAT_EXIT;
    e->in.intnum = g->cur_num;
    e->in.flush = 1;
    e->in.findbr = 1;
    if (g->p.irq_period && (g->cycle + g->qlen >= g->next_irq || gen_pct(g, 15))) { /* pending: tail-chain */
        schedule_irq(g, g->cycle + g->qlen);
        g->ncalls = g->exc[g->nexc - 1].call_base;
        exception_entry(g, pick_intnum(g), 0, 0, 1);
        return;
    }
    idle_cycles(g, 9 + gen_below(g, 2));
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
    qent_t *e = gen_push_cycle(g);
    e->in.flush = 1;
    e->in.findbr = (uint8_t)indirect;
    gen_push_cycle(g);
    g->pc = to;
    g->next_ibranch = 1;
    g->next_iindbr = indirect;
}

/* Dual issue: the target of an indirect branch retires in slot 1 of the
 * branch's own cycle, when it is a simple ALU instruction. */
static int slot1_target(etm_gen_t *g, qent_t *e, uint32_t to)
{
    if (g->p.issue_width < 2 || !gen_pct(g, 25))
        return 0;
    if (gen_tag_at(g, to) == H_FREE)
        gen_synthesize(g, to);
    insn_t d = gen_decode(g, to);
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
    taken_branch(g, gen_indirect_target(g, from), 1);
    return 0;
}

/* An asynchronous exception between instructions (not before the first
 * instruction of a new context: that would be a late arrival, which the core
 * resolves before signalling anything). Returns 1 when it is entered. */
static int async_exception(etm_gen_t *g)
{
    if (g->cycle + g->qlen >= g->next_irq && !g->has_next_event) {
        schedule_irq(g, g->cycle + g->qlen);
        if (g->nexc < MAX_NEST) {
            exception_entry(g, pick_intnum(g), g->pc, 0, 0);
            return 1;
        }
    }
    return 0;
}

/* Fold: a 16-bit ALU instruction outside an IT block followed by an IT. Returns 1
 * when the pair was signalled. */
static int try_fold(etm_gen_t *g, uint32_t a, const insn_t *d, int in_it)
{
    if (d->kind == K_ALU16 && !in_it && g->p.fold_pct) {
        uint32_t b = a + 2;
        if (gen_tag_at(g, b) == H_START && gen_decode(g, b).kind == K_IT && gen_pct(g, g->p.fold_pct)) {
            insn_t it = gen_decode(g, b);
            qent_t *e = signal_insn(g, a, 2, 1, 0);
            e->in.fold = 1;
            etm_gen_event_t ev = e->ev[e->nev - 1];
            ev.addr = b;
            ev.is_it = 1;
            add_event(e, &ev);
            g->it_left = it.it_count;
            g->pc = a + 4;
            return 1;
        }
    }
    return 0;
}

/* ALU instruction signalled in e; with dual issue a following ALU instruction
 * retires in slot 1. */
static void exec_alu(etm_gen_t *g, qent_t *e, uint32_t next)
{
    g->pc = next;
    /* Dual issue: a following ALU instruction retires in slot 1. */
    if (g->p.issue_width > 1 && gen_pct(g, 40)) {
        if (gen_tag_at(g, next) == H_FREE && gen_space_free(g, next, 2))
            gen_synth_alu(g, next, 1, H_START);
        if (gen_tag_at(g, next) == H_START || gen_tag_at(g, next) == H_ITBODY) {
            insn_t d2 = gen_decode(g, next);
            if (d2.kind == K_ALU16 || d2.kind == K_ALU32) {
                int in_it2 = g->it_left > 0;
                int passed2 = in_it2 ? gen_pct(g, 60) : 1;
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
}

/* Load, store, load/store multiple, divide at a: its extra cycles and its data
 * transfers. Returns 1 when an exception arrived during the extra cycles and
 * cancelled it. */
static int exec_memory(etm_gen_t *g, const insn_t *d, uint32_t a, unsigned first, int passed)
{
    unsigned extra = d->kind == K_DIV ? 1 + gen_below(g, 11)
                     : (d->kind == K_LDM || d->kind == K_STM || d->kind == K_PUSH) ? d->nregs : 1;
    /* An exception may arrive during the extra cycles and cancel it. */
    uint64_t start = tail_cycle(g);
    if (g->next_irq > start && g->next_irq <= start + extra && g->nexc < MAX_NEST && passed) {
        unsigned k = (unsigned)(g->next_irq - start);
        idle_cycles(g, k - 1);
        schedule_irq(g, g->next_irq);
        exception_entry(g, pick_intnum(g), a, 1, 0);
        return 1;
    }
    idle_cycles(g, extra);
    if (passed && d->kind != K_DIV) {
        int single = d->kind == K_LDR || d->kind == K_STR || d->kind == K_LDRW || d->kind == K_STREX;
        xspec_t xs = { single ? 1 : d->nregs, d->msize ? d->msize : 4,
                       d->kind == K_STR || d->kind == K_STREX || d->kind == K_STM || d->kind == K_PUSH,
                       d->kind != K_PUSH && d->kind != K_STREX, d->kind == K_STREX, 0, a };
        gen_data_transfers(g, first, &xs);
    }
    g->pc = a + d->size;
    return 0;
}

/* BX, POP {..,pc} at a: a return (maybe an exception return), or an indirect
 * branch to a random place. */
static void exec_indirect(etm_gen_t *g, qent_t *e, const insn_t *d, uint32_t a, unsigned first)
{
    if (d->kind == K_POPPC) {
        idle_cycles(g, d->nregs);
        xspec_t xs = { d->nregs, 4, 0, 0, 0, 1, a };
        gen_data_transfers(g, first, &xs);
    }
    if (d->is_return) {
        if (do_return(g, a))
            exception_return(g);
    } else {
        uint32_t to = gen_indirect_target(g, a);
        if (d->kind == K_POPPC || !slot1_target(g, e, to))
            taken_branch(g, to, 1);
    }
}

/* Execute instruction d at a, signalled in queue entry e (number `first` of the
 * queue). Returns 0 when an exception cancelled it. */
static int execute(etm_gen_t *g, const insn_t *d, uint32_t a, qent_t *e, unsigned first, int passed)
{
    uint32_t next = a + d->size;
    switch (d->kind) {
    case K_ALU16:
    case K_ALU32:
        exec_alu(g, e, next);
        break;
    case K_IT:
        g->it_left = d->it_count;
        g->pc = next;
        break;
    case K_LDR:
    case K_STR:
    case K_LDRW:
    case K_STREX:
    case K_LDM:
    case K_STM:
    case K_PUSH:
    case K_DIV:
        if (exec_memory(g, d, a, first, passed))
            return 0;
        break;
    case K_BCOND:
    case K_CBZ: {
        int taken = gen_pct(g, 50);
        e->in.iccfail = (uint8_t)!taken;
        e->ev[e->nev - 1].passed = (uint8_t)taken;
        if (taken)
            taken_branch(g, d->target, 0);
        else
            g->pc = next;
        break;
    }
    case K_B:
    case K_BW:
        taken_branch(g, d->target, 0);
        break;
    case K_BL:
        if (g->ncalls < MAX_CALLS)
            g->calls[g->ncalls++] = next;
        taken_branch(g, d->target, 0);
        break;
    case K_BLX: {
        if (g->ncalls < MAX_CALLS)
            g->calls[g->ncalls++] = next;
        uint32_t to = gen_indirect_target(g, a);
        if (!slot1_target(g, e, to))
            taken_branch(g, to, 1);
        break;
    }
    case K_BX:
    case K_POPPC:
        exec_indirect(g, e, d, a, first);
        break;
    case K_LDRPC: {
        idle_cycles(g, 1);
        xspec_t xs = { 1, 4, 0, 0, 0, 0, a };
        gen_data_transfers(g, first, &xs);
        taken_branch(g, gen_indirect_target(g, a), 1);
        break;
    }
    case K_SVC:
        if (g->nexc < MAX_NEST)
            exception_entry(g, 11, next, 0, 0);
        else
            g->pc = next;
        break;
    }
    return 1;
}

/* Execute one instruction (or a folded pair, or a dual-issued pair). */
static void step(etm_gen_t *g)
{
    if (async_exception(g))
        return;
    /* Instruction fetch stalls. */
    if (gen_pct(g, g->p.stall_pct)) {
        unsigned n = 1 + gen_below(g, 3);
        for (unsigned i = 0; i < n; i++)
            gen_push_cycle(g)->in.istall = 1;
    }
    uint32_t a = g->pc;
    if (gen_tag_at(g, a) == H_FREE)
        gen_synthesize(g, a);
    insn_t d = gen_decode(g, a);
    int in_it = g->it_left > 0;
    int passed = in_it ? gen_pct(g, 60) : 1;
    if (in_it)
        g->it_left--;

    if (try_fold(g, a, &d, in_it))
        return;

    unsigned first = g->qlen;
    qent_t *e = signal_insn(g, a, d.size, d.kind == K_BCOND || d.kind == K_CBZ ? 1 : passed, d.kind == K_IT);
    if (!execute(g, &d, a, e, first, passed))
        return;
    /* A long idle gap (WFI) now and then; an exception ends it. */
    if (g->p.sleep_pct && gen_below(g, 1000) < g->p.sleep_pct)
        g->sleep_left = 50 + gen_below(g, 3000);
}

void etm_gen_last_xfer(const etm_gen_t *g, etm_gen_xfer_t *x) { *x = g->last_x; }

void etm_atb_stall_init(etm_atb_stall_t *s, unsigned pct, unsigned burst, uint64_t seed)
{
    s->rng = seed * 0xD1342543DE82EF95ull + 1;
    s->pct = pct;
    s->burst = burst ? burst : 1;
    s->stalled = 0;
}

int etm_atb_stall_next(etm_atb_stall_t *s)
{
    if (!s->pct)
        return 0;
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    double u = (double)(s->rng >> 11) / 9007199254740992.0; /* [0, 1) */
    double f = s->pct / 100.0, leave = 1.0 / s->burst;
    double enter = f >= 1.0 ? 1.0 : f * leave / (1.0 - f);
    s->stalled = s->stalled ? u >= leave : u < enter;
    return s->stalled;
}

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
    if (g->p.triggers && gen_pct(g, 2)) {
        in->trigger = (uint8_t)(1u << gen_below(g, 4));
        in->triginotd = (uint8_t)gen_below(g, 16);
    }
    in->atstall = (uint8_t)etm_atb_stall_next(&g->atb);
    unsigned n = e->nev;
    if (events)
        memcpy(events, e->ev, n * sizeof *events);
    g->cycle++;
    return n;
}

void etm_gen_fill(etm_gen_t *g, etm_in_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        etm_gen_next(g, &in[i], NULL);
}
