/* test_phaudit.c - the P-header bound of tb/common/phaudit.h on runs worked out
 * by hand from the formats of IHI 0014 tables 7.2 and 7.3, and the counts of
 * tb/common/partaudit.h on the STM32F105's session (docs/silicon.md) and on
 * packets that break each of the part's choices. */
#include "partaudit.h"
#include "phaudit.h"
#include "test.h"

/* The bound for headers hdr[0..n) of one run, and the headers counted over it. */
static uint64_t bound(int ca, int format4, const char *const *hdr, unsigned n, int cancel, uint64_t *over)
{
    phaudit_t a;
    phaudit_init(&a, ca, format4);
    for (unsigned k = 0; k < n; k++)
        phaudit_header(&a, 100 + k, hdr[k], (unsigned)strlen(hdr[k]));
    phaudit_flush(&a, cancel);
    *over = a.excess_runs;
    return a.total_bound;
}

/* The packets of one partaudit run: 'A' A-sync, 'I' I-sync that starts trace
 * (info 0x21), 'i' periodic I-sync (info 0x01), 'j' one with info 0x20, 'T'
 * trigger, 'B' branch, 'C' exception branch with Cancel, 'h' + byte a
 * non-cycle-accurate P-header. */
static void feed(partaudit_t *a, const char *pk, const uint8_t *hdr)
{
    uint64_t idx = 0;
    for (const char *p = pk; *p; p++) {
        switch (*p) {
        case 'A': partaudit_async(a); partaudit_bytes(a, 6); idx += 6; break;
        case 'I': partaudit_isync(a, 0x21, 0); partaudit_bytes(a, 6); idx += 6; break;
        case 'i': partaudit_isync(a, 0x01, 1); partaudit_bytes(a, 6); idx += 6; break;
        case 'j': partaudit_isync(a, 0x20, 0); partaudit_bytes(a, 6); idx += 6; break;
        case 'T': partaudit_other(a, 0); partaudit_bytes(a, 1); idx++; break;
        case 'B': partaudit_other(a, 0); partaudit_bytes(a, 1); idx++; break;
        case 'C': partaudit_other(a, 1); partaudit_bytes(a, 3); idx += 3; break;
        case 'h': {
            uint8_t h = *hdr++;
            char s[17];
            unsigned n = 0;
            if ((h & 0xF3) == 0x82) { /* format 2: bit 3 the first atom, bit 2 the second (1 = N) */
                s[n++] = h & 8 ? 'N' : 'E';
                s[n++] = h & 4 ? 'N' : 'E';
            } else { /* format 1: E count in [5:2], N in [6] */
                for (unsigned e = (h >> 2) & 15u; e; e--)
                    s[n++] = 'E';
                if (h & 0x40)
                    s[n++] = 'N';
            }
            partaudit_header(a, idx, h, s, n);
            partaudit_bytes(a, 1);
            idx++;
            break;
        }
        }
    }
}

static void part_tests(void)
{
    partaudit_choices_t part = { 1, 1, 1, 1, 0, 0 };
    char msg[300];
    /* A session shaped as the STM32F105's (docs/silicon.md): A-sync,
     * I-sync 0x21, 84 alone, trigger, then format 1 headers closed at their N
     * or ending before a branch packet. */
    partaudit_t a;
    partaudit_init(&a, 0);
    static const uint8_t s1[] = { 0x84, 0x94, 0xcc, 0x84, 0x94, 0xcc, 0xcc, 0x90 };
    feed(&a, "AIhThBhhBhBhhhB", s1);
    CHECK_EQ(a.headers, 8);
    CHECK_EQ(a.restarts, 1);
    CHECK_EQ(a.first_alone, 1);
    CHECK_EQ(a.isync_bit0, 1);
    CHECK_EQ(a.early, 0);
    CHECK_EQ(partaudit_check(&a, &part, msg, sizeof msg), 0);
    /* Each choice broken once. */
    struct { const char *pk; uint8_t hdr[3]; const char *rule; } bad[] = {
        { "AIhhB", { 0x84, 0x82 }, "format 2" },             /* a format 2 header */
        { "AIhhB", { 0x84, 0xfc }, "0xFC" },                 /* 15 E and an N */
        { "AIhhhB", { 0x84, 0x88, 0x84 }, "closed after 2 atoms" }, /* EE closed early */
        { "AIhB", { 0x88 }, "restarts give the first atom" }, /* the first atom with another */
        { "AjhB", { 0x84 }, "bit 0 set" },                    /* an I-sync without bit 0 */
    };
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        partaudit_init(&a, 0);
        feed(&a, bad[k].pk, bad[k].hdr);
        CHECK_EQ(partaudit_check(&a, &part, msg, sizeof msg), 1);
        CHECK(strstr(msg, bad[k].rule) != NULL);
    }
    /* The ideal packer's choices: no rule of the part applies, but an I-sync
     * with bit 0 set is one it does not send. */
    partaudit_choices_t ideal = { 0, 0, 0, 0, 0, 0 };
    partaudit_init(&a, 0);
    feed(&a, "AIhhB", (const uint8_t[]){ 0x84, 0x82 });
    CHECK_EQ(partaudit_check(&a, &ideal, msg, sizeof msg), 1);
    CHECK(strstr(msg, "ISYNC_INFO: none") != NULL);
    partaudit_init(&a, 0);
    feed(&a, "AjhhB", (const uint8_t[]){ 0x84, 0x82 });
    CHECK_EQ(partaudit_check(&a, &ideal, msg, sizeof msg), 0);
    /* Cancels: the withdrawn atom alone in its header or with others. */
    partaudit_init(&a, 0);
    feed(&a, "AIhBhChhC", (const uint8_t[]){ 0x84, 0x84, 0x88, 0x8c });
    CHECK_EQ(a.cancels, 2);
    CHECK_EQ(a.cancels_shared, 1);
    /* SYNC_PLACEMENT=1: the periodic I-sync half a period after its A-sync. */
    partaudit_choices_t sync = { 0, 0, 1, 1, 0, 1024 };
    for (unsigned d = 400; d <= 600; d += 100) {
        partaudit_init(&a, 0);
        feed(&a, "AI", NULL);
        partaudit_bytes(&a, 1000);
        feed(&a, "A", NULL);
        partaudit_bytes(&a, d - 6);
        feed(&a, "i", NULL);
        CHECK_EQ(a.halves, 1);
        CHECK_EQ(a.half_min, d);
        CHECK_EQ(partaudit_check(&a, &sync, msg, sizeof msg), d != 500);
    }
}

/* The fewest-header bound on runs of atoms, without cycle accuracy. */
static void bound_tests(void)
{
    uint64_t over;
    /* Not cycle-accurate. Four headers of three E: one format 1 header takes 12. */
    const char *e3[] = { "EEE", "EEE", "EEE", "EEE" };
    CHECK_EQ(bound(0, 1, e3, 4, 0, &over), 1);
    CHECK_EQ(over, 1);
    /* 15 E then N fill one format 1 header; a 16th E needs a second. */
    const char *full[] = { "EEEEEEEEEEEEEEEN", "EN" };
    CHECK_EQ(bound(0, 1, full, 2, 0, &over), 2);
    CHECK_EQ(over, 0);
    const char *e16[] = { "EEEEEEEEEEEEEEEE" };
    CHECK_EQ(bound(0, 1, e16, 1, 0, &over), 2);
    /* N first: format 2 pairs. NENEEEEN is NE NE EEEN (or N EN EEEN): 3. */
    const char *ne[] = { "NE", "NE", "EEEN" };
    CHECK_EQ(bound(0, 1, ne, 3, 0, &over), 3);
    CHECK_EQ(over, 0);
    /* NNN: a format 2 and a format 1. */
    const char *nnn[] = { "NNN" };
    CHECK_EQ(bound(0, 1, nnn, 1, 0, &over), 2);
    /* NN: one format 2. */
    const char *nn[] = { "N", "N" };
    CHECK_EQ(bound(0, 1, nn, 2, 0, &over), 1);
    CHECK_EQ(over, 1);
    /* A Cancel lets the last atom stand alone: EEE + E is not over. */
    const char *cancel[] = { "EEE", "E" };
    CHECK_EQ(bound(0, 1, cancel, 2, 1, &over), 2);
    CHECK_EQ(over, 0);
    CHECK_EQ(bound(0, 1, cancel, 2, 0, &over), 1);
    CHECK_EQ(over, 1);
}

/* ... and cycle-accurate. */
static void bound_ca_tests(void)
{
    uint64_t over;
    /* Cycle-accurate. WEWEWN WWWE: format 1 (two E, one N) and format 3. */
    const char *ca1[] = { "WEWE", "WEWN", "WWWE" };
    CHECK_EQ(bound(1, 1, ca1, 3, 0, &over), 2);
    CHECK_EQ(over, 1);
    /* Format 1 holds 7 cycles of E and a final N: 8 pairs in one header, 9 not. */
    const char *ca7n[] = { "WEWEWEWEWEWEWEWN" };
    CHECK_EQ(bound(1, 1, ca7n, 1, 0, &over), 1);
    const char *ca8e[] = { "WEWEWEWEWEWEWEWE" };
    CHECK_EQ(bound(1, 1, ca8e, 1, 0, &over), 2);
    /* Format 3: up to 8 W, then an E in the last of them. */
    const char *w8e[] = { "WWWW", "WWWWE" };
    CHECK_EQ(bound(1, 1, w8e, 2, 0, &over), 1);
    CHECK_EQ(over, 1);
    const char *w9[] = { "WWWWWWWWW" };
    CHECK_EQ(bound(1, 1, w9, 1, 0, &over), 2);
    /* W E E, W, W N: a format 2, a format 3 and a format 1. */
    const char *weewwn[] = { "WEEWWN" };
    CHECK_EQ(bound(1, 1, weewwn, 1, 0, &over), 3);
    /* Format 2: one cycle of two atoms; format 4 an atom with no W, which
     * versions before ETMv3.3 do not have (the bound is then larger). */
    const char *f2[] = { "WNE" };
    CHECK_EQ(bound(1, 1, f2, 1, 0, &over), 1);
    const char *f4[] = { "WE", "N", "WN" };
    CHECK_EQ(bound(1, 1, f4, 3, 0, &over), 2); /* WEN (format 2) + WN */
    CHECK_EQ(over, 1);
}

/* The fewest bytes of a branch address packet. */
static void branch_tests(void)
{
    /* Branch addresses: the highest bit of A[31:1] that changed decides. */
    CHECK_EQ(phaudit_branch_min(0x1000, 0x1002, 0, 0), 1);      /* A[1] */
    CHECK_EQ(phaudit_branch_min(0x1000, 0x1040, 1, 0), 1);      /* A[6] */
    CHECK_EQ(phaudit_branch_min(0x1000, 0x1080, 1, 0), 2);      /* A[7] */
    CHECK_EQ(phaudit_branch_min(0x0000, 0x2000, 0, 0), 2);      /* A[13]: original 2 bytes ... */
    CHECK_EQ(phaudit_branch_min(0x0000, 0x2000, 1, 0), 3);      /* ... alternative 3 */
    CHECK_EQ(phaudit_branch_min(0x0000, 0x08000000, 0, 0), 4);  /* A[27]: original 4 bytes ... */
    CHECK_EQ(phaudit_branch_min(0x0000, 0x08000000, 1, 0), 5);  /* ... alternative 5 */
    CHECK_EQ(phaudit_branch_min(0x0000, 0x10000000, 0, 0), 5);  /* A[28] */
    CHECK_EQ(phaudit_branch_min(0x0000, 0x04000000, 1, 0), 4);  /* A[26] */
    CHECK_EQ(phaudit_branch_min(0x0000, 0x04000000, 0, 0), 4);
    CHECK_EQ(phaudit_branch_min(0x1000, 0x1000, 1, 1), 2);      /* exception bytes: at least 2 ... */
    CHECK_EQ(phaudit_branch_min(0x1000, 0x1000, 0, 1), 5);      /* ... or 5 */
    CHECK_EQ(phaudit_branch_min(0x1001, 0x1000, 0, 0), 1);      /* bit 0 is not an address bit */
    phaudit_t b;
    phaudit_init(&b, 0, 1);
    phaudit_set_branch(&b, 1);
    phaudit_isync(&b, 0, 0x1000, 0, 0);
    phaudit_branch(&b, 6, 0x1080, 2, 0);
    CHECK_EQ(b.branch_over, 0);
    phaudit_branch(&b, 8, 0x1082, 2, 0); /* one byte would do */
    CHECK_EQ(b.branch_over, 1);
    CHECK_EQ(b.branch_bound, 3);
}

/* Periodic synchronisation's spacing, and TRACE_START's first run. */
static void sync_tests(void)
{
    /* Synchronisation every 1024 bytes, give or take PHAUDIT_SYNC_SLACK. */
    phaudit_t y;
    phaudit_init(&y, 0, 1);
    phaudit_set_sync(&y, 1024);
    const unsigned gaps[] = { 0, 1024, 1024 - PHAUDIT_SYNC_SLACK, 1024 + PHAUDIT_SYNC_SLACK, 900, 1200 };
    for (unsigned k = 0; k < 6; k++) { /* A-sync and I-sync (6 bytes each) then filler: gaps[k] apart */
        if (k)
            phaudit_bytes(&y, gaps[k] - 12);
        phaudit_async(&y, 0);
        phaudit_bytes(&y, 6);
        phaudit_isync(&y, 0, 0x1000, k != 0, 0); /* the first starts trace: not periodic */
        phaudit_bytes(&y, 6);
        if (k == 3)
            CHECK_EQ(y.sync_off, 0);
    }
    CHECK_EQ(y.periodic_syncs, 5);
    CHECK_EQ(y.sync_off, 2); /* 900 and 1200 */
    /* An overflow restart starts the spacing again: no gap measured across it. */
    phaudit_bytes(&y, 50);
    phaudit_async(&y, 0);
    phaudit_isync(&y, 0, 0x1000, 0, 1);
    phaudit_bytes(&y, 1024);
    phaudit_async(&y, 0);
    phaudit_isync(&y, 0, 0x1000, 1, 0);
    CHECK_EQ(y.periodic_syncs, 5);
    /* Late is no difference with phaudit_set_sync_late, early still is. */
    phaudit_t z;
    phaudit_init(&z, 0, 1);
    phaudit_set_sync(&z, 1024);
    phaudit_set_sync_late(&z, 1);
    const unsigned zgaps[] = { 0, 3000, 900 };
    for (unsigned k = 0; k < 3; k++) {
        if (k)
            phaudit_bytes(&z, zgaps[k] - 12);
        phaudit_async(&z, 0);
        phaudit_bytes(&z, 6);
        phaudit_isync(&z, 0, 0x1000, k != 0, 0);
        phaudit_bytes(&z, 6);
        CHECK_EQ(z.sync_off, k == 2);
    }

    /* TRACE_START=1: a restart's first header is a run of its own. E + EEE
     * after an I-sync that starts trace takes two headers, which is not over
     * the bound; after a periodic I-sync it is. */
    for (int periodic = 0; periodic < 2; periodic++) {
        phaudit_t f;
        phaudit_init(&f, 0, 1);
        phaudit_set_first_alone(&f, 1);
        phaudit_isync(&f, 0, 0x1000, periodic, 0);
        phaudit_header(&f, 6, "E", 1);
        phaudit_header(&f, 7, "EEE", 3);
        phaudit_flush(&f, 0);
        CHECK_EQ(f.excess_runs, (uint64_t)periodic);
    }
}

int main(void)
{
    bound_tests();
    bound_ca_tests();
    branch_tests();
    sync_tests();
    part_tests();
    return test_report("test_phaudit");
}
