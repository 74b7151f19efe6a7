/* test_pheader_optimal.c - the model's P-headers are the shortest legal encoding
 * of the atoms between two flush points. Random runs of instructions (E or N,
 * with idle cycles and two-atom cycles in cycle-accurate mode, no branches, so
 * the only flush points are the start and the end) go through the model; the
 * number of P-headers it sends is compared with the minimum that a dynamic
 * programme over the formats of tables 7.2 and 7.3, written here, finds. */
#include <stdlib.h>

#include "etm/etm.h"
#include "test.h"

#define MAXN 600

/* Non-cycle-accurate: atoms a[0..n-1] (1 = E). Format 1: E^k then at most one
 * N, 0 <= k <= 15, at least one atom; format 2: any two atoms. */
static unsigned best_noncycle(const int *a, unsigned n)
{
    static unsigned cost[2 * MAXN + 1];
    cost[n] = 0;
    for (unsigned i = n; i-- > 0;) {
        unsigned b = ~0u;
        unsigned e = 0;
        for (unsigned j = i; j < n && a[j] && e < 15; j++) { /* E^k, k >= 1 */
            e++;
            if (1 + cost[j + 1] < b)
                b = 1 + cost[j + 1];
        }
        /* E^k N with k = 0..min(15, leading Es) */
        unsigned lead = 0;
        while (i + lead < n && a[i + lead] && lead < 15)
            lead++;
        for (unsigned k = 0; k <= lead; k++)
            if (i + k < n && !a[i + k] && 1 + cost[i + k + 1] < b)
                b = 1 + cost[i + k + 1];
        if (i + 2 <= n && 1 + cost[i + 2] < b)
            b = 1 + cost[i + 2];
        cost[i] = b;
    }
    return cost[0];
}

/* Cycle-accurate: cycles c[0..n-1], each 0 atoms (-1), one atom (0 N, 1 E) or two
 * atoms (2: the pair is stored in c2[]). Format 1: k cycles of one E (0..7), then
 * at most one cycle of one N, at least one cycle; format 2: one cycle of two atoms;
 * format 3: 1..8 cycles of which all but the last have no atom and the last has
 * none or one E. */
static unsigned best_cycle(const int *c, unsigned n)
{
    static unsigned cost[2 * MAXN + 1];
    cost[n] = 0;
    for (unsigned i = n; i-- > 0;) {
        unsigned b = ~0u;
        /* format 1 */
        unsigned k = 0;
        for (unsigned j = i; j <= n; j++) {
            if (k >= 1 && 1 + cost[j] < b)
                b = 1 + cost[j];
            if (j < n && c[j] == 0 && 1 + cost[j + 1] < b) /* ... then one N */
                b = 1 + cost[j + 1];
            if (j == n || c[j] != 1 || k == 7)
                break;
            k++;
        }
        /* format 2 */
        if (c[i] == 2 && 1 + cost[i + 1] < b)
            b = 1 + cost[i + 1];
        /* format 3 */
        for (unsigned w = 1; w <= 8 && i + w <= n; w++) {
            unsigned last = i + w - 1;
            int idle_before = 1;
            for (unsigned j = i; j < last; j++)
                if (c[j] != -1)
                    idle_before = 0;
            if (!idle_before)
                break;
            if ((c[last] == -1 || c[last] == 1) && 1 + cost[i + w] < b)
                b = 1 + cost[i + w];
        }
        cost[i] = b;
    }
    return cost[0];
}

static uint64_t headers(const etm_stats_t *s)
{
    return s->packets[ETM_PKT_PHDR_F1] + s->packets[ETM_PKT_PHDR_F2] + s->packets[ETM_PKT_PHDR_F3] +
           s->packets[ETM_PKT_PHDR_F4];
}

static void trial(test_rng_t *rng, int ca, unsigned n, int *mismatches)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_preset(&cfg, "cm3-ca-whatif"); /* the ETM-M3 with cycle-accurate tracing */
    cfg.etmcr = ca ? 0x1810 : 0x810;
    cfg.etmsyncfr = 0xFFF; /* no periodic sync inside the run */
    cfg.fifo_depth = 0x800;
    cfg.port_bytes = 8;
    etm_ctx_t *etm;
    CHECK_EQ(etm_create(&etm, &cfg, &d), ETM_OK);
    int atoms[2 * MAXN], cyc[MAXN];
    unsigned na = 0;
    uint32_t pc = 0x100;
    etm_out_t o;
    /* Cycle 0: the first instruction (its I-sync is a flush point before it). */
    for (unsigned i = 0; i < n; i++) {
        etm_in_t in;
        memset(&in, 0, sizeof in);
        unsigned r = (unsigned)(test_rand(rng) % 100);
        int kind = i == 0 ? 1 : !ca ? 1 : r < 25 ? 0 : r < 85 ? 1 : 2;
        if (kind >= 1) {
            in.ivalid = 1;
            in.ia = pc;
            in.iccfail = (uint8_t)(test_rand(rng) % 4 == 0);
            atoms[na++] = !in.iccfail;
            pc += 2;
            if (kind == 2 || (!ca && test_rand(rng) % 8 == 0)) {
                in.fold = 1; /* a folded IT: a second atom, always E */
                atoms[na++] = 1;
                pc += 2;
            }
        }
        cyc[i] = kind == 0 ? -1 : in.fold ? 2 : atoms[na - 1];
        etm_step(etm, &in, &o);
    }
    etm_end(etm);
    while (etm_drain(etm, &o) == ETM_OK) {
    }
    uint64_t got = headers(etm_get_stats(etm));
    /* The first cycle's header follows the I-sync: the DP covers all cycles. */
    unsigned want = ca ? best_cycle(cyc, n) : best_noncycle(atoms, na);
    CHECK_EQ(etm_get_stats(etm)->packets[ETM_PKT_CYCLE_COUNT], 0);
    if (got != want) {
        (*mismatches)++;
        if (*mismatches < 3)
            fprintf(stderr, "%s run of %u cycles: %llu headers, the minimum is %u\n", ca ? "cycle-accurate" : "plain",
                    n, (unsigned long long)got, want);
    }
    etm_destroy(etm);
}

int main(void)
{
    test_rng_t rng = { 2024 };
    int mismatches = 0;
    for (int t = 0; t < 400; t++)
        trial(&rng, t & 1, 1 + (unsigned)(test_rand(&rng) % (MAXN - 1)), &mismatches);
    CHECK_EQ(mismatches, 0);
    /* The DPs themselves, on cases worked by hand. */
    static const int nn[] = { 0, 0, 0 };          /* N N N: F2 + F1 */
    CHECK_EQ(best_noncycle(nn, 3), 2);
    static const int en16[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 }; /* E^15 N */
    CHECK_EQ(best_noncycle(en16, 16), 1);
    static const int c1[] = { -1, -1, 1 };        /* W W W E: one format 3 */
    CHECK_EQ(best_cycle(c1, 3), 1);
    static const int c2[] = { 1, 1, 0 };          /* WE WE WN: one format 1 */
    CHECK_EQ(best_cycle(c2, 3), 1);
    static const int c3[] = { 2, -1, 0 };         /* WEE W WN: F2, F3, F1 */
    CHECK_EQ(best_cycle(c3, 3), 3);
    return test_report("test_pheader_optimal");
}
