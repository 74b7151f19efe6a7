/* fifo.c - stage `fifo`: the trace FIFO and the port.
 *
 * Each cycle the port takes up to PORT_BYTES bytes that were in the FIFO at the
 * start of the cycle (bytes written in a cycle leave from the next one on); when
 * it takes fewer than PORT_BYTES but at least one, the rest of the port's width
 * is filled with Ignore packets (0x66), which always fall between packets since
 * the FIFO is then empty. Then the cycle's new bytes go in, all of them or, when
 * they do not fit in FIFO_DEPTH, none (an overflow).
 */
#include <string.h>

#include "stages.h"

void etm_fifo_reset(fifo_state_t *f)
{
    f->rd_q = 0;
    f->level_q = 0;
    f->nflags_q = 0;
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

int etm_fifo_push(fifo_state_t *f, unsigned depth, const uint8_t *b, const uint8_t *flags, unsigned n)
{
    if (f->level_q + n > depth)
        return 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t pos = f->rd_q + f->level_q + i;
        f->mem[pos % ETM_FIFO_MAX] = b[i];
        int fl = flags ? flags[i] != 0 : 0;
        set_flag(f, pos, fl);
        f->nflags_q += (uint32_t)fl;
    }
    f->level_q += n;
    return 1;
}

int etm_fifo_peek(const fifo_state_t *f, unsigned i, uint8_t *b, uint8_t *flag)
{
    if (i >= f->level_q)
        return 0;
    *b = f->mem[(f->rd_q + i) % ETM_FIFO_MAX];
    *flag = (uint8_t)get_flag(f, f->rd_q + i);
    return 1;
}

void etm_fifo_pop(fifo_state_t *f)
{
    if (!f->level_q)
        return;
    f->nflags_q -= (uint32_t)get_flag(f, f->rd_q);
    f->rd_q = (f->rd_q + 1) % ETM_FIFO_MAX;
    f->level_q--;
}

int etm_fifo_cycle(fifo_state_t *f, const etm_mode_t *m, const cycle_buf_t *c, etm_out_t *out)
{
    unsigned n = f->level_q < m->port_bytes ? f->level_q : m->port_bytes;
    out->v3_count = 0;
    memset(out->v3_bytes, 0, sizeof out->v3_bytes);
    if (n) {
        for (unsigned i = 0; i < n; i++)
            out->v3_bytes[i] = f->mem[(f->rd_q + i) % ETM_FIFO_MAX];
        for (unsigned i = n; i < m->port_bytes; i++)
            out->v3_bytes[i] = ETMV3_HDR_IGNORE;
        out->v3_count = (uint8_t)m->port_bytes;
        f->rd_q = (f->rd_q + n) % ETM_FIFO_MAX;
        f->level_q -= n;
    }
    int fit = 1;
    if (c && c->n) {
        if (f->level_q + c->n <= m->fifo_depth) {
            for (unsigned i = 0; i < c->n; i++)
                f->mem[(f->rd_q + f->level_q + i) % ETM_FIFO_MAX] = c->b[i];
            f->level_q += c->n;
        } else {
            fit = 0;
        }
    }
    out->fifo_level = (uint16_t)f->level_q;
    return fit;
}
