/* pipestat.c - stage `pipestat`: the ETMv1 port, PIPESTAT[2:0], TRACEPKT and
 * TRACESYNC, cycle by cycle (mapping and policy: docs/etmv1-encoder.md).
 *
 * Instructions become entries of a status queue. The newest entry is resolved
 * when the next instruction arrives: if that one is a traced branch target, an
 * exception entry or return, the entry is a branch (BE, or BD with data) to it.
 * Entries with data wait for their last transfer and values. The head entry goes
 * out when ready, one status per cycle, except in the two APO cycles after a
 * branch status. Its packets (data address, values, branch address) are
 * admitted in that cycle, all or none (an overflow), and written a transfer's
 * values a cycle: the data address and the first transfer with the status, each
 * further transfer in the next cycle, the branch address with the last. While
 * they are written, no status with packets goes out. The port then drains the
 * FIFO unless the cycle is a trigger cycle.
 */
#include <string.h>

#include "etm/dataslot.h"
#include "pipestat.h"


void etm_pipestat_reset(pipestat_state_t *s)
{
    memset(s, 0, sizeof *s);
    s->reason_q = 1;
    s->full_daddr_q = 1;
}

int etm_pipestat_busy(const pipestat_state_t *s) { return s->len_q || s->apo_cnt_q || s->gen_left_q; }

static v1_entry_t *entry_at(pipestat_state_t *s, unsigned i) { return &s->q[(s->head_q + i) % ETM_V1_QUEUE]; }

static v1_entry_t *newest(pipestat_state_t *s) { return s->len_q ? entry_at(s, s->len_q - 1u) : NULL; }

static v1_entry_t *by_seq(pipestat_state_t *s, uint16_t seq)
{
    for (unsigned i = 0; i < s->len_q; i++)
        if (entry_at(s, i)->seq == seq)
            return entry_at(s, i);
    return NULL;
}

/* Add an entry at the tail; NULL when the queue is full, or when the tail is
 * the slot whose values are still being written (statuses without packets may
 * have gone out after it). */
static v1_entry_t *add_entry(pipestat_state_t *s)
{
    unsigned k = (s->head_q + s->len_q) % ETM_V1_QUEUE;
    if (s->len_q == ETM_V1_QUEUE || (s->gen_left_q && k == s->gen_k_q))
        return NULL;
    v1_entry_t *e = &s->q[k];
    memset(e, 0, sizeof *e);
    e->seq = s->seq_q++;
    s->len_q++;
    return e;
}

/* The newest instruction is resolved: it branched to `target` or not. */
static void resolve(pipestat_state_t *s, int branch, uint32_t target)
{
    v1_entry_t *e = newest(s);
    if (s->open_q && e) {
        e->resolved = 1;
        e->branch = (uint8_t)branch;
        e->target = target;
    }
    s->open_q = 0;
}

static int entry_ready(const v1_entry_t *e) { return e->resolved && (!e->has_data || (e->data_done && !e->nwait)); }

/* Trace is lost: statuses queued and gathered go, until the FIFO has drained. */
static void lose(pipestat_state_t *s, etm_stats_t *st)
{
    s->len_q = 0;
    s->open_q = 0;
    s->owner_valid_q = 0;
    memset(s->slot_valid_q, 0, sizeof s->slot_valid_q);
    s->ovf_q = 1;
    s->active_q = 0;
    s->reason_q = 2;
    /* A branch's APO cycles still go out: its address is in the FIFO. */
    st->overflows++;
    st->cycles_lost++; /* this cycle's trace; the next ones while the FIFO drains */
}

/* Address packets: the fewest 7-bit groups covering the bits that differ from
 * ref; `full` forces all 5 with the reason in the last. Returns the count. */
static unsigned addr_packets(uint8_t *out, uint32_t a, uint32_t ref, int full, unsigned reason)
{
    uint32_t d = a ^ ref;
    unsigned n = full ? 5 : d < (1u << 7) ? 1 : d < (1u << 14) ? 2 : d < (1u << 21) ? 3 : d < (1u << 28) ? 4 : 5;
    for (unsigned i = 0; i < n && i < 4; i++)
        out[i] = (uint8_t)(((a >> (7 * i)) & 0x7f) | (i + 1 < n ? 0x80 : 0));
    if (n == 5)
        out[4] = (uint8_t)(((a >> 28) & 0xf) | (reason & 7) << 4);
    return n;
}

/* Branch addresses whose first packet is still in the FIFO (a 4-bit port may
 * have sent the low nibble of the head byte, and with it its TRACESYNC). */
static unsigned addresses_waiting(const pipestat_state_t *s, const fifo_state_t *f)
{
    unsigned n = f->nflags_q;
    uint8_t b, flag;
    if (s->nib_q && etm_fifo_peek(f, 0, &b, &flag) && flag)
        n--;
    return n;
}

/* Transfer t's value bytes, the ones its byte lanes select, in address order. */
static unsigned xfer_bytes(const v1_entry_t *e, unsigned t, uint8_t *out)
{
    unsigned n = 0;
    for (unsigned lane = 0; lane < 8; lane++)
        if ((e->lanes[t] >> lane) & 1)
            out[n++] = (uint8_t)(e->value[t] >> (8 * lane));
    return n;
}

/* Whether entry e's status has packets (a data or a branch status). */
static int has_packets(const v1_entry_t *e) { return e->restart || e->branch || e->has_data; }

/* The branch address's an bytes after the n in b, its first flagged (TRACESYNC
 * on the address's first packet); returns the new count. */
static unsigned append_address(uint8_t *b, uint8_t *fl, unsigned n, const uint8_t *ab, unsigned an)
{
    fl[n] = 1;
    memcpy(b + n, ab, an);
    return n + an;
}

/* Output the head entry: its status, and its packets admitted to the FIFO (the
 * first transfer's written now, the rest by write_next). Returns the status,
 * or -1 when its packets do not fit in the FIFO. */
static int output_entry(pipestat_state_t *s, const etm_mode_t *m, fifo_state_t *f, etm_stats_t *st)
{
    const v1_entry_t *e = entry_at(s, 0);
    uint8_t b[ETM_V1_PUSH_MAX], fl[sizeof b], ab[5] = { 0 }; /* ab: kept whole in gen_b_q */
    memset(b, 0, sizeof b);
    memset(fl, 0, sizeof fl);
    unsigned n = 0, an = 0;
    int status;
    int data = !e->restart && e->has_data;
    int values = data && m->data_value;
    if (e->restart)
        status = ETM_V1_PS_BE;
    else
        status = e->branch ? (data ? ETM_V1_PS_BD : ETM_V1_PS_BE) : data ? ETM_V1_PS_ID : e->exec ? ETM_V1_PS_IE : ETM_V1_PS_IN;
    uint32_t last_daddr = s->last_daddr_q;
    if (data && m->data_addr) {
        n += addr_packets(b + n, e->daddr, last_daddr, s->full_daddr_q, 0);
        last_daddr = e->daddr;
    }
    /* Bytes ahead of the branch address: the data address and every value. */
    unsigned total = n + (values ? e->nvbytes : 0u);
    if (values && e->nxfer)
        n += xfer_bytes(e, 0, b + n);
    unsigned apo = 0;
    uint32_t a = 0;
    int full = 0;
    int branch = status == ETM_V1_PS_BE || status == ETM_V1_PS_BD;
    if (branch) {
        a = e->target | 1u; /* bit 0: Thumb */
        unsigned reason = e->restart ? e->reason : 0;
        full = e->restart;
        if (!full && s->since_full_q >= ETM_V1_PERIODIC_FULL) {
            /* Periodic full address: when there is room for it, and in any case
             * once the retry window has passed. */
            if (f->level_q + total + 5 <= m->fifo_depth || s->since_full_q >= ETM_V1_PERIODIC_FULL + ETM_V1_PERIODIC_FORCE) {
                full = 1;
                reason = ETM_V_MINOR(m->version) >= 2 ? 4 : 0;
            }
        }
        apo = addresses_waiting(s, f);
        an = addr_packets(ab, a, s->last_baddr_q, full, reason);
        total += an;
    }
    /* All of the status's packets are admitted, or none. */
    if (f->level_q + total > m->fifo_depth) {
        st->bytes_lost += total;
        return -1;
    }
    unsigned left = values && e->nxfer > 1 ? e->nxfer - 1u : 0u;
    if (branch && !left)
        n = append_address(b, fl, n, ab, an);
    /* The writes that follow fit: nothing else is written before them. */
    (void)etm_fifo_push(f, m->fifo_depth, b, fl, n);
    st->bytes += total;
    if (left) {
        s->gen_left_q = (uint8_t)left;
        s->gen_k_q = s->head_q;
        s->gen_t_q = 1;
        s->gen_bn_q = (uint8_t)(branch ? an : 0u);
        memcpy(s->gen_b_q, ab, sizeof ab);
    }
    if (data && m->data_addr) {
        s->last_daddr_q = last_daddr;
        s->full_daddr_q = 0;
    }
    /* The first data address after a restart is full: after it in output
     * order, whatever was queued before it still goes out first. */
    if (e->restart)
        s->full_daddr_q = 1;
    if (branch) {
        s->last_baddr_q = a;
        if (full)
            s->since_full_q = 0;
        s->apo_cnt_q = 2;
        s->apo_val_q = (uint8_t)(apo > 14 ? 15 : apo);
    }
    s->head_q = (uint8_t)((s->head_q + 1) % ETM_V1_QUEUE);
    s->len_q--;
    return status;
}

/* The writer's cycle: the next transfer of the status last output, with its
 * branch address after the last (admitted with the status: it fits). */
static void write_next(pipestat_state_t *s, const etm_mode_t *m, fifo_state_t *f)
{
    uint8_t b[ETM_V1_PUSH_MAX], fl[sizeof b];
    memset(fl, 0, sizeof fl);
    unsigned n = xfer_bytes(&s->q[s->gen_k_q], s->gen_t_q, b);
    if (s->gen_left_q == 1 && s->gen_bn_q)
        n = append_address(b, fl, n, s->gen_b_q, s->gen_bn_q);
    (void)etm_fifo_push(f, m->fifo_depth, b, fl, n);
    s->gen_t_q++;
    s->gen_left_q--;
}

/* A data value: it belongs to the address of its slot from an earlier cycle. */
static void data_value(pipestat_state_t *s, const etm_in_t *in)
{
    unsigned dds = ETM_DDCTL_SLOT(in->ddctl);
    if (dds && s->slot_valid_q[dds]) {
        v1_entry_t *e = by_seq(s, s->slot_seq_q[dds]);
        unsigned t = s->slot_idx_q[dds];
        if (e && t < e->nxfer && !e->got[t]) {
            e->value[t] = in->dd;
            e->got[t] = 1;
            if (e->nwait)
                e->nwait--;
        }
        s->slot_valid_q[dds] = 0;
    }
}

/* This cycle's data address, after the cycle's instructions: an instruction
 * comes before its data (ETM architecture 2.11.1). */
static void data_address(pipestat_state_t *s, const etm_mode_t *m, const etm_in_t *in, int view_data)
{
    unsigned das = ETM_DACTL_SLOT(in->dactl);
    /* With data trace off nothing is gathered: a load is IE, a load to the PC
     * BE (table 5.1: ID and BD mean a data packet went into the FIFO). */
    if (!das || !(m->data_addr || m->data_value))
        return;
    v1_entry_t *e = NULL;
    int first = ETM_DACTL_NSEQ(in->dactl) && !s->xfer_open_q; /* DAFirst: the last transfer was a DALast */
    /* DALast ends the instruction's transfers; on the first half of an
     * unaligned access the second half is still to come. */
    s->xfer_open_q = (uint8_t)!(ETM_DACTL_LAST(in->dactl) && !ETM_DACTL_UNALIGNED(in->dactl));
    if (first) {
        /* First transfer of an instruction: the newest one (not an IT folded
         * after it), if trace is on. Its data is traced if ViewData is active
         * for this first transfer (IHI 0014 2.6.4: an LSM's data all or none).
         * The later transfers of a traced instruction, a second DANSeq (LDM
         * with the PC, SWP) included, are gathered even after trace turns off. */
        e = s->active_q && s->open_q && view_data ? newest(s) : NULL;
        if (e && e->fold_it && s->len_q > 1)
            e = entry_at(s, (unsigned)s->len_q - 2u);
        if (e) {
            s->owner_valid_q = 1;
            s->owner_q = e->seq;
            e->has_data = 1;
            e->daddr = in->da;
        } else {
            s->owner_valid_q = 0;
        }
    } else if (s->owner_valid_q) {
        e = by_seq(s, s->owner_q);
    }
    if (!e || e->nxfer == ETM_V1_MAX_XFER)
        return;
    unsigned t = e->nxfer++;
    e->lanes[t] = (uint8_t)ETM_DACTL_BLSEL(in->dactl);
    e->nvbytes = (uint8_t)(e->nvbytes + etm_dslot_lanes(in->dactl));
    e->got[t] = 0;
    if (m->data_value) {
        e->nwait++;
        s->slot_valid_q[das] = 1;
        s->slot_seq_q[das] = e->seq;
        s->slot_idx_q[das] = (uint8_t)t;
    }
    /* DALast ends the instruction's transfers; on the first half of an
     * unaligned access the second half is still to come. */
    if (ETM_DACTL_LAST(in->dactl) && !ETM_DACTL_UNALIGNED(in->dactl)) {
        e->data_done = 1;
        s->owner_valid_q = 0;
    }
}

/* This cycle's instructions into the queue. */
static void take_instructions(pipestat_state_t *s, const fe_cycle_t *fe, etm_stats_t *st)
{
    const fe_atom_t *a0 = &fe->atom[0];
    if (!s->active_q) {
        /* Trace (re)starts: a BE standing for no instruction, full address. */
        v1_entry_t *r = add_entry(s);
        if (!r) {
            lose(s, st);
            return;
        }
        r->restart = 1;
        r->resolved = 1;
        r->reason = s->reason_q;
        r->target = a0->addr;
        s->active_q = 1;
    } else {
        int branch = a0->target || fe->entry || fe->ret;
        v1_entry_t *prev = newest(s);
        if (branch && fe->entry && s->open_q && prev && !prev->exec)
            st->untraceable++; /* an N before an exception shows as executed */
        resolve(s, branch, a0->addr);
    }
    for (unsigned i = 0; i < fe->natoms; i++) {
        if (i == 1)
            resolve(s, fe->atom[1].target, fe->atom[1].addr);
        v1_entry_t *e = add_entry(s);
        if (!e) {
            lose(s, st);
            return;
        }
        e->exec = fe->atom[i].exec;
        e->fold_it = (uint8_t)(i == 1 && fe->fold);
        s->open_q = 1;
        st->atoms++;
    }
}

void etm_pipestat_end(pipestat_state_t *s)
{
    resolve(s, 0, 0);
    /* A transfer or value the trace ended before would hold the queue for
     * ever: such an instruction goes out without its data (IE, or BE to the
     * PC) rather than with values that never arrived. */
    for (unsigned i = 0; i < s->len_q; i++) {
        v1_entry_t *e = entry_at(s, i);
        if (e->has_data && (!e->data_done || e->nwait))
            e->has_data = 0;
        e->data_done = 1;
        e->nwait = 0;
    }
}

/* Drain the port for one cycle; returns whether anything left. */
static int drain(pipestat_state_t *s, const etm_mode_t *m, fifo_state_t *f, etm_out_t *out)
{
    uint8_t b, flag;
    if (!etm_fifo_peek(f, 0, &b, &flag))
        return 0;
    if (m->v1_port_bits == 4) {
        if (!s->nib_q) {
            out->tracepkt = b & 0xf;
            out->tracesync = flag;
            s->nib_q = 1;
        } else {
            out->tracepkt = b >> 4;
            s->nib_q = 0;
            etm_fifo_pop(f);
        }
        return 1;
    }
    out->tracepkt = b;
    out->tracesync = flag;
    etm_fifo_pop(f);
    if (m->v1_port_bits == 16 && etm_fifo_peek(f, 0, &b, &flag) && !flag) {
        out->tracepkt = (uint16_t)(out->tracepkt | b << 8);
        etm_fifo_pop(f);
    }
    return 1;
}

void etm_pipestat_cycle(pipestat_state_t *s, const etm_mode_t *m, const etm_in_t *in, const fe_cycle_t *fe,
                        const filter_out_t *flt, fifo_state_t *f, etm_out_t *out, etm_stats_t *st)
{
    out->tracepkt = 0;
    out->tracesync = 0;
    if (!m->enabled) {
        out->pipestat = ETM_V1_PS_TD;
        return;
    }
    if (s->ovf_q && f->level_q == 0 && !s->gen_left_q)
        s->ovf_q = 0;
    int on = flt->trace_enable && !s->ovf_q;
    if (s->ovf_q)
        st->cycles_lost++;

    /* Trace turning off: the last instruction went sequentially, as far as
     * the trace can tell. */
    if (!on && s->active_q && !s->ovf_q) {
        resolve(s, 0, 0);
        s->active_q = 0;
        s->reason_q = 1;
    }
    data_value(s, in);
    if (on && s->active_q && fe->cancel)
        st->untraceable++; /* ETMv1 cannot say the last instruction was cancelled */
    if (on && fe->natoms)
        take_instructions(s, fe, st);
    data_address(s, m, in, flt->view_data);

    /* The FIFO takes one write a cycle: the writer's, or a status's packets. */
    int writing = s->gen_left_q != 0;
    if (writing)
        write_next(s, m, f);

    /* This cycle's status. */
    int status = -1; /* none yet */
    if (s->apo_cnt_q) {
        status = s->apo_cnt_q == 2 ? (s->apo_val_q & 3) : (s->apo_val_q >> 2) & 3;
        s->apo_cnt_q--;
    } else if (s->len_q && entry_ready(entry_at(s, 0)) && (!writing || !has_packets(entry_at(s, 0)))) {
        status = output_entry(s, m, f, st);
        if (status < 0) {
            lose(s, st);
            status = ETM_V1_PS_WT;
        }
    } else if (s->ovf_q) {
        status = ETM_V1_PS_WT;
    }

    if (flt->trigger) {
        out->pipestat = ETM_V1_PS_TR;
        out->tracepkt = (uint16_t)(status < 0 ? ETM_V1_PS_WT : status);
    } else {
        int drained = drain(s, m, f, out);
        out->pipestat = (uint8_t)(status >= 0 ? status : drained ? ETM_V1_PS_WT : ETM_V1_PS_TD);
        if (out->pipestat == ETM_V1_PS_TD && m->cycle_accurate)
            out->tracepkt = (uint16_t)(flt->trace_enable ? 1 : 0);
    }
    out->overflow = s->ovf_q;
    out->fifo_level = (uint16_t)f->level_q;
    if (s->active_q && s->since_full_q < 0xFFFFFFFFu)
        s->since_full_q++;
}
