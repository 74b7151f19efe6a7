/* phaudit.c - the fewest P-headers for the atoms between two flush points (phaudit.h). */
#include "phaudit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NONE 0xFFFFFFFFu

void phaudit_init(phaudit_t *a, int cycle_accurate, int format4)
{
    memset(a, 0, sizeof *a);
    a->ca = cycle_accurate;
    a->format4 = format4;
    a->first_excess_at = UINT64_MAX;
    a->sync_gap_min = UINT64_MAX;
}

void phaudit_set_branch(phaudit_t *a, int alt) { a->alt = alt; }
void phaudit_set_sync(phaudit_t *a, uint32_t period_bytes) { a->sync_period = period_bytes; }
void phaudit_set_sync_late(phaudit_t *a, int late) { a->sync_late = late; }
void phaudit_set_first_alone(phaudit_t *a, int on) { a->first_alone = on; }

static int atom(char c) { return c == 'E' || c == 'N'; }

/* Can one header carry exactly t[0..n)? */
static int one_header(const phaudit_t *a, const char *t, unsigned n)
{
    if (!a->ca) {
        if (n == 2)
            return 1; /* format 2 */
        unsigned e = 0;
        while (e < n && t[e] == 'E')
            e++;
        return e <= 15 && (e == n || (e + 1 == n && t[e] == 'N')); /* format 1 */
    }
    if (n == 1 && atom(t[0]))
        return a->format4; /* format 4 */
    if (n == 3 && t[0] == 'W' && atom(t[1]) && atom(t[2]))
        return 1; /* format 2 */
    unsigned w = 0;
    while (w < n && t[w] == 'W')
        w++;
    if (w >= 1 && w <= 8 && (w == n || (w + 1 == n && t[w] == 'E')))
        return 1; /* format 3 */
    if (n % 2 || n == 0)
        return 0;
    unsigned e = 0;
    for (unsigned k = 0; k < n; k += 2) { /* format 1: (W E)... then (W N) at most once, last */
        if (t[k] != 'W' || !atom(t[k + 1]))
            return 0;
        if (t[k + 1] == 'N' && k + 2 != n)
            return 0;
        e += t[k + 1] == 'E';
    }
    return e <= 7;
}

static void put_char(phaudit_t *a, char c)
{
    a->tail[a->len % PHAUDIT_SPAN] = c;
    a->len++;
    if (a->ntext + 1 >= sizeof a->text) {
        memmove(a->text, a->text + 16, a->ntext - 16);
        a->ntext -= 16;
    }
    a->text[a->ntext++] = c;
    a->text[a->ntext] = '\0';
    /* The fewest headers for the first len characters. */
    char t[PHAUDIT_SPAN];
    uint32_t best = NONE;
    for (unsigned n = 1; n < PHAUDIT_SPAN && n <= a->len; n++) {
        uint32_t before = a->best[(a->len - n) % PHAUDIT_SPAN];
        if (before == NONE)
            continue;
        for (unsigned k = 0; k < n; k++)
            t[k] = a->tail[(a->len - n + k) % PHAUDIT_SPAN];
        if (before + 1 < best && one_header(a, t, n))
            best = before + 1;
    }
    a->best[a->len % PHAUDIT_SPAN] = best;
}

void phaudit_header(phaudit_t *a, uint64_t idx, const char *s, unsigned n)
{
    if (a->headers == 0)
        a->start = idx;
    a->best_before_last = a->best[a->len % PHAUDIT_SPAN];
    a->headers++;
    for (unsigned k = 0; k < n; k++)
        put_char(a, s[k]);
    if (a->restart && a->first_alone)
        phaudit_flush(a, 0); /* a restart's first header: a run of its own */
    a->restart = 0;
}

void phaudit_flush(phaudit_t *a, int cancel)
{
    if (a->headers) {
        uint32_t bound = a->best[a->len % PHAUDIT_SPAN];
        if (cancel && a->best_before_last != NONE && a->best_before_last + 1 > bound)
            bound = a->best_before_last + 1; /* the cancelled atom may stand alone */
        a->runs++;
        a->total_headers += a->headers;
        a->total_bound += bound;
        if (bound != NONE && a->headers > bound) {
            a->excess_runs++;
            if (a->first_excess_at == UINT64_MAX) {
                a->first_excess_at = a->start;
                snprintf(a->first_excess, sizeof a->first_excess,
                         "%" PRIu64 " P-headers from byte %" PRIu64 " carry %" PRIu64 " atoms and W (ending %s%s)"
                         " where %u would do",
                         a->headers, a->start, a->len, a->len > a->ntext ? "..." : "", a->text, (unsigned)bound);
            }
        }
    }
    a->len = 0;
    a->headers = 0;
    a->ntext = 0;
    a->text[0] = '\0';
    a->best[0] = 0;
}

unsigned phaudit_branch_min(uint32_t prev, uint32_t next, int alt, int exc)
{
    static const unsigned top_orig[4] = { 6, 13, 20, 27 }, top_alt[4] = { 6, 12, 19, 26 };
    const unsigned *top = alt ? top_alt : top_orig;
    uint32_t d = (prev ^ next) & ~1u;
    unsigned hi = 0; /* the highest bit that differs */
    for (unsigned b = 1; b < 32; b++)
        if (d >> b & 1)
            hi = b;
    unsigned n = 5;
    for (unsigned k = 0; k < 4; k++)
        if (hi <= top[k]) {
            n = k + 1;
            break;
        }
    if (exc && alt && n < 2)
        n = 2;
    if (exc && !alt)
        n = 5;
    return n;
}

void phaudit_branch(phaudit_t *a, uint64_t idx, uint32_t next, unsigned addr_bytes, int exc)
{
    if (a->have_addr) {
        unsigned min = phaudit_branch_min(a->last_addr, next, a->alt, exc);
        a->branches++;
        a->branch_bytes += addr_bytes;
        a->branch_bound += min;
        if (addr_bytes > min && a->branch_over++ == 0)
            snprintf(a->first_branch_over, sizeof a->first_branch_over,
                     "the branch packet at byte %" PRIu64 " from 0x%08" PRIx32 " to 0x%08" PRIx32
                     " has %u address bytes where %u would do (%s encoding%s)",
                     idx, a->last_addr, next, addr_bytes, min, a->alt ? "alternative" : "original",
                     exc ? ", exception bytes" : "");
    }
    a->last_addr = next;
    a->have_addr = 1;
}

void phaudit_isync(phaudit_t *a, uint64_t idx, uint32_t addr, int periodic, int overflow)
{
    (void)idx;
    a->last_addr = addr;
    a->have_addr = 1;
    a->restart = !periodic;
    if (overflow) { /* bytes were lost: the spacing starts again */
        a->have_async = 0;
        a->async_pending = 0;
        return;
    }
    if (!a->async_pending)
        return;
    a->async_pending = 0;
    if (periodic && a->have_async && a->sync_period) {
        uint64_t gap = a->async_pending_at - a->async_at;
        a->periodic_syncs++;
        a->sync_gap_min = gap < a->sync_gap_min ? gap : a->sync_gap_min;
        a->sync_gap_max = gap > a->sync_gap_max ? gap : a->sync_gap_max;
        if ((gap + PHAUDIT_SYNC_SLACK < a->sync_period ||
             (gap > a->sync_period + PHAUDIT_SYNC_SLACK && !a->sync_late)) &&
            a->sync_off++ == 0)
            snprintf(a->first_sync_off, sizeof a->first_sync_off,
                     "the periodic A-sync after %" PRIu64 " bytes of packets comes %" PRIu64
                     " bytes after the one before it, ETMSYNCFR asks for %" PRIu32 " (give or take %u)",
                     a->async_pending_at, gap, a->sync_period, (unsigned)PHAUDIT_SYNC_SLACK);
    }
    a->async_at = a->async_pending_at;
    a->have_async = 1;
}

void phaudit_async(phaudit_t *a, uint64_t idx)
{
    (void)idx;
    a->async_pending_at = a->counted;
    a->async_pending = 1;
}

void phaudit_bytes(phaudit_t *a, unsigned n) { a->counted += n; }
