/* gen_data.c - the data transfers of the stimulus generator (etm/gen.h): the
 * address of each transfer in ETMDA/ETMDACTL and its value, two or more cycles
 * later, in ETMDD/ETMDDCTL, in one of three slots.
 */
#include "etm/gen.h"

#include <string.h>

#include "gen_int.h"

/* ---- Data transfers ------------------------------------------------------------------ */

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
void gen_data_transfers(etm_gen_t *g, unsigned first_idx, const xspec_t *xs)
{
    if (!g->p.data || xs->n == 0)
        return;
    int mix = g->p.data_mix, rich = mix || g->p.data_delay;
    uint32_t addr = 0x20000000u | (uint32_t)(gen_below(g, 0x10000) & ~3u);
    unsigned size = xs->n == 1 ? xs->size : 4;
    unsigned xfers = xs->n;
    int unaligned = 0;
    if (xs->allow_unaligned && xs->n == 1 && size > 1 && gen_pct(g, 15)) {
        addr |= size == 4 ? 1 + gen_below(g, 3) : (gen_below(g, 2) ? 3u : 1u);
        unaligned = (addr & 3) + size > 4;
        xfers = unaligned ? 2 : 1;
    } else if (mix && size < 4) {
        addr |= size == 2 ? 2 * gen_below(g, 2) : gen_below(g, 4);
    }
    int be = mix && gen_pct(g, 25);
    int fail = mix && xs->strex && gen_pct(g, 30);
    int imp = mix && xs->write && !xs->strex && gen_pct(g, 4);
    int pc_first = mix && xs->pc_first && xs->n >= 2 && gen_pct(g, 50);
    uint32_t v = 0;
    for (unsigned i = 0; i < xfers; i++) {
        unsigned qi = (g->qhead + first_idx + i) % QCAP;
        while (first_idx + i >= g->qlen)
            gen_push_cycle(g);
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
        unsigned rot = second ? (mix ? gen_below(g, 4) : 0) : be ? (4u - (a & 3u) - bytes) & 3u : a & 3u;
        unsigned swz = second ? (unsigned)(mix && gen_pct(g, 50)) : (unsigned)be;
        in->dactl = slot | (unsigned)xs->write << 2 | (blsel & 0xff) << 3 | (unsigned)(unaligned && i == 0) << 11 |
                    rot << 12 | swz << 14 | (unsigned)last << 16 | (unsigned)(i == 0 || (pc_first && i == 1)) << 17;
        in->da = a;
        in->dvalid = 1;
        if (rich && (!unaligned || i == 0)) { /* the register value of this access; some small, some 0 */
            v = (uint32_t)(gen_rnd(g) >> 32);
            unsigned k = gen_below(g, 10);
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
            uint64_t dd = gen_rnd(g);
            uint64_t vc = c + 2;
            if (rich) {
                vc += gen_below(g, g->p.data_delay + 1);
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
