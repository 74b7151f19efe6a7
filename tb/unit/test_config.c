#define _POSIX_C_SOURCE 200809L
/* test_config.c - the register image: names, text form, version rules,
 * resources, presets. Expected values come from docs/registers.md (the
 * architecture's bit positions), not from the code under test. */
#include <stdlib.h>

#include "etm/etm.h"
#include "test.h"

static etm_err_t parse(etm_config_t *c, const char *line, etm_diag_t *d)
{
    etm_diag_clear(d);
    return etm_config_parse_line(c, line, NULL, NULL, d);
}

/* Parse lines on top of a preset and validate; returns the error, d has the text. */
static etm_err_t try_cfg(const char *preset, const char *const *lines, etm_diag_t *d)
{
    etm_config_t c;
    etm_config_preset(&c, preset);
    for (; *lines; lines++) {
        etm_err_t e = parse(&c, *lines, d);
        if (e != ETM_OK)
            return e;
    }
    etm_diag_clear(d);
    return etm_config_validate(&c, d, NULL);
}

#define LINES(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_names(void)
{
    unsigned idx;
    const etm_regdesc_t *r = etm_register_find("ETMCR", &idx);
    CHECK(r && r->addr == 0x000 && idx == 0);
    r = etm_register_find("etmidr", &idx);
    CHECK(r && r->addr == 0x079);
    r = etm_register_find("ETMTECR1", &idx); /* a scalar whose name ends in a digit */
    CHECK(r && r->addr == 0x009 && r->count == 1);
    r = etm_register_find("ETMACVR16", &idx);
    CHECK(r && r->addr == 0x010 && idx == 15);
    r = etm_register_find("ETMACTR1", &idx);
    CHECK(r && r->addr == 0x020 && idx == 0);
    r = etm_register_find("ETMCNTRLDEVR4", &idx);
    CHECK(r && r->addr == 0x058 && idx == 3);
    r = etm_register_find("ETMCNTRLDVR2", &idx);
    CHECK(r && r->addr == 0x050 && idx == 1);
    CHECK(etm_register_find("ETMACVR17", &idx) == NULL);
    CHECK(etm_register_find("ETMACVR0", &idx) == NULL);
    CHECK(etm_register_find("ETMACVR01", &idx) == NULL);
    CHECK(etm_register_find("ETMACVR", &idx) == NULL);
    CHECK(etm_register_find("ETMFOO", &idx) == NULL);
    r = etm_register_find("ETMSYNCFR", &idx);
    CHECK(r && r->addr == 0x078);
    r = etm_register_find("ETMCCER", &idx);
    CHECK(r && r->addr == 0x07A);
    r = etm_register_find("ETMTRACEIDR", &idx);
    CHECK(r && r->addr == 0x080);
    /* Slots are unique and cover the table. */
    int slots = 0;
    for (size_t i = 0; i < etm_register_count; i++)
        slots += etm_registers[i].count;
    CHECK(slots <= ETM_CONFIG_SLOTS);
    char buf[24];
    r = etm_register_find("ETMACTR3", &idx);
    CHECK_STR_CONTAINS(etm_register_slot_name(etm_register_slot(r, idx), buf, sizeof buf), "ETMACTR3");
}

static void test_parse(void)
{
    etm_config_t c;
    etm_diag_t d;
    etm_config_default(&c);
    CHECK_EQ(parse(&c, "ETMCR=0x00001000", &d), ETM_OK);
    CHECK_EQ(c.etmcr, 0x1000);
    CHECK_EQ(parse(&c, "  etmcr = 0x1810   # comment", &d), ETM_OK);
    CHECK_EQ(c.etmcr, 0x1810);
    CHECK_EQ(parse(&c, "ETMCR(0x000)=0x10001860", &d), ETM_OK); /* OpenCSD snapshot form */
    CHECK_EQ(c.etmcr, 0x10001860);
    CHECK_EQ(parse(&c, "ETMIDR(0x079)=0x410CF250", &d), ETM_OK);
    CHECK_EQ(c.etmidr, 0x410CF250);
    CHECK_EQ(parse(&c, "ETMACVR3(0x012)=0x1000", &d), ETM_OK);
    CHECK_EQ(c.etmacvr[2], 0x1000);
    CHECK_EQ(parse(&c, "ETMCR(0x001)=0x0", &d), ETM_ERR_MISMATCH);
    CHECK_STR_CONTAINS(d.msg, "0x000");
    CHECK_EQ(parse(&c, "", &d), ETM_OK);
    CHECK_EQ(parse(&c, "# only a comment", &d), ETM_OK);
    CHECK_EQ(parse(&c, "ETMCR=1000", &d), ETM_ERR_BAD_NUMBER);
    CHECK_EQ(parse(&c, "ETMCR=0xg", &d), ETM_ERR_BAD_NUMBER);
    CHECK_EQ(parse(&c, "ETMCR=0x", &d), ETM_ERR_BAD_NUMBER);
    CHECK_EQ(parse(&c, "ETMCR=0x100000000", &d), ETM_ERR_FIELD_WIDTH);
    CHECK_EQ(parse(&c, "ETMCR 0x1", &d), ETM_ERR_SYNTAX);
    CHECK_EQ(parse(&c, "ETMCR=0x1 junk", &d), ETM_ERR_SYNTAX);
    CHECK_EQ(parse(&c, "ETMBOGUS=0x1", &d), ETM_ERR_UNKNOWN_NAME);
    CHECK_STR_CONTAINS(d.msg, "ETMBOGUS");
    CHECK_EQ(parse(&c, "FIFO_DEPTH(0x10)=0x20", &d), ETM_ERR_SYNTAX);
    uint8_t seen[ETM_CONFIG_SEEN_BYTES] = { 0 };
    int slot = -2;
    CHECK_EQ(etm_config_parse_line(&c, "ETMTRIGGER=0x406F", seen, &slot, &d), ETM_OK);
    CHECK(slot >= 0);
    CHECK_EQ(etm_config_parse_line(&c, "ETMTRIGGER=0x406F", seen, &slot, &d), ETM_ERR_DUPLICATE);
    CHECK_EQ(etm_config_parse_line(&c, "preset etmv3.5", seen, &slot, &d), ETM_ERR_SYNTAX); /* after a register */
    uint8_t fresh[ETM_CONFIG_SEEN_BYTES] = { 0 };
    CHECK_EQ(etm_config_parse_line(&c, "preset etmv1.3", fresh, &slot, &d), ETM_OK);
    CHECK_EQ(c.etmidr, 0);
    CHECK_EQ(etm_config_parse_line(&c, "preset nosuch", fresh, &slot, &d), ETM_ERR_UNKNOWN_NAME);
}

static void test_versions(void)
{
    etm_config_t c;
    etm_diag_t d;
    unsigned v;
    etm_config_default(&c);
    CHECK_EQ(etm_config_version(&c, &v, &d), ETM_OK);
    CHECK_EQ(v, ETM_V(3, 4));
    c.etmidr = 0x410CF250; /* the TC2 capture's ETM: ETMv3.5 */
    CHECK_EQ(etm_config_version(&c, &v, &d), ETM_OK);
    CHECK_EQ(v, ETM_V(3, 5));
    c.etmidr = 0x4100F310; /* major 3: PFT */
    CHECK_EQ(etm_config_version(&c, &v, &d), ETM_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(d.msg, "PFT");
    c.etmidr = 0x41001110; /* major 1: ETMv2 */
    CHECK_EQ(etm_config_version(&c, &v, &d), ETM_ERR_UNSUPPORTED);
    c.etmidr = 0x4100F260; /* ETMv3.6 does not exist */
    CHECK_EQ(etm_config_version(&c, &v, &d), ETM_ERR_UNSUPPORTED);
    /* ETMv1: ETMCCR[31]=0 and the protocol number in [30:28]. */
    static const unsigned v1[8] = { 0x10, 0x11, 0x12, 0x13, 0x12, 0x13, 0, 0x13 };
    for (unsigned p = 0; p < 8; p++) {
        c.etmccr = p << 28;
        etm_err_t e = etm_config_version(&c, &v, &d);
        if (p == 6) {
            CHECK_EQ(e, ETM_ERR_UNSUPPORTED);
        } else {
            CHECK_EQ(e, ETM_OK);
            CHECK_EQ(v, v1[p]);
        }
    }
}

static void test_presets(void)
{
    etm_diag_t d;
    for (const char *const *p = etm_config_preset_names; *p; p++) {
        etm_config_t c;
        CHECK_EQ(etm_config_preset(&c, *p), ETM_OK);
        etm_err_t e = etm_config_validate(&c, &d, NULL);
        CHECK_EQ(e, ETM_OK);
        if (e != ETM_OK)
            fprintf(stderr, "  preset %s: %s\n", *p, d.msg);
        unsigned v;
        CHECK_EQ(etm_config_version(&c, &v, &d), ETM_OK);
        if (!strncmp(*p, "etmv", 4))
            CHECK_EQ(v, ETM_V((unsigned)((*p)[4] - '0'), (unsigned)((*p)[6] - '0')));
    }
    etm_config_t c;
    CHECK_EQ(etm_config_preset(&c, "etmv9.9"), ETM_ERR_UNKNOWN_NAME);
}

static void test_version_bits(void)
{
    etm_diag_t d;
    /* ETMCR[28] timestamps: from ETMv3.5, and only if ETMCCER[22] says so. */
    CHECK_EQ(try_cfg("etmv3.4", LINES("ETMCR=0x10000810"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMCR[28]");
    CHECK_STR_CONTAINS(d.msg, "ETMv3.5");
    CHECK_EQ(try_cfg("etm-m3-r2", LINES("ETMCR=0x10000810"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv3.5", LINES("ETMCR=0x10000810"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMCCER[22]");
    /* ETMCR[29] is reserved in every ETM. */
    CHECK_EQ(try_cfg("etmv3.5", LINES("ETMCR=0x20000810"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "bit 29");
    /* Context ID size from ETMv1.2. */
    CHECK_EQ(try_cfg("etmv1.1", LINES("ETMCR=0x00004810"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_EQ(try_cfg("etmv1.2", LINES("ETMCR=0x00004810"), &d), ETM_OK);
    /* Data-only mode and port size[3] from ETMv3.0. */
    CHECK_EQ(try_cfg("etmv1.3", LINES("ETMCR=0x00100810"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_EQ(try_cfg("etmv3.0", LINES("ETMCR=0x00200800"), &d), ETM_OK); /* 1-bit port */
    /* Port sizes: 24 bit and up only from ETMv3.0; 1 0 1 0 reserved everywhere. */
    CHECK_EQ(try_cfg("etmv1.3", LINES("ETMCR=0x00000830"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "port size");
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMCR=0x00000860"), &d), ETM_OK); /* 64 bit */
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMCR=0x00200820"), &d), ETM_ERR_RESERVED_BITS);
    /* ETMv1 port mode 11 is reserved. */
    CHECK_EQ(try_cfg("etmv1.3", LINES("ETMCR=0x00030810"), &d), ETM_ERR_RESERVED_BITS);
    /* Registers that an ETMv1 lacks. */
    CHECK_EQ(try_cfg("etmv1.3", LINES("ETMSYNCFR=0x400"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMSYNCFR exists from ETMv2.0");
    CHECK_EQ(try_cfg("etmv1.3", LINES("ETMTRACEIDR=0x10"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_EQ(try_cfg("etmv1.1", LINES("ETMTSSCR=0x1"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_EQ(try_cfg("etmv3.0", LINES("ETMCCER=0x800"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMCCER exists from ETMv3.1");
    /* ETMIDR[20] alternative branch encoding from ETMv3.4. */
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMIDR=0x4114F230"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMIDR[20]");
    CHECK_EQ(try_cfg("etmv3.4", LINES("ETMIDR=0x4114F240"), &d), ETM_OK);
    /* ETMCNTENR[17] exists only in ETMv1. */
    CHECK_EQ(try_cfg("etmv1.2", LINES("ETMCNTENR1=0x0002406F"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv3.2", LINES("ETMCNTENR1=0x0002406F"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "only up to ETMv1.");
    /* Event bits above 16 are reserved. */
    CHECK_EQ(try_cfg("etmv3.2", LINES("ETMTRIGGER=0x0004406F"), &d), ETM_ERR_RESERVED_BITS);
}

/* What the part implements (ETMCR_IMPL), beyond what its version has: the
 * ETM-M3 has no cycle-accurate mode and no data trace (docs/registers.md 3.3);
 * the what-if preset adds the mode and still reads as the ETM-M3. */
static void test_part_bits(void)
{
    etm_diag_t d;
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMCR=0x1810"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMCR[12] (cycle accurate) is set, but this part does not implement it");
    CHECK_STR_CONTAINS(d.msg, "cm3-ca-whatif");
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMCR=0x81C"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMCR[3:2]");
    CHECK_EQ(try_cfg("cm3-ca-whatif", LINES("ETMCR=0x1910"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv3.4", LINES("ETMCR=0x1810"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMCR_IMPL=0xFFFFFFFF", "ETMCR=0x1810"), &d), ETM_OK);
    etm_config_t m3, w, r2;
    etm_config_preset(&m3, "etm-m3");
    etm_config_preset(&w, "cm3-ca-whatif");
    etm_config_preset(&r2, "etm-m3-r2");
    CHECK_EQ(w.etmidr, m3.etmidr);
    CHECK_EQ(w.etmccr, m3.etmccr);
    CHECK_EQ(w.pidr, m3.pidr);
    CHECK_EQ(w.etmcr_impl, m3.etmcr_impl | 0x1000);
    CHECK_EQ(m3.etmcr_impl, 0x10632FF1);
    CHECK_EQ(m3.fifo_depth, 24);
    CHECK_EQ(r2.etmidr, 0x4114F253);
    CHECK_EQ(r2.etmccer, 0x18541800);
    /* A text without ETMCR_IMPL or PKT_QUEUE (written before they existed): the
     * ETM-M3's for the ETM-M3's IDs (its records: PKT_QUEUE 8), every bit and
     * no records for another part; a value the text gave is kept. */
    static const struct {
        const char *preset;
        int given;
        uint32_t impl;
        unsigned queue;
    } implied[] = {
        { "etm-m3", 0, 0x10632FF1, 8 }, { "etmv1.3", 0, 0xFFFFFFFF, 0 },
        { "etmv3.4", 0, 0xFFFFFFFF, 0 }, { "etm-m3", 1, 0, 2 },
    };
    for (size_t i = 0; i < sizeof implied / sizeof implied[0]; i++) {
        etm_config_t c;
        etm_config_preset(&c, implied[i].preset);
        c.etmcr_impl = 0;
        c.pkt_queue = 2;
        etm_config_imply(&c, 1, 1, implied[i].given, implied[i].given);
        CHECK_EQ(c.etmcr_impl, implied[i].impl);
        CHECK_EQ(c.pkt_queue, implied[i].queue);
    }
}

static void test_resources(void)
{
    etm_diag_t d;
    /* The ETM-M3 has no address comparators (ETMCCR[3:0]=0). */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMACVR1=0x1000"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_STR_CONTAINS(d.msg, "ETMACVR1");
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTEEVR=0x00000000"), &d), ETM_ERR_RESERVED_BITS); /* comparator 1 */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTEEVR=0x00000020"), &d), ETM_OK); /* DWT comparator 1 */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTEEVR=0x00000024"), &d), ETM_ERR_RESERVED_BITS); /* DWT 5: only 4 */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x00000040"), &d), ETM_OK); /* counter 1 at zero */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x00000041"), &d), ETM_ERR_RESERVED_BITS); /* counter 2 */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x0000005F"), &d), ETM_OK); /* start/stop */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x00000050"), &d), ETM_ERR_RESERVED_BITS); /* sequencer */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x00000070"), &d), ETM_ERR_RESERVED_BITS); /* type 7 */
    /* Resource B matters only for functions that use it. */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x0000006F"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x0000806F"), &d), ETM_ERR_RESERVED_BITS); /* A and B=comp 1 */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRIGGER=0x0000906F"), &d), ETM_OK); /* A and B=DWT 1 */
    /* Generic ETMv3.3: 4 pairs = 8 single comparators. */
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMACVR8=0x100", "ETMACTR8=0x1"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMACVR9=0x100"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMACTR1=0x7"), &d), ETM_ERR_RESERVED_BITS); /* access type 111 */
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMTECR1=0x0000000F"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMTECR1=0x00000010"), &d), ETM_ERR_RESERVED_BITS); /* range 5 */
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMTSSCR=0x00800001"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMTSSCR=0x01000001"), &d), ETM_ERR_RESERVED_BITS); /* stop comp 9 */
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMCNTRLDVR2=0x10"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv3.3", LINES("ETMCNTRLDVR3=0x10"), &d), ETM_ERR_RESERVED_BITS);
    /* Start/stop by DWT inputs needs ETMCCER[20]. */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTESSEICR=0x00020001"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTESSEICR=0x00000010"), &d), ETM_ERR_RESERVED_BITS);
    /* Stall needs FIFOFULL logic; the TRACEIDR rules; SYNCFR above the FIFO. */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMCCR=0x8C002000", "ETMCR=0x00000890"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRACEIDR=0x70"), &d), ETM_ERR_RESERVED_BITS);
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMTRACEIDR=0x6F"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMSYNCFR=0x18"), &d), ETM_ERR_RESERVED_BITS); /* = FIFO_DEPTH */
    CHECK_EQ(try_cfg("etm-m3", LINES("ETMSYNCFR=0x0"), &d), ETM_ERR_RESERVED_BITS);  /* 0 only in v3.5 */
    CHECK_EQ(try_cfg("etm-m3-r2", LINES("ETMSYNCFR=0x0"), &d), ETM_OK);
    /* Model parameters. */
    CHECK_EQ(try_cfg("etm-m3", LINES("FIFO_DEPTH=0x8"), &d), ETM_ERR_FIELD_WIDTH);
    CHECK_EQ(try_cfg("etm-m3", LINES("PORT_BYTES=0x3"), &d), ETM_ERR_FIELD_WIDTH);
    CHECK_EQ(try_cfg("etm-m3", LINES("PORT_BYTES=0x4"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etmv1.3", LINES("PORT_BYTES=0x2"), &d), ETM_ERR_FIELD_WIDTH);
    CHECK_EQ(try_cfg("etm-m3", LINES("ISSUE_WIDTH=0x2"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etm-m3", LINES("ISSUE_WIDTH=0x3"), &d), ETM_ERR_FIELD_WIDTH);
    /* The encoder's what-if choices: 0 or 1, and ETMv3 only. */
    CHECK_EQ(try_cfg("etm-m3", LINES("PH_EAGER=0x1", "BRANCH_FULL=0x1"), &d), ETM_OK);
    CHECK_EQ(try_cfg("etm-m3", LINES("PH_EAGER=0x2"), &d), ETM_ERR_FIELD_WIDTH);
    CHECK_STR_CONTAINS(d.msg, "PH_EAGER=2: 0 (P-headers as full as the flush points allow) or 1");
    CHECK_EQ(try_cfg("etm-m3", LINES("BRANCH_FULL=0x2"), &d), ETM_ERR_FIELD_WIDTH);
    CHECK_STR_CONTAINS(d.msg, "BRANCH_FULL=2: 0 (branch addresses compressed) or 1 (always whole)");
    CHECK_EQ(try_cfg("etmv1.3", LINES("PH_EAGER=0x1"), &d), ETM_ERR_FIELD_WIDTH);
    CHECK_STR_CONTAINS(d.msg, "PH_EAGER applies to ETMv3 only");
    CHECK_EQ(try_cfg("etmv1.3", LINES("BRANCH_FULL=0x1"), &d), ETM_ERR_FIELD_WIDTH);
    CHECK_STR_CONTAINS(d.msg, "BRANCH_FULL applies to ETMv3 only");
    /* An ETMv1 with an ETMIDR value. */
    CHECK_EQ(try_cfg("etmv1.3", LINES("ETMIDR=0x41000200"), &d), ETM_ERR_RESERVED_BITS);
}

static void test_write_roundtrip(void)
{
    /* Random valid-by-construction images: write, read back, compare. */
    test_rng_t rng = { 0x1234567 };
    for (int iter = 0; iter < 200; iter++) {
        etm_config_t a, b;
        etm_config_preset(&a, etm_config_preset_names[iter % 12]);
        a.etmcr ^= (uint32_t)(test_rand(&rng) & 0x1000);
        a.etmtraceidr = (uint32_t)(test_rand(&rng) % 0x70);
        if (ETM_FIELD_GET(ETM_CCR_PAIRS, a.etmccr))
            a.etmacvr[test_rand(&rng) % (2 * ETM_FIELD_GET(ETM_CCR_PAIRS, a.etmccr))] = (uint32_t)test_rand(&rng);
        FILE *f = tmpfile();
        CHECK(f != NULL);
        if (!f)
            return;
        CHECK_EQ(etm_config_write(&a, f, ""), ETM_OK);
        rewind(f);
        etm_config_default(&b);
        char line[256];
        etm_diag_t d;
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            CHECK_EQ(etm_config_parse_line(&b, line, NULL, NULL, &d), ETM_OK);
        }
        fclose(f);
        CHECK(etm_config_equal(&a, &b));
    }
}

static void test_read_file(void)
{
    char path[] = "/tmp/etm_test_cfgXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    fputs("# test\npreset etmv3.3\nETMCR=0x00001810\n\nETMACVR1=0x100\nETMACTR1=0x0000000F\n", f);
    fclose(f);
    etm_config_t c;
    etm_diag_t d;
    CHECK_EQ(etm_config_read_file(&c, path, &d), ETM_ERR_RESERVED_BITS); /* size 0b01 ok, but ... */
    /* ACTR1=0xF: access type 7 is reserved; the error names the register's line. */
    CHECK_EQ(d.line, 6);
    CHECK_STR_CONTAINS(d.file, "etm_test_cfg");
    f = fopen(path, "w");
    fputs("preset etmv3.3\nETMCR=0x00001810\nETMACVR1=0x100\nETMACTR1=0x00000009\nETMBAD=0x1\n", f);
    fclose(f);
    CHECK_EQ(etm_config_read_file(&c, path, &d), ETM_ERR_UNKNOWN_NAME);
    CHECK_EQ(d.line, 5);
    char buf[512];
    CHECK_STR_CONTAINS(etm_diag_format(&d, buf, sizeof buf), ":5: unknown register or parameter 'ETMBAD'");
    remove(path);
    CHECK_EQ(etm_config_read_file(&c, "/nonexistent/cfg", &d), ETM_ERR_IO);
}

int main(void)
{
    test_names();
    test_parse();
    test_versions();
    test_part_bits();
    test_presets();
    test_version_bits();
    test_resources();
    test_write_roundtrip();
    test_read_file();
    return test_report("test_config");
}
