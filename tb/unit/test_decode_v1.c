/* test_decode_v1.c - the ETMv1 decoder on hand-built port streams.
 *
 * Every stream here is written cycle by cycle from IHI 0014 chapter 5 and the
 * contract (docs/etmv1-encoder.md), not produced by the encoder: each test says
 * which packets are in the FIFO and where they leave. The decoder's elements are
 * turned into one line of text and compared with the expected line.
 *
 * Conventions of the streams (8-bit port unless the test says otherwise):
 *   - packets of a status enter the FIFO in its cycle and can leave in it;
 *   - the FIFO drains one packet per cycle (8-bit), two (16-bit) or a nibble (4-bit)
 *     whenever it holds something, except in TR cycles;
 *   - WT: no instruction and a packet leaves; TD: no instruction and nothing leaves;
 *   - TRACESYNC in the cycle of the first packet of a branch address.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/config.h"
#include "etm/decode_v1.h"
#include "test.h"

/* PIPESTAT names for the tables. APO cycles are written A0..A3 (PIPESTAT = {0, bits}). */
enum { IE = 0, ID = 1, IN = 2, WT = 3, BE = 4, BD = 5, TR = 6, TD = 7 };
enum { A0 = 0, A1 = 1, A2 = 2, A3 = 3 };

/* ---- Code image ------------------------------------------------------------------ */

/* Window 1 at 0x1000 (Thumb-2, little-endian halfwords). */
static const uint16_t code1000[] = {
    /* 1000 */ 0x2001,         /* movs r0, #1 */
    /* 1002 */ 0x6808,         /* ldr r0, [r1] */
    /* 1004 */ 0xC90C,         /* ldmia r1!, {r2, r3} */
    /* 1006 */ 0xD001,         /* beq 0x100c */
    /* 1008 */ 0x4770,         /* bx lr */
    /* 100a */ 0xE7F9,         /* b 0x1000 */
    /* 100c */ 0xBD00,         /* pop {pc} */
    /* 100e */ 0xF8D1, 0x0004, /* ldr.w r0, [r1, #4] */
    /* 1012 */ 0xB500,         /* push {lr} */
    /* 1014 */ 0xF000, 0xF800, /* bl 0x1018 */
    /* 1018 */ 0xBF00,         /* nop */
    /* 101a */ 0xB90A,         /* cbnz r2, 0x1020 */
    /* 101c */ 0x7808,         /* ldrb r0, [r1] */
    /* 101e */ 0x8808,         /* ldrh r0, [r1] */
    /* 1020 */ 0xE8BD, 0x8003, /* ldmia.w sp!, {r0, r1, pc} */
    /* 1024 */ 0xE9D1, 0x2300, /* ldrd r2, r3, [r1] */
    /* 1028 */ 0xF8DF, 0xF000, /* ldr.w pc, [pc, #0] */
    /* 102c */ 0x4700,         /* bx r0 */
    /* 102e */ 0xBF00,         /* nop */
    /* 1030 */ 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00,
    /* 1040 */ 0xC9FF,         /* ldmia r1!, {r0-r7} */
    /* 1042 */ 0x4700,         /* bx r0 */
    /* 1044 */ 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00,
    /* 1050 */ 0xC9FF,         /* ldmia r1!, {r0-r7} */
    /* 1052 */ 0xC9FF,         /* ldmia r1!, {r0-r7} */
    /* 1054 */ 0x4700,         /* bx r0 */
};

/* Window 2 at 0x20345670: nops, for addresses far from window 1. */
static const uint16_t code_far[] = { 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00, 0xBF00 };
#define FAR 0x20345670u

static uint8_t img1[sizeof code1000], img2[sizeof code_far];

static void make_image(void)
{
    for (size_t i = 0; i < sizeof code1000 / 2; i++) {
        img1[2 * i] = (uint8_t)(code1000[i] & 0xFF);
        img1[2 * i + 1] = (uint8_t)(code1000[i] >> 8);
    }
    for (size_t i = 0; i < sizeof code_far / 2; i++) {
        img2[2 * i] = (uint8_t)(code_far[i] & 0xFF);
        img2[2 * i + 1] = (uint8_t)(code_far[i] >> 8);
    }
}

/* ---- Streams ----------------------------------------------------------------------- */

#define MAXC 8192

typedef struct stream {
    unsigned n;
    uint8_t ps[MAXC];
    uint16_t pkt[MAXC];
    uint8_t sync[MAXC];
} stream_t;

static stream_t S;

static void reset_stream(void) { memset(&S, 0, sizeof S); }

/* One cycle. */
static void C(unsigned ps, unsigned pkt, unsigned sync)
{
    if (S.n < MAXC) {
        S.ps[S.n] = (uint8_t)ps;
        S.pkt[S.n] = (uint16_t)pkt;
        S.sync[S.n] = (uint8_t)sync;
        S.n++;
    }
}

/* ---- Decoding into text --------------------------------------------------------------- */

typedef struct log {
    char text[16384];
    size_t len;
} log_t;

__attribute__((format(printf, 2, 3))) static void logf_(log_t *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (l->len < sizeof l->text)
        l->len += (size_t)vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
    va_end(ap);
    if (l->len > sizeof l->text)
        l->len = sizeof l->text;
}

static void on_el(void *user, const etm_v1el_t *e)
{
    log_t *l = (log_t *)user;
    if (l->len)
        logf_(l, "; ");
    switch (e->kind) {
    case ETM_V1EL_INSN:
        logf_(l, "%s@%" PRIu64 " %x", etm_v1_pipestat_name(e->status), e->cycle, e->addr);
        if (e->status == BE || e->status == BD)
            logf_(l, "->%x", e->target);
        if (e->abandoned)
            logf_(l, " abandoned");
        if (e->trigger)
            logf_(l, " (TR)");
        break;
    case ETM_V1EL_DATA:
        logf_(l, "DATA@%" PRIu64, e->cycle);
        if (e->has_data_addr)
            logf_(l, " a=%x%s/%u", e->data_addr, e->data_addr_valid ? "" : "?", e->data_addr_packets);
        if (e->nbytes) {
            logf_(l, " v=");
            for (unsigned i = 0; i < e->nbytes; i++)
                logf_(l, "%02x", e->bytes[i]);
        }
        break;
    case ETM_V1EL_TRACE_ON:
        logf_(l, "ON@%" PRIu64 " r%u %x", e->cycle, e->reason, e->addr);
        if (e->has_context_id)
            logf_(l, " ctx=%x", e->context_id);
        break;
    case ETM_V1EL_SYNC:
        logf_(l, "SYNC@%" PRIu64 " r%u %x", e->cycle, e->reason, e->addr);
        if (e->has_context_id)
            logf_(l, " ctx=%x", e->context_id);
        break;
    case ETM_V1EL_TRIGGER:
        logf_(l, "TRIG@%" PRIu64, e->cycle);
        break;
    case ETM_V1EL_ABANDON:
        logf_(l, "ABANDON@%" PRIu64 " %x->%x", e->cycle, e->addr, e->target);
        break;
    default:
        logf_(l, "?");
        break;
    }
}

typedef struct result {
    log_t log;
    int nerr;
    etm_diag_t first; /* the first error */
    etm_v1dec_stats_t stats;
} result_t;

static result_t R;

/* ETMCR for a port size (4, 8, 16) and data mode (ETMCR[3:2]). */
static uint32_t etmcr(unsigned port, unsigned data)
{
    return 0x800u | ((port == 4 ? 0u : port == 8 ? 1u : 2u) << 4) | (data << 2);
}

static void config(etm_config_t *cfg, const char *preset, uint32_t cr)
{
    CHECK(etm_config_preset(cfg, preset) == ETM_OK);
    cfg->etmcr = cr;
}

/* Decode S with cfg; elements go to R.log, the first error to R.first. */
static void decode_cfg(const etm_config_t *cfg, unsigned flags, size_t history)
{
    etm_v1dec_t *d = NULL;
    etm_diag_t diag;
    memset(&R, 0, sizeof R);
    etm_diag_clear(&R.first);
    CHECK(etm_v1dec_create(&d, cfg, history, flags, &diag) == ETM_OK);
    if (!d)
        return;
    etm_v1_window_t w[2];
    w[0].base = 0x1000;
    w[0].bytes = img1;
    w[0].size = sizeof img1;
    w[1].base = FAR;
    w[1].bytes = img2;
    w[1].size = sizeof img2;
    CHECK(etm_v1dec_set_windows(d, w, 2) == ETM_OK);
    etm_v1dec_on_element(d, on_el, &R.log);
    for (unsigned i = 0; i < S.n; i++) {
        etm_out_t o;
        memset(&o, 0, sizeof o);
        o.pipestat = S.ps[i];
        o.tracepkt = S.pkt[i];
        o.tracesync = S.sync[i];
        etm_diag_clear(&diag);
        if (etm_v1dec_step(d, &o, &diag) != ETM_OK) {
            if (!R.nerr++)
                R.first = diag;
        }
    }
    for (int k = 0; k < 100; k++) {
        etm_diag_clear(&diag);
        if (etm_v1dec_end(d, &diag) == ETM_OK)
            break;
        if (!R.nerr++)
            R.first = diag;
    }
    R.stats = *etm_v1dec_get_stats(d);
    etm_v1dec_destroy(d);
}

static void decode(unsigned port, unsigned data)
{
    etm_config_t cfg;
    config(&cfg, "etmv1.2", etmcr(port, data));
    decode_cfg(&cfg, ETM_V1DEC_STRICT, 0);
}

#define EXPECT_LOG(want)                                                                         \
    do {                                                                                         \
        test_checks++;                                                                           \
        if (strcmp(R.log.text, (want)) != 0) {                                                   \
            test_failures++;                                                                     \
            fprintf(stderr, "%s:%d: elements differ\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, \
                    R.log.text, (want));                                                         \
        }                                                                                        \
    } while (0)

#define EXPECT_OK()                                                                              \
    do {                                                                                         \
        test_checks++;                                                                           \
        if (R.nerr) {                                                                            \
            test_failures++;                                                                     \
            fprintf(stderr, "%s:%d: unexpected error at cycle %" PRIu64 ": %s\n", __FILE__, __LINE__, \
                    R.first.cycle, R.first.msg);                                                 \
        }                                                                                        \
    } while (0)

#define EXPECT_ERR(cyc, text)                                                                    \
    do {                                                                                         \
        test_checks++;                                                                           \
        if (!R.nerr || R.first.cycle != (uint64_t)(cyc) || !strstr(R.first.msg, (text)) ||       \
            R.first.code != ETM_ERR_DECODE) {                                                    \
            test_failures++;                                                                     \
            fprintf(stderr, "%s:%d: wanted an error at cycle %d containing '%s'; got %d errors, first at " \
                    "cycle %" PRIu64 ": %s\n", __FILE__, __LINE__, (int)(cyc), (text), R.nerr,   \
                    R.first.cycle, R.first.msg);                                                 \
        }                                                                                        \
    } while (0)

/* The trace-enabled restart to 0x1000 on an 8-bit port: BE at cycle 0, its full
 * address 0x1001 (T bit) with reason 1 in cycles 0-4, APO 0 in cycles 1-2. The
 * FIFO is empty again after cycle 4. */
static void restart_1000(void)
{
    C(BE, 0x81, 1); /* A[6:0] = 0x01 | continue */
    C(A0, 0xA0, 0); /* A[13:7] = 0x20 */
    C(A0, 0x80, 0); /* A[20:14] */
    /* cycles 3 and 4 are left to the test: they carry 0x80 and 0x10 (reason 1) */
}

/* ---- Tests ----------------------------------------------------------------------------- */

/* Every PIPESTAT code of table 5.1 in one stream. */
static void test_all_codes(void)
{
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);   /* 3: movs @1000; A[27:21] */
    C(IN, 0x10, 0);   /* 4: ldr @1002 failed; packet 5: reason 1, A[31:28] = 0 */
    C(TD, 0x00, 0);   /* 5 */
    C(IE, 0x00, 0);   /* 6: ldmia @1004 (data not traced in this mode) */
    C(IE, 0x00, 0);   /* 7: beq @1006 taken -> 100c */
    C(BE, 0x13, 1);   /* 8: pop {pc} @100c -> 1012: 0x1013 vs 0x1001 differs in [4:1]: 1 packet */
    C(A0, 0x00, 0);   /* 9 */
    C(A0, 0x00, 0);   /* 10 */
    C(IE, 0x00, 0);   /* 11: push @1012 */
    C(IE, 0x00, 0);   /* 12: bl @1014 -> 1018 */
    C(IE, 0x00, 0);   /* 13: nop @1018 */
    C(IN, 0x00, 0);   /* 14: cbnz @101a not taken */
    C(TD, 0x00, 0);   /* 15 */
    C(TR, IE, 0);     /* 16: trigger; the status is IE: ldrb @101c */
    C(TD, 0x00, 0);   /* 17 */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; IN@4 1002; IE@6 1004; IE@7 1006; BE@8 100c->1012; IE@11 1012; "
               "IE@12 1014; IE@13 1018; IN@14 101a; TRIG@16; IE@16 101c (TR)");
    CHECK_EQ(R.stats.insns, 10);
    CHECK_EQ(R.stats.executed, 8);

    /* ID, BD and WT, with data values traced (ETMCR[3:2] = 01). */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);   /* 3: movs @1000 */
    C(ID, 0x10, 0);   /* 4: ldr @1002: 4 value bytes enter; the address's last packet leaves */
    C(ID, 0x44, 0);   /* 5: ldmia @1004: 8 value bytes enter; ldr byte 0 leaves */
    C(WT, 0x33, 0);   /* 6 */
    C(WT, 0x22, 0);   /* 7 */
    C(WT, 0x11, 0);   /* 8: the ldr's value is 0x11223344 */
    C(IE, 0x01, 0);   /* 9: beq @1006 taken -> 100c; ldm byte 0 */
    C(BD, 0x02, 0);   /* 10: pop {pc} @100c: 4 value bytes, then the address */
    C(A0, 0x03, 0);   /* 11: APO[1:0] = 0: no other branch address is waiting */
    C(A0, 0x04, 0);   /* 12 */
    C(WT, 0x05, 0);   /* 13 */
    C(WT, 0x06, 0);   /* 14 */
    C(WT, 0x07, 0);   /* 15 */
    C(WT, 0x08, 0);   /* 16: last ldm byte */
    C(WT, 0xEF, 0);   /* 17: the popped word, 0xdeadbeef (the decoder does not compare it) */
    C(WT, 0xBE, 0);   /* 18 */
    C(WT, 0xAD, 0);   /* 19 */
    C(WT, 0xDE, 0);   /* 20 */
    C(WT, 0x13, 1);   /* 21: the branch address 0x1013 (1 packet) */
    C(TD, 0x00, 0);   /* 22 */
    C(IE, 0x00, 0);   /* 23: push @1012 */
    decode(8, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; ID@4 1002; DATA@4 v=44332211; ID@5 1004; DATA@5 v=0102030405060708; "
               "IE@9 1006; BD@10 100c->1012; DATA@10 v=efbeadde; IE@23 1012");
}

/* APO 0, 1, 2, 3, 4 and 5: branches queue behind 32 bytes of LDM data. */
static void test_apo_values(void)
{
    reset_stream();
    /* restart to 0x1040: 0x1041 -> 0xC1, 0xA0, 0x80, 0x80, 0x10 in cycles 0-4 */
    C(BE, 0xC1, 1); /* 0 */
    C(A0, 0xA0, 0); /* 1 */
    C(A0, 0x80, 0); /* 2 */
    C(ID, 0x80, 0); /* 3: ldmia r1!, {r0-r7} @1040: 32 value bytes, cycles 5-36 */
    C(BE, 0x10, 0); /* 4: bx r0 @1042 -> 1042; no address waits ahead: APO 0; address at cycle 37 */
    C(A0, 0x00, 0); /* 5: data byte 0 */
    C(A0, 0x01, 0); /* 6 */
    C(BE, 0x02, 0); /* 7: bx again: one address (cycle 37) waits ahead: APO 1 -> cycle 38 */
    C(A1, 0x03, 0); /* 8 */
    C(A0, 0x04, 0); /* 9 */
    C(BE, 0x05, 0); /* 10: APO 2 -> 39 */
    C(A2, 0x06, 0);
    C(A0, 0x07, 0);
    C(BE, 0x08, 0); /* 13: APO 3 -> 40 */
    C(A3, 0x09, 0);
    C(A0, 0x0a, 0);
    C(BE, 0x0b, 0); /* 16: APO 4 -> 41 */
    C(A0, 0x0c, 0);
    C(A1, 0x0d, 0);
    C(BE, 0x0e, 0); /* 19: APO 5 -> 42 */
    C(A1, 0x0f, 0);
    C(A1, 0x10, 0);
    for (unsigned b = 0x11; b < 0x20; b++) /* 22-36: the rest of the data */
        C(WT, b, 0);
    for (unsigned k = 0; k < 6; k++) /* 37-42: six addresses 0x1043 (1 packet each) */
        C(WT, 0x43, 1);
    C(TD, 0, 0);
    decode(8, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1040; ID@3 1040; DATA@3 v=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f; "
               "BE@4 1042->1042; BE@7 1042->1042; BE@10 1042->1042; BE@13 1042->1042; BE@16 1042->1042; "
               "BE@19 1042->1042");

    /* The same stream with one APO wrong: the decoder names the branch. */
    S.ps[17] = A1; /* APO of the BE at 16 now 1 + 4 = 5 */
    decode(8, 1);
    EXPECT_ERR(16, "APO 5, but 4 branch addresses start between it and its own");
}

/* APO 15: more than 14 addresses wait. Two LDMs give 64 bytes of backlog. */
static void test_apo_15(void)
{
    reset_stream();
    /* restart to 0x1050: 0xD1, 0xA0, 0x80, 0x80, 0x10 */
    static const uint8_t rs[5] = { 0xD1, 0xA0, 0x80, 0x80, 0x10 };
    C(BE, rs[0], 1);
    C(A0, rs[1], 0);
    C(A0, rs[2], 0);
    C(ID, rs[3], 0); /* 3: ldm @1050: 32 bytes at 5-36 */
    C(ID, rs[4], 0); /* 4: ldm @1052: 32 bytes at 37-68 */
    /* BEs at 5, 8, 11, ...: bx r0 @1054 -> 1054; the k-th (k = 0..) has APO k and its
     * address leaves at 69 + k. */
    unsigned nbe = 17, byte = 0;
    for (unsigned k = 0; k < nbe; k++) {
        unsigned apo = k > 14 ? 15 : k;
        C(BE, byte++ & 0xFF, 0);
        C(apo & 3, byte++ & 0xFF, 0);
        C(apo >> 2, byte++ & 0xFF, 0);
    }
    /* cycle 5 + 3*17 = 56: the data goes on until 68 */
    while (S.n < 69)
        C(WT, byte++ & 0xFF, 0);
    for (unsigned k = 0; k < nbe; k++)
        C(WT, 0x55, 1); /* 0x1055 -> A[6:0] = 0x55 */
    C(TD, 0, 0);
    decode(8, 1);
    EXPECT_OK();
    CHECK_EQ(R.stats.branches, 1 + nbe);
    CHECK_STR_CONTAINS(R.log.text, "BE@50 1054->1054; BE@53 1054->1054");

    /* APO 15 where only 3 addresses wait is wrong: 15 means more than 14. */
    S.ps[15] = 3;
    S.ps[16] = 3; /* the BE at 14 (k = 3) now says 15 */
    decode(8, 1);
    EXPECT_ERR(14, "APO 15, but 3 branch addresses");
}

/* A BE in an APO cycle: the earlier branch executed, its target did not. */
static void test_abandoned(void)
{
    reset_stream();
    restart_1000();
    C(BE, 0x80, 0); /* 3: movs @1000 shown as BE -> 1008 (0x09, 1 packet) at cycle 5 */
    C(BE, 0x10, 0); /* 4: in the first APO cycle: the branch at 3 is abandoned; this BE
                       stands for 1008 (not executed) -> 1000 (0x01 at cycle 6); one address
                       (cycle 5) waits ahead: APO 1 */
    C(A1, 0x09, 1); /* 5 */
    C(A0, 0x01, 1); /* 6 */
    C(IE, 0x00, 0); /* 7: movs @1000 */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; BE@3 1000->1008 abandoned; ABANDON@4 1008->1000; IE@7 1000");

    /* Abandoned in the second APO cycle: APO[1:0] was already out. */
    reset_stream();
    restart_1000();
    C(BE, 0x80, 0); /* 3: -> 1008 at cycle 5 */
    C(A0, 0x10, 0); /* 4: APO[1:0] = 0 */
    C(BE, 0x09, 1); /* 5: abandons it; -> 1000 at 6; address of 3 started in 5 = this cycle: APO 1 */
    C(A1, 0x01, 1); /* 6 */
    C(A0, 0x00, 0); /* 7 */
    C(IE, 0x00, 0); /* 8 */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; BE@3 1000->1008 abandoned; ABANDON@5 1008->1000; IE@8 1000");

    /* An overflow restart replaced by another one in its APO cycle (IHI 0014 5.9). */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0); /* 3: movs @1000 */
    C(IN, 0x10, 0); /* 4: ldr @1002 failed */
    C(TD, 0x00, 0); /* 5: trace lost (overflow), FIFO empty */
    C(BE, 0x81, 1); /* 6: overflow restart to 1000 (reason 2) */
    C(BE, 0xA0, 0); /* 7: a second one in its APO cycle, to 1008; the first address started
                       before cycle 7: APO 0 */
    C(A0, 0x80, 0); /* 8 */
    C(A0, 0x80, 0); /* 9 */
    C(WT, 0x20, 0); /* 10: reason 2 */
    C(WT, 0x89, 1); /* 11: 0x1009, full, reason 2 */
    C(WT, 0xA0, 0);
    C(WT, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x20, 0); /* 15 */
    C(IN, 0x00, 0); /* 16: bx lr @1008 failed */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; IN@4 1002; ON@6 r2 1000; ON@7 r2 1008; IN@16 1008");
}

/* TR with each replaced status: IE, ID, IN, WT, BE, BD, an APO cycle. */
static void test_trigger(void)
{
    static const unsigned replaced[] = { IE, IN, WT };
    for (unsigned i = 0; i < 3; i++) {
        reset_stream();
        restart_1000();
        C(IE, 0x80, 0);            /* 3: movs */
        C(WT, 0x10, 0);            /* 4 */
        C(TR, replaced[i], 0);     /* 5 */
        C(TD, 0, 0);               /* 6 */
        decode(8, 0);
        EXPECT_OK();
        if (replaced[i] == WT)
            EXPECT_LOG("ON@0 r1 1000; IE@3 1000; TRIG@5");
        else if (replaced[i] == IE)
            EXPECT_LOG("ON@0 r1 1000; IE@3 1000; TRIG@5; IE@5 1002 (TR)");
        else
            EXPECT_LOG("ON@0 r1 1000; IE@3 1000; TRIG@5; IN@5 1002 (TR)");
    }

    /* TR replacing ID: the ldr's data waits one cycle (nothing drains in TR). */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);   /* 3 */
    C(TR, ID, 0);     /* 4: ldr @1002; packet 5 of the restart waits */
    C(WT, 0x10, 0);   /* 5 */
    C(WT, 0x78, 0);   /* 6..9: 0x12345678 */
    C(WT, 0x56, 0);
    C(WT, 0x34, 0);
    C(WT, 0x12, 0);
    C(TD, 0, 0);
    decode(8, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; TRIG@4; ID@4 1002 (TR); DATA@4 v=78563412");

    /* TR replacing BE and an APO cycle: bx lr @1008 -> 100a (1 packet 0x0b) */
    reset_stream();
    C(BE, 0x89, 1); /* 0: restart to 1008 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(TR, BE, 0);   /* 3: bx lr @1008; its address waits behind 2 packets; nothing drains */
    C(A0, 0x80, 0); /* 4 */
    C(TR, A0, 0);   /* 5: APO[3:2] on TRACEPKT; no drain */
    C(WT, 0x10, 0); /* 6 */
    C(WT, 0x0B, 1); /* 7: 0x100b: differs from 0x1009 in bit 1 */
    C(TD, 0, 0);
    C(IE, 0, 0);    /* 9: b @100a -> 1000 */
    C(IE, 0, 0);    /* 10: movs @1000 */
    decode(8, 0);
    /* two triggers in one run: the second is reported */
    EXPECT_ERR(5, "the trigger fires once");
    EXPECT_LOG("ON@0 r1 1008; TRIG@3; BE@3 1008->100a (TR); TRIG@5; IE@9 100a; IE@10 1000");

    /* TR replacing BD: pop {pc} @100c -> 1012, data 4 bytes then the address */
    reset_stream();
    C(BE, 0x8D, 1); /* 0: restart to 100c */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(TR, BD, 0);   /* 3 */
    C(A0, 0x80, 0); /* 4 */
    C(A0, 0x10, 0); /* 5 */
    C(WT, 0x13, 0); /* 6: value 0x00001013 */
    C(WT, 0x10, 0);
    C(WT, 0x00, 0);
    C(WT, 0x00, 0); /* 9 */
    C(WT, 0x13, 1); /* 10: address */
    C(IE, 0, 0);    /* 11: push @1012 */
    decode(8, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 100c; TRIG@3; BD@3 100c->1012 (TR); DATA@3 v=13100000; IE@11 1012");

    /* TR never carries TD. */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(WT, 0x10, 0);
    C(TR, TD, 0); /* 5 */
    decode(8, 0);
    EXPECT_ERR(5, "never TR or TD");
}

/* 4-bit port: a packet is two nibbles in two draining cycles, low first; TRACESYNC
 * with the low nibble; a TR between the nibbles delays the second. */
static void test_port4(void)
{
    reset_stream();
    /* restart to 0x1000: packets 81 A0 80 80 10 -> nibbles 1 8, 0 A, 0 8, 0 8, 0 1 */
    C(BE, 0x1, 1); /* 0 */
    C(A0, 0x8, 0); /* 1 */
    C(A0, 0x0, 0); /* 2 */
    C(IE, 0xA, 0); /* 3: movs @1000 */
    C(TR, IE, 0);  /* 4: ldr @1002 as IE (data off); no drain */
    C(WT, 0x0, 0); /* 5 */
    C(WT, 0x8, 0); /* 6 */
    C(IE, 0x0, 0); /* 7: ldmia @1004 */
    C(IE, 0x8, 0); /* 8: beq @1006 taken -> 100c */
    C(BE, 0x0, 0); /* 9: pop {pc} @100c -> 1012 (0x13): after the last restart packet */
    C(A0, 0x1, 0); /* 10: restart packet 5 high nibble */
    C(A0, 0x3, 1); /* 11: 0x13 low nibble with TRACESYNC */
    C(TR, WT, 0);  /* 12: between the nibbles */
    C(WT, 0x1, 0); /* 13: high nibble */
    C(TD, 0, 0);   /* 14 */
    C(IE, 0, 0);   /* 15: push @1012 */
    etm_config_t cfg;
    config(&cfg, "etmv1.2", etmcr(4, 0));
    decode_cfg(&cfg, ETM_V1DEC_STRICT, 0);
    EXPECT_ERR(12, "the trigger fires once");
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; TRIG@4; IE@4 1002 (TR); IE@7 1004; IE@8 1006; BE@9 100c->1012; TRIG@12; "
               "IE@15 1012");

    /* A TD between two nibbles is an error: the half-sent packet keeps the FIFO busy. */
    S.ps[13] = TD;
    S.pkt[13] = 0;
    decode_cfg(&cfg, 0, 0);
    EXPECT_ERR(13, "TD in cycle 13");
}

/* 16-bit port, written slot by slot. */
static void test_port16(void)
{
    reset_stream();
    C(BE, 0xA081, 1); /* 0: restart packets 1, 2 */
    C(A0, 0x8080, 0); /* 1: packets 3, 4 */
    C(A0, 0x0010, 0); /* 2: packet 5; [15:8] junk */
    C(IE, 0x0000, 0); /* 3: movs @1000 */
    C(ID, 0x2211, 0); /* 4: ldr @1002: 11 22 33 44 */
    C(ID, 0x4433, 0); /* 5: ldmia @1004: a1..a8 enter; 33 44 leave */
    C(IE, 0xA2A1, 0); /* 6: beq @1006 taken -> 100c */
    C(BD, 0xA4A3, 0); /* 7: pop {pc} @100c: d1..d4, then the address */
    C(A0, 0xA6A5, 0); /* 8 */
    C(A0, 0xA8A7, 0); /* 9 */
    C(WT, 0xD2D1, 0); /* 10 */
    C(WT, 0xD4D3, 0); /* 11: the address cannot start on [15:8]: it waits */
    C(WT, 0x0013, 1); /* 12 */
    C(IE, 0x0000, 0); /* 13: push @1012 */
    decode(16, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; ID@4 1002; DATA@4 v=11223344; ID@5 1004; DATA@5 v=a1a2a3a4a5a6a7a8; "
               "IE@6 1006; BD@7 100c->1012; DATA@7 v=d1d2d3d4; IE@13 1012");

    /* A BD whose data is one byte: the byte leaves on [7:0] and the address may not
     * start on [15:8]: it starts in the next cycle. (ldrb @101c shown as BD, as the
     * last instruction before an exception handler would be.) */
    reset_stream();
    C(BE, 0xA09D, 1); /* 0: restart to 0x101c: 9D A0 */
    C(A0, 0x8080, 0); /* 1 */
    C(A0, 0x0010, 0); /* 2 */
    C(BD, 0x005A, 0); /* 3: ldrb @101c: the byte 0x5a; [15:8] junk */
    C(A0, 0x0013, 1); /* 4: the address 0x1013 */
    C(A0, 0x0000, 0); /* 5 */
    C(IE, 0x0000, 0); /* 6: push @1012 */
    decode(16, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 101c; BD@3 101c->1012; DATA@3 v=5a; IE@6 1012");
    /* The address on [15:8] of cycle 3 is not an address. */
    S.pkt[3] = 0x135A;
    S.sync[3] = 1;
    S.pkt[4] = 0;
    S.sync[4] = 0;
    decode(16, 1);
    EXPECT_ERR(3, "FIFO order puts its branch address in cycle 4, but TRACESYNC is 0 there");

    /* A BE with an empty FIFO: its address leaves in its own cycle. */
    reset_stream();
    C(BE, 0xA081, 1);
    C(A0, 0x8080, 0);
    C(A0, 0x0010, 0);
    C(IE, 0x0000, 0); /* 3: movs */
    C(BE, 0x0013, 1); /* 4: ldr @1002 shown as BE -> 1012 */
    C(A0, 0x0000, 0); /* 5 */
    C(A0, 0x0000, 0); /* 6 */
    C(IE, 0x0000, 0); /* 7: push @1012 */
    decode(16, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; BE@4 1002->1012; IE@7 1012");

    /* Junk in an unused [15:8] is an error in strict mode only. */
    S.pkt[2] = 0x5510;
    decode(16, 0);
    EXPECT_ERR(2, "carry no packet and must be 0");
    etm_config_t cfg;
    config(&cfg, "etmv1.2", etmcr(16, 0));
    decode_cfg(&cfg, 0, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; BE@4 1002->1012; IE@7 1012");
}

/* Full addresses with each reason code, and reserved ones. */
static void test_reasons(void)
{
    static const char *const want[5] = {
        "ON@0 r1 1000; IE@3 1000; BE@4 1002->20345670; SYNC@4 r0 20345670; IE@9 20345670",
        "ON@0 r1 1000; IE@3 1000; ON@4 r1 20345670; IE@9 20345670",
        "ON@0 r1 1000; IE@3 1000; ON@4 r2 20345670; IE@9 20345670",
        "ON@0 r1 1000; IE@3 1000; ON@4 r3 20345670; IE@9 20345670",
        "ON@0 r1 1000; IE@3 1000; BE@4 1002->20345670; SYNC@4 r4 20345670; IE@9 20345670",
    };
    /* 0x20345671: [6:0] 0x71, [13:7] 0x2C, [20:14] 0x51, [27:21] 0x01, [31:28] 2 */
    for (unsigned reason = 0; reason <= 6; reason++) {
        reset_stream();
        restart_1000();
        C(IE, 0x80, 0);                       /* 3: movs */
        C(BE, 0x10, 0);                       /* 4: ldr @1002 as BE (or a restart) */
        C(A0, 0xF1, 1);                       /* 5 */
        C(A0, 0xAC, 0);                       /* 6 */
        C(WT, 0xD1, 0);                       /* 7 */
        C(WT, 0x81, 0);                       /* 8 */
        C(IE, 0x02 | (reason << 4), 0);       /* 9: nop @20345670 */
        decode(8, 0);
        if (reason <= 4) {
            EXPECT_OK();
            EXPECT_LOG(want[reason]);
        } else {
            EXPECT_ERR(4, "is reserved");
        }
    }
    /* Reason 4 is reserved before ETMv1.2. */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(BE, 0x10, 0);
    C(A0, 0xF1, 1);
    C(A0, 0xAC, 0);
    C(WT, 0xD1, 0);
    C(WT, 0x81, 0);
    C(IE, 0x42, 0);
    etm_config_t cfg;
    config(&cfg, "etmv1.1", etmcr(8, 0));
    decode_cfg(&cfg, 0, 0);
    EXPECT_ERR(4, "reason code 4 is reserved in ETMv1.1");
    /* Bit 7 of packet 5 */
    S.pkt[9] = 0x82;
    config(&cfg, "etmv1.3", etmcr(8, 0));
    decode_cfg(&cfg, 0, 0);
    EXPECT_ERR(4, "J bit");

    /* Context ID (ETMv1.2+, ETMCR[15:14] = 01): one byte after a full address with
     * a reason other than 0. */
    reset_stream();
    C(BE, 0x81, 1);
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x10, 0);
    C(WT, 0x5A, 0); /* 5: context ID */
    C(IE, 0x00, 0); /* 6: movs */
    config(&cfg, "etmv1.2", etmcr(8, 0) | (1u << 14));
    decode_cfg(&cfg, ETM_V1DEC_STRICT, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000 ctx=5a; IE@6 1000");
}

/* Compressed branch addresses of 1, 2, 3 and 4 packets. */
static void test_compression(void)
{
    /* The restart gives the reference 0x1001; movs @1000 is then shown as a BE. */

    /* 1 packet: 0x1013 vs 0x1001 */
    reset_stream();
    restart_1000();
    C(BE, 0x80, 0); /* 3: movs @1000 as BE; address after packet 5 */
    C(A0, 0x10, 0); /* 4 */
    C(A0, 0x13, 1); /* 5 */
    C(IE, 0x00, 0); /* 6: push @1012 */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; BE@3 1000->1012; IE@6 1012");

    /* 2 packets: 0x10C1 vs 0x1001 differs in bits 7 and 6 */
    reset_stream();
    restart_1000();
    C(BE, 0x80, 0);
    C(A0, 0x10, 0);
    C(A0, 0xC1, 1); /* A[6:0] = 0x41 */
    C(WT, 0x21, 0); /* A[13:7] = 0x10C1 >> 7 = 0x21 */
    C(IN, 0x00, 0); /* 7: 10c0 is outside the image: even IN needs the size -> error */
    decode(8, 0);
    EXPECT_ERR(7, "no instruction at 0x000010c0");
    CHECK_STR_CONTAINS(R.log.text, "BE@3 1000->10c0");

    /* A restart to 0x20001000 (81 A0 80 80 12) whose packets are cut by a TD. */
    reset_stream();
    C(BE, 0x81, 1);
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(TD, 0x00, 0); /* 3: not allowed: the restart's packets are still in the FIFO */
    decode(8, 0);
    EXPECT_ERR(3, "TD in cycle 3");

    reset_stream();
    C(BE, 0x81, 1); /* 0: restart to 0x20001000 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x12, 0); /* 4: reason 1, A[31:28] = 2 */
    C(BE, 0xF1, 1); /* 5: the instruction at 0x20001000 is not in the image: error */
    C(A0, 0xAC, 0);
    C(A0, 0x51, 0); /* 3 packets: 0x20345671 vs 0x20001001 differ up to bit 20 */
    C(IE, 0, 0);
    decode(8, 0);
    EXPECT_ERR(5, "no instruction at 0x20001000");

    /* 3 packets, in the far window: restart to 0x20345670 (F1 AC D1 81 12). */
    reset_stream();
    C(BE, 0xF1, 1); /* 0 */
    C(A0, 0xAC, 0);
    C(A0, 0xD1, 0);
    C(WT, 0x81, 0);
    C(WT, 0x12, 0); /* 4: reason 1, [31:28] = 2 */
    C(BE, 0x75, 1); /* 5: nop @20345670 -> 0x20345674: 1 packet */
    C(A0, 0x00, 0);
    C(A0, 0x00, 0);
    C(IE, 0x00, 0); /* 8: nop @20345674 */
    C(BE, 0xF9, 1); /* 9: nop @20345676 -> 0x20205679: bits [20:14] change: 3 packets */
    C(A0, 0xAC, 0); /* [13:7] = 0x2C, as before */
    C(A0, 0x01, 0); /* [20:14] = 0x01 (was 0x51) */
    C(IE, 0x00, 0); /* 12: 0x20205678 is not in the image */
    decode(8, 0);
    EXPECT_ERR(12, "no instruction at 0x20205678");
    CHECK_STR_CONTAINS(R.log.text, "ON@0 r1 20345670; BE@5 20345670->20345674; IE@8 20345674; BE@9 20345676->20205678");

    /* 4 packets: 0x20345671 -> 0x20B45671 changes bit 23 */
    reset_stream();
    C(BE, 0xF1, 1); /* 0: restart to 20345670 */
    C(A0, 0xAC, 0);
    C(A0, 0xD1, 0);
    C(WT, 0x81, 0);
    C(WT, 0x12, 0);
    C(BE, 0xF1, 1); /* 5: nop @20345670 -> 0x20B45670: bit 23 changes: 4 packets */
    C(A0, 0xAC, 0); /* [13:7] = 0x2C */
    C(A0, 0xD1, 0); /* [20:14] = 0x51 */
    C(WT, 0x05, 0); /* [27:21] = 0x20B45671 >> 21 = 0x105 & 0x7f = 0x05 */
    C(TD, 0x00, 0); /* 9 */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 20345670; BE@5 20345670->20b45670");

    /* More packets than needed is an error in strict mode. */
    reset_stream();
    restart_1000();
    C(BE, 0x80, 0);
    C(A0, 0x10, 0);
    C(A0, 0x93, 1); /* 0x1013 in 2 packets */
    C(WT, 0x20, 0);
    C(TD, 0x00, 0);
    decode(8, 0);
    EXPECT_ERR(3, "sent in 2 packets; 1 cover");
}

/* Data address and value: a word load and an LDM, addresses compressed against the
 * last data address. */
static void test_data_address(void)
{
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);   /* 3: movs */
    C(ID, 0x10, 0);   /* 4: ldr @1002 from 0x20000104: full address (first after restart) */
    C(ID, 0x84, 0);   /* 5: ldmia @1004 from 0x20000110 (1 address packet: 0x10), 8 bytes */
    C(WT, 0x82, 0);   /* 6: [13:7] = 2 */
    C(WT, 0x80, 0);   /* 7 */
    C(WT, 0x80, 0);   /* 8 */
    C(WT, 0x02, 0);   /* 9: [31:28] = 2 */
    C(WT, 0xEF, 0);   /* 10: value 0xdeadbeef */
    C(WT, 0xBE, 0);
    C(WT, 0xAD, 0);
    C(WT, 0xDE, 0);   /* 13 */
    C(WT, 0x10, 0);   /* 14: ldm address: 0x110 vs 0x104: bits [4:2] -> 1 packet */
    for (unsigned b = 1; b <= 8; b++)
        C(WT, b, 0);  /* 15-22 */
    C(TD, 0x00, 0);   /* 23 */
    C(IE, 0x00, 0);   /* 24: beq @1006 taken */
    decode(8, 3);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; ID@4 1002; DATA@4 a=20000104/5 v=efbeadde; ID@5 1004; "
               "DATA@5 a=20000110/1 v=0102030405060708; IE@24 1006");

    /* Address only (ETMCR[3:2] = 10). */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(ID, 0x10, 0);   /* 4 */
    C(ID, 0x84, 0);   /* 5: ldm */
    C(WT, 0x82, 0);
    C(WT, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x02, 0);   /* 9 */
    C(WT, 0x10, 0);   /* 10 */
    C(TD, 0x00, 0);
    decode(8, 2);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; ID@4 1002; DATA@4 a=20000104/5; ID@5 1004; DATA@5 a=20000110/1");

    /* The first data address after a restart must be full. */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(ID, 0x10, 0);   /* 4: ldr: address 0x04 in 1 packet */
    C(WT, 0x04, 0);   /* 5 */
    C(TD, 0x00, 0);
    decode(8, 2);
    EXPECT_ERR(4, "must be full");

    /* Word and doubleword sizes from the instruction: ldr.w (4), ldrd (8), ldrb (1),
     * ldrh (2) */
    reset_stream();
    C(BE, 0x8F, 1);   /* 0: restart to 100e (ldr.w) */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(ID, 0x80, 0);   /* 3: ldr.w @100e: 4 bytes */
    C(IE, 0x10, 0);   /* 4: push @1012 (not traced: allowed) */
    C(WT, 0x01, 0);
    C(WT, 0x02, 0);
    C(WT, 0x03, 0);
    C(WT, 0x04, 0);   /* 8 */
    C(TD, 0x00, 0);
    decode(8, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 100e; ID@3 100e; DATA@3 v=01020304; IE@4 1012");
}

/* BD: LDM with the PC, LDR pc; data then the branch address. */
static void test_bd(void)
{
    reset_stream();
    C(BE, 0xA1, 1);   /* 0: restart to 1020 (ldmia.w sp!, {r0, r1, pc}) */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(BD, 0x80, 0);   /* 3: 12 bytes, then the address 0x1029 (0x29 vs 0x21: bit 3) */
    C(A0, 0x10, 0);   /* 4 */
    C(A0, 0x01, 0);   /* 5 */
    for (unsigned b = 2; b <= 12; b++)
        C(WT, b, 0);  /* 6-16 */
    C(WT, 0x29, 1);   /* 17 */
    C(BD, 0x2D, 0);   /* 18: ldr.w pc @1028: the value 0x0000102d leaves from this cycle on */
    C(A0, 0x10, 0);   /* 19 */
    C(A0, 0x00, 0);
    C(WT, 0x00, 0);   /* 21 */
    C(WT, 0x2D, 1);   /* 22: 0x102d vs 0x1029: 1 packet */
    C(IN, 0x00, 0);   /* 23: bx r0 @102c failed */
    decode(8, 1);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1020; BD@3 1020->1028; DATA@3 v=0102030405060708090a0b0c; BD@18 1028->102c; "
               "DATA@18 v=2d100000; IN@23 102c");

    /* With data tracing off a BD owns no data packets (table 5.2): here the data
     * bytes stand where the decoder wants the address. */
    decode(8, 0);
    EXPECT_ERR(3, "FIFO order puts its branch address in cycle 5, but TRACESYNC is 0 there");
    /* A BD on an instruction that does no load or store. */
    S.pkt[0] = 0x81; /* the same stream restarting at 1000: a BD on movs */
    decode(8, 1);
    EXPECT_ERR(3, "not a load or store");

    /* BD and ID with data tracing off: no data packets, no DATA elements. */
    reset_stream();
    C(BE, 0xA1, 1);   /* 0: restart to 1020 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(BD, 0x80, 0);   /* 3: ldmia.w sp!, {r0, r1, pc} -> 1024 */
    C(A0, 0x10, 0);
    C(A0, 0x25, 1);   /* 5: 0x1025 */
    C(ID, 0x00, 0);   /* 6: ldrd @1024 */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1020; BD@3 1020->1024; ID@6 1024");
}

/* A restart BE while tracing: after trace was off (TD) and after an overflow. */
static void test_restart(void)
{
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);   /* 3: movs */
    C(IE, 0x10, 0);   /* 4: ldr @1002 (IE) */
    C(TD, 0x00, 0);   /* 5: trace off */
    C(TD, 0x00, 0);
    C(BE, 0x99, 1);   /* 7: trace on again at 0x1018: reason 1 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x10, 0);   /* 11 */
    C(IE, 0x00, 0);   /* 12: nop @1018 */
    C(IE, 0x00, 0);   /* 13: cbnz @101a taken -> 1020 */
    C(TD, 0x00, 0);   /* 14: an overflow with nothing left to drain */
    C(BE, 0xA1, 1);   /* 15: overflow restart at 0x1020 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x20, 0);   /* 19: reason 2 */
    C(IN, 0x00, 0);   /* 20: ldmia.w @1020 failed */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; IE@4 1002; ON@7 r1 1018; IE@12 1018; IE@13 101a; ON@15 r2 1020; IN@20 1020");
    CHECK_EQ(R.stats.restarts, 3);
}

/* TD and WT: WT only when a packet leaves, TD only when nothing does. */
static void test_td_wt(void)
{
    /* WT with nothing in the FIFO */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(IE, 0x10, 0);
    C(WT, 0x00, 0); /* 5 */
    C(IE, 0x00, 0); /* 6: ldmia @1004 */
    decode(8, 0);
    EXPECT_ERR(5, "WT in cycle 5, but no packet");

    /* ... except in the cycle that overflows (IHI 0014 5.9: the status becomes WT),
     * when the overflow restart follows. */
    S.n = 6;
    C(TD, 0x00, 0); /* 6 */
    C(BE, 0x85, 1); /* 7: overflow restart at 0x1004 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x20, 0); /* 11: reason 2 */
    C(IE, 0x00, 0); /* 12: ldmia @1004 */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1000; IE@3 1000; IE@4 1002; ON@7 r2 1004; IE@12 1004");
    S.pkt[11] = 0x10; /* a trace-enable restart (reason 1) does not excuse it */
    decode(8, 0);
    EXPECT_ERR(5, "not that restart");

    /* TD while the FIFO still holds a branch address */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0); /* 3 */
    C(TD, 0x10, 0); /* 4: the restart's packet 5 has not left */
    decode(8, 0);
    EXPECT_ERR(4, "TD in cycle 4");

    /* Cycle-accurate mode: TD with TRACEPKT[0] = 1 is an idle cycle, fine. */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(IE, 0x10, 0);
    C(TD, 0x01, 0); /* 5 */
    C(TD, 0x00, 0); /* 6 */
    etm_config_t cfg;
    config(&cfg, "etmv1.2", etmcr(8, 0) | ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE));
    decode_cfg(&cfg, ETM_V1DEC_STRICT, 0);
    EXPECT_OK();
    decode(8, 0); /* not cycle-accurate: TRACEPKT[0] must be 0 (strict) */
    EXPECT_ERR(5, "only in cycle-accurate mode");
}

/* Malformed streams: every error names the cycle. */
static void test_malformed(void)
{
    /* A BE whose address never comes: the trace ends first. */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(BE, 0x10, 0); /* 4: ldr @1002 as BE */
    C(A0, 0x00, 0); /* 5 */
    decode(8, 0);
    EXPECT_ERR(4, "the trace ended before the second APO cycle of the BE at cycle 4");

    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(BE, 0x10, 0); /* 4 */
    C(A0, 0x00, 0);
    C(A0, 0x00, 0);
    for (int k = 0; k < 20; k++)
        C(IE, 0x00, 0); /* statuses but no TRACESYNC */
    decode(8, 0);
    EXPECT_ERR(4, "FIFO order puts its branch address in cycle 5, but TRACESYNC is 0 there");

    /* Before synchronisation the APO is the only way to the address: a BE whose
     * TRACESYNC never comes exhausts the window (64 cycles). */
    reset_stream();
    C(BE, 0x10, 0); /* 0 */
    C(A0, 0x80, 0);
    C(A0, 0x80, 0);
    for (int k = 0; k < 200; k++)
        C(WT, 0x80, 0);
    etm_config_t cfg;
    config(&cfg, "etmv1.2", etmcr(8, 0));
    decode_cfg(&cfg, 0, 64);
    EXPECT_ERR(0, "did not come within 64 cycles");

    /* TD in an APO cycle */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(IE, 0x10, 0);
    C(BE, 0x13, 1); /* 5: ldmia @1004 shown as BE -> 1012 */
    C(TD, 0x00, 0); /* 6 */
    C(A0, 0x00, 0);
    decode(8, 0);
    EXPECT_ERR(6, "an APO cycle carries {0, APO bits}");

    /* TRACESYNC where no branch address starts */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 1); /* 3: packet 4 of the address, with TRACESYNC */
    C(IE, 0x10, 0);
    decode(8, 0);
    EXPECT_ERR(3, "TRACESYNC in cycle 3, where no branch address starts");

    /* IE on an indirect branch (bx lr @1008): the last instruction before trace went
     * off. Only a restart may follow. */
    reset_stream();
    C(BE, 0x89, 1); /* 0: restart to 1008 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(IE, 0x80, 0); /* 3: bx lr, no BE: trace turned off */
    C(WT, 0x10, 0); /* 4 */
    C(TD, 0x00, 0); /* 5 */
    C(BE, 0x81, 1); /* 6: trace on again at 0x1000 */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x10, 0); /* 10 */
    C(IE, 0x00, 0); /* 11: movs */
    decode(8, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1008; IE@3 1008; ON@6 r1 1000; IE@11 1000");
    S.n = 6;
    C(IE, 0x00, 0); /* 6: an instruction where only a restart may come */
    decode(8, 0);
    EXPECT_ERR(6, "the branch at cycle 3 left no BE");
    S.n = 6;
    C(BE, 0x01, 1); /* 6: a compressed BE: not a restart either */
    C(A0, 0x00, 0);
    C(A0, 0x00, 0);
    decode(8, 0);
    EXPECT_ERR(6, "only a trace restart");

}

/* Malformed streams, continued: data, state and branch output. */
static void test_malformed_data(void)
{
    etm_config_t cfg;
    /* ID on an instruction that is no load or store */
    reset_stream();
    restart_1000();
    C(ID, 0x80, 0); /* 3: movs */
    C(WT, 0x10, 0);
    C(WT, 0x00, 0);
    decode(8, 1);
    EXPECT_ERR(3, "not a load or store");

    /* ID whose data never comes */
    reset_stream();
    restart_1000();
    C(IE, 0x80, 0);
    C(ID, 0x10, 0); /* 4: ldr: 4 bytes */
    C(WT, 0x01, 0);
    C(WT, 0x02, 0);
    decode(8, 1);
    EXPECT_ERR(4, "the trace ended before the data packets of the ID at cycle 4");

    /* ARM state address (bit 0 = 0) */
    reset_stream();
    C(BE, 0x80, 1);
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(WT, 0x80, 0);
    C(WT, 0x10, 0);
    decode(8, 0);
    EXPECT_ERR(0, "ARM state");

    /* Branch output on (ETMCR[8]): a taken direct branch is BE; as IE it can only be
     * the last instruction before trace went off. */
    reset_stream();
    C(BE, 0x87, 1); /* restart to 1006 (beq) */
    C(A0, 0xA0, 0);
    C(A0, 0x80, 0);
    C(IE, 0x80, 0); /* 3: beq as IE */
    C(WT, 0x10, 0);
    C(IE, 0x00, 0); /* 5 */
    config(&cfg, "etmv1.2", etmcr(8, 0) | ETM_FIELD_MASK(ETM_CR_BRANCH_OUTPUT));
    decode_cfg(&cfg, 0, 0);
    EXPECT_ERR(5, "the branch at cycle 3 left no BE");
    config(&cfg, "etmv1.2", etmcr(8, 0));
    decode_cfg(&cfg, 0, 0);
    EXPECT_OK();
    EXPECT_LOG("ON@0 r1 1006; IE@3 1006; IE@5 100c");

    /* Garbage: random records never crash the decoder, and the errors have cycles. */
    test_rng_t rng;
    rng.s = 12345;
    static const unsigned ports[3] = { 4, 8, 16 };
    for (int round = 0; round < 30; round++) {
        reset_stream();
        unsigned n = 2000;
        for (unsigned i = 0; i < n; i++) {
            uint64_t r = test_rand(&rng);
            C((unsigned)(r & 7), (unsigned)(r >> 8) & 0xFFFF, (unsigned)((r >> 30) & 3) == 0);
        }
        config(&cfg, round % 2 ? "etmv1.3" : "etmv1.1", etmcr(ports[round % 3], (unsigned)round & 3));
        decode_cfg(&cfg, round % 4 == 0 ? ETM_V1DEC_STRICT : 0, round % 5 == 0 ? 32 : 0);
        CHECK(R.stats.cycles == n);
        CHECK(R.nerr == 0 || R.first.cycle < n);
    }
}

/* Decoding joins a stream in the middle: compressed addresses are skipped until a
 * full one; the data address reference is unknown until a full data address. */
static void test_join(void)
{
    reset_stream();
    C(IE, 0x33, 0); /* 0: packets of unknown statuses */
    C(WT, 0x44, 0);
    C(BE, 0x13, 1); /* 2: compressed: skipped */
    C(A0, 0x00, 0);
    C(A0, 0x00, 0);
    C(IE, 0x00, 0); /* 5 */
    C(BE, 0x55, 0); /* 6: periodic full address 0x1000 behind one more byte: APO 0 */
    C(A0, 0x81, 1); /* 7 */
    C(A0, 0xA0, 0);
    C(IE, 0x80, 0); /* 9: movs @1000 */
    C(ID, 0x80, 0); /* 10: ldr @1002, compressed data address 0x04 (1 packet), 4 bytes */
    C(WT, 0x40, 0); /* 11: packet 5: reason 4 */
    C(WT, 0x04, 0); /* 12 */
    C(WT, 0x01, 0);
    C(WT, 0x02, 0);
    C(WT, 0x03, 0);
    C(WT, 0x04, 0); /* 16 */
    C(TD, 0x00, 0);
    decode(8, 3);
    EXPECT_OK();
    EXPECT_LOG("SYNC@6 r4 1000; IE@9 1000; ID@10 1002; DATA@10 a=4?/1 v=01020304");
    CHECK_EQ(R.stats.unsynced_statuses, 3);
}

/* The Thumb-2 classifier: sizes, branch targets, data sizes. */
static void test_classify(void)
{
    struct {
        uint32_t addr;
        uint16_t hw[2];
        unsigned size, flow, data, store;
        uint32_t target;
    } const t[] = {
        { 0x1000, { 0x2001 }, 2, ETM_V1_FLOW_NEXT, 0, 0, 0 },          /* movs */
        { 0x1000, { 0x6808 }, 2, ETM_V1_FLOW_NEXT, 4, 0, 0 },          /* ldr */
        { 0x1000, { 0x6008 }, 2, ETM_V1_FLOW_NEXT, 4, 1, 0 },          /* str */
        { 0x1000, { 0x7008 }, 2, ETM_V1_FLOW_NEXT, 1, 1, 0 },          /* strb */
        { 0x1000, { 0x8808 }, 2, ETM_V1_FLOW_NEXT, 2, 0, 0 },          /* ldrh */
        { 0x1000, { 0x9801 }, 2, ETM_V1_FLOW_NEXT, 4, 0, 0 },          /* ldr r0, [sp, #4] */
        { 0x1000, { 0x4801 }, 2, ETM_V1_FLOW_NEXT, 4, 0, 0 },          /* ldr r0, [pc, #4] */
        { 0x1000, { 0x5C08 }, 2, ETM_V1_FLOW_NEXT, 1, 0, 0 },          /* ldrb r0, [r1, r0] */
        { 0x1000, { 0x5E08 }, 2, ETM_V1_FLOW_NEXT, 2, 0, 0 },          /* ldrsh */
        { 0x1000, { 0xC90C }, 2, ETM_V1_FLOW_NEXT, 8, 0, 0 },          /* ldmia r1!, {r2, r3} */
        { 0x1000, { 0xC007 }, 2, ETM_V1_FLOW_NEXT, 12, 1, 0 },         /* stmia r0!, {r0-r2} */
        { 0x1000, { 0xB5F0 }, 2, ETM_V1_FLOW_NEXT, 20, 1, 0 },         /* push {r4-r7, lr} */
        { 0x1000, { 0xBDF0 }, 2, ETM_V1_FLOW_INDIRECT, 20, 0, 0 },     /* pop {r4-r7, pc} */
        { 0x1000, { 0xBC01 }, 2, ETM_V1_FLOW_NEXT, 4, 0, 0 },          /* pop {r0} */
        { 0x1000, { 0x4770 }, 2, ETM_V1_FLOW_INDIRECT, 0, 0, 0 },      /* bx lr */
        { 0x1000, { 0x4790 }, 2, ETM_V1_FLOW_INDIRECT, 0, 0, 0 },      /* blx r2 */
        { 0x1000, { 0x46F7 }, 2, ETM_V1_FLOW_INDIRECT, 0, 0, 0 },      /* mov pc, lr */
        { 0x1000, { 0x4687 }, 2, ETM_V1_FLOW_INDIRECT, 0, 0, 0 },      /* mov pc, r0 */
        { 0x1000, { 0x4687 & 0xFF7F }, 2, ETM_V1_FLOW_NEXT, 0, 0, 0 }, /* mov r7, r0 */
        { 0x1000, { 0x4487 }, 2, ETM_V1_FLOW_INDIRECT, 0, 0, 0 },      /* add pc, r0 */
        { 0x1000, { 0x4587 }, 2, ETM_V1_FLOW_NEXT, 0, 0, 0 },          /* cmp r7, r0 (not a branch) */
        { 0x1006, { 0xD001 }, 2, ETM_V1_FLOW_DIRECT, 0, 0, 0x100C },   /* beq */
        { 0x1006, { 0xD0FE }, 2, ETM_V1_FLOW_DIRECT, 0, 0, 0x1006 },   /* beq . */
        { 0x100A, { 0xE7F9 }, 2, ETM_V1_FLOW_DIRECT, 0, 0, 0x1000 },   /* b */
        { 0x101A, { 0xB90A }, 2, ETM_V1_FLOW_DIRECT, 0, 0, 0x1020 },   /* cbnz r2 */
        { 0x1000, { 0xB3F8 }, 2, ETM_V1_FLOW_DIRECT, 0, 0, 0x1082 },   /* cbz r0, +0x7e */
        { 0x1000, { 0xDF01 }, 2, ETM_V1_FLOW_NEXT, 0, 0, 0 },          /* svc 1 */
        { 0x1000, { 0xBF08 }, 2, ETM_V1_FLOW_NEXT, 0, 0, 0 },          /* it eq */
        { 0x1014, { 0xF000, 0xF800 }, 4, ETM_V1_FLOW_DIRECT, 0, 0, 0x1018 }, /* bl */
        { 0x1000, { 0xF7FF, 0xFFFE }, 4, ETM_V1_FLOW_DIRECT, 0, 0, 0x1000 }, /* bl . */
        { 0x2000, { 0xF7FF, 0xBFFE }, 4, ETM_V1_FLOW_DIRECT, 0, 0, 0x2000 }, /* b.w . */
        { 0x2000, { 0xF43F, 0xAFFE }, 4, ETM_V1_FLOW_DIRECT, 0, 0, 0x2000 }, /* beq.w . (T3) */
        { 0x2000, { 0xF040, 0x8001 }, 4, ETM_V1_FLOW_DIRECT, 0, 0, 0x2006 }, /* bne.w +2 */
        { 0x2000, { 0xF3EF, 0x8008 }, 4, ETM_V1_FLOW_NEXT, 0, 0, 0 },   /* mrs r0, msp */
        { 0x2000, { 0xF3BF, 0x8F4F }, 4, ETM_V1_FLOW_NEXT, 0, 0, 0 },   /* dsb */
        { 0x1000, { 0xF8D1, 0x0004 }, 4, ETM_V1_FLOW_NEXT, 4, 0, 0 },  /* ldr.w */
        { 0x1000, { 0xF8C1, 0x0004 }, 4, ETM_V1_FLOW_NEXT, 4, 1, 0 },  /* str.w */
        { 0x1000, { 0xF891, 0x0004 }, 4, ETM_V1_FLOW_NEXT, 1, 0, 0 },  /* ldrb.w */
        { 0x1000, { 0xF9B1, 0x0004 }, 4, ETM_V1_FLOW_NEXT, 2, 0, 0 },  /* ldrsh.w */
        { 0x1000, { 0xF8A1, 0x0004 }, 4, ETM_V1_FLOW_NEXT, 2, 1, 0 },  /* strh.w */
        { 0x1000, { 0xF891, 0xF004 }, 4, ETM_V1_FLOW_NEXT, 0, 0, 0 },  /* pld [r1, #4] */
        { 0x1028, { 0xF8DF, 0xF000 }, 4, ETM_V1_FLOW_INDIRECT, 4, 0, 0 }, /* ldr.w pc, [pc] */
        { 0x1000, { 0xF85D, 0xFB04 }, 4, ETM_V1_FLOW_INDIRECT, 4, 0, 0 }, /* pop.w {pc} (ldr pc, [sp], #4) */
        { 0x1000, { 0xE8BD, 0x8003 }, 4, ETM_V1_FLOW_INDIRECT, 12, 0, 0 }, /* ldmia.w sp!, {r0, r1, pc} */
        { 0x1000, { 0xE92D, 0x4FF0 }, 4, ETM_V1_FLOW_NEXT, 36, 1, 0 },  /* push.w {r4-r11, lr} */
        { 0x1000, { 0xE891, 0x000F }, 4, ETM_V1_FLOW_NEXT, 16, 0, 0 },  /* ldmia.w r1, {r0-r3} */
        { 0x1000, { 0xE911, 0x000F }, 4, ETM_V1_FLOW_NEXT, 16, 0, 0 },  /* ldmdb r1, {r0-r3} */
        { 0x1000, { 0xE9D1, 0x2300 }, 4, ETM_V1_FLOW_NEXT, 8, 0, 0 },   /* ldrd */
        { 0x1000, { 0xE9C1, 0x2300 }, 4, ETM_V1_FLOW_NEXT, 8, 1, 0 },   /* strd */
        { 0x1000, { 0xE851, 0x0F00 }, 4, ETM_V1_FLOW_NEXT, 4, 0, 0 },   /* ldrex */
        { 0x1000, { 0xE841, 0x2000 }, 4, ETM_V1_FLOW_NEXT, 4, 1, 0 },   /* strex */
        { 0x1000, { 0xE8D0, 0xF011 }, 4, ETM_V1_FLOW_INDIRECT, 2, 0, 0 }, /* tbh [r0, r1, lsl #1] */
        { 0x1000, { 0xE8D0, 0xF000 }, 4, ETM_V1_FLOW_INDIRECT, 1, 0, 0 }, /* tbb [r0, r0] */
        { 0x1000, { 0xFB00, 0xF001 }, 4, ETM_V1_FLOW_NEXT, 0, 0, 0 },   /* mul.w */
        { 0x1000, { 0xEB00, 0x0001 }, 4, ETM_V1_FLOW_NEXT, 0, 0, 0 },   /* add.w */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t b[4] = { (uint8_t)t[i].hw[0], (uint8_t)(t[i].hw[0] >> 8), (uint8_t)t[i].hw[1],
                         (uint8_t)(t[i].hw[1] >> 8) };
        etm_v1_insn_t in;
        CHECK_EQ(etm_v1_insn_classify(t[i].addr, b, 4, &in), 0);
        if (in.size != t[i].size || in.flow != t[i].flow || in.data_bytes != t[i].data ||
            in.is_store != (int)t[i].store || (t[i].flow == ETM_V1_FLOW_DIRECT && in.target != t[i].target)) {
            fprintf(stderr, "classify case %zu (%04x %04x): size %u flow %u data %u store %d target %x\n", i,
                    t[i].hw[0], t[i].hw[1], in.size, in.flow, in.data_bytes, in.is_store, in.target);
            CHECK(0);
        }
    }
    uint8_t b32[2] = { 0xD1, 0xF8 };
    etm_v1_insn_t in;
    CHECK_EQ(etm_v1_insn_classify(0, b32, 2, &in), 1); /* needs 4 bytes */
    CHECK_EQ(etm_v1_insn_classify(0, b32, 1, &in), 1);
}

/* Configurations the decoder refuses. */
static void test_config(void)
{
    etm_config_t cfg;
    etm_v1dec_t *d;
    etm_diag_t diag;
    etm_config_default(&cfg); /* ETMv3.4 */
    CHECK_EQ(etm_v1dec_create(&d, &cfg, 0, 0, &diag), ETM_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(diag.msg, "ETMCCR[31]");
    config(&cfg, "etmv1.2", etmcr(8, 0) | (3u << 4));
    CHECK_EQ(etm_v1dec_create(&d, &cfg, 0, 0, &diag), ETM_ERR_UNSUPPORTED);
    config(&cfg, "etmv1.2", etmcr(8, 0) | ETM_FIELD_MASK(ETM_CR_HALF_RATE));
    CHECK_EQ(etm_v1dec_create(&d, &cfg, 0, 0, &diag), ETM_ERR_UNSUPPORTED);
    config(&cfg, "etmv1.1", etmcr(8, 0) | (1u << 14));
    CHECK_EQ(etm_v1dec_create(&d, &cfg, 0, 0, &diag), ETM_ERR_UNSUPPORTED);
    config(&cfg, "etmv1.0", etmcr(4, 3));
    CHECK_EQ(etm_v1dec_create(&d, &cfg, 0, 0, &diag), ETM_OK);
    etm_v1dec_destroy(d);
    CHECK(strcmp(etm_v1_pipestat_name(6), "TR") == 0);
    CHECK(strcmp(etm_v1el_kind_name(ETM_V1EL_ABANDON), "ABANDON") == 0);
}

int main(void)
{
    make_image();
    test_classify();
    test_config();
    test_all_codes();
    test_apo_values();
    test_apo_15();
    test_abandoned();
    test_trigger();
    test_port4();
    test_port16();
    test_reasons();
    test_compression();
    test_data_address();
    test_bd();
    test_restart();
    test_td_wt();
    test_malformed();
    test_malformed_data();
    test_join();
    return test_report("test_decode_v1");
}
