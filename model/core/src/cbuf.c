/* cbuf.c - the cycle buffer (cbuf_init and cbuf_put are inline in stages.h): where the ETMv3 stages put one cycle's packets
 * before they enter the FIFO as one write (fifo.c). A bounded writer: it never
 * writes past ETM_CYCLE_BYTES_MAX; a byte that does not fit is counted in
 * `overrun` (etm_step then treats the cycle as an overflow and reports
 * ETM_ERR_INTERNAL: docs/etmv3-encoder.md derives the bound).
 *
 * The P-header stage announces a header with atoms (cbuf_before_atoms) so
 * that the data packet stage, which the packet stage registered as the hook,
 * can place the transfers still waiting for their values first. The hook keeps
 * the calls one way: packet -> dpacket -> pheader -> cbuf. */
#include <string.h>

#include "stages.h"

void cbuf_put_bytes(cycle_buf_t *c, const uint8_t *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        cbuf_put(c, b[i]);
}

void cbuf_on_atoms(cycle_buf_t *c, cbuf_hook_fn fn, void *user)
{
    c->hook = fn;
    c->hook_user = user;
}

void cbuf_before_atoms(cycle_buf_t *c)
{
    if (c->hook)
        c->hook(c->hook_user, c);
}
