/* phaudit.h - how compact an ETMv3 trace is: its P-headers, branch addresses
 * and synchronisation against bounds worked out from what a decoder read, with
 * no code of the encoder.
 *
 * P-headers.
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
 *
 * Branch addresses (IHI 0014 7.5.1): a packet needs the fewest address bytes
 * that cover every bit of A[31:1] that differs from the last address sent
 * (I-sync or branch). Original encoding: 1 to 4 bytes cover A[6:1], A[13:1],
 * A[20:1], A[27:1]; alternative encoding (ETMv3.4 with ETMIDR[20]) A[6:1],
 * A[12:1], A[19:1], A[26:1]; 5 bytes cover all. With exception bytes the
 * alternative encoding needs at least 2 address bytes and the original 5.
 *
 * Synchronisation (ETMSYNCFR, from ETMv3.1 a count of trace bytes): the
 * counter requests a sync every ETMSYNCFR bytes and the sync goes out at the
 * next instruction, after the packets that instruction's cycle puts first (a
 * trigger, the P-headers a branch closes, an exception return, a branch
 * packet; a cycle-count packet). So two periodic A-syncs (ones an I-sync of
 * reason periodic follows) lie ETMSYNCFR bytes apart, give or take those
 * packets: PHAUDIT_SYNC_SLACK bytes. Nearer is an extra sync, farther a late
 * one. The spacing counts the bytes of the packets the decoder read (the caller
 * hands them to phaudit_bytes) other than Ignore, which pads ATB words and
 * does not enter the FIFO; so the caller checks it only where those are the
 * ETM's packets (none taken out).
 */
#ifndef ETM_TB_PHAUDIT_H
#define ETM_TB_PHAUDIT_H

#include <stdint.h>

#define PHAUDIT_SPAN 17 /* longest string one header carries (16), plus one */
#define PHAUDIT_SYNC_SLACK 32

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
    /* Branch packets. */
    int alt;                       /* alternative encoding */
    uint32_t last_addr;
    int have_addr;
    uint64_t branches, branch_bytes, branch_bound, branch_over;
    char first_branch_over[200];
    /* Synchronisation. */
    uint32_t sync_period;          /* ETMSYNCFR in bytes; 0: not checked */
    int sync_late;                 /* a late periodic A-sync is no difference */
    int first_alone, restart;      /* phaudit_set_first_alone; an I-sync that starts trace came last */
    uint64_t counted;              /* bytes of the packets so far, Ignore not counted */
    uint64_t async_at, async_pending_at;
    int have_async, async_pending;
    uint64_t periodic_syncs, sync_gap_min, sync_gap_max, sync_off;
    char first_sync_off[200];
} phaudit_t;

void phaudit_init(phaudit_t *a, int cycle_accurate, int format4);
/* The branch encoding (alt: alternative) and ETMSYNCFR's period in bytes (0: none
 * or not checked); both are off until set. */
void phaudit_set_branch(phaudit_t *a, int alt);
void phaudit_set_sync(phaudit_t *a, uint32_t period_bytes);
/* late: a periodic A-sync may come any number of bytes late (SYNC_PLACEMENT=1
 * with headers held back: it waits for one that closes by itself); only an
 * early one is a difference. */
void phaudit_set_sync_late(phaudit_t *a, int late);
/* on: the first P-header after an I-sync that starts trace (not periodic)
 * stands alone (TRACE_START=1): a run of its own. */
void phaudit_set_first_alone(phaudit_t *a, int on);
/* A P-header at byte idx, whose atoms read as s[0..n) ('E', 'N', 'W'). */
void phaudit_header(phaudit_t *a, uint64_t idx, const char *s, unsigned n);
/* Any other packet: the run ends. cancel: it is an exception packet with Cancel set. */
void phaudit_flush(phaudit_t *a, int cancel);
/* The fewest address bytes for a branch packet from prev to next (exc: with exception bytes). */
unsigned phaudit_branch_min(uint32_t prev, uint32_t next, int alt, int exc);
/* A branch packet at byte idx to next, with addr_bytes address bytes. */
void phaudit_branch(phaudit_t *a, uint64_t idx, uint32_t next, unsigned addr_bytes, int exc);
/* An I-sync to addr (periodic: reason 0; overflow: reason 2), and an A-sync at byte idx. */
void phaudit_isync(phaudit_t *a, uint64_t idx, uint32_t addr, int periodic, int overflow);
void phaudit_async(phaudit_t *a, uint64_t idx);
/* After each packet but Ignore: its size in bytes. */
void phaudit_bytes(phaudit_t *a, unsigned n);

#endif
