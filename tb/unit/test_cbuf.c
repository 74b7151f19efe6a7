/* test_cbuf.c - the cycle buffer is a bounded writer: bytes past its bound are
 * not written but counted; the first P-header with atoms marks where it
 * begins, and packets inserted there move the rest up with their packet ends
 * and kinds (model/core/src/cbuf.c). */
#include "cbuf.h"
#include "test.h"

static int ends_at(const cycle_buf_t *c, unsigned i) { return (int)((c->ends[i / 64] >> (i % 64)) & 1u); }

static void bound(void)
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
}

static void mark_and_insert(void)
{
    /* The mark: none until a header with atoms; the first one's start is kept. */
    cycle_buf_t c;
    cbuf_init(&c, 0);
    CHECK_EQ(c.atoms_at, CBUF_NO_MARK);
    cbuf_put(&c, 0x04); /* a cycle count packet, two bytes */
    cbuf_put(&c, 0x05);
    cbuf_kind(&c, ETM_PKT_CYCLE_COUNT);
    cbuf_before_atoms(&c);
    cbuf_put(&c, 0x84); /* a P-header */
    cbuf_kind(&c, ETM_PKT_PHDR_F1);
    cbuf_before_atoms(&c);
    cbuf_put(&c, 0x88);
    cbuf_kind(&c, ETM_PKT_PHDR_F1);
    CHECK_EQ(c.atoms_at, 2);

    /* Two placeholders (one with an address byte) inserted there. */
    cycle_buf_t p;
    cbuf_init(&p, 0);
    cbuf_put(&p, 0x54);
    cbuf_kind(&p, ETM_PKT_OOO_PLACEHOLDER);
    cbuf_put(&p, 0x74);
    cbuf_put(&p, 0x12);
    cbuf_kind(&p, ETM_PKT_OOO_PLACEHOLDER);
    cbuf_insert(&c, c.atoms_at, &p);
    static const uint8_t want[7] = { 0x04, 0x05, 0x54, 0x74, 0x12, 0x84, 0x88 };
    static const int ends[7] = { 0, 1, 1, 0, 1, 1, 1 };
    CHECK_EQ(c.n, 7);
    CHECK_EQ(c.overrun, 0);
    for (unsigned i = 0; i < 7; i++) {
        CHECK_EQ(c.b[i], want[i]);
        CHECK_EQ(ends_at(&c, i), ends[i]);
    }
    CHECK_EQ(c.kinds[ETM_PKT_OOO_PLACEHOLDER], 2);
    CHECK_EQ(c.kinds[ETM_PKT_PHDR_F1], 2);
    CHECK_EQ(c.kinds[ETM_PKT_CYCLE_COUNT], 1);
    CHECK(c.kmask & (1u << ETM_PKT_OOO_PLACEHOLDER));

    /* An insertion that takes the buffer past its bound keeps the first bytes
     * in their new order and counts the rest. */
    cbuf_init(&c, 0);
    for (unsigned i = 0; i < ETM_CYCLE_BYTES_MAX - 1; i++)
        cbuf_put(&c, (uint8_t)(0x80 | (i & 0x3f)));
    cbuf_insert(&c, 1, &p);
    CHECK_EQ(c.n, ETM_CYCLE_BYTES_MAX);
    CHECK_EQ(c.overrun, 2);
    CHECK_EQ(c.b[0], 0x80);
    CHECK_EQ(c.b[1], 0x54);
    CHECK_EQ(c.b[3], 0x12);
    CHECK_EQ(c.b[4], 0x81);
}

int main(void)
{
    bound();
    mark_and_insert();
    return test_report("test_cbuf");
}
