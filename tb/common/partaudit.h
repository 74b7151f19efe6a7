/* partaudit.h - the ETM-M3's implementation choices counted from the bytes of
 * a trace, with no code of the encoder (docs/silicon.md says what the part
 * does and where the capture shows it).
 *
 * The caller (judge_ocsd.c) hands over every packet a decoder read, in order:
 * each P-header with its byte and its atoms ('E', 'N', 'W'), each I-sync with
 * its information byte and reason, each A-sync, each other packet (with
 * whether it is an exception packet with Cancel set), and the size of each
 * packet but Ignore. partaudit counts:
 *
 *   headers     P-headers; format2: of format 2; fc: 0xFC, format 1 with 15 E
 *               and an N; early: closed before their N or their 15th E while
 *               another P-header follows them (not the first after a restart)
 *   restarts    I-syncs that start trace (not periodic) followed by a
 *               P-header; first_alone: that header holds the first atom alone
 *               (cycle-accurate: the first cycle's)
 *   isyncs      I-syncs; isync_bit0: their information byte has bit 0 set
 *   cancels     exception packets with Cancel set after a P-header;
 *               cancels_shared: that header holds other atoms too
 *   halves      periodic I-syncs; their distance in bytes from the A-sync
 *               before them (min, max)
 *
 * partaudit_check then says, for the choices a configuration takes, which
 * counts break them: PH_PACKING=1 no format 2, no 0xFC, no early close (but
 * with PH_EAGER, whose flush hints close headers early);
 * TRACE_START=1 every restart's first atom alone; ISYNC_INFO bit 0 in every
 * I-sync; SYNC_PLACEMENT=1 every periodic I-sync half a sync period after its
 * A-sync (give or take PARTAUDIT_SLACK bytes). Memory does not grow with the
 * trace.
 */
#ifndef ETM_TB_PARTAUDIT_H
#define ETM_TB_PARTAUDIT_H

#include <stddef.h>
#include <stdint.h>

#define PARTAUDIT_SLACK 32

typedef struct partaudit {
    int ca;
    /* Counts. */
    uint64_t headers, format2, fc, early;
    uint64_t restarts, first_alone;
    uint64_t isyncs, isync_bit0;
    uint64_t cancels, cancels_shared;
    uint64_t halves, half_min, half_max;
    char first_early[160];
    /* The run of P-headers since the last other packet. */
    int have_prev;          /* a P-header came before in this run */
    int prev_closed;        /* ... ending at its N or its 15th E */
    int prev_first;         /* ... the first after a restart */
    unsigned prev_atoms;    /* ... holding this many atoms */
    uint64_t prev_idx;
    int after_restart;      /* the last packet was an I-sync that starts trace */
    /* Bytes. */
    uint64_t counted, async_at;
    int have_async;
} partaudit_t;

/* The choices to check (regs.def, "choice:"). */
typedef struct partaudit_choices {
    int ph_packing, trace_start, isync_bit0, sync_placement;
    int eager; /* PH_EAGER: a flush hint may close a header early */
    uint32_t sync_period; /* ETMSYNCFR in bytes; 0: not checked */
} partaudit_choices_t;

void partaudit_init(partaudit_t *a, int cycle_accurate);
void partaudit_header(partaudit_t *a, uint64_t idx, uint8_t hdr, const char *s, unsigned n);
void partaudit_isync(partaudit_t *a, uint8_t info, int periodic);
void partaudit_async(partaudit_t *a);
/* Any packet but a P-header, an I-sync or an A-sync (cancel: an exception
 * packet with Cancel set). */
void partaudit_other(partaudit_t *a, int cancel);
void partaudit_bytes(partaudit_t *a, unsigned n);
/* 0 when the counts keep the choices c; else 1 and the first broken rule in
 * msg. */
int partaudit_check(const partaudit_t *a, const partaudit_choices_t *c, char *msg, size_t size);

#endif
