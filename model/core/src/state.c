/* state.c - two instances' state compared (etm_state_diff, etm/model.h): the
 * registers and every stage's flip-flops, the FIFO's live bytes, the records
 * waiting, the statistics and the last cycle's rules. The speed engine's own
 * state (fast.h) is not the model's and is left out, and so are storage no
 * flip-flop of the RTL holds meaningfully: bytes the FIFO no longer holds, the
 * record the generator last held once it is done, padding. For differential
 * tests: an instance with the speed engine against one without it. */
#include <stdio.h>
#include <string.h>

#include "ctx.h"

/* The first field of a pair of structs that differs: its name into *what. */
#define SAME(a, b, field)                                                                                          \
    do {                                                                                                           \
        if (memcmp(&(a)->field, &(b)->field, sizeof(a)->field)) {                                                  \
            *what = #field;                                                                                        \
            return 0;                                                                                              \
        }                                                                                                          \
    } while (0)

/* The FIFO's live state: its counters and flags, the bytes it holds (stored
 * and staged) and their flags (with records, the staged bytes' packet ends);
 * bytes it no longer holds are not compared. */
static int fifo_same(const fifo_state_t *a, const fifo_state_t *b, int records, const char **what)
{
    SAME(a, b, level_q);
    SAME(a, b, nflags_q);
    SAME(a, b, held_q);
    SAME(a, b, held_id_q);
    SAME(a, b, flush_q);
    SAME(a, b, flush_rem_q);
    SAME(a, b, slevel_q);
    SAME(a, b, stage_full);
    SAME(a, b, part_q);
    SAME(a, b, wrote_q);
    *what = "the bytes held";
    for (uint32_t i = 0; i < a->level_q; i++) {
        uint32_t x = (a->rd_q + i) % ETM_FIFO_MAX, y = (b->rd_q + i) % ETM_FIFO_MAX;
        if (a->mem[x] != b->mem[y] || ((a->flag[x / 8] >> (x % 8)) & 1) != ((b->flag[y / 8] >> (y % 8)) & 1))
            return 0;
    }
    *what = "the bytes staged";
    for (uint32_t i = 0; i < a->slevel_q; i++) {
        uint32_t x = (a->srd_q + i) % ETM_STAGE_BYTES, y = (b->srd_q + i) % ETM_STAGE_BYTES;
        if (a->stage[x] != b->stage[y] || (records && a->stage_end[x] != b->stage_end[y]))
            return 0;
    }
    return 1;
}

/* A record, field by field (a record is copied as a whole: its padding is
 * whatever the memory held). */
static int record_same(const pk_record_t *a, const pk_record_t *b, const char **what)
{
    SAME(a, b, fe);
    SAME(a, b, flt);
    SAME(a, b, cycle);
    return 1;
}

/* The records waiting, oldest first, and the one being generated (what the
 * generator last held is not compared once it is done). */
static int records_same(const etm_ctx_t *a, const etm_ctx_t *b, const char **what)
{
    const pq_state_t *p = &a->pq, *q = &b->pq;
    SAME(p, q, len);
    SAME(p, q, busy);
    SAME(p, q, gap);
    SAME(p, q, ovf);
    SAME(p, q, untraced);
    SAME(p, q, te);
    SAME(p, q, now);
    if (p->busy) {
        SAME(p, q, gen.phase);
        SAME(p, q, gen.branch_done);
        SAME(p, q, gen.bytes);
        if (!record_same(&p->gen.rec, &q->gen.rec, what))
            return 0;
    }
    for (unsigned i = 0; i < p->len; i++)
        if (!record_same(&a->pq_rec[(p->head + i) % ETM_MAX_PKT_QUEUE], &b->pq_rec[(q->head + i) % ETM_MAX_PKT_QUEUE],
                         what))
            return 0;
    return 1;
}

static int top_same(const etm_ctx_t *a, const etm_ctx_t *b, const char **what)
{
    SAME(a, b, cfg);
    SAME(a, b, mode);
    SAME(a, b, fsetup);
    SAME(a, b, rg);
    SAME(a, b, chk);
    SAME(a, b, nlast);
    SAME(a, b, last_mask);
    if (memcmp(a->last_rules, b->last_rules, a->nlast * sizeof a->last_rules[0])) {
        *what = "last_rules";
        return 0;
    }
    SAME(a, b, flt);
    SAME(a, b, pk.ph);
    SAME(a, b, pk.dp);
    SAME(a, b, pk);
    SAME(a, b, ps);
    SAME(a, b, st);
    SAME(a, b, ended);
    SAME(a, b, end_wait);
    return 1;
}

int etm_state_diff(const etm_ctx_t *a, const etm_ctx_t *b, char *what, size_t size)
{
    const char *field = NULL, *part = NULL;
    if (!top_same(a, b, &field))
        part = "";
    else if (!records_same(a, b, &field))
        part = "records: ";
    else if (!fifo_same(&a->fifo, &b->fifo, a->mode.pkt_queue != 0, &field))
        part = "fifo: ";
    if (part && what && size)
        snprintf(what, size, "%s%s", part, field);
    return part != NULL;
}
