/* test_cbuf.c - the cycle buffer is a bounded writer: bytes past its bound are
 * not written but counted, and the hook announcing a P-header with atoms
 * reaches whoever registered it (model/core/src/cbuf.c). */
#include "stages.h"
#include "test.h"

static unsigned hook_calls;
static unsigned hook_seen_n;

static void hook(void *user, cycle_buf_t *c)
{
    hook_calls++;
    hook_seen_n = c->n;
    cbuf_put(c, *(const uint8_t *)user); /* what a placeholder would do */
}

int main(void)
{
    cycle_buf_t c;
    cbuf_init(&c, 1);
    CHECK_EQ(c.n, 0);
    CHECK_EQ(c.overrun, 0);
    CHECK_EQ(c.last_single, 1);

    /* Up to the bound every byte is kept, in order. */
    for (unsigned i = 0; i < ETM_CYCLE_BYTES_MAX; i++)
        cbuf_put(&c, (uint8_t)i);
    CHECK_EQ(c.n, ETM_CYCLE_BYTES_MAX);
    CHECK_EQ(c.overrun, 0);
    CHECK_EQ(c.b[ETM_CYCLE_BYTES_MAX - 1], (ETM_CYCLE_BYTES_MAX - 1) & 0xff);

    /* Past it nothing is written and every byte is counted. */
    static const uint8_t three[3] = { 0xAA, 0xBB, 0xCC };
    cbuf_put_bytes(&c, three, 3);
    CHECK_EQ(c.n, ETM_CYCLE_BYTES_MAX);
    CHECK_EQ(c.overrun, 3);
    CHECK_EQ(c.b[0], 0);
    CHECK_EQ(c.b[ETM_CYCLE_BYTES_MAX - 1], (ETM_CYCLE_BYTES_MAX - 1) & 0xff);

    /* The hook: none registered, nothing happens; registered, it runs before
     * the header and may put bytes of its own. */
    cbuf_init(&c, 0);
    cbuf_before_atoms(&c);
    CHECK_EQ(c.n, 0);
    uint8_t placeholder = 0x54;
    cbuf_put(&c, 0x80);
    cbuf_on_atoms(&c, hook, &placeholder);
    cbuf_before_atoms(&c);
    cbuf_put(&c, 0x84);
    CHECK_EQ(hook_calls, 1);
    CHECK_EQ(hook_seen_n, 1);
    CHECK_EQ(c.n, 3);
    CHECK_EQ(c.b[1], 0x54);
    CHECK_EQ(c.b[2], 0x84);
    cbuf_on_atoms(&c, NULL, NULL);
    cbuf_before_atoms(&c);
    CHECK_EQ(hook_calls, 1);
    return test_report("test_cbuf");
}
