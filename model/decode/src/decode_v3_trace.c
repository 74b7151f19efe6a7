/* decode_v3_trace.c - the ETMv3 decoder's trace layer: packets to elements
 * (atoms, code following, cancel, cycles, data; etm/decode_v3.h).
 *
 * An atom's instruction is held back until the next packet says whether an
 * exception cancelled it (IHI 0014 7.3.6); data elements queue behind it.
 * docs/decoder.md explains the conventions; the comments name the rule each
 * step follows.
 */
#include "etm/decode_v3.h"

#include <string.h>

#include "decode_v3_int.h"

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
void dv3_commit(etm_v3dec_t *d)
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
        dv3_commit(d);
        deliver(d, el);
        return;
    }
    d->pend[d->npend].el = *el;
    d->pend[d->npend].cancellable = 0;
    d->pend[d->npend].light = 0;
    d->npend++;
}

/* Hold an element back until the next packet says whether it was cancelled. */
static void hold(etm_v3dec_t *d, const etm_v3el_t *el)
{
    if (d->npend == PEND_MAX)
        dv3_commit(d);
    d->pend[d->npend].el = *el;
    d->pend[d->npend].cancellable = 1;
    d->pend[d->npend].light = 0;
    d->npend++;
}

/* A held atom without its instruction, made in place (the commonest element
 * without a code image): a slot the atom path made before holds nothing but
 * an atom's fields, which are all written again; any other is cleared first. */
static void hold_atom(etm_v3dec_t *d, int executed, uint64_t offset, int known)
{
    if (d->npend == PEND_MAX)
        dv3_commit(d);
    pend_t *s = &d->pend[d->npend++];
    if (!s->light) {
        s->el = d->el_zero;
        s->light = 1;
    }
    s->cancellable = 1;
    etm_v3el_t *h = &s->el;
    h->kind = ETM_V3EL_ATOM;
    h->offset = offset;
    h->cycle = d->cycle;
    h->isa = d->isa;
    h->executed = executed;
    h->addr = known ? d->pc : 0;
    h->addr_valid = known;
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
    *el = d->el_zero; /* a copy, not memset (decode_v3_int.h) */
    el->kind = kind;
    el->offset = offset;
    el->cycle = d->cycle;
    el->isa = d->isa;
}

/* Read and classify the instruction at pc. 0: ok; -1: not in the image. Four
 * bytes are asked for in every instruction set, so that a 32-bit Thumb
 * instruction is read and classified once; where the image gave fewer, the
 * second halfword is read on its own. */
static int fetch(etm_v3dec_t *d, etm_v3_insn_t *insn)
{
    uint8_t b[4];
    int got = d->read_fn(d->read_user, d->pc, b, 4);
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
    dv3_commit(d); /* a new atom: the previous one can no longer be cancelled */
    d->stats.atoms++;
    int known = d->isync_seen && d->addr_valid && d->isa != ETM_V3_ISA_JAZELLE;
    if (!known || !d->read_fn) {
        /* Without the code: the address of this one at most, not of the next. */
        hold_atom(d, executed, offset, known);
        if (known)
            d->addr_valid = 0;
        return;
    }
    el_init(d, &el, ETM_V3EL_ATOM, offset);
    el.executed = executed;
    el.addr = d->pc;
    el.addr_valid = 1;
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
void dv3_data_release(etm_v3dec_t *d)
{
    if (d->ddata_held) {
        d->ddata_held = 0;
        emit(d, &d->ddata);
    }
}

/* Placeholders still waiting will not get their values (overflow, end). */
void dv3_data_lose_placeholders(etm_v3dec_t *d)
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

/* P-header: W atoms count cycles, E and N atoms are instructions. */
static void on_phdr(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
    for (const char *a = p->atoms; *a; a++) {
        if (*a == 'W')
            d->cycle++;
        else
            on_atom(d, *a == 'E', p->offset);
    }
}

/* LSiP: the load/store at the I-sync address is still executing (its execution
 * is implied); the program goes on at the second address. */
static void on_lsip(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
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

/* I-sync: the element, an overflow before it, and the address to follow from. */
static void on_isync(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
    etm_v3el_t el;
    dv3_commit(d);
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
        dv3_data_lose_placeholders(d); /* their values were lost with the trace */
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
        return;
    }
    d->isa = p->isa;
    d->pc = p->addr;
    d->addr_valid = p->isa != ETM_V3_ISA_JAZELLE;
    d->last_addr = p->addr;
    if (p->lsip)
        on_lsip(d, p);
}

/* Branch packet: a branch or an exception (which may cancel the held atom). */
static void on_branch(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
    etm_v3el_t el;
    uint32_t waddr = 0;
    int withdrawn = 0;
    if (p->exception && p->cancel)
        withdrawn = cancel_held(d, &waddr);
    else
        dv3_commit(d);
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
}

/* The elements of one complete packet (a store-failed packet completes the data
 * element before it). */
void dv3_on_packet(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
    etm_v3el_t el;
    if (p->kind == ETM_V3PKT_STORE_FAILED) {
        d->ddata.data.store_failed = 1; /* feed_byte checked that a data element waits */
        dv3_data_release(d);
        return;
    }
    dv3_data_release(d);
    switch (p->kind) {
    case ETM_V3PKT_PHDR:
        on_phdr(d, p);
        break;

    case ETM_V3PKT_ISYNC:
    case ETM_V3PKT_ISYNC_CC:
        on_isync(d, p);
        break;

    case ETM_V3PKT_BRANCH:
        on_branch(d, p);
        break;

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
            dv3_commit(d);
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
