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
}

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
