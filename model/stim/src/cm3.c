/* cm3.c - Cortex-M3 timing model: executed instructions to ETM interface
 * signals, cycle by cycle (etm/cm3.h, docs/cm3-timing.md).
 *
 * This file has the timing parameters and the model; cm3_classify.c the
 * instruction classifier, cm3_text.c the text form of a record.
 */
#include "etm/cm3.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- Parameters ------------------------------------------------------------------ */

typedef struct param_desc {
    const char *name;
    size_t offset;
    unsigned def, max;
    const char *doc;
} param_desc_t;

#define P(field, def, max, doc) { #field, offsetof(etm_cm3_params_t, field), def, max, doc }
static const param_desc_t params[] = {
    P(refill, 2, 16, "P: pipeline refill cycles after a PC change (TRM: 1 to 3)"),
    P(refill_unaligned, 1, 16, "extra refill cycle when the target is a 32-bit instruction not word-aligned"),
    P(load, 2, 16, "LDR/STR single (TRM: 2)"),
    P(ldst_pipeline, 1, 1, "1: a load/store single right after a load single that does not feed its address takes one cycle less"),
    P(agu_stall, 1, 16, "cycles a load/store waits when the instruction before it wrote its address register"),
    P(mla, 2, 16, "MLA, MLS (TRM: 2)"),
    P(mull, 3, 16, "SMULL, UMULL: fewest cycles; +1 per operand wider than 16 bits (TRM: 3 to 5)"),
    P(mlal, 4, 16, "SMLAL, UMLAL: fewest cycles; +1, +3 for one, two operands wider than 16 bits (TRM: 4 to 7)"),
    P(div_min, 2, 64, "SDIV, UDIV: cycles when the quotient is 0 (TRM: 2 to 12)"),
    P(div_max, 12, 64, "SDIV, UDIV: cycles for a 32-bit quotient"),
    P(exc_entry, 12, 64, "exception entry: first entry cycle to the handler's first instruction (TRM: 12)"),
    P(exc_return, 10, 64, "exception return: end of the returning instruction to the interrupted code (Arm: 10)"),
    P(tail_chain, 6, 64, "tail-chaining: end of one handler to the first instruction of the next (TRM: 6)"),
    P(fold, 1, 1, "1: an IT after a single-cycle 16-bit instruction is folded into it (ETMFOLD)"),
    P(cancel, 1, 1, "1: an interrupt taken before a multi-cycle load, store, multiply or divide interrupts it (ETMCANCEL)"),
    P(mmio_wait, 0, 16, "wait states of each load/store to device memory"),
    P(ppb_apb, 1, 16, "cycles a load/store to the debug APB (external PPB: TPIU, ETM) adds to its own: with 1, "
                      "its APB setup and access phases and the response's way back fill its last three cycles"),
};
#undef P
#define NPARAMS (sizeof params / sizeof params[0])

static unsigned *param_ptr(etm_cm3_params_t *p, unsigned i) { return (unsigned *)(void *)((char *)p + params[i].offset); }

void etm_cm3_params_default(etm_cm3_params_t *p)
{
    memset(p, 0, sizeof *p);
    for (unsigned i = 0; i < NPARAMS; i++)
        *param_ptr(p, i) = params[i].def;
}

etm_err_t etm_cm3_param_set(etm_cm3_params_t *p, const char *name, unsigned value, etm_diag_t *diag)
{
    for (unsigned i = 0; i < NPARAMS; i++) {
        if (!strcmp(params[i].name, name)) {
            if (value > params[i].max)
                return etm_util_fail(diag, ETM_ERR_ARG, "timing parameter %s: %u is more than %u", name, value,
                                     params[i].max);
            *param_ptr(p, i) = value;
            return ETM_OK;
        }
    }
    return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "no timing parameter is called '%s'", name);
}

int etm_cm3_param_get(const etm_cm3_params_t *p, unsigned i, const char **name, const char **doc, unsigned *value)
{
    if (i >= NPARAMS)
        return 0;
    if (name)
        *name = params[i].name;
    if (doc)
        *doc = params[i].doc;
    if (value)
        *value = *(const unsigned *)(const void *)((const char *)p + params[i].offset);
    return 1;
}

/* ---- The model ---------------------------------------------------------------------- */

#define CQ 512u /* cycle queue: the most one instruction and what follows it produce, with room */

typedef struct cyc {
    etm_in_t in;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    unsigned nev;
} cyc_t;

struct etm_cm3 {
    etm_cm3_params_t p;
    etm_cm3_insn_t cur;       /* the instruction waiting for its successor */
    etm_cm3_class_t cur_c;
    int have_cur, finished;
    /* Facts about the instruction before `cur` (same context). */
    etm_cm3_class_t prev_c;
    int have_prev, prev_executed;
    unsigned prev_cycles;
    /* What the next signalled instruction carries. */
    int next_ibranch, next_iindbr;
    uint8_t next_intstat;
    uint16_t next_intnum;
    etm_gen_event_t next_event;
    int has_next_event;
    int skip_it;              /* the IT that comes next was folded into the instruction before */
    uint16_t cur_num;         /* ETMINTNUM: exception number of the context */
    cyc_t q[CQ];
    unsigned qhead, qlen;
    uint64_t cycle;           /* number of the cycle at q[qhead] */
    int hold;                 /* etm_cm3_stall: the next cycle is a held one */
    uint16_t last_num;        /* ETMINTNUM of the last cycle given out */
    uint64_t index;           /* instructions put */
    etm_cm3_stats_t st;
};

etm_err_t etm_cm3_create(etm_cm3_t **out, const etm_cm3_params_t *p, etm_diag_t *diag)
{
    *out = NULL;
    etm_cm3_params_t d;
    if (!p) {
        etm_cm3_params_default(&d);
        p = &d;
    }
    for (unsigned i = 0; i < NPARAMS; i++)
        if (*(const unsigned *)(const void *)((const char *)p + params[i].offset) > params[i].max)
            return etm_util_fail(diag, ETM_ERR_ARG, "timing parameter %s is more than %u", params[i].name,
                                 params[i].max);
    if (p->exc_entry < 1 || p->exc_return < 1 || p->tail_chain < 1 || p->load < 1 || p->mla < 1 || p->mull < 1 ||
        p->mlal < 1 || p->div_min < 1 || p->div_max < p->div_min)
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "timing parameters: exception latencies and instruction cycles must be at least 1, "
                             "div_max at least div_min");
    etm_cm3_t *m = (etm_cm3_t *)calloc(1, sizeof *m);
    if (!m)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    m->p = *p;
    *out = m;
    return ETM_OK;
}

void etm_cm3_free(etm_cm3_t *m) { free(m); }

const etm_cm3_stats_t *etm_cm3_get_stats(const etm_cm3_t *m) { return &m->st; }

static cyc_t *push(etm_cm3_t *m)
{
    /* The queue cannot overflow: put() refuses new input until it is empty, and one
     * instruction yields at most ~100 cycles. */
    cyc_t *c = &m->q[(m->qhead + m->qlen) % CQ];
    memset(c, 0, sizeof *c);
    c->in.intnum = m->cur_num;
    m->qlen++;
    m->st.cycles++;
    return c;
}

static void add_event(cyc_t *c, const etm_gen_event_t *ev)
{
    if (c->nev < ETM_GEN_MAX_EVENTS)
        c->ev[c->nev++] = *ev;
}

static void idle(etm_cm3_t *m, unsigned n, int stall)
{
    for (unsigned i = 0; i < n; i++)
        push(m)->in.istall = (uint8_t)stall;
    if (stall)
        m->st.stall_cycles += n;
}

/* The cycle in which an instruction enters execute. */
static cyc_t *signal(etm_cm3_t *m, uint32_t addr, unsigned size, int executed, int is_it)
{
    cyc_t *c = push(m);
    c->in.ivalid = 1;
    c->in.ia = addr;
    c->in.iccfail = (uint8_t)!executed;
    c->in.ibranch = (uint8_t)m->next_ibranch;
    c->in.iindbr = (uint8_t)m->next_iindbr;
    c->in.intstat = m->next_intstat;
    c->in.intnum = m->next_intstat ? m->next_intnum : m->cur_num;
    if (m->has_next_event) {
        add_event(c, &m->next_event);
        m->has_next_event = 0;
    }
    etm_gen_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETM_GEN_EV_INSN;
    ev.size = (uint8_t)size;
    ev.passed = (uint8_t)executed;
    ev.is_it = (uint8_t)is_it;
    ev.addr = addr;
    add_event(c, &ev);
    m->next_ibranch = m->next_iindbr = 0;
    m->next_intstat = 0;
    return c;
}

static unsigned sigbits(uint32_t v)
{
    unsigned n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* The debug APB behind the Cortex-M3's external private peripheral bus
 * (0xE0040000-0xE00FFFFF: the TPIU, the ETM, the vendor's blocks): a load or
 * store there holds the core until the APB transfer is done, as the STM32F105
 * capture shows (its first traced instruction is the one after the store that
 * clears ETMCR[10], its last the store that sets it: docs/silicon.md). */
static int ppb_apb(uint32_t addr) { return addr >= 0xE0040000u && addr <= 0xE00FFFFFu; }

/* The TPIU's and the ETM's 4 KB on it (DDI 0337 table 2-3). */
#define CM3_TPIU_BASE 0xE0040000u
#define CM3_ETM_BASE 0xE0041000u

/* Execute cycles of an instruction (without refill). */
static unsigned exec_cycles(const etm_cm3_t *m, const etm_cm3_insn_t *r, const etm_cm3_class_t *c, int *agu)
{
    const etm_cm3_params_t *p = &m->p;
    *agu = 0;
    if (!r->executed)
        return 1;
    unsigned n = 1, wait = 0;
    for (unsigned i = 0; i < r->nmem && i < ETM_CM3_MAX_MEM; i++) {
        if (ppb_apb(r->mem[i].addr))
            wait = p->ppb_apb;
        else if (r->mem[i].io && wait < p->mmio_wait)
            wait = p->mmio_wait;
    }
    int same_ctx = r->ctx == ETM_CM3_CTX_SAME && m->have_prev;
    int memop = c->kind == ETM_CM3_K_LOAD || c->kind == ETM_CM3_K_STORE || c->kind == ETM_CM3_K_LDRD ||
                c->kind == ETM_CM3_K_STRD || c->kind == ETM_CM3_K_LDM || c->kind == ETM_CM3_K_STM ||
                c->kind == ETM_CM3_K_TB;
    if (memop && same_ctx && m->prev_executed && p->agu_stall) {
        etm_cm3_kind_t pk = m->prev_c.kind;
        int dp = pk == ETM_CM3_K_ALU || pk == ETM_CM3_K_MUL || pk == ETM_CM3_K_MLA || pk == ETM_CM3_K_MULL ||
                 pk == ETM_CM3_K_MLAL || pk == ETM_CM3_K_DIV;
        if (dp && !m->prev_c.writes_pc && (m->prev_c.writes & c->addr_regs))
            *agu = (int)p->agu_stall;
    }
    switch (c->kind) {
    case ETM_CM3_K_MLA: n = p->mla; break;
    case ETM_CM3_K_MULL:
    case ETM_CM3_K_MLAL: {
        unsigned wide = 1; /* unknown operands: one wide */
        if (r->nval >= 2) {
            int sgn = ((r->opcode >> 16) & 0x20) == 0; /* SMULL FB8x, SMLAL FBCx: bit 5 of hw1 clear */
            uint32_t a = r->val[0], b = r->val[1];
            if (sgn) {
                a = (a & 0x80000000u) ? ~a : a;
                b = (b & 0x80000000u) ? ~b : b;
            }
            wide = (sigbits(a) > 16) + (sigbits(b) > 16);
        }
        n = c->kind == ETM_CM3_K_MULL ? p->mull + wide : p->mlal + wide + (wide == 2);
        break;
    }
    case ETM_CM3_K_DIV: {
        if (r->nval < 2) {
            n = (p->div_min + p->div_max + 1) / 2;
            break;
        }
        uint32_t a = r->val[0], b = r->val[1];
        if (!((r->opcode >> 16) & 0x20)) { /* SDIV FB9x: magnitudes */
            a = (a & 0x80000000u) ? 0u - a : a;
            b = (b & 0x80000000u) ? 0u - b : b;
        }
        if (b == 0 || a < b) {
            n = p->div_min;
        } else {
            unsigned q = sigbits(a) - sigbits(b) + 1; /* significant bits of the quotient, 1..32 */
            n = p->div_min + ((p->div_max - p->div_min) * q + 31) / 32;
        }
        break;
    }
    case ETM_CM3_K_LOAD:
    case ETM_CM3_K_STORE:
        n = p->load;
        if (p->ldst_pipeline && same_ctx && m->prev_executed && m->prev_c.kind == ETM_CM3_K_LOAD &&
            !m->prev_c.writes_pc && !(m->prev_c.writes & c->addr_regs) && !*agu && n > 1)
            n--;
        n += wait;
        break;
    case ETM_CM3_K_LDRD:
    case ETM_CM3_K_STRD: n = 3 + wait; break;
    case ETM_CM3_K_LDM:
    case ETM_CM3_K_STM: n = 1 + c->nregs + wait; break;
    case ETM_CM3_K_TB: n = 2 + wait; break;
    default: n = 1; break;
    }
    return n ? n : 1;
}

/* Interrupted instruction: may the exception that comes before `ret` be shown
 * as cancelling it in its second cycle? (TRM 16.1, ETMCANCEL: LDR/STR, LDRD/STRD,
 * LDM/STM, U/SMULL, MLA, U/SDIV, MSR, CPSID; not ones that change the PC or
 * the exception state.) */
static int cancellable(const etm_cm3_insn_t *e)
{
    if (!e->ret_valid || e->ret_in_it || !e->async)
        return 0;
    etm_cm3_class_t c;
    etm_cm3_classify(e->ret_addr, e->ret_opcode, e->ret_size, &c);
    if (c.writes_pc)
        return 0;
    switch (c.kind) {
    case ETM_CM3_K_LOAD: case ETM_CM3_K_STORE: case ETM_CM3_K_LDRD: case ETM_CM3_K_STRD:
    case ETM_CM3_K_LDM: case ETM_CM3_K_STM: case ETM_CM3_K_MULL: case ETM_CM3_K_MLAL:
    case ETM_CM3_K_MLA: case ETM_CM3_K_DIV:
        return 1;
    default:
        return 0;
    }
}

/* A load or store of r to the ETM's or the TPIU's registers, as the APB sees
 * it (PSEL for the ETM, PSELTPIU for the TPIU, the rest shared): the setup
 * and access phases in the instruction's third and second last cycles, its
 * last the response's way back to the core (n cycles queued for it, the last n
 * in the queue); an instruction of two cycles (ppb_apb 0, a what-if) has the
 * phases in both, and the next instruction meets the write's effect. A store
 * whose value the recording does not know is counted, not driven. */
static void drive_etm_apb(etm_cm3_t *m, const etm_cm3_insn_t *r, unsigned n)
{
    for (unsigned i = 0; i < r->nmem && i < ETM_CM3_MAX_MEM; i++) {
        const etm_cm3_mem_t *a = &r->mem[i];
        if (a->addr < CM3_TPIU_BASE || a->addr > CM3_ETM_BASE + 0xFFFu)
            continue;
        int tpiu = a->addr < CM3_ETM_BASE;
        if (a->write && !a->value_known) {
            m->st.etm_unknown_stores++;
            continue;
        }
        unsigned span = n >= 3 ? 3 : 2;
        if (n < 2 || m->qlen < span) {
            m->st.etm_undriven++;
            continue;
        }
        cyc_t *setup = &m->q[(m->qhead + m->qlen - span) % CQ], *acc = &m->q[(m->qhead + m->qlen - span + 1) % CQ];
        for (int k = 0; k < 2; k++) {
            etm_in_t *in = k ? &acc->in : &setup->in;
            in->psel = (uint8_t)!tpiu;
            in->pseltpiu = (uint8_t)tpiu;
            in->penable = (uint8_t)k;
            in->pwrite = a->write;
            in->paddr = (uint16_t)(a->addr & 0xFFCu);
            in->pwdata = a->write ? (uint32_t)a->value << 8 * (a->addr & 3u) : 0;
            in->paddrdbg31 = 0; /* software: the core, not the debugger */
        }
        if (tpiu)
            m->st.tpiu_accesses++;
        else
            m->st.etm_accesses++;
        return; /* one transfer an instruction: a single load or store */
    }
}

/* A PC change: ETMFLUSH in the first refill cycle, ETMISTALL in the others while
 * the target is fetched; the target will carry ETMIBRANCH (and ETMIINDBR). */
static void refill(etm_cm3_t *m, const etm_cm3_class_t *c, uint32_t to, unsigned to_size)
{
    unsigned n = m->p.refill;
    if (to_size == 4 && (to & 2))
        n += m->p.refill_unaligned;
    if (n == 0 && m->qlen) {
        /* No refill (a what-if): the flush rides on the instruction's last cycle. */
        cyc_t *last = &m->q[(m->qhead + m->qlen - 1) % CQ];
        last->in.flush = 1;
        last->in.findbr = (uint8_t)c->indirect;
    } else if (n) {
        cyc_t *f = push(m);
        f->in.flush = 1;
        f->in.findbr = (uint8_t)c->indirect;
        idle(m, n - 1, 1);
        m->st.stall_cycles -= n - 1; /* counted as refill, not as stalls */
    }
    m->st.refill_cycles += n;
    m->next_ibranch = 1;
    m->next_iindbr = c->indirect;
}

/* Cycles of m->cur, now that its successor `nx` is known (NULL at the end). */
static void emit(etm_cm3_t *m, const etm_cm3_insn_t *nx)
{
    const etm_cm3_insn_t *r = &m->cur;
    const etm_cm3_class_t *c = &m->cur_c;
    const etm_cm3_params_t *p = &m->p;
    int agu = 0, fold = 0;
    unsigned n = 0;

    m->cur_num = r->ipsr; /* ETMINTNUM: this instruction's context, until the next one's begins */
    if (m->skip_it) {
        /* An IT folded into the instruction before: no cycles of its own. */
        m->skip_it = 0;
        m->st.folds++;
    } else {
        n = exec_cycles(m, r, c, &agu);
        if (agu)
            idle(m, (unsigned)agu, 1);
        fold = p->fold && nx && r->size == 2 && r->executed && !r->in_it && n == 1 && !c->writes_pc &&
               c->kind != ETM_CM3_K_IT && c->kind != ETM_CM3_K_SVC && c->kind != ETM_CM3_K_BKPT &&
               nx->ctx == ETM_CM3_CTX_SAME && nx->addr == r->addr + 2 && nx->size == 2 && nx->executed &&
               (nx->opcode & 0xFF00) == 0xBF00 && (nx->opcode & 0xF);
        cyc_t *first = signal(m, r->addr, r->size, r->executed, c->kind == ETM_CM3_K_IT);
        if (fold) {
            first->in.fold = 1;
            etm_gen_event_t ev = first->ev[first->nev - 1];
            ev.addr = r->addr + 2;
            ev.size = 2;
            ev.passed = 1;
            ev.is_it = 1;
            add_event(first, &ev);
            m->skip_it = 1;
        }
        idle(m, n - 1, 0);
        if (r->executed)
            drive_etm_apb(m, r, n);
        if (c->wide_hint) /* ISB: the pipeline refills, the PC does not change */
            idle(m, p->refill, 1);
    }

    /* What follows: an exception, a return, a tail-chain, a PC change, or nothing. */
    int ctx = nx ? (int)nx->ctx : (int)ETM_CM3_CTX_SAME;
    if (ctx == ETM_CM3_CTX_ENTRY) {
        int cancel = p->cancel && cancellable(nx);
        if (cancel) {
            /* The interrupted instruction enters execute (after the refill if it is
             * a branch target), and in its second cycle the exception cancels it;
             * it runs again after the return. */
            if (r->taken)
                refill(m, c, nx->ret_addr, nx->ret_size);
            signal(m, nx->ret_addr, nx->ret_size, 1, 0);
        }
        cyc_t *e = push(m);
        e->in.flush = 1;
        e->in.findbr = 1;
        e->in.intstat = ETM_INTSTAT_FETCH;
        e->in.cancel = (uint8_t)cancel;
        if (cancel) {
            etm_gen_event_t ev;
            memset(&ev, 0, sizeof ev);
            ev.kind = ETM_GEN_EV_CANCEL;
            add_event(e, &ev);
            m->st.cancels++;
        }
        idle(m, p->exc_entry - 1, 0);
        m->st.exception_cycles += p->exc_entry;
    } else if (ctx == ETM_CM3_CTX_RETURN || ctx == ETM_CM3_CTX_TAILCHAIN) {
        cyc_t *e = push(m);
        e->in.flush = 1;
        e->in.findbr = 1;
        e->in.intstat = ETM_INTSTAT_EXIT;
        unsigned gap = ctx == ETM_CM3_CTX_RETURN ? p->exc_return : p->tail_chain;
        idle(m, gap - 1, 0);
        m->st.exception_cycles += gap;
    } else if (r->taken && nx) {
        refill(m, c, nx->addr, nx->size);
    }

    if (nx && ctx != ETM_CM3_CTX_SAME) {
        m->next_ibranch = m->next_iindbr = 1;
        m->next_intstat = ctx == ETM_CM3_CTX_RETURN ? ETM_INTSTAT_RETURN : ETM_INTSTAT_ENTRY;
        m->next_intnum = nx->excnum;
        memset(&m->next_event, 0, sizeof m->next_event);
        m->next_event.kind = ctx == ETM_CM3_CTX_RETURN ? ETM_GEN_EV_EXC_RETURN : ETM_GEN_EV_EXC_ENTRY;
        m->next_event.excnum = nx->excnum;
        m->next_event.addr = nx->addr;
        m->next_event.tailchain = (uint8_t)(ctx == ETM_CM3_CTX_TAILCHAIN);
        m->has_next_event = 1;
        if (ctx == ETM_CM3_CTX_RETURN)
            m->st.returns++;
        else if (ctx == ETM_CM3_CTX_TAILCHAIN)
            m->st.tail_chains++;
        else
            m->st.entries++;
    }
    m->prev_c = *c;
    m->have_prev = 1;
    m->prev_executed = r->executed;
    m->prev_cycles = n;
    (void)fold;
}

etm_err_t etm_cm3_put(etm_cm3_t *m, const etm_cm3_insn_t *r, etm_diag_t *diag)
{
    if (m->finished || m->qlen)
        return etm_util_fail(diag, ETM_ERR_STATE,
                             m->finished ? "an instruction after the end" : "the cycles of the last instruction were not taken out");
    uint64_t idx = m->index;
    if (r->size != 2 && r->size != 4) {
        etm_util_fail(diag, ETM_ERR_ARG, "instruction %llu at 0x%08x: size %u", (unsigned long long)idx,
                      (unsigned)r->addr, (unsigned)r->size);
        if (diag)
            diag->cycle = idx;
        return ETM_ERR_ARG;
    }
    if ((r->ctx == ETM_CM3_CTX_ENTRY || r->ctx == ETM_CM3_CTX_TAILCHAIN) &&
        (r->excnum == 0 || r->excnum == 7 || r->excnum == 8 || r->excnum == 9 || r->excnum == 10 ||
         r->excnum == 13 || r->excnum > 511)) {
        etm_util_fail(diag, ETM_ERR_ARG, "instruction %llu at 0x%08x: exception %u cannot be entered",
                      (unsigned long long)idx, (unsigned)r->addr, (unsigned)r->excnum);
        if (diag)
            diag->cycle = idx;
        return ETM_ERR_ARG;
    }
    if (r->ctx > ETM_CM3_CTX_TAILCHAIN || (r->addr & 1)) {
        etm_util_fail(diag, ETM_ERR_ARG, "instruction %llu at 0x%08x: malformed record", (unsigned long long)idx,
                      (unsigned)r->addr);
        if (diag)
            diag->cycle = idx;
        return ETM_ERR_ARG;
    }
    if (m->have_cur)
        emit(m, r);
    m->cur = *r;
    etm_cm3_classify(r->addr, r->opcode, r->size, &m->cur_c);
    m->have_cur = 1;
    m->index++;
    m->st.insns++;
    m->st.executed += r->executed;
    m->st.kinds[m->cur_c.kind]++;
    m->st.taken += r->taken;
    return ETM_OK;
}

void etm_cm3_finish(etm_cm3_t *m)
{
    if (m->finished)
        return;
    if (m->have_cur)
        emit(m, NULL);
    m->have_cur = 0;
    m->finished = 1;
}

void etm_cm3_stall(etm_cm3_t *m) { m->hold = 1; }

etm_err_t etm_cm3_cycle(etm_cm3_t *m, etm_in_t *in, etm_gen_event_t *ev, unsigned *nev)
{
    if (m->hold && (m->qlen || !m->finished)) {
        /* A held cycle: the core waits, nothing it was doing moves on. */
        m->hold = 0;
        memset(in, 0, sizeof *in);
        in->istall = 1;
        in->intnum = m->last_num;
        if (nev)
            *nev = 0;
        m->cycle++;
        m->st.cycles++;
        m->st.held_cycles++;
        return ETM_OK;
    }
    m->hold = 0;
    if (!m->qlen) {
        if (nev)
            *nev = 0;
        return ETM_END;
    }
    cyc_t *c = &m->q[m->qhead];
    m->qhead = (m->qhead + 1) % CQ;
    m->qlen--;
    *in = c->in;
    m->last_num = c->in.intnum;
    for (unsigned i = 0; i < c->nev; i++) {
        c->ev[i].cycle = m->cycle;
        if (ev)
            ev[i] = c->ev[i];
    }
    if (nev)
        *nev = c->nev;
    m->cycle++;
    return ETM_OK;
}
