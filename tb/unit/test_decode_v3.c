/* test_decode_v3.c - the ETMv3 decoder against the architecture's examples and
 * against byte strings whose meaning was checked on OpenCSD 1.3.3
 * (docs/etmv3-protocol.md section 8; /work/shared/spec/opencsd-oracle.md).
 * Expected values come from those documents, not from the decoder. */
#include <stdlib.h>

#include "etm/config.h"
#include "etm/decode_v3.h"
#include "etm/etm.h"
#include "test.h"

#define MAXREC 256

/* ---- Harness: collect packets and elements of one decode --------------------- */

typedef struct rec {
    etm_v3pkt_t pkt[MAXREC];
    char atoms[MAXREC][ETM_V3_MAX_ATOMS + 1];
    unsigned npkt;
    etm_v3el_t el[MAXREC];
    unsigned nel;
} rec_t;

static void on_pkt(void *user, const etm_v3pkt_t *p)
{
    rec_t *r = (rec_t *)user;
    if (r->npkt < MAXREC) {
        r->pkt[r->npkt] = *p;
        r->pkt[r->npkt].raw = NULL;
        memcpy(r->atoms[r->npkt], p->atoms, sizeof p->atoms);
        r->npkt++;
    }
}

static void on_el(void *user, const etm_v3el_t *e)
{
    rec_t *r = (rec_t *)user;
    if (r->nel < MAXREC)
        r->el[r->nel++] = *e;
}

typedef struct mem {
    uint32_t base;
    const uint8_t *bytes;
    unsigned size;
} mem_t;

static int mem_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const mem_t *m = (const mem_t *)user;
    unsigned k = 0;
    for (; k < n && addr + k >= m->base && addr + k - m->base < m->size; k++)
        buf[k] = m->bytes[addr + k - m->base];
    return (int)k;
}

static rec_t R; /* one decode at a time */
static etm_diag_t D;

/* Decode a whole stream; returns the first error of feed or end. */
static etm_err_t decode(const etm_config_t *cfg, unsigned flags, const mem_t *image, const uint8_t *b, size_t n)
{
    etm_v3dec_t *d;
    memset(&R, 0, sizeof R);
    etm_diag_clear(&D);
    etm_err_t e = etm_v3dec_create(&d, cfg, flags, &D);
    if (e != ETM_OK)
        return e;
    etm_v3dec_on_packet(d, on_pkt, &R);
    etm_v3dec_on_element(d, on_el, &R);
    if (image)
        etm_v3dec_set_image(d, mem_read, (void *)image);
    e = etm_v3dec_feed(d, b, n, NULL, &D);
    if (e == ETM_OK)
        e = etm_v3dec_end(d, &D);
    etm_v3dec_destroy(d);
    return e;
}

/* ETM-M3: ETMv3.4, alternative branch encoding; ca selects cycle-accurate. */
static etm_config_t m3(int ca)
{
    etm_config_t c;
    etm_config_default(&c);
    c.etmcr = ca ? 0x1000u : 0;
    return c;
}

/* A generic ETMv3.minor with the original branch encoding. */
static etm_config_t v3(unsigned minor, int ca)
{
    etm_config_t c;
    etm_config_default(&c);
    c.etmidr = 0x410CF200u | (minor << 4);
    c.etmcr = ca ? 0x1000u : 0;
    c.etmccer = 0;
    return c;
}

static const etm_v3pkt_t *find_pkt(etm_v3pkt_kind_t k, unsigned nth)
{
    for (unsigned i = 0; i < R.npkt; i++)
        if (R.pkt[i].kind == k && nth-- == 0)
            return &R.pkt[i];
    return NULL;
}

static const char *atoms_of(unsigned nth)
{
    for (unsigned i = 0; i < R.npkt; i++)
        if (R.pkt[i].kind == ETM_V3PKT_PHDR && nth-- == 0)
            return R.atoms[i];
    return "(none)";
}

static unsigned count_el(etm_v3el_kind_t k)
{
    unsigned n = 0;
    for (unsigned i = 0; i < R.nel; i++)
        n += R.el[i].kind == k;
    return n;
}

static const etm_v3el_t *find_el(etm_v3el_kind_t k, unsigned nth)
{
    for (unsigned i = 0; i < R.nel; i++)
        if (R.el[i].kind == k && nth-- == 0)
            return &R.el[i];
    return NULL;
}

#define ASYNC 0x00, 0x00, 0x00, 0x00, 0x00, 0x80
#define ISYNC_THUMB_100 0x08, 0x20, 0x01, 0x01, 0x00, 0x00 /* trace on, 0x100, Thumb */
#define DECODE(cfg, flags, image, ...)                                                 \
    do {                                                                               \
        static const uint8_t s_[] = { __VA_ARGS__ };                                   \
        decode_rc = decode(cfg, flags, image, s_, sizeof s_);                          \
    } while (0)

static etm_err_t decode_rc;

/* ---- P-headers: IHI 0014 examples 7.1, 7.2 and table 7.4 ------------------------ */

static void test_pheaders(void)
{
    etm_config_t c = m3(0);
    /* Example 7.1, not cycle-accurate: 0xC8 = EEN (format 1), 0x8A = NE (format 2) */
    DECODE(&c, 0, NULL, ASYNC, 0xC8, 0x8A);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(atoms_of(0), "EEN"));
    CHECK_EQ(find_pkt(ETM_V3PKT_PHDR, 0)->format, 1);
    CHECK(!strcmp(atoms_of(1), "NE"));
    CHECK_EQ(find_pkt(ETM_V3PKT_PHDR, 1)->format, 2);
    /* format 1 extremes: 15 E then N; no atoms at all */
    DECODE(&c, 0, NULL, ASYNC, 0xFC, 0x80, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(atoms_of(0), "EEEEEEEEEEEEEEEN"));
    CHECK(!strcmp(atoms_of(1), ""));
    CHECK(!strcmp(atoms_of(2), "E"));

    /* Example 7.2, cycle-accurate: 0xC8 = WEWEWN, 0x8A = WNE, 0xE8 = WWWE */
    c = m3(1);
    DECODE(&c, 0, NULL, ASYNC, 0xC8, 0x8A, 0xE8);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(atoms_of(0), "WEWEWN"));
    CHECK(!strcmp(atoms_of(1), "WNE"));
    CHECK(!strcmp(atoms_of(2), "WWWE"));
    CHECK_EQ(find_pkt(ETM_V3PKT_PHDR, 2)->format, 3);
    /* Table 7.4: format 1 0x84 (W E) then format 4 0x92 (E, no W) */
    DECODE(&c, 0, NULL, ASYNC, 0x84, 0x92, 0x96);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(atoms_of(0), "WE"));
    CHECK_EQ(find_pkt(ETM_V3PKT_PHDR, 0)->format, 1);
    CHECK(!strcmp(atoms_of(1), "E"));
    CHECK_EQ(find_pkt(ETM_V3PKT_PHDR, 1)->format, 4);
    CHECK(!strcmp(atoms_of(2), "N"));
    /* OpenCSD-checked CA headers: a4 = WW, e0 = WE, fc = 8 W then E, c0 = WN, bc = 8 W */
    DECODE(&c, 0, NULL, ASYNC, 0xA4, 0xE0, 0xFC, 0xC0, 0xBC, 0xA0);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(atoms_of(0), "WW"));
    CHECK(!strcmp(atoms_of(1), "WE"));
    CHECK(!strcmp(atoms_of(2), "WWWWWWWWE"));
    CHECK(!strcmp(atoms_of(3), "WN"));
    CHECK(!strcmp(atoms_of(4), "WWWWWWWW"));
    CHECK(!strcmp(atoms_of(5), "W"));
    /* format 1 at its largest: 7 x WE then WN */
    DECODE(&c, 0, NULL, ASYNC, 0xDC);
    CHECK(!strcmp(atoms_of(0), "WEWEWEWEWEWEWEWN"));

    /* Format 0 (0x80 = W) exists only in ETMv3.0 */
    c = v3(0, 1);
    DECODE(&c, 0, NULL, ASYNC, 0x80);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(atoms_of(0), "W"));
    CHECK_EQ(find_pkt(ETM_V3PKT_PHDR, 0)->format, 0);
    c = m3(1);
    DECODE(&c, 0, NULL, ASYNC, 0x84, 0x80);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 7);
    CHECK_STR_CONTAINS(D.msg, "0x80");
    /* Format 4 exists from ETMv3.3 */
    c = v3(2, 1);
    DECODE(&c, 0, NULL, ASYNC, 0x92);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 6);
    CHECK_STR_CONTAINS(D.msg, "format 4");
    c = v3(3, 1);
    DECODE(&c, 0, NULL, ASYNC, 0x92);
    CHECK_EQ(decode_rc, ETM_OK);
}

/* ---- Branch address packets and exceptions (OpenCSD-verified bytes) ---------------- */

static void test_branches(void)
{
    etm_config_t c = m3(0);
    /* alternative encoding: 81 c2 00 -> 0x2100 */
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0xC2, 0x00);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(find_pkt(ETM_V3PKT_BRANCH, 0) && find_pkt(ETM_V3PKT_BRANCH, 0)->addr == 0x2100);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->isa, ETM_V3_ISA_THUMB);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->size, 3);
    /* 81 80 80 80 11 -> 0x10000000 Thumb; then 81 80 80 10 replaces [19:0]+: 0x12000000 */
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x80, 0x80, 0x80, 0x11, 0x81, 0x80, 0x80, 0x10);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->addr, 0x10000000);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->addr_bits, 32);
    CHECK(find_pkt(ETM_V3PKT_BRANCH, 0)->isa_given);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 1)->addr, 0x12000000);
    /* 81 04 -> 0x200 (one 6-bit byte 1) */
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x04);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->addr, 0x200);
    /* f1 ff ff ff 1f -> 0xFFFFFFF0 Thumb */
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0xF1, 0xFF, 0xFF, 0xFF, 0x1F);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->addr, 0xFFFFFFF0u);

    /* original encoding (ETMv3.3, or 3.4+ without ETMIDR[20]): 81 42 -> 0x2100 */
    c = v3(3, 0);
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x42);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->addr, 0x2100);
    /* 81 80 80 80 08 -> ARM state, 0x0; then 03 in ARM state -> 0x4 */
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x80, 0x80, 0x80, 0x08, 0x03);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->isa, ETM_V3_ISA_ARM);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->addr, 0);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 1)->addr, 4);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 1)->isa, ETM_V3_ISA_ARM);
    /* the same alternative-encoding bytes mean something else here: 81 c2 00 is two
     * packets (81 c2 = 7-bit byte 1; 00 starts an A-sync) */
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x42, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(R.npkt, 4);

    /* exceptions, ETM-M3 with v7-M numbers */
    c = m3(0);
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x44, 0x10);
    CHECK_EQ(decode_rc, ETM_OK);
    {
        const etm_v3pkt_t *p = find_pkt(ETM_V3PKT_BRANCH, 0);
        char nm[32];
        CHECK(p && p->exception && p->exc_number == 8 && !p->cancel && p->addr == 0x200);
        CHECK(!strcmp(etm_v3_exception_name(p->exc_number, 1, nm, sizeof nm), "IRQ0"));
        const etm_v3el_t *e = find_el(ETM_V3EL_EXCEPTION, 0);
        CHECK(e && e->exc_number == 8 && e->addr == 0x200 && e->addr_valid);
    }
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x44, 0x16);
    {
        const etm_v3pkt_t *p = find_pkt(ETM_V3PKT_BRANCH, 0);
        char nm[32];
        CHECK(p && p->exc_number == 11 && !p->cancel);
        CHECK(!strcmp(etm_v3_exception_name(p->exc_number, 1, nm, sizeof nm), "SVC"));
    }
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x44, 0xA6, 0x01);
    {
        const etm_v3pkt_t *p = find_pkt(ETM_V3PKT_BRANCH, 0);
        char nm[32];
        CHECK(p && p->exc_number == 19 && p->cancel && p->size == 4);
        CHECK(!strcmp(etm_v3_exception_name(p->exc_number, 1, nm, sizeof nm), "HardFault"));
    }
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x44, 0x90, 0x01);
    {
        const etm_v3pkt_t *p = find_pkt(ETM_V3PKT_BRANCH, 0);
        char nm[32];
        CHECK(p && p->exc_number == 24 && !p->cancel);
        CHECK(!strcmp(etm_v3_exception_name(p->exc_number, 1, nm, sizeof nm), "IRQ8"));
    }
    /* without the v7-M option byte 1 does not extend the number (A/R: 4 bits) */
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x44, 0x90, 0x01);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->exc_number, 8);
    /* byte 2 directly after byte 0 (bit 6 set): resume */
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x44, 0x90, 0x45);
    CHECK(find_pkt(ETM_V3PKT_BRANCH, 0)->has_resume && find_pkt(ETM_V3PKT_BRANCH, 0)->resume == 5);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->exc_number, 8);
    /* a 1-byte packet never carries exception bytes: 01 10 is a branch then a reserved header */
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x01, 0x10);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 13);
    /* original encoding: exception bytes only after 5 address bytes; the ARM
     * deprecated form (byte 4 bit 7) */
    c = v3(3, 0);
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x80, 0x80, 0x80, 0x50, 0x1C);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(find_pkt(ETM_V3PKT_BRANCH, 0)->exception && find_pkt(ETM_V3PKT_BRANCH, 0)->exc_number == 14);
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x80, 0x80, 0x80, 0x88);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(find_pkt(ETM_V3PKT_BRANCH, 0)->deprecated_exc && find_pkt(ETM_V3PKT_BRANCH, 0)->exc_number == 1);
    CHECK_EQ(find_pkt(ETM_V3PKT_BRANCH, 0)->isa, ETM_V3_ISA_ARM);
}

/* ---- I-sync, cycle counts, other packets -------------------------------------------- */

static void test_isync_and_others(void)
{
    etm_config_t c = m3(0);
    /* 08 20 01 01 00 00: trace on, 0x100, Thumb */
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100);
    CHECK_EQ(decode_rc, ETM_OK);
    {
        const etm_v3pkt_t *p = find_pkt(ETM_V3PKT_ISYNC, 0);
        CHECK(p && p->addr == 0x100 && p->isa == ETM_V3_ISA_THUMB && p->reason == ETM_V3_REASON_TRACE_ON);
        CHECK_EQ(p->offset, 6);
        CHECK_EQ(p->size, 6);
        const etm_v3el_t *e = find_el(ETM_V3EL_SYNC, 0);
        CHECK(e && e->trace_on && e->addr == 0x100 && e->isa == ETM_V3_ISA_THUMB);
    }
    /* overflow reason gives an OVERFLOW element before the SYNC */
    DECODE(&c, 0, NULL, ASYNC, 0x08, 0x40, 0x01, 0x01, 0x00, 0x00);
    CHECK_EQ(R.nel, 2);
    CHECK_EQ(R.el[0].kind, ETM_V3EL_OVERFLOW);
    CHECK_EQ(R.el[1].kind, ETM_V3EL_SYNC);
    /* periodic I-sync, ARM state */
    DECODE(&c, 0, NULL, ASYNC, 0x08, 0x00, 0x00, 0x10, 0x00, 0x00);
    CHECK(find_pkt(ETM_V3PKT_ISYNC, 0)->isa == ETM_V3_ISA_ARM && find_pkt(ETM_V3PKT_ISYNC, 0)->addr == 0x1000);
    /* context ID bytes (ETMCR[15:14] = 2: two bytes) before the information byte */
    c.etmcr = 2u << 14;
    DECODE(&c, 0, NULL, ASYNC, 0x08, 0x34, 0x12, 0x20, 0x01, 0x01, 0x00, 0x00, 0x6E, 0x78, 0x56);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(find_pkt(ETM_V3PKT_ISYNC, 0)->has_context_id && find_pkt(ETM_V3PKT_ISYNC, 0)->context_id == 0x1234);
    CHECK_EQ(find_pkt(ETM_V3PKT_ISYNC, 0)->addr, 0x100);
    CHECK_EQ(find_pkt(ETM_V3PKT_CONTEXT_ID, 0)->context_id, 0x5678);
    CHECK(find_el(ETM_V3EL_CONTEXT, 0) && find_el(ETM_V3EL_CONTEXT, 0)->context_id == 0x5678);

    /* cycle-accurate: 70 85 01 ... = I-sync with cycle count 133; 04 e4 03 = 484 */
    c = m3(1);
    DECODE(&c, 0, NULL, ASYNC, 0x70, 0x85, 0x01, 0x20, 0x01, 0x01, 0x00, 0x00, 0x04, 0xE4, 0x03);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(find_pkt(ETM_V3PKT_ISYNC_CC, 0)->cycle_count, 133);
    CHECK_EQ(find_pkt(ETM_V3PKT_ISYNC_CC, 0)->addr, 0x100);
    CHECK_EQ(find_pkt(ETM_V3PKT_CYCLE_COUNT, 0)->cycle_count, 484);
    CHECK_EQ(find_el(ETM_V3EL_CYCLE_COUNT, 0)->cycle, 133 + 484);
    /* 5-byte count: the fifth byte gives bits [31:28] */
    DECODE(&c, 0, NULL, ASYNC, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F);
    CHECK_EQ(find_pkt(ETM_V3PKT_CYCLE_COUNT, 0)->cycle_count, 0xFFFFFFFFu);

    /* single-byte packets: trigger, ignore, exception return / entry */
    c = m3(0);
    DECODE(&c, 0, NULL, ASYNC, 0x0C, 0x66, 0x76, 0x7E);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(find_pkt(ETM_V3PKT_TRIGGER, 0) && find_pkt(ETM_V3PKT_IGNORE, 0) && find_pkt(ETM_V3PKT_EXC_RETURN, 0) &&
          find_pkt(ETM_V3PKT_EXC_ENTRY, 0));
    CHECK_EQ(count_el(ETM_V3EL_TRIGGER), 1);
    CHECK_EQ(count_el(ETM_V3EL_EXC_RETURN), 1);

    /* timestamps (ETMv3.5, ETMCR[28]); 64-bit binary; compression keeps the high bits */
    c = v3(5, 0);
    c.etmcr = 1u << 28;
    c.etmccer = 0x30000000u;
    DECODE(&c, 0, NULL, ASYNC, 0x42, 0xBD, 0x9A, 0xC3, 0xCE, 0xAF, 0x90, 0x80, 0x80, 0x00, 0x46, 0x05);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(find_pkt(ETM_V3PKT_TIMESTAMP, 0)->timestamp, 562536959293ull); /* DS-5, TC2 capture */
    CHECK_EQ(find_pkt(ETM_V3PKT_TIMESTAMP, 0)->ts_bits, 64);
    CHECK_EQ(find_pkt(ETM_V3PKT_TIMESTAMP, 1)->timestamp, (562536959293ull & ~0x7Full) | 5);
    CHECK(find_pkt(ETM_V3PKT_TIMESTAMP, 1)->ts_rate_changed);
    /* Gray-coded (ETMCCER[28]=0): transmitted 0b110 is binary 0b100 */
    c.etmccer = 0;
    DECODE(&c, 0, NULL, ASYNC, 0x42, 0x06);
    CHECK_EQ(find_pkt(ETM_V3PKT_TIMESTAMP, 0)->timestamp, 4);
    /* VMID with ETMCR[30] */
    c.etmcr = 1u << 30;
    DECODE(&c, 0, NULL, ASYNC, 0x3C, 0x07);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(find_pkt(ETM_V3PKT_VMID, 0)->vmid, 7);

    /* data trace (address and value): normal data with address and 4-byte value,
     * out-of-order data, value not traced with address, store failed */
    c = v3(3, 0);
    c.etmcr = 0xCu;
    DECODE(&c, 0, NULL, ASYNC, 0x2E, 0x81, 0x02, 0x44, 0x33, 0x22, 0x11, 0x24, 0xAB, 0x50, 0x7A, 0x05);
    CHECK_EQ(decode_rc, ETM_OK);
    {
        const etm_v3pkt_t *p = find_pkt(ETM_V3PKT_NORMAL_DATA, 0);
        CHECK(p && p->has_data_addr && p->data_addr == 0x101 && p->value_size == 4 && p->value == 0x11223344);
        p = find_pkt(ETM_V3PKT_OOO_DATA, 0);
        CHECK(p && p->tag == 1 && p->value_size == 1 && p->value == 0xAB);
        p = find_pkt(ETM_V3PKT_VALUE_NOT_TRACED, 0);
        CHECK(p && p->has_data_addr && p->data_addr == 0x105);
        CHECK(find_pkt(ETM_V3PKT_STORE_FAILED, 0) != NULL);
    }
}

/* ---- Errors: reserved encodings and truncation, with byte offsets ------------------ */

/* ETMv3.4 brought the exception-return packet (0x76, IHI 0014Q 7.6) and exception
 * byte 1 (numbers of 16 and more, 7.5.1): an older configuration rejects both. */
static void test_version_rules(void)
{
    uint8_t ret[] = { ASYNC, ISYNC_THUMB_100, 0x84, 0x76 };
    for (unsigned minor = 0; minor <= 5; minor++) {
        etm_config_t c = v3(minor, 0);
        decode_rc = decode(&c, 0, NULL, ret, sizeof ret);
        if (minor >= 4) {
            CHECK_EQ(decode_rc, ETM_OK);
            CHECK(find_pkt(ETM_V3PKT_EXC_RETURN, 0) != NULL);
        } else {
            CHECK_EQ(decode_rc, ETM_ERR_DECODE);
            CHECK_EQ(D.offset, 13);
            CHECK_STR_CONTAINS(D.msg, "ETMv3.4");
        }
    }
    /* original encoding, 5 address bytes (E set in byte 4), exception byte 0 with
     * its continue bit, exception byte 1: exception 0x18 */
    uint8_t big[] = { ASYNC, ISYNC_THUMB_100, 0x81, 0x80, 0x80, 0x80, 0x50, 0x91, 0x01 };
    for (unsigned minor = 0; minor <= 5; minor++) {
        etm_config_t c = v3(minor, 0);
        decode_rc = decode(&c, ETM_V3DEC_V7M, NULL, big, sizeof big);
        if (minor >= 4) {
            CHECK_EQ(decode_rc, ETM_OK);
            const etm_v3pkt_t *b = find_pkt(ETM_V3PKT_BRANCH, 0);
            CHECK(b && b->exception && b->exc_number == 0x18);
        } else {
            CHECK_EQ(decode_rc, ETM_ERR_DECODE);
            CHECK_EQ(D.offset, 17);
            CHECK_STR_CONTAINS(D.msg, "exception byte 0");
        }
    }
}

/* Reserved headers and reserved P-headers (not cycle-accurate and cycle-accurate):
 * the offset of the header. */
static void test_reserved_errors(void)
{
    etm_config_t c = m3(0);
    static const uint8_t reserved[] = { 0x10, 0x14, 0x12, 0x1E, 0x30, 0x34, 0x38, 0x52, 0x4A, 0x72 };
    for (unsigned k = 0; k < sizeof reserved; k++) {
        uint8_t s[] = { ASYNC, ISYNC_THUMB_100, 0x84, 0x00 };
        s[13] = reserved[k];
        decode_rc = decode(&c, 0, NULL, s, sizeof s);
        CHECK_EQ(decode_rc, ETM_ERR_DECODE);
        CHECK_EQ(D.offset, 13);
        CHECK_EQ(D.code, ETM_ERR_DECODE);
        CHECK_STR_CONTAINS(D.msg, "reserved");
    }
    /* reserved P-headers: not CA 1001xx10, 101xxx10, 11xxxx10; CA also 10011x10 */
    static const uint8_t rp[] = { 0x92, 0xA2, 0xC2, 0xFE };
    for (unsigned k = 0; k < sizeof rp; k++) {
        uint8_t s[] = { ASYNC, 0x00 };
        s[6] = rp[k];
        decode_rc = decode(&c, 0, NULL, s, sizeof s);
        CHECK_EQ(decode_rc, ETM_ERR_DECODE);
        CHECK_EQ(D.offset, 6);
        CHECK_STR_CONTAINS(D.msg, "P-header");
    }
    etm_config_t ca = m3(1);
    static const uint8_t rpca[] = { 0x9A, 0x9E, 0xA2, 0xBE, 0xC2, 0xFE };
    for (unsigned k = 0; k < sizeof rpca; k++) {
        uint8_t s[] = { ASYNC, 0x00 };
        s[6] = rpca[k];
        decode_rc = decode(&ca, 0, NULL, s, sizeof s);
        CHECK_EQ(decode_rc, ETM_ERR_DECODE);
        CHECK_EQ(D.offset, 6);
    }
}

/* Packets the configuration does not allow, a branch's byte 4 naming no
 * instruction set, and A-syncs broken after synchronisation. */
static void test_packet_errors(void)
{
    etm_config_t c = m3(0);
    /* data packets while data trace is off; cycle counts while not cycle-accurate;
     * context ID without ETMCR[15:14]; timestamps without ETMCR[28] */
    DECODE(&c, 0, NULL, ASYNC, 0x84, 0x02);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 7);
    CHECK_STR_CONTAINS(D.msg, "data");
    DECODE(&c, 0, NULL, ASYNC, 0x04, 0x01);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_STR_CONTAINS(D.msg, "ETMCR[12]");
    DECODE(&c, 0, NULL, ASYNC, 0x6E, 0x01);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_STR_CONTAINS(D.msg, "ETMCR[15:14]");
    DECODE(&c, 0, NULL, ASYNC, 0x42, 0x01);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_STR_CONTAINS(D.msg, "ETMCR[28]");
    /* branch byte 4 naming no instruction set: offset of byte 4 */
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x80, 0x80, 0x80, 0x00);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 16);
    CHECK_STR_CONTAINS(D.msg, "instruction set");
    /* A-sync with too few zeros after synchronisation; a stray byte inside one */
    DECODE(&c, 0, NULL, ASYNC, 0x84, 0x00, 0x00, 0x00, 0x80);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 10);
    CHECK_STR_CONTAINS(D.msg, "at least 5");
    DECODE(&c, 0, NULL, ASYNC, 0x00, 0x00, 0x84);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 8);
    /* more than five zeros is still an A-sync */
    DECODE(&c, 0, NULL, ASYNC, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(find_pkt(ETM_V3PKT_ASYNC, 1)->size, 8);
}

/* A trace that ends inside a packet: the error names the start of the cut packet. */
static void test_truncation(void)
{
    etm_config_t c = m3(0);
    DECODE(&c, 0, NULL, ASYNC, 0x84, 0x08, 0x20, 0x01);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 7);
    CHECK_STR_CONTAINS(D.msg, "I_SYNC");
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x80);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 12);
    CHECK_STR_CONTAINS(D.msg, "BRANCH");
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x81, 0x44, 0x90);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 12);
    DECODE(&c, 0, NULL, ASYNC, 0x00, 0x00);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 6);
    CHECK_STR_CONTAINS(D.msg, "A_SYNC");
}

/* Synchronisation: what comes before the first A-sync, the A-sync after an
 * error, and a configuration that is not an ETMv3. */
static void test_sync_errors(void)
{
    etm_config_t c = m3(0);
    /* bytes before the first A-sync are skipped and reported as one NOSYNC packet;
     * a partial run of zeros does not count */
    DECODE(&c, 0, NULL, 0x12, 0x00, 0x00, 0x80, 0x34, ASYNC, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(R.pkt[0].kind, ETM_V3PKT_NOSYNC);
    CHECK_EQ(R.pkt[0].size, 5);
    CHECK_EQ(R.pkt[1].kind, ETM_V3PKT_ASYNC);
    CHECK_EQ(R.pkt[1].offset, 5);
    CHECK_EQ(R.pkt[2].kind, ETM_V3PKT_PHDR);
    CHECK_EQ(R.pkt[2].offset, 11);
    /* nothing before sync is decoded, not even a valid-looking P-header */
    DECODE(&c, 0, NULL, 0x84, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(R.npkt, 1);
    CHECK_EQ(R.pkt[0].kind, ETM_V3PKT_NOSYNC);

    /* after an error the decoder skips to the next A-sync and goes on */
    {
        static const uint8_t s[] = { ASYNC, 0x10, 0x84, 0x84, ASYNC, 0xC8 };
        etm_v3dec_t *d;
        size_t used = 0;
        memset(&R, 0, sizeof R);
        CHECK_EQ(etm_v3dec_create(&d, &c, 0, &D), ETM_OK);
        etm_v3dec_on_packet(d, on_pkt, &R);
        CHECK_EQ(etm_v3dec_feed(d, s, sizeof s, &used, &D), ETM_ERR_DECODE);
        CHECK_EQ(used, 7);
        CHECK_EQ(D.offset, 6);
        CHECK_EQ(etm_v3dec_feed(d, s + used, sizeof s - used, &used, &D), ETM_OK);
        CHECK_EQ(etm_v3dec_end(d, &D), ETM_OK);
        CHECK(!strcmp(atoms_of(0), "EEN"));
        CHECK_EQ(find_pkt(ETM_V3PKT_PHDR, 0)->offset, 15);
        etm_v3dec_destroy(d);
    }
    /* not an ETMv3 */
    c.etmidr = 0x41000100u;
    etm_v3dec_t *d = NULL;
    CHECK_EQ(etm_v3dec_create(&d, &c, 0, &D), ETM_ERR_UNSUPPORTED);
    CHECK(d == NULL);
}

/* ---- Following the code ------------------------------------------------------------- */

/* Thumb loop at 0x100 (the OpenCSD example): movs r0,#0; adds r0,#1; cmp r0,#3;
 * bne 0x102; bx lr; padding; at 0x200: b . */
static uint8_t loop_code[0x110];
static const mem_t loop_image = { 0x100, loop_code, sizeof loop_code };

static void put16(uint8_t *b, uint32_t at, uint32_t hw)
{
    b[at] = (uint8_t)hw;
    b[at + 1] = (uint8_t)(hw >> 8);
}

static void init_loop_code(void)
{
    memset(loop_code, 0, sizeof loop_code);
    for (unsigned a = 0; a < sizeof loop_code; a += 2)
        put16(loop_code, a, 0xBF00); /* NOP */
    put16(loop_code, 0x00, 0x2000);
    put16(loop_code, 0x02, 0x3001);
    put16(loop_code, 0x04, 0x2803);
    put16(loop_code, 0x06, 0xD1FC);
    put16(loop_code, 0x08, 0x4770);
    put16(loop_code, 0x100, 0xE7FE);
}

static void test_follow(void)
{
    etm_config_t c = m3(0);
    init_loop_code();
    /* e4 = 9 E + N; 84 = E (bx lr, indirect: waits); 81 04 -> 0x200; c8 = EEN; 8a = NE */
    DECODE(&c, 0, &loop_image, ASYNC, ISYNC_THUMB_100, 0xE4, 0x84, 0x81, 0x04, 0xC8, 0x8A);
    CHECK_EQ(decode_rc, ETM_OK);
    static const uint32_t want_addr[] = { 0x100, 0x102, 0x104, 0x106, 0x102, 0x104, 0x106, 0x102,
                                          0x104, 0x106, 0x108, 0x200, 0x200, 0x200, 0x202, 0x204 };
    static const int want_e[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1 };
    CHECK_EQ(count_el(ETM_V3EL_INSN), 16);
    for (unsigned k = 0; k < 16; k++) {
        const etm_v3el_t *e = find_el(ETM_V3EL_INSN, k);
        CHECK(e != NULL);
        if (!e)
            break;
        CHECK_EQ(e->addr, want_addr[k]);
        CHECK_EQ(e->executed, want_e[k]);
        CHECK_EQ(e->insn.size, 2);
    }
    CHECK_EQ(find_el(ETM_V3EL_INSN, 3)->insn.branch, ETM_V3_BR_DIRECT);
    CHECK_EQ(find_el(ETM_V3EL_INSN, 10)->insn.branch, ETM_V3_BR_INDIRECT);
    /* the bx lr comes out before the branch it waited for */
    for (unsigned i = 0; i + 1 < R.nel; i++)
        if (R.el[i].kind == ETM_V3EL_BRANCH) {
            CHECK(i > 0 && R.el[i - 1].kind == ETM_V3EL_INSN && R.el[i - 1].addr == 0x108);
        }
    CHECK_EQ(count_el(ETM_V3EL_ATOM), 0);

    /* atoms after an E on an indirect branch in the same header are unknown */
    DECODE(&c, 0, &loop_image, ASYNC, 0x08, 0x20, 0x09, 0x01, 0x00, 0x00, 0x88, 0x81, 0x04, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK_EQ(count_el(ETM_V3EL_INSN), 2); /* bx lr at 0x108, then b . at 0x200 */
    CHECK_EQ(count_el(ETM_V3EL_ATOM), 1);
    CHECK(!find_el(ETM_V3EL_ATOM, 0)->addr_valid);
    CHECK_EQ(find_el(ETM_V3EL_INSN, 1)->addr, 0x200);

    /* without an image every atom is an ATOM; only the first after a sync has an address */
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0xC8);
    CHECK_EQ(count_el(ETM_V3EL_ATOM), 3);
    CHECK(find_el(ETM_V3EL_ATOM, 0)->addr_valid && find_el(ETM_V3EL_ATOM, 0)->addr == 0x100);
    CHECK(!find_el(ETM_V3EL_ATOM, 1)->addr_valid);
    CHECK_EQ(find_el(ETM_V3EL_ATOM, 2)->executed, 0);

    /* leaving the image: NO_IMAGE once, then unknown atoms until an address */
    DECODE(&c, 0, &loop_image, ASYNC, 0x08, 0x20, 0x01, 0x10, 0x00, 0x00, 0xC8, 0x81, 0x04, 0x84);
    CHECK_EQ(count_el(ETM_V3EL_NO_IMAGE), 1);
    CHECK_EQ(find_el(ETM_V3EL_NO_IMAGE, 0)->addr, 0x1000);
    CHECK_EQ(count_el(ETM_V3EL_ATOM), 3);
    CHECK_EQ(count_el(ETM_V3EL_INSN), 1);
    CHECK_EQ(find_el(ETM_V3EL_INSN, 0)->addr, 0x200);

    /* periodic I-sync where the code says: no mismatch; elsewhere: flagged */
    DECODE(&c, 0, &loop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x08, 0x00, 0x03, 0x01, 0x00, 0x00);
    CHECK_EQ(find_el(ETM_V3EL_SYNC, 1)->addr_mismatch, 0);
    DECODE(&c, 0, &loop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x08, 0x00, 0x05, 0x01, 0x00, 0x00);
    CHECK_EQ(find_el(ETM_V3EL_SYNC, 1)->addr_mismatch, 1);
    CHECK_EQ(find_el(ETM_V3EL_SYNC, 1)->expected_addr, 0x102);
}

/* ---- Cancel: the most recent atom, in every arrangement ------------------------------- */

static uint8_t nops[0x100];
static const mem_t nop_image = { 0x100, nops, sizeof nops };

/* Addresses of the INSN elements delivered, in order, as a string "100 102 ...". */
static const char *insn_list(void)
{
    static char s[1024];
    size_t k = 0;
    s[0] = '\0';
    for (unsigned i = 0; i < R.nel && k + 12 < sizeof s; i++)
        if (R.el[i].kind == ETM_V3EL_INSN)
            k += (size_t)snprintf(s + k, sizeof s - k, "%s%x", k ? " " : "", (unsigned)R.el[i].addr);
    return s;
}

static void test_cancel(void)
{
    for (unsigned a = 0; a < sizeof nops; a += 2)
        put16(nops, a, 0xBF00);
    etm_config_t c = m3(0);
    /* 81 44 22: exception 1 (IRQ1) at 0x200 with Cancel */
    /* 84 84 + cancel: OpenCSD keeps the second; it is withdrawn here */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x84, 0x81, 0x44, 0x22);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(insn_list(), "100"));
    CHECK_EQ(find_el(ETM_V3EL_EXCEPTION, 0)->withdrawn, 1);
    CHECK_EQ(find_el(ETM_V3EL_EXCEPTION, 0)->withdrawn_addr, 0x102);
    CHECK_EQ(find_el(ETM_V3EL_EXCEPTION, 0)->exc_number, 1);
    /* two atoms in one header: only the last is withdrawn */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x88, 0x81, 0x44, 0x22);
    CHECK(!strcmp(insn_list(), "100"));
    /* single atom: withdrawn */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x81, 0x44, 0x22);
    CHECK(!strcmp(insn_list(), ""));
    /* packets between the atom and the cancel (ignore, trigger, A-sync) do not
     * protect it; they keep their place: trigger before the exception */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x84, 0x66, 0x0C, ASYNC, 0x81, 0x44, 0x22);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(insn_list(), "100"));
    {
        unsigned t = R.nel, x = R.nel;
        for (unsigned i = 0; i < R.nel; i++) {
            if (R.el[i].kind == ETM_V3EL_TRIGGER)
                t = i;
            if (R.el[i].kind == ETM_V3EL_EXCEPTION)
                x = i;
        }
        CHECK(t < x && x < R.nel);
        CHECK(t > 0 && R.el[t - 1].kind == ETM_V3EL_INSN && R.el[t - 1].addr == 0x100);
    }
    /* cycle-accurate: W-only headers between */
    etm_config_t ca = m3(1);
    DECODE(&ca, ETM_V3DEC_V7M, &nop_image, ASYNC, 0x70, 0x01, 0x20, 0x01, 0x01, 0x00, 0x00, 0x84, 0xA4, 0xBC, 0x81,
           0x44, 0x22);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(insn_list(), ""));
    CHECK_EQ(find_el(ETM_V3EL_EXCEPTION, 0)->cycle, 1 + 1 + 2 + 8);
    /* without Cancel nothing is withdrawn, and the order is instruction, exception */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x81, 0x44, 0x02);
    CHECK(!strcmp(insn_list(), "100"));
    CHECK_EQ(R.el[R.nel - 1].kind, ETM_V3EL_EXCEPTION);
    CHECK_EQ(R.el[R.nel - 1].withdrawn, 0);
    /* a new atom after the held one makes it final */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x84, 0x84, 0x81, 0x44, 0x22);
    CHECK(!strcmp(insn_list(), "100 102"));
    /* a plain branch packet makes it final; an I-sync too */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x81, 0x04, 0x81, 0x44, 0x22);
    CHECK(!strcmp(insn_list(), "100"));
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x08, 0x00, 0x03, 0x01, 0x00, 0x00, 0x81,
           0x44, 0x22);
    CHECK(!strcmp(insn_list(), "100"));
    /* the end of the trace delivers the held instruction */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84);
    CHECK(!strcmp(insn_list(), "100"));
    /* without an image the atom is withdrawn the same way */
    DECODE(&c, ETM_V3DEC_V7M, NULL, ASYNC, ISYNC_THUMB_100, 0x84, 0x84, 0x81, 0x44, 0x22);
    CHECK_EQ(count_el(ETM_V3EL_ATOM), 1);

    /* exception return 0x76. ARMv7-M: the return completed; the cancel withdraws the
     * return, not the instruction (Cortex-M3 TRM 15.5.2) */
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x76, 0x81, 0x44, 0x22);
    CHECK(!strcmp(insn_list(), "100"));
    CHECK_EQ(count_el(ETM_V3EL_EXC_RETURN), 0);
    CHECK_EQ(find_el(ETM_V3EL_EXCEPTION, 0)->withdrawn, 1);
    DECODE(&c, ETM_V3DEC_V7M, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x76, 0x81, 0x04);
    CHECK(!strcmp(insn_list(), "100"));
    CHECK_EQ(count_el(ETM_V3EL_EXC_RETURN), 1);
    /* ARMv7-A/R (IHI 0014 7.6): the return packet does not mean completion; both go */
    DECODE(&c, 0, &nop_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x76, 0x81, 0x44, 0x22);
    CHECK(!strcmp(insn_list(), ""));
    CHECK_EQ(count_el(ETM_V3EL_EXC_RETURN), 0);
    CHECK_EQ(find_el(ETM_V3EL_EXCEPTION, 0)->withdrawn, 2);
}

/* ---- Cycle numbering -------------------------------------------------------------- */

static void test_cycles(void)
{
    init_loop_code();
    etm_config_t c = m3(1);
    for (unsigned a = 0; a < sizeof nops; a += 2)
        put16(nops, a, 0xBF00);
    /* I-sync CC 10; a4 = WW; 88 = WE WE; 82 = W E E; 92 = E (no W); 04 05 = 5 cycles;
     * 84 = W E. Instruction cycles: 13 14 15 15 15 21 */
    DECODE(&c, 0, &nop_image, ASYNC, 0x70, 0x0A, 0x20, 0x01, 0x01, 0x00, 0x00, 0xA4, 0x88, 0x82, 0x92, 0x04, 0x05,
           0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    static const uint64_t want[] = { 13, 14, 15, 15, 15, 21 };
    CHECK_EQ(count_el(ETM_V3EL_INSN), 6);
    for (unsigned k = 0; k < 6 && find_el(ETM_V3EL_INSN, k); k++)
        CHECK_EQ(find_el(ETM_V3EL_INSN, k)->cycle, want[k]);
    CHECK_EQ(find_el(ETM_V3EL_SYNC, 0)->cycle, 10);
    /* W atoms before the first I-sync count too */
    DECODE(&c, 0, &nop_image, ASYNC, 0xBC, 0x08, 0x20, 0x01, 0x01, 0x00, 0x00, 0x84);
    CHECK_EQ(find_el(ETM_V3EL_INSN, 0)->cycle, 9);
    /* not cycle-accurate: cycle stays 0 */
    c = m3(0);
    DECODE(&c, 0, &nop_image, ASYNC, ISYNC_THUMB_100, 0x88);
    CHECK_EQ(find_el(ETM_V3EL_INSN, 1)->cycle, 0);
}

/* ---- Instruction classifier -------------------------------------------------------- */

static void t16(uint32_t addr, uint32_t hw, etm_v3_brkind_t br, uint32_t target)
{
    uint8_t b[2] = { (uint8_t)hw, (uint8_t)(hw >> 8) };
    etm_v3_insn_t in;
    CHECK_EQ(etm_v3_insn_classify(ETM_V3_ISA_THUMB, addr, b, 2, &in), 0);
    CHECK_EQ(in.size, 2);
    if (in.branch != br)
        fprintf(stderr, "  T16 %04x\n", (unsigned)hw);
    CHECK_EQ(in.branch, br);
    if (br == ETM_V3_BR_DIRECT)
        CHECK_EQ(in.target, target);
}

static void t32(uint32_t addr, uint32_t hw1, uint32_t hw2, etm_v3_brkind_t br, uint32_t target, etm_v3_isa_t tisa)
{
    uint8_t b[4] = { (uint8_t)hw1, (uint8_t)(hw1 >> 8), (uint8_t)hw2, (uint8_t)(hw2 >> 8) };
    etm_v3_insn_t in;
    CHECK_EQ(etm_v3_insn_classify(ETM_V3_ISA_THUMB, addr, b, 2, &in), 1); /* needs 4 bytes */
    CHECK_EQ(etm_v3_insn_classify(ETM_V3_ISA_THUMB, addr, b, 4, &in), 0);
    CHECK_EQ(in.size, 4);
    if (in.branch != br)
        fprintf(stderr, "  T32 %04x %04x\n", (unsigned)hw1, (unsigned)hw2);
    CHECK_EQ(in.branch, br);
    if (br == ETM_V3_BR_DIRECT) {
        CHECK_EQ(in.target, target);
        CHECK_EQ(in.target_isa, tisa);
    }
}

static void a32(uint32_t addr, uint32_t w, etm_v3_brkind_t br, uint32_t target, etm_v3_isa_t tisa)
{
    uint8_t b[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24) };
    etm_v3_insn_t in;
    CHECK_EQ(etm_v3_insn_classify(ETM_V3_ISA_ARM, addr, b, 4, &in), 0);
    CHECK_EQ(in.size, 4);
    if (in.branch != br)
        fprintf(stderr, "  A32 %08x\n", (unsigned)w);
    CHECK_EQ(in.branch, br);
    if (br == ETM_V3_BR_DIRECT) {
        CHECK_EQ(in.target, target);
        CHECK_EQ(in.target_isa, tisa);
    }
}

static void test_classifier(void)
{
    const etm_v3_brkind_t N = ETM_V3_BR_NONE, Dr = ETM_V3_BR_DIRECT, I = ETM_V3_BR_INDIRECT;
    const etm_v3_isa_t T = ETM_V3_ISA_THUMB, A = ETM_V3_ISA_ARM;
    /* 16-bit Thumb */
    t16(0x106, 0xD1FC, Dr, 0x102);   /* bne 0x102 */
    t16(0x200, 0xE7FE, Dr, 0x200);   /* b . */
    t16(0x100, 0xE000, Dr, 0x104);   /* b +4 */
    t16(0x100, 0xB11A, Dr, 0x10A);   /* cbz r2, +6 */
    t16(0x100, 0xBB1A, Dr, 0x14A);   /* cbnz r2, i=1 */
    t16(0x100, 0x4770, I, 0);        /* bx lr */
    t16(0x100, 0x4798, I, 0);        /* blx r3 */
    t16(0x100, 0xBD38, I, 0);        /* pop {r3-r5,pc} */
    t16(0x100, 0x4687, I, 0);        /* mov pc, r0 */
    t16(0x100, 0x448F, I, 0);        /* add pc, r1 */
    t16(0x100, 0x4680, N, 0);        /* mov r8, r0 */
    t16(0x100, 0x4587, N, 0);        /* cmp pc-ish: cmp r7, r0 (high) */
    t16(0x100, 0xBC10, N, 0);        /* pop {r4} */
    t16(0x100, 0xDF01, N, 0);        /* svc 1: an exception, not a branch */
    t16(0x100, 0xDE00, N, 0);        /* udf */
    t16(0x100, 0xBF00, N, 0);        /* nop */
    {
        uint8_t b[2] = { 0x08, 0xBF };  /* it eq */
        etm_v3_insn_t in;
        CHECK_EQ(etm_v3_insn_classify(T, 0x100, b, 2, &in), 0);
        CHECK(in.is_it && in.branch == N);
        b[0] = 0x00;                    /* nop is not an IT */
        CHECK_EQ(etm_v3_insn_classify(T, 0x100, b, 2, &in), 0);
        CHECK(!in.is_it);
    }
    /* 32-bit Thumb: from the TC2 capture (DS-5 disassembly) and the ARM ARM */
    t32(0xC004F6A6, 0xF7FF, 0xFFE5, Dr, 0xC004F674, T);  /* BL {pc}-0x32 */
    t32(0xC004F67C, 0xF7FF, 0xFC84, Dr, 0xC004EF88, T);  /* BL {pc}-0x6f4 */
    t32(0x100, 0xF000, 0xB800, Dr, 0x104, T);            /* b.w +0 */
    t32(0x100, 0xF43F, 0xAFFE, Dr, 0x100, T);            /* beq.w . */
    t32(0x102, 0xF000, 0xE800, Dr, 0x104, A);            /* blx imm: (pc & ~3) + 0 */
    t32(0x100, 0xF3DE, 0x8F00, I, 0, T);                 /* subs pc, lr, #0 */
    t32(0x100, 0xF85D, 0xFB04, I, 0, T);                 /* ldr pc, [sp], #4 */
    t32(0x100, 0xF8DF, 0xF004, I, 0, T);                 /* ldr.w pc, [pc, #4] */
    t32(0x100, 0xE8BD, 0x8010, I, 0, T);                 /* pop.w {r4, pc} */
    t32(0x100, 0xE8BD, 0x4010, N, 0, T);                 /* pop.w {r4, lr} */
    t32(0x100, 0xE8DF, 0xF001, I, 0, T);                 /* tbb [pc, r1] */
    t32(0x100, 0xE8DF, 0xF011, I, 0, T);                 /* tbh [pc, r1, lsl #1] */
    t32(0x100, 0xE9D6, 0x2302, N, 0, T);                 /* ldrd r2, r3, [r6, #8] */
    t32(0x100, 0xF85D, 0xEB04, N, 0, T);                 /* pop {lr} */
    t32(0x100, 0xF3BF, 0x8F5F, N, 0, T);                 /* dmb */
    t32(0x100, 0xF04F, 0x0000, N, 0, T);                 /* mov.w r0, #0 */
    t32(0x100, 0xFBA3, 0xAB0A, N, 0, T);                 /* umull */
    t32(0x100, 0xE99D, 0xC000, I, 0, T);                 /* rfeia sp */
    /* A32 */
    a32(0x1000, 0xEA000000, Dr, 0x1008, A);              /* b +8 */
    a32(0x1000, 0xEBFFFFFE, Dr, 0x1000, A);              /* bl . */
    a32(0x1000, 0x0AFFFFFD, Dr, 0xFFC, A);               /* beq */
    a32(0x1000, 0xFA000000, Dr, 0x1008, T);              /* blx imm */
    a32(0x1000, 0xFB000000, Dr, 0x100A, T);              /* blx imm, H=1 */
    a32(0x1000, 0xE12FFF1E, I, 0, A);                    /* bx lr */
    a32(0x1000, 0xE12FFF33, I, 0, A);                    /* blx r3 */
    a32(0x1000, 0xE49DF004, I, 0, A);                    /* ldr pc, [sp], #4 */
    a32(0x1000, 0xE59FF000, I, 0, A);                    /* ldr pc, [pc] */
    a32(0x1000, 0xE8BD8010, I, 0, A);                    /* ldm sp!, {r4, pc} */
    a32(0x1000, 0xE8BD4010, N, 0, A);                    /* ldm sp!, {r4, lr} */
    a32(0x1000, 0xE1A0F00E, I, 0, A);                    /* mov pc, lr */
    a32(0x1000, 0xE25EF004, I, 0, A);                    /* subs pc, lr, #4 */
    a32(0x1000, 0xE08FF100, I, 0, A);                    /* add pc, pc, r0, lsl #2 */
    a32(0x1000, 0xF8BD0A00, I, 0, A);                    /* rfeia sp! */
    a32(0x1000, 0xE3500001, N, 0, A);                    /* cmp r0, #1 */
    a32(0x1000, 0xE0800001, N, 0, A);                    /* add r0, r0, r1 */
    a32(0x1000, 0xE0000190, N, 0, A);                    /* mul r0, r0, r1 */
    a32(0x1000, 0xE5910000, N, 0, A);                    /* ldr r0, [r1] */
    a32(0x1000, 0xE300F000, N, 0, A);                    /* movw pc-field: movw r15 is unpredictable, not traced as branch */
    a32(0x1000, 0xE10F0000, N, 0, A);                    /* mrs r0, apsr */
    a32(0x1000, 0xEF000000, N, 0, A);                    /* svc 0 */
    /* Jazelle is not followed; A32 needs 4 bytes */
    {
        uint8_t b[4] = { 0, 0, 0, 0 };
        etm_v3_insn_t in;
        CHECK_EQ(etm_v3_insn_classify(ETM_V3_ISA_JAZELLE, 0, b, 4, &in), -1);
        CHECK_EQ(etm_v3_insn_classify(ETM_V3_ISA_ARM, 0, b, 3, &in), 1);
    }
}

/* ---- Streaming and garbage ------------------------------------------------------------ */

/* Packets and elements of a stream fed one byte at a time equal those of one call. */
/* ---- Data: elements from data packets --------------------------------------------- */

/* Thumb code at 0x100: LDR r0,[r1] (6808), STR r0,[r1,#4] (6048), MOVS r0,#0
 * (2000), LDM r1!,{r0,r2} (c905), PUSH {r4,lr} (b510), NOP (bf00). */
static const uint8_t ls_code[] = { 0x08, 0x68, 0x48, 0x60, 0x00, 0x20, 0x05, 0xC9, 0x10, 0xB5, 0x00, 0xBF };
static const mem_t ls_image = { 0x100, ls_code, sizeof ls_code };

static const etm_v3_data_t *data_el(unsigned nth)
{
    const etm_v3el_t *e = find_el(ETM_V3EL_DATA, nth);
    return e ? &e->data : NULL;
}

/* Kinds of the elements delivered: I insn, D data (N normal, X not traced, P
 * placeholder, O out of order), S sync, E exception. */
static const char *kinds(void)
{
    static char b[MAXREC + 1];
    unsigned k = 0;
    for (unsigned i = 0; i < R.nel && k < MAXREC; i++) {
        const etm_v3el_t *e = &R.el[i];
        if (e->kind == ETM_V3EL_INSN)
            b[k++] = 'I';
        else if (e->kind == ETM_V3EL_SYNC)
            b[k++] = 'S';
        else if (e->kind == ETM_V3EL_EXCEPTION)
            b[k++] = 'E';
        else if (e->kind == ETM_V3EL_DATA)
            b[k++] = "NXPOZ"[e->data.kind];
    }
    b[k] = '\0';
    return b;
}

/* Which instructions are data instructions (ARM ARM encodings). */
static void test_ls_classes(void)
{
    static const struct { etm_v3_isa_t isa; uint8_t b[4]; unsigned n; int ls; } t[] = {
        { ETM_V3_ISA_THUMB, { 0x08, 0x68 }, 2, ETM_V3_LS_LOAD },              /* LDR r0,[r1] */
        { ETM_V3_ISA_THUMB, { 0x48, 0x60 }, 2, ETM_V3_LS_STORE },             /* STR r0,[r1,#4] */
        { ETM_V3_ISA_THUMB, { 0x00, 0x48 }, 2, ETM_V3_LS_LOAD },              /* LDR r0,[pc] */
        { ETM_V3_ISA_THUMB, { 0x48, 0x58 }, 2, ETM_V3_LS_LOAD },              /* LDR r0,[r1,r1] */
        { ETM_V3_ISA_THUMB, { 0x48, 0x54 }, 2, ETM_V3_LS_STORE },             /* STRB r0,[r1,r1] */
        { ETM_V3_ISA_THUMB, { 0x48, 0x88 }, 2, ETM_V3_LS_LOAD },              /* LDRH r0,[r1,#2] */
        { ETM_V3_ISA_THUMB, { 0x01, 0x90 }, 2, ETM_V3_LS_STORE },             /* STR r0,[sp,#4] */
        { ETM_V3_ISA_THUMB, { 0x10, 0xB5 }, 2, ETM_V3_LS_STORE },             /* PUSH {r4,lr} */
        { ETM_V3_ISA_THUMB, { 0x10, 0xBD }, 2, ETM_V3_LS_LOAD },              /* POP {r4,pc} */
        { ETM_V3_ISA_THUMB, { 0x05, 0xC9 }, 2, ETM_V3_LS_LOAD },              /* LDM r1!,{r0,r2} */
        { ETM_V3_ISA_THUMB, { 0x05, 0xC1 }, 2, ETM_V3_LS_STORE },             /* STM r1!,{r0,r2} */
        { ETM_V3_ISA_THUMB, { 0x00, 0x20 }, 2, ETM_V3_LS_NONE },              /* MOVS r0,#0 */
        { ETM_V3_ISA_THUMB, { 0xD1, 0xF8, 0x04, 0x00 }, 4, ETM_V3_LS_LOAD },  /* LDR.W r0,[r1,#4] */
        { ETM_V3_ISA_THUMB, { 0xC1, 0xF8, 0x04, 0x00 }, 4, ETM_V3_LS_STORE }, /* STR.W r0,[r1,#4] */
        { ETM_V3_ISA_THUMB, { 0xD1, 0xE9, 0x00, 0x23 }, 4, ETM_V3_LS_LOAD },  /* LDRD r2,r3,[r1] */
        { ETM_V3_ISA_THUMB, { 0xC1, 0xE9, 0x00, 0x23 }, 4, ETM_V3_LS_STORE }, /* STRD r2,r3,[r1] */
        { ETM_V3_ISA_THUMB, { 0x41, 0xE8, 0x00, 0x02 }, 4, ETM_V3_LS_STORE }, /* STREX r2,r0,[r1] */
        { ETM_V3_ISA_THUMB, { 0x41, 0xEC, 0x00, 0x0F }, 4, ETM_V3_LS_NONE },  /* MCRR p15,0,r0,r1,c0 */
        { ETM_V3_ISA_THUMB, { 0x00, 0xEE, 0x10, 0x0F }, 4, ETM_V3_LS_NONE },  /* MCR (a CPRT) */
        { ETM_V3_ISA_ARM, { 0x00, 0x00, 0x91, 0xE5 }, 4, ETM_V3_LS_LOAD },    /* LDR r0,[r1] */
        { ETM_V3_ISA_ARM, { 0x00, 0x00, 0x81, 0xE5 }, 4, ETM_V3_LS_STORE },   /* STR r0,[r1] */
        { ETM_V3_ISA_ARM, { 0x92, 0x00, 0x01, 0xE1 }, 4, ETM_V3_LS_SWAP },    /* SWP r0,r2,[r1] */
        { ETM_V3_ISA_ARM, { 0xB0, 0x00, 0xD1, 0xE1 }, 4, ETM_V3_LS_LOAD },    /* LDRH r0,[r1] */
        { ETM_V3_ISA_ARM, { 0xD0, 0x20, 0xC1, 0xE1 }, 4, ETM_V3_LS_LOAD },    /* LDRD r2,r3,[r1] */
        { ETM_V3_ISA_ARM, { 0xF0, 0x20, 0xC1, 0xE1 }, 4, ETM_V3_LS_STORE },   /* STRD r2,r3,[r1] */
        { ETM_V3_ISA_ARM, { 0x06, 0x00, 0x91, 0xE8 }, 4, ETM_V3_LS_LOAD },    /* LDMIA r1,{r1,r2} */
        { ETM_V3_ISA_ARM, { 0x00, 0x00, 0xA0, 0xE3 }, 4, ETM_V3_LS_NONE },    /* MOV r0,#0 */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        etm_v3_insn_t insn;
        CHECK_EQ(etm_v3_insn_classify(t[i].isa, 0x1000, t[i].b, t[i].n, &insn), 0);
        if (insn.ls != t[i].ls)
            fprintf(stderr, "case %zu: ls %d, expected %d\n", i, insn.ls, t[i].ls);
        CHECK_EQ(insn.ls, t[i].ls);
    }
}

static void test_data(void)
{
    etm_config_t c = m3(0);
    c.etmcr = 0xCu; /* data address and value */
    const etm_v3_data_t *x;

    /* LDR at 0x100 loads 0x11223344 from 0x20000010 (normal data with the full
     * address), then the STR's atom: the data belongs to the LDR. */
    DECODE(&c, 0, &ls_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x2E, 0x90, 0x80, 0x80, 0x80, 0x02, 0x44, 0x33, 0x22,
           0x11, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(kinds(), "SINI"));
    x = data_el(0);
    CHECK(x && x->kind == ETM_V3_DATA_NORMAL && x->seq == 1 && x->first && x->addr_given && x->addr_valid);
    CHECK(x && x->addr == 0x20000010 && x->value_valid && x->value == 0x11223344 && x->value_bytes == 4);
    CHECK(x && x->insn_valid && x->insn_addr == 0x100 && x->ls == ETM_V3_LS_LOAD && !x->store_failed);

    /* Out of order: the LDR's placeholder (tag 1), the STR's atom, the LDR's
     * value (24 AB), the STR's normal data (address one byte: 0x20000014). */
    DECODE(&c, 0, &ls_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02, 0x84, 0x24, 0xAB,
           0x2E, 0x14, 0x88, 0x77, 0x66, 0x55, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(kinds(), "SIPIONI"));
    x = data_el(0);
    CHECK(x && x->kind == ETM_V3_DATA_PLACEHOLDER && x->seq == 1 && x->tag == 1 && x->addr == 0x20000010);
    CHECK(x && !x->value_valid && x->insn_addr == 0x100);
    x = data_el(1);
    CHECK(x && x->kind == ETM_V3_DATA_OOO && x->seq == 1 && x->tag == 1 && x->value_valid && x->value == 0xAB);
    CHECK(x && x->addr == 0x20000010 && x->insn_addr == 0x100 && x->ls == ETM_V3_LS_LOAD); /* the placeholder's */
    x = data_el(2);
    CHECK(x && x->kind == ETM_V3_DATA_NORMAL && x->seq == 2 && x->addr == 0x20000014 && x->value == 0x55667788);
    CHECK(x && x->insn_addr == 0x102 && x->ls == ETM_V3_LS_STORE);
    CHECK_EQ(find_pkt(ETM_V3PKT_OOO_PLACEHOLDER, 0)->data_first, 1);

    /* LDM at 0x106: the first word placed, the second in order with A=0 (its
     * address the word after), then the first's value; PUSH follows. */
    DECODE(&c, 0, &ls_image, ASYNC, 0x08, 0x20, 0x07, 0x01, 0x00, 0x00, 0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02,
           0x0E, 0x88, 0x77, 0x66, 0x55, 0x24, 0xAB, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(kinds(), "SIPNOI"));
    x = data_el(1);
    CHECK(x && x->seq == 2 && !x->first && !x->addr_given && x->addr_valid && x->addr == 0x20000014);
    CHECK(x && x->insn_addr == 0x106 && x->ls == ETM_V3_LS_LOAD);
    CHECK(data_el(2) && data_el(2)->seq == 1 && data_el(2)->value == 0xAB);

    /* Value not traced with its address (7A 08 against 0x20000104). */
    DECODE(&c, 0, &ls_image, ASYNC, 0x08, 0x20, 0x07, 0x01, 0x00, 0x00, 0x84, 0x74, 0x84, 0x82, 0x80, 0x80, 0x02,
           0x7A, 0x08, 0x24, 0x12, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(kinds(), "SIPXOI"));
    x = data_el(1);
    CHECK(x && x->kind == ETM_V3_DATA_NOT_TRACED && x->seq == 2 && x->addr == 0x20000108 && !x->value_valid);

    /* A failed STREX: value 0 in one byte, then store failed. */
    DECODE(&c, 0, &ls_image, ASYNC, 0x08, 0x20, 0x03, 0x01, 0x00, 0x00, 0x84, 0x26, 0x90, 0x80, 0x80, 0x80, 0x02,
           0x00, 0x50, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    x = data_el(0);
    CHECK(x && x->store_failed && x->value == 0 && x->value_bytes == 1 && x->insn_addr == 0x102);
    /* ... and a store-failed packet that follows no data packet: an error at its offset */
    DECODE(&c, 0, &ls_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x50);
    CHECK_EQ(decode_rc, ETM_ERR_DECODE);
    CHECK_EQ(D.offset, 13);
    CHECK_STR_CONTAINS(D.msg, "store-failed");

    /* Value only: A=1 without address bytes; addresses unknown. */
    c.etmcr = 0x4u;
    DECODE(&c, 0, &ls_image, ASYNC, 0x08, 0x20, 0x07, 0x01, 0x00, 0x00, 0x84, 0x2E, 0x44, 0x33, 0x22, 0x11, 0x0E,
           0x88, 0x77, 0x66, 0x55, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(data_el(0) && data_el(0)->first && !data_el(0)->addr_valid && data_el(0)->value == 0x11223344);
    CHECK(data_el(1) && !data_el(1)->first && !data_el(1)->addr_valid && data_el(1)->value == 0x55667788);
    /* Address only: no value bytes (22 + address, then 02). */
    c.etmcr = 0x8u;
    DECODE(&c, 0, &ls_image, ASYNC, 0x08, 0x20, 0x07, 0x01, 0x00, 0x00, 0x84, 0x22, 0x90, 0x80, 0x80, 0x80, 0x02,
           0x02, 0x84);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(data_el(0) && data_el(0)->addr == 0x20000010 && !data_el(0)->value_valid);
    CHECK(data_el(1) && data_el(1)->addr == 0x20000014 && !data_el(1)->value_valid);

    /* A placeholder whose tag comes again, one lost at an overflow, one at the
     * end: three never resolved; an out-of-order value with no placeholder seen. */
    c.etmcr = 0xCu;
    DECODE(&c, 0, &ls_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02, 0x84, 0x74, 0x14,
           0x08, 0x40, 0x05, 0x01, 0x00, 0x00, 0x24, 0xAB, 0x84, 0x78, 0x18);
    CHECK_EQ(decode_rc, ETM_OK);
    x = data_el(2);
    CHECK(x && x->kind == ETM_V3_DATA_OOO && x->seq == 0 && x->value == 0xAB);
    {
        etm_v3dec_t *d;
        etm_v3dec_create(&d, &c, 0, &D);
        static const uint8_t s3[] = { ASYNC, ISYNC_THUMB_100, 0x84, 0x74, 0x90, 0x80, 0x80, 0x80, 0x02, 0x84, 0x74,
                                      0x14, 0x08, 0x40, 0x05, 0x01, 0x00, 0x00, 0x84, 0x78, 0x18 };
        CHECK_EQ(etm_v3dec_feed(d, s3, sizeof s3, NULL, &D), ETM_OK);
        CHECK_EQ(etm_v3dec_end(d, &D), ETM_OK);
        CHECK_EQ(etm_v3dec_get_stats(d)->unresolved, 3);
        CHECK_EQ(etm_v3dec_get_stats(d)->transfers, 3);
        etm_v3dec_destroy(d);
    }

    /* Data packets do not settle a held atom: a cancel after the LDR's data
     * still withdraws the LDR, and the data element stays, in its place. */
    DECODE(&c, ETM_V3DEC_V7M, &ls_image, ASYNC, ISYNC_THUMB_100, 0x84, 0x2E, 0x90, 0x80, 0x80, 0x80, 0x02, 0x44,
           0x33, 0x22, 0x11, 0x81, 0x44, 0x22);
    CHECK_EQ(decode_rc, ETM_OK);
    CHECK(!strcmp(kinds(), "SNE"));
    CHECK_EQ(find_el(ETM_V3EL_EXCEPTION, 0)->withdrawn, 1);

    /* Without a code image the instruction is not known. */
    DECODE(&c, 0, NULL, ASYNC, ISYNC_THUMB_100, 0x84, 0x2E, 0x90, 0x80, 0x80, 0x80, 0x02, 0x44, 0x33, 0x22, 0x11);
    CHECK(data_el(0) && !data_el(0)->insn_valid && data_el(0)->ls == ETM_V3_LS_NONE);
}

static void test_chunking(void)
{
    init_loop_code();
    etm_config_t c = m3(1);
    static const uint8_t s[] = { 0x12, ASYNC, 0x70, 0x85, 0x01, 0x20, 0x01, 0x01, 0x00, 0x00, 0xA4, 0x88, 0x82,
                                 0x81, 0x44, 0x90, 0x01, 0x0C, 0x04, 0xE4, 0x03, 0x84, 0x81, 0x80, 0x80, 0x80,
                                 0x11, ASYNC, 0xC8 };
    static rec_t whole;
    CHECK_EQ(decode(&c, ETM_V3DEC_V7M, &loop_image, s, sizeof s), ETM_OK);
    whole = R;
    etm_v3dec_t *d;
    memset(&R, 0, sizeof R);
    CHECK_EQ(etm_v3dec_create(&d, &c, ETM_V3DEC_V7M, &D), ETM_OK);
    etm_v3dec_on_packet(d, on_pkt, &R);
    etm_v3dec_on_element(d, on_el, &R);
    etm_v3dec_set_image(d, mem_read, (void *)&loop_image);
    for (size_t k = 0; k < sizeof s; k++)
        CHECK_EQ(etm_v3dec_feed(d, s + k, 1, NULL, &D), ETM_OK);
    CHECK_EQ(etm_v3dec_end(d, &D), ETM_OK);
    etm_v3dec_destroy(d);
    CHECK_EQ(R.npkt, whole.npkt);
    CHECK_EQ(R.nel, whole.nel);
    for (unsigned i = 0; i < R.npkt && i < whole.npkt; i++) {
        CHECK_EQ(R.pkt[i].kind, whole.pkt[i].kind);
        CHECK_EQ(R.pkt[i].offset, whole.pkt[i].offset);
        CHECK_EQ(R.pkt[i].addr, whole.pkt[i].addr);
    }
    for (unsigned i = 0; i < R.nel && i < whole.nel; i++) {
        CHECK_EQ(R.el[i].kind, whole.el[i].kind);
        CHECK_EQ(R.el[i].addr, whole.el[i].addr);
        CHECK_EQ(R.el[i].cycle, whole.el[i].cycle);
    }
}

static void fuzz_ignore_pkt(void *user, const etm_v3pkt_t *p)
{
    unsigned *n = (unsigned *)user;
    (*n)++;
    /* touch every raw byte the callback is promised */
    for (unsigned i = 0; i < p->raw_len; i++)
        *n += p->raw[i] & 1u;
}

static void fuzz_ignore_el(void *user, const etm_v3el_t *e)
{
    unsigned *n = (unsigned *)user;
    *n += (unsigned)e->kind;
}

/* Random bytes (and random bytes after a valid start) never crash the decoder,
 * with every configuration shape; errors carry an offset inside the input. */
static void test_fuzz(void)
{
    test_rng_t rng = { 0x9E3779B97F4A7C15ull };
    static uint8_t buf[4096];
    static uint8_t code[4096];
    for (size_t k = 0; k < sizeof code; k++)
        code[k] = (uint8_t)test_rand(&rng);
    const mem_t img = { 0x0, code, sizeof code };
    unsigned sink = 0, errors = 0;
    for (int round = 0; round < 400; round++) {
        etm_config_t c;
        etm_config_default(&c);
        uint64_t r = test_rand(&rng);
        c.etmidr = (r & 1) ? 0x4114F240u : (0x410CF200u | (unsigned)((r >> 1) % 6) << 4);
        c.etmcr = (uint32_t)(test_rand(&rng) & 0x5010D00Cu);
        c.etmccer = (uint32_t)(test_rand(&rng) & 0x34000000u);
        size_t n = 1 + (size_t)(test_rand(&rng) % sizeof buf);
        for (size_t k = 0; k < n; k++) {
            uint64_t x = test_rand(&rng);
            /* bias towards plausible streams: many P-headers, some syncs */
            buf[k] = (x & 0x300) == 0 ? (uint8_t)(0x80 | (x & 0x7C)) : (uint8_t)x;
        }
        if (round & 1) {
            static const uint8_t start[] = { ASYNC, 0x08, 0x20, 0x01, 0x00, 0x00, 0x00 };
            memcpy(buf, start, n < sizeof start ? n : sizeof start);
        }
        etm_v3dec_t *d;
        etm_diag_t dg;
        etm_diag_clear(&dg);
        if (etm_v3dec_create(&d, &c, (unsigned)(r >> 8) & 1u, &dg) != ETM_OK) {
            CHECK(0);
            continue;
        }
        etm_v3dec_on_packet(d, fuzz_ignore_pkt, &sink);
        etm_v3dec_on_element(d, fuzz_ignore_el, &sink);
        if (round % 3)
            etm_v3dec_set_image(d, mem_read, (void *)&img);
        size_t done = 0;
        while (done < n) {
            size_t chunk = 1 + (size_t)(test_rand(&rng) % 64), used = 0;
            if (chunk > n - done)
                chunk = n - done;
            etm_diag_clear(&dg);
            if (etm_v3dec_feed(d, buf + done, chunk, &used, &dg) != ETM_OK) {
                errors++;
                CHECK(dg.offset < n && dg.offset <= done + used);
                CHECK(dg.msg[0] != '\0');
            }
            CHECK(used >= 1 && used <= chunk);
            done += used;
        }
        etm_diag_clear(&dg);
        if (etm_v3dec_end(d, &dg) != ETM_OK)
            CHECK(dg.offset < n);
        etm_v3dec_destroy(d);
    }
    CHECK(errors > 0); /* garbage is noticed */
    CHECK(sink != 0);
}

/* ---- Packets only (ETM_V3DEC_PACKETS) -------------------------------------------- */

/* A digest of every packet's kind, place and decoded fields. */
typedef struct digest {
    uint64_t h, n, elements;
} digest_t;

static void mix(digest_t *g, uint64_t v)
{
    g->h = (g->h ^ v) * 0x100000001b3ull;
}

static void digest_pkt(void *user, const etm_v3pkt_t *p)
{
    digest_t *g = (digest_t *)user;
    g->n++;
    mix(g, p->kind);
    mix(g, p->offset);
    mix(g, p->size);
    mix(g, p->addr);
    mix(g, p->isa);
    mix(g, p->exception ? p->exc_number : 0xffff);
    mix(g, p->reason);
    mix(g, p->lsip ? p->lsip_addr : 0);
    mix(g, p->has_data_addr ? p->data_addr : 0);
    mix(g, p->value);
    mix(g, p->cycle_count);
    for (const char *a = p->atoms; *a; a++)
        mix(g, (uint8_t)*a);
}

static void count_elements(void *user, const etm_v3el_t *e)
{
    (void)e;
    ((digest_t *)user)->elements++;
}

/* The model's trace of random code with data trace, cycle-accurate: with packets
 * only, the decoder gives the same packets (the packet state it keeps for
 * branch and data address compression, the ISA and store-failed is its own,
 * not the trace layer's) and no element. */
static void test_packets_only(void)
{
    etm_config_t cfg;
    etm_config_preset(&cfg, "etmv3.5");
    cfg.etmcr = 0x181C;
    cfg.fifo_depth = 0x80;
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.data = gp.data_mix = 1;
    gp.data_delay = 4;
    gp.seed = 7;
    etm_gen_t *gen;
    etm_ctx_t *etm;
    etm_diag_t d;
    CHECK(etm_gen_create(&gen, &gp, &d) == ETM_OK && etm_create(&etm, &cfg, &d) == ETM_OK);
    etm_v3dec_t *full, *pk;
    digest_t gf = { 0xcbf29ce484222325ull, 0, 0 }, gk = gf;
    CHECK(etm_v3dec_create(&full, &cfg, ETM_V3DEC_V7M, &d) == ETM_OK);
    CHECK(etm_v3dec_create(&pk, &cfg, ETM_V3DEC_V7M | ETM_V3DEC_PACKETS, &d) == ETM_OK);
    etm_v3dec_on_packet(full, digest_pkt, &gf);
    etm_v3dec_on_element(full, count_elements, &gf);
    etm_v3dec_on_packet(pk, digest_pkt, &gk);
    etm_v3dec_on_element(pk, count_elements, &gk);
    etm_in_t in;
    etm_out_t out;
    int bad = 0;
    for (unsigned k = 0; k < 200000; k++) {
        etm_gen_next(gen, &in, NULL);
        etm_step(etm, &in, &out);
        bad |= etm_v3dec_feed(full, out.v3_bytes, out.v3_count, NULL, &d) != ETM_OK;
        bad |= etm_v3dec_feed(pk, out.v3_bytes, out.v3_count, NULL, &d) != ETM_OK;
    }
    etm_end(etm);
    while (etm_drain(etm, &out) == ETM_OK) {
        bad |= etm_v3dec_feed(full, out.v3_bytes, out.v3_count, NULL, &d) != ETM_OK;
        bad |= etm_v3dec_feed(pk, out.v3_bytes, out.v3_count, NULL, &d) != ETM_OK;
    }
    CHECK(!bad);
    CHECK(etm_v3dec_end(full, &d) == ETM_OK && etm_v3dec_end(pk, &d) == ETM_OK);
    CHECK(gf.n > 10000 && gf.elements > 10000); /* a trace with something in it */
    CHECK_EQ(gk.n, gf.n);
    CHECK_EQ(gk.h, gf.h);
    CHECK_EQ(gk.elements, 0);
    CHECK(etm_v3dec_get_stats(pk)->packets[ETM_V3PKT_NORMAL_DATA] > 0);
    etm_v3dec_destroy(full);
    etm_v3dec_destroy(pk);
    etm_destroy(etm);
    etm_gen_free(gen);
}

int main(void)
{
    test_pheaders();
    test_branches();
    test_isync_and_others();
    test_reserved_errors();
    test_packet_errors();
    test_truncation();
    test_sync_errors();
    test_version_rules();
    test_follow();
    test_cancel();
    test_cycles();
    test_classifier();
    test_ls_classes();
    test_data();
    test_chunking();
    test_fuzz();
    test_packets_only();
    return test_report("test_decode_v3");
}
