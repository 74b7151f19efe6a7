/* fifo.c - stage `fifo`: the trace FIFO and the ATB master.
 *
 * Each cycle the ATB master shows on ATDATA up to PORT_BYTES bytes that were
 * in the FIFO's store at the start of the cycle, with ATVALID and ATID; when it
 * shows fewer than PORT_BYTES but at least one, the rest of the word is filled
 * with Ignore packets (0x66); it does so only when nothing is staged (below),
 * so the padding falls between packets. ATREADY takes the word at the edge;
 * without it the same word (the same bytes, the same padding) stays on ATDATA,
 * the bytes staying at the head of the store, with the same ATID (even if
 * ETMTRACEIDR is written meanwhile), until it does.
 *
 * ETMv3 bytes reach the store through a staging buffer (etm_fifo_stage): the
 * cycle's new bytes go into it, all of them or, when they do not fit, none (an
 * overflow); then at most FIFO_WRITE of its oldest bytes move into the store.
 * FIFO_DEPTH bounds the bytes held in both; ETM_STAGE_BYTES bounds the staged
 * ones. So a cycle that makes more bytes than the write port takes lets them
 * out over the next cycles, and bytes made in cycle t leave from cycle t+1 on
 * at the earliest (docs/etmv3-encoder.md, "The FIFO").
 *
 * The flush handshake (AFVALID/AFREADY) exists on parts with a wider ATB
 * (PORT_BYTES > 1): AFREADY rises once the bytes the FIFO held (stored and
 * staged) when AFVALID rose have all been taken. A part with an 8-bit ATB,
 * like the ETM-M3, has no flush (Cortex-M3 TRM 14.4: its FIFO always drains)
 * and ties AFREADY high.
 *
 * Every byte leaves the store through etm_fifo_take (or etm_fifo_pop, one
 * byte): the ETMv3 cycle (etm_fifo_cycle), the external port (etm_port_take)
 * and the ETMv1 status queue (pipestat.c) alike. The ETMv1 status queue writes
 * the store directly (etm_fifo_push), up to ETM_V1_PUSH_MAX bytes a cycle; they
 * carry a flag each (the first byte of a branch address). ETMv3 bytes carry none, and
 * an instance speaks one protocol, so its store writes leave the flag bits as
 * reset cleared them.
 */
#include <string.h>

#include "fifo.h"

void etm_fifo_reset(fifo_state_t *f)
{
    f->rd_q = 0;
    f->level_q = 0;
    f->nflags_q = 0;
    f->held_q = 0;
    f->held_id_q = 0;
    f->flush_q = 0;
    f->flush_rem_q = 0;
    f->srd_q = 0;
    f->slevel_q = 0;
    f->part_q = 0;
    f->wrote_q = 0;
    memset(f->flag, 0, sizeof f->flag);
}

static void set_flag(fifo_state_t *f, uint32_t pos, int v)
{
    uint32_t i = pos % ETM_FIFO_MAX;
    if (v)
        f->flag[i / 8] = (uint8_t)(f->flag[i / 8] | (1u << (i % 8)));
    else
        f->flag[i / 8] = (uint8_t)(f->flag[i / 8] & ~(1u << (i % 8)));
}

static int get_flag(const fifo_state_t *f, uint32_t pos)
{
    uint32_t i = pos % ETM_FIFO_MAX;
    return (f->flag[i / 8] >> (i % 8)) & 1;
}

/* n bytes onto the store's tail (which has room for them). */
static void store_put(fifo_state_t *f, const uint8_t *b, unsigned n)
{
    uint32_t wr = f->rd_q + f->level_q;
    for (unsigned i = 0; i < n; i++)
        f->mem[(wr + i) % ETM_FIFO_MAX] = b[i];
    f->level_q += n;
}

int etm_fifo_push(fifo_state_t *f, unsigned depth, const uint8_t *b, const uint8_t *flags, unsigned n)
{
    if (f->level_q + n > depth)
        return 0;
    uint32_t wr = f->rd_q + f->level_q;
    if (flags) {
        for (unsigned i = 0; i < n; i++) {
            int fl = flags[i] != 0;
            set_flag(f, wr + i, fl);
            f->nflags_q += (uint32_t)fl;
        }
    }
    store_put(f, b, n);
    return 1;
}

/* k staged bytes, oldest first, into the store (which has room: FIFO_DEPTH
 * bounds both together). */
static ETM_INLINE void stage_move(fifo_state_t *f, unsigned k)
{
    uint32_t wr = f->rd_q + f->level_q;
    for (unsigned i = 0; i < k; i++)
        f->mem[(wr + i) % ETM_FIFO_MAX] = f->stage[(f->srd_q + i) % ETM_STAGE_BYTES];
    f->srd_q = (f->srd_q + k) % ETM_STAGE_BYTES;
    f->slevel_q -= k;
    f->level_q += k;
}

/* n bytes onto the staging buffer's tail (which has room for them). */
static void stage_put(fifo_state_t *f, const uint8_t *b, unsigned n)
{
    uint32_t wr = f->srd_q + f->slevel_q;
    for (unsigned i = 0; i < n; i++)
        f->stage[(wr + i) % ETM_STAGE_BYTES] = b[i];
    f->slevel_q += n;
}

/* Records (PKT_QUEUE > 0): the packet generator writes a phase's bytes only
 * when nothing is staged, so they always go in, each marked when it ends a
 * packet; they enter the store a packet at a time, at most FIFO_WRITE bytes
 * a cycle, as the store's room allows: one cycle moves bytes of one packet
 * only, and the next packet starts in the next cycle. */
static ETM_INLINE void stage_phase(fifo_state_t *f, const uint8_t *b, unsigned n, const uint64_t *ends)
{
    uint32_t wr = f->srd_q + f->slevel_q;
    for (unsigned i = 0; i < n; i++)
        f->stage_end[(wr + i) % ETM_STAGE_BYTES] = (uint8_t)((ends[i / 64] >> (i % 64)) & 1);
    stage_put(f, b, n);
}

/* Records: the write port's cycle, bytes of the packet at the staging buffer's head. */
static ETM_INLINE void stage_packet(fifo_state_t *f, const etm_mode_t *m)
{
    unsigned room = f->level_q < m->fifo_depth ? m->fifo_depth - f->level_q : 0;
    unsigned k = 0, lim = m->fifo_write < room ? m->fifo_write : room;
    int end = 0;
    while (k < lim && k < f->slevel_q && !end)
        end = f->stage_end[(f->srd_q + k++) % ETM_STAGE_BYTES];
    if (k)
        f->part_q = (uint8_t)!end;
    f->wrote_q = k != 0;
    stage_move(f, k);
    f->stage_full = 0;
}

int etm_fifo_stage(fifo_state_t *f, const etm_mode_t *m, const uint8_t *b, unsigned n)
{
    if (m->pkt_queue) { /* (the end's drain edges: nothing new) */
        stage_packet(f, m);
        return n == 0;
    }
    int room = etm_fifo_held(f) + n <= m->fifo_depth;
    int fit = room && f->slevel_q + n <= ETM_STAGE_BYTES;
    f->stage_full = (uint8_t)(room && !fit);
    if (fit && !f->slevel_q && n <= m->fifo_write) {
        /* Nothing staged and the write port takes them all: they pass the
         * staging buffer in this cycle, as the general case below would move them. */
        store_put(f, b, n);
        return 1;
    }
    if (fit)
        stage_put(f, b, n);
    stage_move(f, f->slevel_q < m->fifo_write ? f->slevel_q : m->fifo_write);
    return fit;
}

void etm_fifo_settle(fifo_state_t *f) { stage_move(f, f->slevel_q); }

int etm_fifo_peek(const fifo_state_t *f, unsigned i, uint8_t *b, uint8_t *flag)
{
    if (i >= f->level_q)
        return 0;
    *b = f->mem[(f->rd_q + i) % ETM_FIFO_MAX];
    *flag = (uint8_t)get_flag(f, f->rd_q + i);
    return 1;
}

/* The n bytes at the head (n <= level) copied to out. */
static void head_copy(const fifo_state_t *f, uint8_t *out, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        out[i] = f->mem[(f->rd_q + i) % ETM_FIFO_MAX];
}

/* The n bytes at the head (n <= level) leave. */
static void head_drop(fifo_state_t *f, unsigned n)
{
    if (f->nflags_q)
        for (unsigned i = 0; i < n; i++)
            f->nflags_q -= (uint32_t)get_flag(f, f->rd_q + i);
    f->rd_q = (f->rd_q + n) % ETM_FIFO_MAX;
    f->level_q -= n;
}

unsigned etm_fifo_take(fifo_state_t *f, uint8_t *out, unsigned max)
{
    unsigned n = f->level_q < max ? f->level_q : max;
    head_copy(f, out, n);
    head_drop(f, n);
    return n;
}

void etm_fifo_pop(fifo_state_t *f)
{
    uint8_t b;
    etm_fifo_take(f, &b, 1);
}

/* The ATB master's cycle (etm_fifo_cycle_full before the write). */
static ETM_INLINE void port_cycle(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, etm_out_t *out)
{
    /* Validation keeps PORT_BYTES within the port; the bound says so to the compiler too. */
    unsigned width = m->port_bytes < sizeof out->v3_bytes ? m->port_bytes : (unsigned)sizeof out->v3_bytes;
    int ready = !in || !in->atstall;
    int afvalid = in && in->afvalid;
    memset(out->v3_bytes, 0, sizeof out->v3_bytes);
    /* A word shorter than the port goes out only when the store ends between
     * packets: without records when nothing is staged (the store then ends
     * where a cycle's packets ended); with records when no packet is partly in
     * it and no byte entered it in the cycle before (while the generator
     * writes, the port waits for whole words). So the padding falls between
     * packets. */
    unsigned whole = m->pkt_queue ? !(f->part_q | f->wrote_q) : !f->slevel_q;
    unsigned k = f->held_q ? f->held_q : f->level_q >= width ? width : whole ? f->level_q : 0;
    out->v3_count = 0;
    out->atvalid = k != 0;
    out->atid = 0;
    if (k) {
        head_copy(f, out->v3_bytes, k);
        for (unsigned i = k; i < width; i++)
            out->v3_bytes[i] = ETMV3_HDR_IGNORE;
        out->atid = f->held_q ? f->held_id_q : m->trace_id; /* a waiting word keeps its ID */
    }
    unsigned taken = ready ? k : 0;
    if (m->atb_flush) {
        uint32_t rem = f->flush_q ? f->flush_rem_q : etm_fifo_counted(f, m);
        out->afready = (uint8_t)(afvalid && rem == 0);
        f->flush_rem_q = rem > taken ? rem - taken : 0;
        f->flush_q = (uint8_t)(afvalid && !out->afready);
    } else {
        out->afready = 1;
    }
    if (taken) {
        head_drop(f, taken);
        out->v3_count = (uint8_t)width;
    }
    f->held_q = (uint8_t)(taken ? 0 : k);
    f->held_id_q = f->held_q ? out->atid : 0;
}

int etm_fifo_cycle_full(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b, unsigned n,
                        etm_out_t *out)
{
    port_cycle(f, m, in, out);
    int fit = etm_fifo_stage(f, m, b, n);
    out->fifo_level = (uint16_t)etm_fifo_counted(f, m);
    return fit;
}

void etm_fifo_cycle_rec(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b, unsigned n,
                        const uint64_t *ends, etm_out_t *out)
{
    port_cycle(f, m, in, out);
    stage_phase(f, b, n, ends);
    stage_packet(f, m);
    out->fifo_level = (uint16_t)f->level_q;
}
