/* test_pipestat.c - the ETMv1 port, cycle by cycle, for small hand-made stimuli.
 * Expected values are worked out by hand from the architecture's table 5.1 and
 * sections 5.4-5.9 and from the mapping in docs/etmv1-encoder.md (statuses
 * resolved by the next instruction, a restart BE standing for no instruction,
 * APO in the two cycles after a branch). */
#include <stdlib.h>

#include "etm/decode_v1.h"
#include "etm/etm.h"
#include "test.h"

enum { IE = 0, ID = 1, IN = 2, WT = 3, BE = 4, BD = 5, TR = 6, TD = 7 };

#define MAXC 4096

typedef struct run {
    etm_ctx_t *etm;
    etm_out_t o[MAXC];
    unsigned n;
} run_t;

static run_t R;

static void start(const char *preset, uint32_t etmcr, unsigned fifo)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_preset(&cfg, preset);
    cfg.etmcr = etmcr;
    if (fifo)
        cfg.fifo_depth = fifo;
    R.n = 0;
    if (etm_create(&R.etm, &cfg, &d) != ETM_OK) {
        fprintf(stderr, "config: %s\n", d.msg);
        CHECK(0);
    }
}

static void start_cfg(etm_config_t *cfg)
{
    etm_diag_t d;
    R.n = 0;
    if (etm_create(&R.etm, cfg, &d) != ETM_OK) {
        fprintf(stderr, "config: %s\n", d.msg);
        CHECK(0);
    }
}

static void step(const etm_in_t *in)
{
    if (R.n < MAXC)
        etm_step(R.etm, in, &R.o[R.n++]);
}

static void finish(void)
{
    etm_end(R.etm);
    while (R.n < MAXC && etm_drain(R.etm, &R.o[R.n]) == ETM_OK)
        R.n++;
}

static etm_in_t idle(void)
{
    etm_in_t in;
    memset(&in, 0, sizeof in);
    return in;
}

static etm_in_t insn(uint32_t a, int passed)
{
    etm_in_t in = idle();
    in.ivalid = 1;
    in.ia = a;
    in.iccfail = (uint8_t)!passed;
    return in;
}

static etm_in_t target(uint32_t a)
{
    etm_in_t in = insn(a, 1);
    in.ibranch = in.iindbr = 1;
    return in;
}

static void expect_ps(const int *ps, const int *pkt, const int *sync, unsigned n, const char *what)
{
    int ok = R.n == n;
    for (unsigned i = 0; ok && i < n; i++)
        ok = R.o[i].pipestat == ps[i] && (!pkt || R.o[i].tracepkt == pkt[i]) && (!sync || R.o[i].tracesync == sync[i]);
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s\n  cycle: want PS/PKT/SYNC   got PS/PKT/SYNC\n", what);
        for (unsigned i = 0; i < n || i < R.n; i++) {
            if (i < n)
                fprintf(stderr, "  %3u:   %d/%02x/%d", i, ps[i], pkt ? pkt[i] : -1, sync ? sync[i] : -1);
            else
                fprintf(stderr, "  %3u:          ", i);
            if (i < R.n)
                fprintf(stderr, "        %d/%02x/%d\n", R.o[i].pipestat, R.o[i].tracepkt, R.o[i].tracesync);
            else
                fprintf(stderr, "\n");
        }
    }
}

/* Instructions E, E, N from 0x100: the restart BE (full address 0x101, reason 1),
 * its two APO cycles, then IE, IE, IN; TD when nothing is left. */
static void test_basic(void)
{
    start("etmv1.3", 0x810, 0);
    etm_in_t a = insn(0x100, 1), b = insn(0x102, 1), c = insn(0x104, 0);
    step(&a);
    step(&b);
    step(&c);
    finish();
    /* 0x101 = 0b1_0000_0001: packets 81 82 80 80 10 (5th: A[31:28]=0, reason 1). */
    static const int ps[] = { BE, 0, 0, IE, IE, IN };
    static const int pkt[] = { 0x81, 0x82, 0x80, 0x80, 0x10, 0x00 };
    static const int sync[] = { 1, 0, 0, 0, 0, 0 };
    expect_ps(ps, pkt, sync, 6, "restart, IE, IE, IN");
    etm_destroy(R.etm);
}

/* An indirect branch: BE with a compressed address after the restart. */
static void test_branch(void)
{
    start("etmv1.3", 0x810, 0);
    etm_in_t a = insn(0x100, 1), t = target(0x2000), b = insn(0x2002, 1);
    step(&a);
    step(&t);
    step(&b);
    finish();
    /* BE at cycle 3 (after the restart's APO cycles); the FIFO still holds the
     * restart's last two packets, whose start has left: APO 0. 0x2001 against
     * 0x101: bits 13 and 8 changed -> 2 packets 81 40. */
    static const int ps[] = { BE, 0, 0, BE, 0, 0, IE, IE };
    static const int pkt[] = { 0x81, 0x82, 0x80, 0x80, 0x10, 0x81, 0x40, 0x00 };
    static const int sync[] = { 1, 0, 0, 0, 0, 1, 0, 0 };
    expect_ps(ps, pkt, sync, 8, "BE with APO 0");
    etm_destroy(R.etm);

    /* A direct branch target is not traced: the branch is IE; with branch
     * output (ETMCR[8]) it is BE. */
    start("etmv1.3", 0x810, 0);
    etm_in_t dt = insn(0x2000, 1);
    dt.ibranch = 1;
    step(&a);
    step(&dt);
    finish();
    static const int ps2[] = { BE, 0, 0, IE, IE };
    expect_ps(ps2, NULL, NULL, 5, "direct branch: IE");
    etm_destroy(R.etm);
    start("etmv1.3", 0x910, 0);
    step(&a);
    step(&dt);
    finish();
    static const int ps3[] = { BE, 0, 0, BE, 0, 0, IE };
    expect_ps(ps3, NULL, NULL, 7, "direct branch with branch output: BE");
    etm_destroy(R.etm);
}

/* 4-bit port: a packet is two nibbles, low first, TRACESYNC with the low one;
 * a second branch waits behind the first's address: APO 1. */
static void test_port4_apo(void)
{
    start("etmv1.3", 0x800, 0); /* port size 000: 4 bits */
    etm_in_t a = insn(0x100, 1), t1 = target(0x2000), t2 = target(0x3000), z = insn(0x3002, 1);
    step(&a);
    step(&t1);
    step(&t2);
    step(&z);
    finish();
    /* cycle 0: restart BE, nibbles of 81 82 80 80 10 leave in cycles 0-9.
     * cycle 3: BE(0x100 -> 0x2000): no address start waiting -> APO 0; its
     * packets 81 40 leave in cycles 10-13 (TRACESYNC at 10).
     * cycle 6: BE(0x2000 -> 0x3000): 0x2000's start is still waiting -> APO 1;
     * 0x3001 against 0x2001: bits 13 and 12 changed -> 2 packets 81 60, cycles 14-17.
     * 0x3000 (resolved by 0x3002) and 0x3002 (resolved at the end): IE in 9, 10. */
    static const int ps[] = { BE, 0, 0, BE, 0, 0, BE, 1, 0, IE, IE, WT, WT, WT, WT, WT, WT, WT };
    static const int pkt[] = { 0x1, 0x8, 0x2, 0x8, 0x0, 0x8, 0x0, 0x8, 0x0, 0x1, 0x1, 0x8, 0x0, 0x4,
                               0x1, 0x8, 0x0, 0x6 };
    static const int sync[] = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
    expect_ps(ps, pkt, sync, 18, "4-bit port, APO 1");
    etm_destroy(R.etm);
}

/* 16-bit port: two packets per cycle; an address never starts on [15:8]. */
static void test_port16(void)
{
    start("etmv1.3", 0x820, 0);
    etm_in_t a = insn(0x100, 1), t = target(0x2000), b = insn(0x2002, 1);
    step(&a);
    step(&t);
    step(&b);
    finish();
    /* cycle 0: 81 82; 1: 80 80; 2: 10 alone (the FIFO is then empty).
     * cycle 3: BE pushes 81 40 (TRACESYNC): out on [7:0],[15:8] in the same cycle. */
    static const int ps[] = { BE, 0, 0, BE, 0, 0, IE, IE };
    static const int pkt[] = { 0x8281, 0x8080, 0x0010, 0x4081, 0, 0, 0, 0 };
    static const int sync[] = { 1, 0, 0, 1, 0, 0, 0, 0 };
    expect_ps(ps, pkt, sync, 8, "16-bit port");
    etm_destroy(R.etm);
}

/* Trigger: TR with the replaced status on TRACEPKT[2:0]; no packet leaves. */
static void test_trigger(void)
{
    etm_config_t cfg;
    etm_config_preset(&cfg, "etmv1.3");
    cfg.etmccer = 0;
    /* ETMv1 has no DWT inputs resource in the generic preset: use the always
     * true resource so the trigger fires in the first cycle. */
    cfg.etmtrigger = 0x6F;
    start_cfg(&cfg);
    etm_in_t a = insn(0x100, 1), b = insn(0x102, 1);
    step(&a);
    step(&b);
    finish();
    /* Cycle 0: TR; the restart BE it replaces is on TRACEPKT (4), and the
     * address does not drain until cycle 1; every packet is a cycle later. */
    static const int ps[] = { TR, 0, 0, IE, IE, WT };
    static const int pkt[] = { 4, 0x81, 0x82, 0x80, 0x80, 0x10 };
    static const int sync[] = { 0, 1, 0, 0, 0, 0 };
    expect_ps(ps, pkt, sync, 6, "trigger");
    CHECK_EQ(R.o[0].trigger, 1);
    CHECK_EQ(R.o[1].trigger, 0);
    etm_destroy(R.etm);
}

/* Data: a word load with address and value traced is ID: address packets
 * (first data address after a restart is full), then the 4 value bytes. */
static void test_data(void)
{
    start("etmv1.3", 0x81C, 0); /* ETMCR[3:2] = 11 */
    etm_in_t l = insn(0x100, 1);
    l.dactl = 3u | (0x0Fu << 3) | (1u << 16) | (1u << 17); /* slot 3, lanes 0-3, last, nseq */
    l.da = 0x20000010;
    step(&l);
    etm_in_t i0 = idle();
    step(&i0);
    etm_in_t v = idle();
    v.ddctl = 3;
    v.dd = 0x11223344;
    step(&v);
    etm_in_t b = insn(0x104, 1);
    step(&b);
    finish();
    /* 0: restart BE + 5 address packets (81 82 80 80 10) leave 0-4;
     * 3: the load is ready (value arrived in 2, next instruction in 3): ID,
     *    data address 0x20000010 full: 90 80 80 80 02, values 44 33 22 11;
     * then 0x104: IE. */
    static const int ps[] = { BE, 0, 0, ID, IE, WT, WT, WT, WT, WT, WT, WT, WT, WT };
    static const int pkt[] = { 0x81, 0x82, 0x80, 0x80, 0x10, 0x90, 0x80, 0x80, 0x80, 0x02, 0x44, 0x33, 0x22, 0x11 };
    expect_ps(ps, pkt, NULL, 14, "ID with address and value");
    etm_destroy(R.etm);

    /* A load to the PC with data traced is BD: data first, then the address. */
    start("etmv1.3", 0x814, 0); /* value only */
    l = insn(0x100, 1);
    l.dactl = 3u | (0x0Fu << 3) | (1u << 16) | (1u << 17);
    l.da = 0x20000010;
    step(&l);
    step(&i0);
    step(&v);
    etm_in_t t = target(0x2000);
    step(&t);
    finish();
    static const int ps2[] = { BE, 0, 0, BD, 0, 0, IE, WT, WT, WT, WT };
    static const int pkt2[] = { 0x81, 0x82, 0x80, 0x80, 0x10, 0x44, 0x33, 0x22, 0x11, 0x81, 0x40 };
    static const int sync2[] = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
    expect_ps(ps2, pkt2, sync2, 11, "BD: value then branch address");
    etm_destroy(R.etm);

    /* Data trace off (ETMCR[3:2] = 00): table 5.1's ID and BD say a data packet
     * went into the FIFO, so the same load is IE and the load to the PC is BE,
     * with the branch address only. */
    start("etmv1.3", 0x810, 0);
    step(&l);
    step(&i0);
    step(&v);
    step(&t);
    finish();
    static const int ps3[] = { BE, 0, 0, BE, 0, 0, IE };
    static const int pkt3[] = { 0x81, 0x82, 0x80, 0x80, 0x10, 0x81, 0x40 };
    static const int sync3[] = { 1, 0, 0, 0, 0, 1, 0 };
    expect_ps(ps3, pkt3, sync3, 7, "data trace off: a load is IE, a load to the PC is BE");
    etm_destroy(R.etm);
}

/* The writer: a status's packets are admitted whole, but written a transfer's
 * values a cycle, and no status with packets goes out while they are written
 * (docs/etmv1-encoder.md, "Packets"). An LDM of three words, values traced
 * (8-bit port): its transfers in cycles 0-2, their values in 2-4; the next
 * instruction (cycle 5) makes it ID. Cycle 5: ID, the first word written;
 * 6, 7: the second and third. The instruction at 0x104, a branch to 0x2000
 * resolved in cycle 6, waits for them: BE in cycle 8 (in 6 were the words
 * written with the status), its APO 0 in 9 and 10, then IE for 0x2000 and
 * for 0x2002 (resolved by the end). The bytes leave one a cycle throughout. */
static void test_data_writer(void)
{
    start("etmv1.3", 0x814, 0); /* values only */
    etm_in_t c[8];
    for (unsigned i = 0; i < 8; i++)
        c[i] = idle();
    c[0] = insn(0x100, 1);
    c[0].dactl = 1u | (0x0Fu << 3) | (1u << 17); /* slot 1, lanes 0-3, first */
    c[0].da = 0x20000010;
    c[1].dactl = 2u | (0x0Fu << 3);              /* slot 2 */
    c[1].da = 0x20000014;
    c[2].dactl = 3u | (0x0Fu << 3) | (1u << 16); /* slot 3, last */
    c[2].da = 0x20000018;
    c[2].ddctl = 1;
    c[2].dd = 0xA3A2A1A0u;
    c[3].ddctl = 2;
    c[3].dd = 0xB3B2B1B0u;
    c[4].ddctl = 3;
    c[4].dd = 0xC3C2C1C0u;
    c[5] = insn(0x104, 1);
    c[6] = target(0x2000);
    c[7] = insn(0x2002, 1);
    for (unsigned i = 0; i < 8; i++)
        step(&c[i]);
    finish();
    static const int ps[] = { BE, 0, 0, WT, WT, ID, WT, WT, BE, 0, 0, IE, IE, WT, WT, WT, WT, WT, WT };
    static const int pkt[] = { 0x81, 0x82, 0x80, 0x80, 0x10, 0xA0, 0xA1, 0xA2, 0xA3, 0xB0,
                               0xB1, 0xB2, 0xB3, 0xC0, 0xC1, 0xC2, 0xC3, 0x81, 0x40 };
    static const int sync[] = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
    expect_ps(ps, pkt, sync, 19, "LDM: values written a transfer a cycle, the BE after waits");
    etm_destroy(R.etm);
}

/* The independent ETMv1 decoder's view of R (code: LDR at 0x100, IT at 0x102,
 * MOVS at 0x104; POP {r0, pc} at 0x110; MOVS at 0x200). */
typedef struct seen {
    unsigned ninsn, ndata;
    uint32_t insn_addr[8];
    unsigned insn_status[8];
    uint32_t data_insn, data_addr;
    unsigned data_bytes;
} seen_t;

static void on_el(void *user, const etm_v1el_t *e)
{
    seen_t *v = (seen_t *)user;
    if (e->kind == ETM_V1EL_INSN && v->ninsn < 8) {
        v->insn_addr[v->ninsn] = e->addr;
        v->insn_status[v->ninsn++] = e->status;
    } else if (e->kind == ETM_V1EL_DATA) {
        v->ndata++;
        v->data_insn = e->addr;
        v->data_addr = e->data_addr;
        v->data_bytes = e->nbytes;
    }
}

static void decode_run(const etm_config_t *cfg, seen_t *v)
{
    static uint8_t code[0x110];
    memset(code, 0, sizeof code);
    const uint8_t prog[] = { 0x08, 0x68, 0x08, 0xbf, 0x01, 0x20 }; /* ldr r0,[r1]; it eq; movs r0,#1 */
    memcpy(code, prog, sizeof prog);
    code[0x10] = 0x01; /* pop {r0, pc} */
    code[0x11] = 0xbd;
    code[0x100] = 0x01; /* movs r0, #1 at 0x200 */
    code[0x101] = 0x20;
    etm_v1_window_t w = { 0x100, code, sizeof code };
    etm_v1dec_t *d = NULL;
    etm_diag_t diag;
    memset(v, 0, sizeof *v);
    CHECK_EQ(etm_v1dec_create(&d, cfg, 0, ETM_V1DEC_STRICT, &diag), ETM_OK);
    if (!d)
        return;
    etm_v1dec_on_element(d, on_el, v);
    etm_v1dec_set_windows(d, &w, 1);
    for (unsigned i = 0; i < R.n; i++)
        if (etm_v1dec_step(d, &R.o[i], &diag) != ETM_OK) {
            fprintf(stderr, "decoder: %s\n", diag.msg);
            CHECK(0);
        }
    etm_v1dec_destroy(d);
}

/* A transfer belongs to the instruction it was made for: not to an IT folded
 * after it, and a second DANSeq (LDM with the PC) stays with its instruction
 * and does not replace the first transfer's address. */
static void test_data_owner(void)
{
    etm_config_t cfg;
    etm_config_preset(&cfg, "etmv1.3");
    cfg.etmcr = 0x81C; /* address and value */
    start_cfg(&cfg);
    etm_in_t l = insn(0x100, 1);
    l.fold = 1;
    l.dactl = 1u | (0x0Fu << 3) | (1u << 16) | (1u << 17); /* slot 1, lanes 0-3, last, nseq */
    l.da = 0x20000010;
    step(&l);
    etm_in_t z = idle(), v = idle();
    step(&z);
    v.ddctl = 1;
    v.dd = 0x11223344;
    step(&v);
    etm_in_t n = insn(0x104, 1);
    step(&n);
    finish();
    seen_t s;
    decode_run(&cfg, &s);
    CHECK_EQ(s.ninsn, 3);
    CHECK_EQ(s.insn_status[0], ID); /* the load */
    CHECK_EQ(s.insn_status[1], IE); /* the folded IT */
    CHECK_EQ(s.ndata, 1);
    CHECK_EQ(s.data_insn, 0x100);
    CHECK_EQ(s.data_addr, 0x20000010);
    CHECK_EQ(s.data_bytes, 4);
    etm_destroy(R.etm);

    start_cfg(&cfg);
    etm_in_t p = insn(0x110, 1);
    p.dactl = 1u | (0x0Fu << 3) | (1u << 17); /* r0 from 0x20000100: first, not last */
    p.da = 0x20000100;
    step(&p);
    etm_in_t p2 = idle();
    p2.dactl = 2u | (0xF0u << 3) | (1u << 16) | (1u << 17); /* pc from 0x20000104: DANSeq again, last */
    p2.da = 0x20000104;
    step(&p2);
    etm_in_t v1 = idle(), v2 = idle();
    v1.ddctl = 1;
    v1.dd = 0x00000007;
    step(&v1);
    v2.ddctl = 2;
    v2.dd = 0x0000020100000000ull; /* the pc value in lanes 4-7 */
    step(&v2);
    etm_in_t t = target(0x200);
    step(&t);
    finish();
    decode_run(&cfg, &s);
    CHECK_EQ(s.ninsn, 2);
    CHECK_EQ(s.insn_status[0], BD);
    CHECK_EQ(s.ndata, 1);
    CHECK_EQ(s.data_insn, 0x110);
    CHECK_EQ(s.data_addr, 0x20000100);
    CHECK_EQ(s.data_bytes, 8);
    etm_destroy(R.etm);
}

/* Overflow: a small FIFO on a 4-bit port filled by branches: WT while it
 * drains, then a restart BE with reason 2. */
static void test_overflow(void)
{
    start("etmv1.3", 0x800, 24);
    etm_in_t a = insn(0x100, 1);
    step(&a);
    for (int k = 0; k < 12; k++) {
        etm_in_t t = target(k & 1 ? 0x00000100u : 0xF0000100u); /* 5-packet addresses */
        step(&t);
        etm_in_t i0 = idle();
        step(&i0);
        step(&i0);
    }
    int saw = 0;
    for (unsigned i = 0; i < R.n; i++)
        saw |= R.o[i].overflow;
    CHECK(saw);
    for (int k = 0; k < 200; k++) {
        etm_in_t i0 = idle();
        step(&i0);
    }
    etm_in_t z = insn(0x400, 1);
    unsigned at = R.n;
    step(&z);
    finish();
    CHECK_EQ(R.o[at].pipestat, BE);
    /* 0x401: low nibble 1 with TRACESYNC ... fifth packet 0x20: reason 2. */
    CHECK_EQ(R.o[at].tracepkt, 0x1);
    CHECK_EQ(R.o[at].tracesync, 1);
    CHECK_EQ(R.o[at + 8].tracepkt, 0x0);
    CHECK_EQ(R.o[at + 9].tracepkt, 0x2);
    CHECK(etm_get_stats(R.etm)->overflows > 0);
    etm_destroy(R.etm);
}

/* Periodic full address: a BE 1024 cycles after the last full address has a
 * full address with reason 4 (v1.2 and later) or 0 (v1.1). */
static void test_periodic(void)
{
    for (int v = 1; v <= 2; v++) {
        start(v == 1 ? "etmv1.1" : "etmv1.2", 0x810, 0);
        etm_in_t a = insn(0x100, 1);
        step(&a);
        for (int k = 0; k < 1100; k++) {
            etm_in_t i0 = idle();
            step(&i0);
        }
        etm_in_t t = target(0x102); /* would need one packet */
        unsigned at = R.n;
        step(&t);
        finish();
        /* BE at `at` (the queue was empty), packets from at: 83 82 80 80 x0. */
        CHECK_EQ(R.o[at].pipestat, BE);
        CHECK_EQ(R.o[at].tracepkt, 0x83);
        CHECK_EQ(R.o[at + 4].tracepkt, v == 1 ? 0x00 : 0x40);
        etm_destroy(R.etm);
    }
}

/* Trace disabled by the enabling event: TD, then a restart BE with reason 1. */
static void test_disable_and_ca(void)
{
    etm_config_t cfg;
    etm_config_preset(&cfg, "etmv1.3");
    cfg.etmcr = 0x1810; /* cycle-accurate */
    start_cfg(&cfg);
    etm_in_t i0 = idle();
    for (int k = 0; k < 3; k++)
        step(&i0);
    /* Cycle-accurate, trace on, nothing to say: TD with TRACEPKT[0] = 1. */
    CHECK_EQ(R.o[0].pipestat, TD);
    CHECK_EQ(R.o[0].tracepkt, 1);
    etm_destroy(R.etm);
    start("etmv1.3", 0x810, 0);
    step(&i0);
    CHECK_EQ(R.o[0].pipestat, TD);
    CHECK_EQ(R.o[0].tracepkt, 0);
    etm_destroy(R.etm);
}

/* Exceptions: the instruction before the handler becomes a BE to it; the
 * return instruction a BE to the return address. */
static void test_exception(void)
{
    start("etmv1.3", 0x810, 0);
    etm_in_t a = insn(0x100, 1), b = insn(0x102, 1);
    etm_in_t h = target(0x2000);
    h.intstat = ETM_INTSTAT_ENTRY;
    h.intnum = 16;
    etm_in_t r = insn(0x2002, 1);
    etm_in_t back = target(0x104);
    back.intstat = ETM_INTSTAT_RETURN;
    step(&a);
    step(&b);
    step(&h);
    step(&r);
    step(&back);
    finish();
    static const int ps[] = { BE, 0, 0, IE, BE, 0, 0, IE, BE, 0, 0, IE };
    expect_ps(ps, NULL, NULL, 12, "exception entry and return as branches");
    etm_destroy(R.etm);
}

int main(void)
{
    test_basic();
    test_branch();
    test_port4_apo();
    test_port16();
    test_trigger();
    test_data();
    test_data_writer();
    test_data_owner();
    test_overflow();
    test_periodic();
    test_disable_and_ca();
    test_exception();
    return test_report("test_pipestat");
}
