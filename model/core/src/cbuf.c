/* cbuf.c - the cycle buffer (cbuf.h): where the ETMv3 stages put one cycle's
 * packets before they enter the FIFO as one write (fifo.c). A bounded writer:
 * it never writes past ETM_CYCLE_BYTES_MAX; a byte that does not fit is
 * counted in `overrun` (etm_step then treats the cycle as an overflow and
 * reports ETM_ERR_INTERNAL: docs/etmv3-encoder.md derives the bound).
 *
 * The P-header stage marks where the first header with atoms begins
 * (cbuf_before_atoms); the packet stage, which calls both the P-header and the
 * data packet stage, then has the data stage place the transfers still
 * waiting for their values there (cbuf_insert). Calls go one way: packet ->
 * pheader, dpacket -> cbuf. */
#include "cbuf.h"

void cbuf_put_bytes(cycle_buf_t *c, const uint8_t *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        cbuf_put(c, b[i]);
}

static int ends_at(const cycle_buf_t *c, unsigned i) { return (int)((c->ends[i / 64] >> (i % 64)) & 1u); }

void cbuf_insert(cycle_buf_t *c, unsigned at, const cycle_buf_t *ins)
{
    unsigned max = ETM_CYCLE_BYTES_MAX, total = c->n + c->overrun + ins->n, keep = total < max ? total : max;
    uint8_t b[ETM_CYCLE_BYTES_MAX];
    uint64_t ends[sizeof c->ends / sizeof c->ends[0]];
    memset(ends, 0, sizeof ends);
    /* The bytes in their new order: those before at, the inserted, the rest
     * (of those c kept; bytes it counted as overrun are counted again). */
    for (unsigned i = 0, k = 0; i < c->n + ins->n && k < keep; i++, k++) {
        const cycle_buf_t *from = i < at ? c : i < at + ins->n ? ins : c;
        unsigned j = i < at ? i : i < at + ins->n ? i - at : i - ins->n;
        b[k] = from->b[j];
        if (ends_at(from, j))
            ends[k / 64] |= 1ull << (k % 64);
    }
    unsigned kept = c->n + ins->n < keep ? c->n + ins->n : keep;
    memcpy(c->b, b, kept);
    memcpy(c->ends, ends, sizeof ends);
    c->overrun = total - kept;
    c->n = kept;
    for (unsigned k = 0; k < ETM_PKT_ALL_COUNT; k++)
        c->kinds[k] = (uint8_t)(c->kinds[k] + ins->kinds[k]);
    c->kmask |= ins->kmask;
}
