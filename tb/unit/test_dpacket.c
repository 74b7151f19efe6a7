/* test_dpacket.c - ETMv3 data packets (stage packet, dpacket.c) on short
 * stimuli whose bytes are worked out by hand from IHI 0014 table 7.1 and the
 * rules of docs/data-trace.md. Every stream starts with the A-sync and the
 * I-sync of the first instruction, 0x100 in Thumb state:
 *     00 00 00 00 00 80 08 20 01 01 00 00
 * Data addresses are near 0x20000010; the first one after a sync is the full
 * 5-byte form 90 80 80 80 02 (0x10, then 0x20000010 >> 7, >> 14, >> 21 have
 * seven zero bits each, and bits [31:28] = 2).
 */
#include "etm/etm.h"
#include "test.h"

#define MAXC 64

static etm_in_t S[MAXC];
static unsigned NS;

static etm_in_t *cyc(void)
{
    etm_in_t *in = &S[NS++];
    memset(in, 0, sizeof *in);
    return in;
}

static etm_in_t *insn(uint32_t ia)
{
    etm_in_t *in = cyc();
    in->ivalid = 1;
    in->ia = ia;
    return in;
}

/* A transfer of `bytes` bytes at da (little-endian, one word). */
static void xfer(etm_in_t *in, unsigned slot, uint32_t da, unsigned bytes, int first, int last, int write)
{
    unsigned lanes = ((1u << bytes) - 1u) << (da & 7);
    in->dactl = slot | (unsigned)write << 2 | (lanes & 0xFFu) << 3 | (da & 3u) << 12 | (unsigned)last << 16 |
                (unsigned)first << 17;
    in->da = da;
}

static void value(etm_in_t *in, unsigned slot, uint64_t dd, unsigned flags)
{
    in->ddctl = (uint8_t)(slot | flags);
    in->dd = dd;
}

static uint8_t OUT[1024];
static unsigned NOUT;

/* Run S through a model with the generic ETMv3.4 configuration and `sets`. */
static int run(const char *const *sets)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_preset(&cfg, "etmv3.4");
    cfg.fifo_depth = 256;
    cfg.port_bytes = 1; /* no Ignore padding */
    for (unsigned i = 0; sets && sets[i]; i++)
        if (etm_config_parse_line(&cfg, sets[i], NULL, NULL, &d) != ETM_OK) {
            fprintf(stderr, "%s: %s\n", sets[i], d.msg);
            return -1;
        }
    etm_ctx_t *e;
    if (etm_create(&e, &cfg, &d) != ETM_OK) {
        fprintf(stderr, "model: %s\n", d.msg);
        return -1;
    }
    NOUT = 0;
    int rules = 0;
    etm_out_t o;
    for (unsigned k = 0; k < NS; k++) {
        if (etm_step(e, &S[k], &o) == ETM_ERR_RULE) {
            etm_rule_t r;
            etm_last_rules(e, &r, 1);
            fprintf(stderr, "cycle %u breaks %s\n", k, etm_rule_name(r));
            rules++;
        }
        for (unsigned b = 0; b < o.v3_count; b++)
            if (NOUT < sizeof OUT)
                OUT[NOUT++] = o.v3_bytes[b];
    }
    etm_end(e);
    while (etm_drain(e, &o) == ETM_OK)
        for (unsigned b = 0; b < o.v3_count; b++)
            if (NOUT < sizeof OUT)
                OUT[NOUT++] = o.v3_bytes[b];
    etm_destroy(e);
    return rules;
}

static const uint8_t SYNC[] = { 0, 0, 0, 0, 0, 0x80, 0x08, 0x20, 0x01, 0x01, 0x00, 0x00 };

static void expect(int line, const uint8_t *want, unsigned n)
{
    int ok = NOUT == sizeof SYNC + n && !memcmp(OUT, SYNC, sizeof SYNC) && !memcmp(OUT + sizeof SYNC, want, n);
    test_checks++;
    if (!ok) {
        test_failures++;
        fprintf(stderr, "%s:%d: bytes after the sync differ\n  got: ", __FILE__, line);
        for (unsigned i = sizeof SYNC; i < NOUT; i++)
            fprintf(stderr, " %02x", OUT[i]);
        fprintf(stderr, "\n want:");
        for (unsigned i = 0; i < n; i++)
            fprintf(stderr, " %02x", want[i]);
        fprintf(stderr, "\n");
    }
}

#define EXPECT(...)                                                  \
    do {                                                             \
        static const uint8_t w_[] = { __VA_ARGS__ };                 \
        expect(__LINE__, w_, (unsigned)sizeof w_);                   \
    } while (0)

static const char *const BOTH[] = { "ETMCR=0x80C", NULL };

static void test_normal(void)
{
    /* LDR at 0x100 loads 0x11223344 from 0x20000010; its value comes two
     * cycles later. The atom goes out when the transfer is seen (84), the
     * normal data packet when the value comes: 00A0SS10 with A=1, SS=11 (4
     * bytes) = 2E, the full address, the value little-endian. */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 0);
    cyc();
    value(cyc(), 1, 0x11223344, 0);
    insn(0x102);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x2E, 0x90, 0x80, 0x80, 0x80, 0x02, 0x44, 0x33, 0x22, 0x11, 0x84);

    /* Values lose their leading zero bytes: 0x12 is one byte (SS=01: 26),
     * 0x1234 two (SS=10: 2A, with A=0 and no address for the LDM's second word:
     * 0A), 0 none (02); 0 right after an address goes as one byte (26 .. 00).
     * LDM of three words at 0x20000010, then an LDR of 0 from 0x20000040. */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 0, 0);
    xfer(cyc(), 2, 0x20000014, 4, 0, 0, 0);
    etm_in_t *c = cyc();
    xfer(c, 3, 0x20000018, 4, 0, 1, 0);
    value(c, 1, 0x12, 0);
    value(cyc(), 2, 0x00001234ull << 32, 0);
    value(cyc(), 3, 0, 0);
    xfer(insn(0x102), 1, 0x20000040, 4, 1, 1, 0);
    cyc();
    value(cyc(), 1, 0, 0);
    CHECK_EQ(run(BOTH), 0);
    /* 0x20000040 against 0x20000010: bits [6:4] changed, one byte 0x40. */
    EXPECT(0x84, 0x26, 0x90, 0x80, 0x80, 0x80, 0x02, 0x12, 0x0A, 0x34, 0x12, 0x02, 0x84, 0x26, 0x40, 0x00);
}

static void test_modes(void)
{
    /* Address only (ETMCR[3:2]=10): the packet goes out with the transfer, SS=0:
     * 22 and the address; the LDM's later word is 02. */
    static const char *const addr_only[] = { "ETMCR=0x808", NULL };
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 0, 0);
    xfer(cyc(), 2, 0x20000014, 4, 0, 1, 0);
    value(cyc(), 1, 0x11223344, 0);
    value(cyc(), 2, 0x55667788ull << 32, 0);
    insn(0x102);
    CHECK_EQ(run(addr_only), 0);
    EXPECT(0x84, 0x22, 0x90, 0x80, 0x80, 0x80, 0x02, 0x02, 0x84);

    /* Value only (01): A is still set on the instruction's first packet, but no
     * address bytes follow. */
    static const char *const value_only[] = { "ETMCR=0x804", NULL };
    CHECK_EQ(run(value_only), 0);
    EXPECT(0x84, 0x2E, 0x44, 0x33, 0x22, 0x11, 0x0E, 0x88, 0x77, 0x66, 0x55, 0x84);

    /* Data trace off: the stream is that of the same program without the data
     * slot: 84 for the first atom, 84 for the second at the end... here both
     * atoms share one header (88). */
    static const char *const off[] = { "ETMCR=0x800", NULL };
    CHECK_EQ(run(off), 0);
    EXPECT(0x88);
}

static void test_out_of_order(void)
{
    /* LDR at 0x100 (slot 1, 0x20000010), then STR at 0x102 (slot 2,
     * 0x20000014) before the LDR's value is back. The STR's atom may not go out
     * before a packet for the LDR's transfer: the LDR gets a placeholder
     * 01A1TT00 with A=1, tag 1 (74) and its address; then the STR's atom (84).
     * The LDR's value comes as out-of-order data 0TT0SS00, tag 1, one byte:
     * 24 AB. The STR's value is in order: normal data with its address against
     * 0x20000010 (one byte, 14) and the upper word of ETMDD (lanes 4-7). */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 0);
    xfer(insn(0x102), 2, 0x20000014, 4, 1, 1, 1);
    value(cyc(), 1, 0xAB, 0);
    value(cyc(), 2, 0x55667788ull << 32, 0);
    insn(0x104);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02, 0x84, 0x24, 0xAB, 0x2E, 0x14, 0x88, 0x77, 0x66, 0x55, 0x84);

    /* An LDM of two words whose second value is back first. Packets keep the
     * order of the transfers, so the first word (still waiting) is placed
     * (74 ..) before the second's normal data (A=0, no address: 0E), and its
     * value comes out of order (24 AB). */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 0, 0);
    xfer(cyc(), 2, 0x20000014, 4, 0, 1, 0);
    cyc();
    value(cyc(), 2, 0x55667788ull << 32, 0);
    value(cyc(), 1, 0xAB, 0);
    insn(0x104);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02, 0x0E, 0x88, 0x77, 0x66, 0x55, 0x24, 0xAB, 0x84);
}

static void test_not_traced(void)
{
    /* ViewData only on [0x20000104, 0x20000108): an LDM of three words from
     * 0x20000100 is traced from its second transfer. The first is not traced at
     * all; the second starts the instruction's data (A=1, full address
     * 0x20000104 = 84 82 80 80 02); the third is not viewed: value not traced
     * 011A1010 with its address (7A 08). It must follow the second's packet, whose
     * value is not back yet, so the second gets a placeholder (74 ..) and its
     * value comes out of order (24 12). */
    static const char *const vd[] = { "ETMCR=0x80C", "ETMACVR1=0x20000104", "ETMACVR2=0x20000108", "ETMACTR1=0x4",
                                       "ETMACTR2=0x4", "ETMVDCR3=0x1", "ETMVDEVR=0x6F", NULL };
    NS = 0;
    xfer(insn(0x100), 1, 0x20000100, 4, 1, 0, 0);
    xfer(cyc(), 2, 0x20000104, 4, 0, 0, 0);
    etm_in_t *c = cyc();
    xfer(c, 3, 0x20000108, 4, 0, 1, 0);
    value(c, 1, 0x99, 0);
    value(cyc(), 2, 0x12ull << 32, 0);
    value(cyc(), 3, 0x77, 0);
    insn(0x102);
    CHECK_EQ(run(vd), 0);
    EXPECT(0x84, 0x74, 0x84, 0x82, 0x80, 0x80, 0x02, 0x7A, 0x08, 0x24, 0x12, 0x84);

    /* An imprecise abort on the value: "Data is ignored": value not traced, with
     * the address the packet would have had. */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 1);
    cyc();
    value(cyc(), 1, 0x11223344, 8);
    insn(0x102);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x7A, 0x90, 0x80, 0x80, 0x80, 0x02, 0x84);

    /* A slot gets a new address before the old one's value (an aborted
     * access): the old transfer is not traced (7A, before the new instruction's
     * atom), the new one goes on (2E 20 .., 0x20000020 against 0x20000010). */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 0);
    cyc();
    xfer(insn(0x102), 1, 0x20000020, 4, 1, 1, 0);
    cyc();
    value(cyc(), 1, 0x5A5A5A5A, 0);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x7A, 0x90, 0x80, 0x80, 0x80, 0x02, 0x84, 0x2E, 0x20, 0x5A, 0x5A, 0x5A, 0x5A);
}

static void test_store_failed_and_unaligned(void)
{
    /* A failed store exclusive: the value traced is 0 (one byte after the
     * address), then Store failed (50). */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 1);
    cyc();
    value(cyc(), 1, 0x11223344, 4);
    insn(0x102);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x26, 0x90, 0x80, 0x80, 0x80, 0x02, 0x00, 0x50, 0x84);

    /* Unaligned LDR at 0x20000011: lanes 1-3 (DARot 1) on slot 1, lane 4 on
     * slot 2; memory 11 22 33 | 44. One packet with the first half's address
     * (91 80 80 80 02) and the register 0x44332211, when both values are back. */
    NS = 0;
    etm_in_t *c = insn(0x100);
    c->dactl = 1u | 0x0Eu << 3 | 1u << 11 | 1u << 12 | 1u << 16 | 1u << 17;
    c->da = 0x20000011;
    c = cyc();
    c->dactl = 2u | 0x10u << 3 | 1u << 16;
    c->da = 0x20000014;
    value(cyc(), 1, 0x332211EEull, 0);
    value(cyc(), 2, 0x44ull << 32, 0);
    insn(0x102);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x2E, 0x91, 0x80, 0x80, 0x80, 0x02, 0x11, 0x22, 0x33, 0x44, 0x84);

    /* SWP: a load and a store at the same address; the second transfer has
     * DANSeq, so its packet carries the address again (A=1, one byte 10). */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 0, 0);
    xfer(cyc(), 2, 0x20000010, 4, 0, 1, 1);
    S[NS - 1].dactl |= 1u << 17;
    value(cyc(), 1, 0x01, 0);
    value(cyc(), 2, 0x02, 0);
    insn(0x102);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x26, 0x90, 0x80, 0x80, 0x80, 0x02, 0x01, 0x26, 0x10, 0x02, 0x84);
}

static void test_trace_off(void)
{
    /* TraceEnable only for the instruction at 0x100 (include range [0x100,
     * 0x102)). The LDR there is traced and its value goes out after trace has
     * turned off; the next instruction is not traced, nor its data. */
    static const char *const te[] = { "ETMCR=0x80C", "ETMACVR1=0x100", "ETMACVR2=0x102", "ETMACTR1=0x1",
                                       "ETMACTR2=0x1", "ETMTECR1=0x1", NULL };
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 0);
    xfer(insn(0x102), 2, 0x20000020, 4, 1, 1, 0);
    value(cyc(), 1, 0x33, 0);
    value(cyc(), 2, 0x44, 0);
    CHECK_EQ(run(te), 0);
    EXPECT(0x84, 0x26, 0x90, 0x80, 0x80, 0x80, 0x02, 0x33);
}

static void test_order_and_resync(void)
{
    /* LDR at 0x100, then BX at 0x102 to 0x200 before the LDR's value is back.
     * The branch packet goes out in the target's cycle after the atoms
     * gathered (84 for the BX), and any atom may be a later data instruction's,
     * so the LDR's placeholder comes first (74, full address). Then the branch
     * to 0x200 against 0x100 (81 04, as in test_encoder), the value out of
     * order (24 AB), and the atoms of 0x200 and 0x202 at the end (88). */
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 0);
    insn(0x102);
    etm_in_t *t = insn(0x200);
    t->ibranch = t->iindbr = 1;
    value(cyc(), 1, 0xAB, 0);
    insn(0x202);
    CHECK_EQ(run(BOTH), 0);
    EXPECT(0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02, 0x84, 0x81, 0x04, 0x24, 0xAB, 0x88);

    /* Trace on for [0x100, 0x102) and [0x104, 0x108). The LDR at 0x100 waits
     * for its value when trace restarts at 0x104: its placeholder goes before
     * the restart I-sync (74, full address; tag 1), then the I-sync, reason
     * trace enabled, 0x104 Thumb (08 20 05 01 00 00), the LDR at 0x104's atom
     * (84) and, when the first value comes, out-of-order data (24 AB). The
     * second LDR's value is in order; its address is the first after a
     * non-periodic I-sync, so it is full again: 26 94 80 80 80 02 12. The
     * atom of 0x106 ends the stream (84). */
    static const char *const two[] = { "ETMCR=0x80C", "ETMACVR1=0x100", "ETMACVR2=0x102", "ETMACVR3=0x104",
                                       "ETMACVR4=0x108", "ETMACTR1=0x1", "ETMACTR2=0x1", "ETMACTR3=0x1",
                                       "ETMACTR4=0x1", "ETMTECR1=0x3", NULL };
    NS = 0;
    xfer(insn(0x100), 1, 0x20000010, 4, 1, 1, 0);
    insn(0x102);
    xfer(insn(0x104), 2, 0x20000014, 4, 1, 1, 0);
    value(cyc(), 1, 0xAB, 0);
    value(cyc(), 2, 0x12ull << 32, 0);
    insn(0x106);
    CHECK_EQ(run(two), 0);
    EXPECT(0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02, 0x08, 0x20, 0x05, 0x01, 0x00, 0x00, 0x84, 0x24, 0xAB, 0x26, 0x94,
           0x80, 0x80, 0x80, 0x02, 0x12, 0x84);
}

int main(void)
{
    test_normal();
    test_modes();
    test_out_of_order();
    test_not_traced();
    test_store_failed_and_unaligned();
    test_trace_off();
    test_order_and_resync();
    return test_report("test_dpacket");
}
