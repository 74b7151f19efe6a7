/* test_phaudit.c - the P-header bound of tb/common/phaudit.h on runs worked out
 * by hand from the formats of IHI 0014 tables 7.2 and 7.3. */
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

int main(void)
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
    return test_report("test_phaudit");
}
