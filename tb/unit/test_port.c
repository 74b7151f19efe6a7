/* test_port.c - the FIFO's edges: FIFOFULL (ETMCR[7] with ETMFFLR), the
 * external port (PORT_BYTES=0, etm_port_take) and the ATB master (ATREADY
 * back-pressure, ATID, the AFVALID/AFREADY flush). Expected values are worked out
 * by hand from the FIFO rules of docs/etmv3-encoder.md: bytes a cycle writes
 * leave the port from the next cycle on; FIFOFULL is asserted after a cycle
 * when fewer than ETMFFLR bytes are free. Those rules are the in-cycle
 * encoder's (PKT_QUEUE=0, which make() sets unless the test gives PKT_QUEUE);
 * the records' cases say which of their rules they follow. */
#include <stdlib.h>

#include "etm/etm.h"
#include "test.h"

static etm_ctx_t *make(const char *const *sets, etm_err_t want, const char *msg)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_default(&cfg);
    cfg.pkt_queue = 0;
    /* The byte counts below are the what-if choices' (the fewest P-headers, no
     * header of its own for the first atom): the port's mechanics are the same
     * with the part's. */
    cfg.ph_packing = cfg.trace_start = cfg.isync_info = cfg.sync_placement = 0;
    cfg.tailchain_return = cfg.cancel_form = 0;
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

/* The bytes ATREADY took in a cycle onto buf (at most cap), the Ignore
 * padding of a wide port left out when skip_ignore is set. */
static void take_bytes(const etm_out_t *o, uint8_t *buf, size_t *n, size_t cap, int skip_ignore)
{
    for (unsigned k = 0; k < o->v3_count && *n < cap; k++)
        if (!skip_ignore || o->v3_bytes[k] != 0x66)
            buf[(*n)++] = o->v3_bytes[k];
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

    /* With records (the ETM-M3's default) the same A-sync and I-sync enter a
     * packet a cycle, at most FIFO_WRITE=4 bytes (docs/etmv3-encoder.md,
     * "Records"), while the port takes a byte a cycle from cycle 1: levels 4,
     * 4-1+2, 5-1+4, 8-1+2, then 9-1 (the atoms phase writes nothing). 56 bytes
     * asked for: FIFOFULL after cycle 3 only (55 free). */
    const char *rec[] = { "ETMCR=0x890", "FIFO_DEPTH=0x40", "ETMFFLR=0x38", "PKT_QUEUE=0x8", NULL };
    e = make(rec, ETM_OK, NULL);
    if (!e)
        return;
    static const int rec_level[5] = { 4, 5, 8, 9, 8 };
    for (int t = 0; t < 5; t++) {
        etm_step(e, t == 0 ? &i0 : &idle, &o);
        CHECK_EQ(o.fifo_level, rec_level[t]);
        CHECK_EQ(o.fifofull, t == 3);
    }
    CHECK_EQ(etm_get_stats(e)->fifofull_cycles, 1);
    etm_destroy(e);

    /* With records FIFOFULL also says the queue is full: two records waiting
     * (PKT_QUEUE=2), the next would be lost. Instructions in cycles 0 to 2: the
     * first record's A-sync and I-sync take cycles 0 to 3 and its atoms phase
     * cycle 4, so records 1 and 2 wait from cycle 2 until record 1 begins in
     * cycle 5. The store's level (at most 9 of 64) never asks for it. */
    const char *queue[] = { "ETMCR=0x890", "FIFO_DEPTH=0x40", "ETMFFLR=0x1", "PKT_QUEUE=0x2", NULL };
    e = make(queue, ETM_OK, NULL);
    if (!e)
        return;
    for (int t = 0; t < 8; t++) {
        etm_in_t in = t < 3 ? insn(0x100 + 2u * (unsigned)t) : idle;
        etm_step(e, &in, &o);
        CHECK_EQ(o.fifofull, t >= 2 && t <= 4);
    }
    CHECK_EQ(etm_get_stats(e)->fifofull_cycles, 3);
    CHECK_EQ(etm_get_stats(e)->overflows, 0);
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
 * the caller's port clock says; with records (queue) as without (0): the FIFO
 * is deep enough that its room never holds the generator back, so the bytes
 * are the same whenever the port takes them, and the records still queued at
 * etm_end are written as etm_port_take makes room. */
static void test_external_port_queue(const char *queue)
{
    /* Cycle-accurate: the ETM-M3 with the mode added (the cm3-ca-whatif preset's ETMCR_IMPL). */
    const char *in1[] = { "PORT_BYTES=0x1", "FIFO_DEPTH=0x200", "ETMCR_IMPL=0x10633FF1", "ETMCR=0x1810", queue, NULL };
    const char *ext[] = { "PORT_BYTES=0x0", "FIFO_DEPTH=0x200", "ETMCR_IMPL=0x10633FF1", "ETMCR=0x1810", queue, NULL };
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
        take_bytes(&o, ba, &na, cap, 0);
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
        take_bytes(&o, ba, &na, cap, 0);
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

static void test_external_port(void)
{
    test_external_port_queue("PKT_QUEUE=0x0");
    test_external_port_queue("PKT_QUEUE=0x8");
}

/* Records with an external port that takes nothing while the core runs: the
 * 24-byte store fills, the generator waits with records queued, and at
 * etm_end they are still to be written. Taking a byte at a time lets them in
 * (never more than FIFO_DEPTH held), and the bytes are those of an internal
 * port whose FIFO never fills. */
static void test_external_records_end(void)
{
    const char *ext[] = { "PORT_BYTES=0x0", "FIFO_DEPTH=0x18", "PKT_QUEUE=0x8", NULL };
    const char *in1[] = { "PORT_BYTES=0x1", "FIFO_DEPTH=0x200", "PKT_QUEUE=0x8", NULL };
    etm_ctx_t *a = make(in1, ETM_OK, NULL), *b = make(ext, ETM_OK, NULL);
    if (!a || !b)
        return;
    etm_out_t o;
    uint8_t ba[256], bb[256];
    size_t na = 0, nb = 0;
    for (unsigned k = 0; k < 6; k++) {
        /* indirect branches to far targets: 5-byte branch packets */
        etm_in_t t = insn(k & 1 ? 0x00000100u + 8 * k : 0x80000100u + 8 * k);
        t.ibranch = t.iindbr = k != 0;
        etm_step(a, &t, &o);
        take_bytes(&o, ba, &na, sizeof ba, 0);
        etm_step(b, &t, &o);
        CHECK(etm_fifo_level(b) <= 24);
    }
    etm_end(a);
    while (etm_drain(a, &o) == ETM_OK)
        take_bytes(&o, ba, &na, sizeof ba, 0);
    CHECK_EQ(etm_end(b), ETM_OK);
    CHECK_EQ(etm_fifo_level(b), 24); /* full, with more to come */
    CHECK_EQ(etm_drain(b, &o), ETM_END);
    unsigned n;
    while (nb < sizeof bb && (n = etm_port_take(b, bb + nb, 1)) > 0) {
        nb += n;
        CHECK(etm_fifo_level(b) <= 24);
    }
    CHECK_EQ(etm_get_stats(a)->overflows, 0);
    CHECK_EQ(etm_get_stats(b)->overflows, 0);
    CHECK(na > 24 + 12);
    CHECK_EQ(na, nb);
    CHECK(na == nb && memcmp(ba, bb, na) == 0);
    etm_destroy(a);
    etm_destroy(b);
}

/* ATB by hand: a 4-byte ATB (PORT_BYTES=4), trace ID 0x15. Cycle 0 writes
 * A-sync (00 00 00 00 00 80) and I-sync (6 bytes): 12 bytes. */
static void test_atb_hold(void)
{
    const char *sets[] = { "PORT_BYTES=0x4", "FIFO_DEPTH=0x40", "ETMCR=0x810", "ETMTRACEIDR=0x15", NULL };
    etm_ctx_t *e = make(sets, ETM_OK, NULL);
    if (!e)
        return;
    etm_in_t i0 = insn(0x100), idle, stall;
    memset(&idle, 0, sizeof idle);
    stall = idle;
    stall.atstall = 1; /* ATREADY low */
    etm_out_t o;
    etm_step(e, &i0, &o);
    CHECK_EQ(o.atvalid, 0); /* the bytes of a cycle leave from the next one on */
    CHECK_EQ(o.fifo_level, 12);
    CHECK_EQ(o.afready, 0); /* a part with the flush: AFREADY answers AFVALID only */
    etm_step(e, &stall, &o);
    CHECK_EQ(o.atvalid, 1);
    CHECK_EQ(o.atid, 0x15);
    CHECK_EQ(o.v3_count, 0); /* shown, not taken */
    CHECK_EQ(o.fifo_level, 12);
    etm_step(e, &idle, &o);
    CHECK_EQ(o.v3_count, 4);
    CHECK_EQ(o.fifo_level, 8);
    CHECK_EQ(o.v3_bytes[0] | o.v3_bytes[1] | o.v3_bytes[2] | o.v3_bytes[3], 0);
    etm_step(e, &idle, &o);
    CHECK_EQ(o.v3_bytes[0], 0x00);
    CHECK_EQ(o.v3_bytes[1], 0x80);
    CHECK_EQ(o.fifo_level, 4);
    etm_step(e, &idle, &o);
    CHECK_EQ(o.fifo_level, 0);
    CHECK_EQ(etm_get_stats(e)->port_bytes, 12);
    /* A word with padding waits: two bytes at the start of the cycle, more
     * written behind them while ATREADY is low; the word does not change. */
    etm_in_t b1 = insn(0x2000), b2 = insn(0x3000);
    b1.ibranch = b2.ibranch = b1.iindbr = b2.iindbr = 1;
    for (unsigned k = 0; k < 16 && !(o.fifo_level >= 1 && o.fifo_level < 4); k++) {
        b1.ia = 0x2000 + 0x1230 * k;
        etm_step(e, &b1, &o);
        while (o.fifo_level >= 4)
            etm_step(e, &idle, &o);
    }
    unsigned lvl = o.fifo_level;
    CHECK(lvl >= 1 && lvl < 4);
    etm_step(e, &stall, &o);
    uint8_t word[8];
    memcpy(word, o.v3_bytes, 8);
    CHECK_EQ(o.atvalid, 1);
    CHECK_EQ(word[3], 0x66); /* Ignore */
    b2.atstall = 1;
    etm_step(e, &b2, &o); /* stalled, with new bytes written */
    CHECK(memcmp(word, o.v3_bytes, 8) == 0);
    etm_step(e, &stall, &o);
    CHECK(memcmp(word, o.v3_bytes, 8) == 0);
    CHECK_EQ(o.v3_count, 0);
    etm_step(e, &idle, &o);
    CHECK(memcmp(word, o.v3_bytes, 8) == 0);
    CHECK_EQ(o.v3_count, 4);
    CHECK_EQ(o.fifo_level, (uint16_t)(etm_fifo_level(e)));
    etm_destroy(e);
}

/* The flush handshake on a 4-byte ATB: AFREADY once the bytes held when
 * AFVALID rose have left (none: at once); an 8-bit ATB (the ETM-M3) has no
 * flush and ties AFREADY high. */
static void test_atb_flush(void)
{
    const char *sets[] = { "PORT_BYTES=0x4", "FIFO_DEPTH=0x40", "ETMCR=0x810", NULL };
    etm_ctx_t *e = make(sets, ETM_OK, NULL);
    if (!e)
        return;
    etm_in_t i0 = insn(0x100), idle, fl;
    memset(&idle, 0, sizeof idle);
    fl = idle;
    fl.afvalid = 1;
    etm_out_t o;
    etm_step(e, &idle, &o);
    CHECK_EQ(o.afready, 0); /* a flush-capable part: AFREADY only answers AFVALID */
    etm_step(e, &fl, &o);
    CHECK_EQ(o.afready, 1); /* nothing held */
    etm_step(e, &i0, &o);   /* 12 bytes */
    fl.atstall = 1;
    etm_step(e, &fl, &o); /* AFVALID rises with 12 held; ATREADY low */
    CHECK_EQ(o.afready, 0);
    fl.atstall = 0;
    etm_step(e, &fl, &o); /* 4 leave: 8 to go */
    CHECK_EQ(o.afready, 0);
    etm_step(e, &fl, &o); /* 4 to go */
    CHECK_EQ(o.afready, 0);
    etm_step(e, &fl, &o); /* the last 4 */
    CHECK_EQ(o.afready, 0);
    etm_step(e, &fl, &o);
    CHECK_EQ(o.afready, 1);
    etm_destroy(e);

    const char *m3[] = { "preset etm-m3", "ETMCR=0x810", NULL };
    e = make(m3, ETM_OK, NULL);
    if (!e)
        return;
    etm_step(e, &i0, &o);
    fl = idle;
    fl.afvalid = 1;
    for (int c = 0; c < 3; c++) {
        etm_step(e, c ? &fl : &idle, &o);
        CHECK_EQ(o.afready, 1);
        CHECK_EQ(o.atvalid, 1);
    }
    etm_destroy(e);
}

/* Random back-pressure (bursts, 40% of the cycles) on every ATB width: what
 * ATREADY takes, the Ignore padding set aside, is the byte stream of the same
 * ETM without back-pressure; a word not taken stays on ATDATA with ATID. */
static void test_atb_random(void)
{
    static const char *const widths[] = { "PORT_BYTES=0x1", "PORT_BYTES=0x2", "PORT_BYTES=0x4", "PORT_BYTES=0x8" };
    for (unsigned w = 0; w < 4; w++) {
        const char *sets[] = { widths[w], "FIFO_DEPTH=0x400", "ETMSYNCFR=0x800", "ETMCR=0x810",
                               "ETMTRACEIDR=0x2A", NULL };
        etm_ctx_t *a = make(sets, ETM_OK, NULL), *b = make(sets, ETM_OK, NULL);
        etm_gen_params_t gp;
        etm_gen_params_default(&gp);
        gp.seed = 11 + w;
        etm_gen_t *ga = NULL, *gb = NULL;
        etm_diag_t d;
        CHECK_EQ(etm_gen_create(&ga, &gp, &d), ETM_OK);
        gp.atb_stall_pct = 40;
        gp.atb_burst = 8;
        CHECK_EQ(etm_gen_create(&gb, &gp, &d), ETM_OK);
        size_t cap = 1u << 20, na = 0, nb = 0;
        uint8_t *ba = (uint8_t *)malloc(cap), *bb = (uint8_t *)malloc(cap);
        if (!a || !b || !ga || !gb || !ba || !bb)
            return;
        etm_in_t ia, ib;
        etm_out_t oa, ob, prev;
        memset(&prev, 0, sizeof prev);
        int prev_wait = 0, held_ok = 1, id_ok = 1;
        unsigned waits = 0;
        for (unsigned c = 0; c < 40000; c++) {
            etm_gen_next(ga, &ia, NULL);
            etm_gen_next(gb, &ib, NULL);
            etm_step(a, &ia, &oa);
            etm_step(b, &ib, &ob);
            if (prev_wait && (!ob.atvalid || memcmp(prev.v3_bytes, ob.v3_bytes, sizeof ob.v3_bytes) ||
                              prev.atid != ob.atid))
                held_ok = 0;
            if (ob.atvalid && ob.atid != 0x2A)
                id_ok = 0;
            prev_wait = ob.atvalid && ib.atstall;
            waits += (unsigned)prev_wait;
            prev = ob;
            take_bytes(&oa, ba, &na, cap, 1);
            take_bytes(&ob, bb, &nb, cap, 1);
        }
        etm_end(a);
        etm_end(b);
        while (etm_drain(a, &oa) == ETM_OK)
            take_bytes(&oa, ba, &na, cap, 1);
        while (etm_drain(b, &ob) == ETM_OK)
            take_bytes(&ob, bb, &nb, cap, 1);
        CHECK(held_ok);
        CHECK(id_ok);
        CHECK(waits > 1000);
        CHECK_EQ(etm_get_stats(b)->overflows, 0);
        CHECK(etm_get_stats(b)->fifofull_cycles == 0);
        CHECK(na > 1000);
        CHECK_EQ(na, nb);
        CHECK(na == nb && memcmp(ba, bb, na) == 0);
        free(ba);
        free(bb);
        etm_gen_free(ga);
        etm_gen_free(gb);
        etm_destroy(a);
        etm_destroy(b);
    }
}

/* The drain after etm_end under back-pressure (etm_drain_in): nothing leaves
 * while the sink holds ATREADY low, the word waits, and the same bytes leave
 * once it is high; etm_drain is the same with the sink ready. */
static void test_drain_backpressure(void)
{
    const char *sets[] = { "FIFO_DEPTH=0x40", "ETMCR=0x810", NULL };
    etm_ctx_t *a = make(sets, ETM_OK, NULL), *b = make(sets, ETM_OK, NULL);
    if (!a || !b)
        return;
    etm_in_t i0 = insn(0x100), stall;
    memset(&stall, 0, sizeof stall);
    stall.atstall = 1;
    etm_out_t o;
    etm_step(a, &i0, &o);
    etm_step(b, &i0, &o);
    etm_end(a);
    etm_end(b);
    uint8_t ba[128], bb[128];
    size_t na = 0, nb = 0;
    while (etm_drain(a, &o) == ETM_OK)
        take_bytes(&o, ba, &na, sizeof ba, 0);
    unsigned level = etm_fifo_level(b);
    CHECK(level > 0);
    for (int c = 0; c < 5; c++) {
        CHECK_EQ(etm_drain_in(b, &stall, &o), ETM_OK);
        CHECK_EQ(o.v3_count, 0);
        CHECK_EQ(o.atvalid, 1);
        CHECK_EQ(etm_fifo_level(b), level);
    }
    while (etm_drain_in(b, NULL, &o) == ETM_OK)
        take_bytes(&o, bb, &nb, sizeof bb, 0);
    CHECK(na > 0);
    CHECK_EQ(na, nb);
    CHECK(na == nb && memcmp(ba, bb, na) == 0);
    etm_destroy(a);
    etm_destroy(b);
}

/* The FIFO's write port: the first instruction makes A-sync and I-sync, 12
 * bytes, in cycle 0. With FIFO_WRITE=1 one of them enters the store each cycle
 * (cycle 0 included), and a 4-byte ATB shows a word only once the store holds
 * four (nothing shorter while bytes are staged): words in cycles 4, 8 and 12.
 * With FIFO_WRITE=16 all 12 enter in cycle 0: words in cycles 1, 2 and 3. The
 * bytes are the same; FIFOLEVEL counts staged bytes too. */
static void test_write_port(void)
{
    static const struct {
        const char *write;
        int word_at[3];
    } runs[] = { { "FIFO_WRITE=0x1", { 4, 8, 12 } }, { "FIFO_WRITE=0x10", { 1, 2, 3 } } };
    uint8_t got[2][16];
    size_t n[2] = { 0, 0 };
    for (unsigned r = 0; r < 2; r++) {
        const char *sets[] = { "ETMCR=0x810", "PORT_BYTES=0x4", runs[r].write, NULL };
        etm_ctx_t *e = make(sets, ETM_OK, NULL);
        if (!e)
            return;
        etm_in_t i0 = insn(0x100), idle;
        memset(&idle, 0, sizeof idle);
        etm_out_t o;
        unsigned words = 0;
        for (int t = 0; t < 16; t++) {
            CHECK_EQ(etm_step(e, t == 0 ? &i0 : &idle, &o), ETM_OK);
            if (t == 0)
                CHECK_EQ(o.fifo_level, 12); /* staged or stored, all held */
            int want = words < 3 && t == runs[r].word_at[words];
            CHECK_EQ(o.atvalid, want);
            if (o.atvalid) {
                CHECK_EQ(o.v3_count, 4);
                words++;
            }
            take_bytes(&o, got[r], &n[r], sizeof got[r], 0);
        }
        CHECK_EQ(words, 3);
        CHECK_EQ(o.fifo_level, 0);
        const etm_stats_t *st = etm_get_stats(e);
        CHECK_EQ(st->staged_cycles, r == 0 ? 11u : 0u);
        etm_destroy(e);
    }
    static const uint8_t stream[12] = { 0, 0, 0, 0, 0, 0x80, 0x08, 0x20, 0x01, 0x01, 0, 0 };
    CHECK_EQ(n[0], 12);
    CHECK_EQ(n[1], 12);
    CHECK(!memcmp(got[0], stream, 12));
    CHECK(!memcmp(got[1], stream, 12));
}

/* Records (PKT_QUEUE): the generator writes a phase a packet at a time, at most
 * FIFO_WRITE bytes a cycle and bytes of one packet only; FIFOLEVEL counts the
 * store. The first instruction's phase is A-sync and I-sync, 6 bytes each;
 * derived by hand (docs/etmv3-encoder.md, "Records"), FIFO_WRITE=4:
 *   cycle 0: A-sync 0-3 enter the store (level 4)
 *   cycle 1: word A-sync 0-3 leaves; A-sync 4-5 enter (level 2)
 *   cycle 2: 2 bytes stored, but bytes entered in cycle 1: no word;
 *            I-sync 0-3 enter (level 6)
 *   cycle 3: word A-sync 4-5, I-sync 0-1; I-sync 4-5 enter (level 4)
 *   cycle 4: the atoms phase (its E opens a header: no byte); word I-sync 2-5
 * At the end the open header (0x84) goes out alone: it enters the store on the
 * first drain edge, waits one edge (a byte entered), and leaves padded. */
static void test_records_write(void)
{
    const char *sets[] = { "ETMCR=0x810", "PORT_BYTES=0x4", "FIFO_WRITE=0x4", "PKT_QUEUE=0x4", NULL };
    etm_ctx_t *e = make(sets, ETM_OK, NULL);
    if (!e)
        return;
    static const int level_at[6] = { 4, 2, 6, 4, 0, 0 };
    static const int word_at[6] = { 0, 1, 0, 1, 1, 0 };
    etm_in_t i0 = insn(0x100), idle;
    memset(&idle, 0, sizeof idle);
    etm_out_t o;
    uint8_t got[32];
    size_t n = 0;
    for (int t = 0; t < 6; t++) {
        CHECK_EQ(etm_step(e, t == 0 ? &i0 : &idle, &o), ETM_OK);
        CHECK_EQ(o.fifo_level, level_at[t]);
        CHECK_EQ(o.atvalid, word_at[t]);
        take_bytes(&o, got, &n, sizeof got, 0);
    }
    static const uint8_t stream[12] = { 0, 0, 0, 0, 0, 0x80, 0x08, 0x20, 0x01, 0x01, 0, 0 };
    CHECK_EQ(n, 12);
    CHECK(!memcmp(got, stream, 12));
    CHECK_EQ(etm_end(e), ETM_OK);
    int words[8] = { 0 };
    unsigned edges = 0;
    while (edges < 8 && etm_drain(e, &o) == ETM_OK) {
        words[edges++] = o.atvalid;
        take_bytes(&o, got, &n, sizeof got, 0);
    }
    CHECK_EQ(edges, 3);
    CHECK(!words[0] && !words[1] && words[2]);
    static const uint8_t last[4] = { 0x84, 0x66, 0x66, 0x66 };
    CHECK_EQ(n, 16);
    CHECK(!memcmp(got + 12, last, 4));
    etm_destroy(e);
}

/* ETMSR[0], an overflow not yet traced (etm_untraced_overflow reads it): 1
 * from the overflow until the restart's I-sync, reason overflow, is made at
 * the next traced instruction; the FIFO having drained is not enough (without
 * records it once read 0 from then on, and a scoreboard told the trace was
 * complete found instructions lost without an overflow). With records
 * (PKT_QUEUE) and without. Sequential instructions behind a port held by
 * ATREADY fill a 24-byte FIFO; the port is released, the core stays idle
 * long after the FIFO has drained, then executes one more instruction. */
static void test_untraced_until_isync(const char *queue)
{
    const char *sets[] = { "FIFO_DEPTH=0x18", "ETMCR=0x810", queue, NULL };
    etm_ctx_t *e = make(sets, ETM_OK, NULL);
    if (!e)
        return;
    etm_out_t o;
    uint32_t a = 0x1000;
    unsigned k;
    for (k = 0; k < 2000 && !etm_get_stats(e)->overflows; k++) {
        etm_in_t in = insn(a);
        in.ibranch = (uint8_t)(k % 3 == 0); /* a branch packet every third cycle fills the FIFO sooner */
        in.iindbr = in.ibranch;
        a = in.ibranch ? a + 0x100 : a + 2;
        in.atstall = 1;
        etm_step(e, &in, &o);
    }
    CHECK(etm_get_stats(e)->overflows == 1);
    CHECK_EQ(etm_untraced_overflow(e), 1);
    etm_in_t idle;
    memset(&idle, 0, sizeof idle);
    for (k = 0; k < 200; k++)
        etm_step(e, &idle, &o);
    CHECK_EQ(etm_fifo_level(e), 0);
    CHECK_EQ(etm_untraced_overflow(e), 1); /* drained, but no I-sync yet */
    etm_in_t next = insn(a);
    next.ibranch = next.iindbr = 1;
    etm_step(e, &next, &o);
    for (k = 0; k < 40; k++)
        etm_step(e, &idle, &o);
    CHECK_EQ(etm_untraced_overflow(e), 0); /* the I-sync, reason overflow, was made */
    etm_destroy(e);
}

int main(void)
{
    test_untraced_until_isync("PKT_QUEUE=0x0");
    test_untraced_until_isync("PKT_QUEUE=0x8");
    test_fifofull();
    test_drain_backpressure();
    test_external_port();
    test_external_records_end();
    test_atb_hold();
    test_atb_flush();
    test_atb_random();
    test_write_port();
    test_records_write();
    return test_report("test_port");
}
