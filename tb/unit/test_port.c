/* test_port.c - the FIFO's edges: FIFOFULL (ETMCR[7] with ETMFFLR) and the
 * external port (PORT_BYTES=0, etm_port_take). Expected values are worked out
 * by hand from the FIFO rules of docs/etmv3-encoder.md: bytes a cycle writes
 * leave the port from the next cycle on; FIFOFULL is asserted after a cycle
 * when fewer than ETMFFLR bytes are free. */
#include <stdlib.h>

#include "etm/etm.h"
#include "test.h"

static etm_ctx_t *make(const char *const *sets, etm_err_t want, const char *msg)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_default(&cfg);
    for (unsigned i = 0; sets[i]; i++)
        if (etm_config_parse_line(&cfg, sets[i], NULL, NULL, &d) != ETM_OK) {
            fprintf(stderr, "%s: %s\n", sets[i], d.msg);
            CHECK(0);
            return NULL;
        }
    etm_ctx_t *e = NULL;
    etm_err_t got = etm_create(&e, &cfg, &d);
    CHECK_EQ(got, want);
    if (got != want)
        fprintf(stderr, "  %s\n", got ? d.msg : "accepted");
    if (msg)
        CHECK_STR_CONTAINS(d.msg, msg);
    return e;
}

static etm_in_t insn(uint32_t a)
{
    etm_in_t in;
    memset(&in, 0, sizeof in);
    in.ivalid = 1;
    in.ia = a;
    return in;
}

/* The first instruction writes A-sync (6 bytes) and I-sync (6 bytes) in cycle
 * 0; an idle port then takes one byte per cycle. */
static void test_fifofull(void)
{
    const char *sets[] = { "ETMCR=0x890", "FIFO_DEPTH=0x40", "ETMFFLR=0x35", NULL }; /* 53 */
    etm_ctx_t *e = make(sets, ETM_OK, NULL);
    if (!e)
        return;
    etm_in_t i0 = insn(0x100), idle;
    memset(&idle, 0, sizeof idle);
    etm_out_t o;
    etm_step(e, &i0, &o);
    CHECK_EQ(o.fifo_level, 12); /* 52 free < 53 */
    CHECK_EQ(o.fifofull, 1);
    etm_step(e, &idle, &o);
    CHECK_EQ(o.fifo_level, 11); /* 53 free: not below */
    CHECK_EQ(o.fifofull, 0);
    CHECK_EQ(etm_get_stats(e)->fifofull_cycles, 1);
    etm_destroy(e);

    /* Without ETMCR[7] the same FIFO never asks for a stall. */
    const char *off[] = { "ETMCR=0x810", "FIFO_DEPTH=0x40", "ETMFFLR=0x35", NULL };
    e = make(off, ETM_OK, NULL);
    if (!e)
        return;
    etm_step(e, &i0, &o);
    CHECK_EQ(o.fifo_level, 12);
    CHECK_EQ(o.fifofull, 0);
    etm_destroy(e);

    const char *zero[] = { "ETMCR=0x890", "ETMFFLR=0x0", NULL };
    make(zero, ETM_ERR_RESERVED_BITS, "UNPREDICTABLE");
    const char *big[] = { "ETMCR=0x890", "FIFO_DEPTH=0x20", "ETMFFLR=0x21", NULL };
    make(big, ETM_ERR_RESERVED_BITS, "above the FIFO size");
}

/* The external port gives the same bytes as the internal one, only taken when
 * the caller's port clock says. */
static void test_external_port(void)
{
    /* Cycle-accurate: the ETM-M3 with the mode added (the cm3-ca-whatif preset's ETMCR_IMPL). */
    const char *in1[] = { "PORT_BYTES=0x1", "FIFO_DEPTH=0x200", "ETMCR_IMPL=0x10633FF1", "ETMCR=0x1810", NULL };
    const char *ext[] = { "PORT_BYTES=0x0", "FIFO_DEPTH=0x200", "ETMCR_IMPL=0x10633FF1", "ETMCR=0x1810", NULL };
    etm_ctx_t *a = make(in1, ETM_OK, NULL), *b = make(ext, ETM_OK, NULL);
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.seed = 7;
    etm_gen_t *g = NULL;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&g, &gp, &d), ETM_OK);
    if (!a || !b || !g)
        return;
    size_t cap = 1u << 20, na = 0, nb = 0;
    uint8_t *ba = (uint8_t *)malloc(cap), *bb = (uint8_t *)malloc(cap);
    if (!ba || !bb)
        return;
    etm_in_t in;
    etm_out_t o;
    int immediate = 1;
    for (unsigned c = 0; c < 50000; c++) {
        etm_gen_next(g, &in, NULL);
        etm_step(a, &in, &o);
        for (unsigned k = 0; k < o.v3_count && na < cap; k++)
            ba[na++] = o.v3_bytes[k];
        unsigned before = etm_fifo_level(b);
        etm_step(b, &in, &o);
        CHECK_EQ(o.v3_count, 0); /* nothing leaves by itself */
        /* Whatever the cycle wrote can be taken at once. */
        if (c == 0)
            immediate = etm_fifo_level(b) > before;
        if (c % 3 != 2 && nb + 2 <= cap) /* a port taking 2 bytes in two of three cycles */
            nb += etm_port_take(b, bb + nb, 2);
    }
    CHECK(immediate);
    etm_end(a);
    etm_end(b);
    while (etm_drain(a, &o) == ETM_OK)
        for (unsigned k = 0; k < o.v3_count && na < cap; k++)
            ba[na++] = o.v3_bytes[k];
    CHECK_EQ(etm_drain(b, &o), ETM_END); /* no port to drain through */
    unsigned n;
    while ((n = etm_port_take(b, bb + nb, 64)) > 0 && nb + 64 <= cap)
        nb += n;
    CHECK_EQ(etm_fifo_level(b), 0);
    CHECK_EQ(etm_get_stats(a)->overflows, 0);
    CHECK_EQ(etm_get_stats(b)->overflows, 0);
    CHECK(na > 1000);
    CHECK_EQ(na, nb);
    CHECK(na == nb && memcmp(ba, bb, na) == 0);
    /* An internal port is not taken from. */
    uint8_t x[4];
    CHECK_EQ(etm_port_take(a, x, 4), 0);
    free(ba);
    free(bb);
    etm_gen_free(g);
    etm_destroy(a);
    etm_destroy(b);

    const char *v1[] = { "preset etmv1.3", "PORT_BYTES=0x0", NULL };
    make(v1, ETM_ERR_FIELD_WIDTH, "ETMv3 only");
}

int main(void)
{
    test_fifofull();
    test_external_port();
    return test_report("test_port");
}
