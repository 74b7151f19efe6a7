/* fifo.c - stage `fifo`: the trace FIFO and the port.
 *
 * Each cycle the port takes up to PORT_BYTES bytes that were in the FIFO at the
 * start of the cycle (bytes written in a cycle leave from the next one on); when
 * it takes fewer than PORT_BYTES but at least one, the rest of the port's width
 * is filled with Ignore packets (0x66), which always fall between packets since
 * the FIFO is then empty. Then the cycle's new bytes go in, all of them or, when
 * they do not fit in FIFO_DEPTH, none (an overflow).
 *
 * Every byte enters through etm_fifo_push and leaves through etm_fifo_take
 * (or etm_fifo_pop, one byte): the ETMv3 cycle (etm_fifo_cycle), the end of
 * trace (etm_end), the external port (etm_port_take) and the ETMv1 status
 * queue (pipestat.c) alike. The ETMv1 bytes carry a flag each (the first byte
 * of a branch address); ETMv3 bytes carry none, and an instance speaks one
 * protocol, so pushing without flags leaves the flag bits as reset cleared
 * them.
 */
#include <string.h>

#include "stages.h"

void etm_fifo_reset(fifo_state_t *f)
{
    f->rd_q = 0;
    f->level_q = 0;
    f->nflags_q = 0;
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

int etm_fifo_push(fifo_state_t *f, unsigned depth, const uint8_t *b, const uint8_t *flags, unsigned n)
{
    if (f->level_q + n > depth)
        return 0;
    uint32_t wr = f->rd_q + f->level_q;
    for (unsigned i = 0; i < n; i++)
        f->mem[(wr + i) % ETM_FIFO_MAX] = b[i];
    if (flags) {
        for (unsigned i = 0; i < n; i++) {
            int fl = flags[i] != 0;
            set_flag(f, wr + i, fl);
            f->nflags_q += (uint32_t)fl;
        }
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

unsigned etm_fifo_take(fifo_state_t *f, uint8_t *out, unsigned max)
{
    unsigned n = f->level_q < max ? f->level_q : max;
    for (unsigned i = 0; i < n; i++)
        out[i] = f->mem[(f->rd_q + i) % ETM_FIFO_MAX];
    if (f->nflags_q)
        for (unsigned i = 0; i < n; i++)
            f->nflags_q -= (uint32_t)get_flag(f, f->rd_q + i);
    f->rd_q = (f->rd_q + n) % ETM_FIFO_MAX;
    f->level_q -= n;
    return n;
}

void etm_fifo_pop(fifo_state_t *f)
{
    uint8_t b;
    etm_fifo_take(f, &b, 1);
}

int etm_fifo_cycle(fifo_state_t *f, const etm_mode_t *m, const uint8_t *b, unsigned n, etm_out_t *out)
{
    /* Validation keeps PORT_BYTES within the port; the bound says so to the compiler too. */
    unsigned width = m->port_bytes < sizeof out->v3_bytes ? m->port_bytes : (unsigned)sizeof out->v3_bytes;
    memset(out->v3_bytes, 0, sizeof out->v3_bytes);
    unsigned np = etm_fifo_take(f, out->v3_bytes, width);
    out->v3_count = 0;
    if (np) {
        for (unsigned i = np; i < width; i++)
            out->v3_bytes[i] = ETMV3_HDR_IGNORE;
        out->v3_count = (uint8_t)width;
    }
    int fit = etm_fifo_push(f, m->fifo_depth, b, NULL, n);
    out->fifo_level = (uint16_t)f->level_q;
    return fit;
}
