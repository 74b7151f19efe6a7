/* phaudit.h - how many P-headers an ETMv3 trace could have used: a bound worked
 * out from the atoms a decoder read, with no code of the encoder.
 *
 * Between two packets that are not P-headers (a flush point: branch address,
 * I-sync, A-sync, trigger, exception return, cycle count, ...) the P-headers
 * spell one string of atoms: E and N, and in cycle-accurate mode W (a cycle).
 * Any split of that string into strings that one header can carry says the
 * same thing, so the fewest headers for it is a lower bound on what an encoder
 * needs; it is found by dynamic programming over the formats of IHI 0014 7.3
 * (as OpenCSD reads them, ../shared/spec/opencsd-oracle.md):
 *
 *   not cycle-accurate   format 1  E{0..15} then at most one N (at least one atom)
 *                        format 2  any two atoms
 *   cycle-accurate       format 1  (W E){0..7} then at most one (W N), at least one atom
 *                        format 2  W and any two atoms
 *                        format 3  W{1..8}, then at most one E
 *                        format 4  one atom, no W (ETMv3.3 and later)
 *
 * One freedom is granted: before an exception packet with Cancel set, the last
 * header may hold the cancelled atom alone (docs/etmv3-encoder.md, "Cancel").
 * The caller says where (phaudit_flush's cancel): before ETMv3.4 also before a
 * plain branch packet, which is how an exception numbered 16 or more goes.
 * The string is not kept: the bound streams with the last 17 positions only,
 * so memory does not grow with the trace.
 */
#ifndef ETM_TB_PHAUDIT_H
#define ETM_TB_PHAUDIT_H

#include <stdint.h>

#define PHAUDIT_SPAN 17 /* longest string one header carries (16), plus one */

typedef struct phaudit {
    int ca, format4;
    /* The run since the last flush point. */
    uint64_t len;                  /* its length in atoms and W */
    uint64_t headers;              /* headers it used */
    uint64_t start;                /* byte index of its first header */
    uint32_t best[PHAUDIT_SPAN];   /* fewest headers for the first len-k characters, at (len-k) % SPAN */
    char tail[PHAUDIT_SPAN];       /* the last characters, at their position % SPAN */
    uint32_t best_before_last;     /* fewest headers for the run before its last header */
    char text[64];                 /* the run's end, for a message */
    unsigned ntext;
    /* Totals. */
    uint64_t total_headers, total_bound, runs, excess_runs;
    uint64_t first_excess_at;      /* byte index of the first run over the bound */
    char first_excess[200];        /* that run in words */
} phaudit_t;

void phaudit_init(phaudit_t *a, int cycle_accurate, int format4);
/* A P-header at byte idx, whose atoms read as s[0..n) ('E', 'N', 'W'). */
void phaudit_header(phaudit_t *a, uint64_t idx, const char *s, unsigned n);
/* Any other packet: the run ends. cancel: it is an exception packet with Cancel set. */
void phaudit_flush(phaudit_t *a, int cancel);

#endif
