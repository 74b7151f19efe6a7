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
