/* partaudit.c - the ETM-M3's implementation choices counted from a trace's
 * packets (partaudit.h). */
#include "partaudit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void partaudit_init(partaudit_t *a, int cycle_accurate)
{
    memset(a, 0, sizeof *a);
    a->ca = cycle_accurate;
    a->half_min = UINT64_MAX;
}

void partaudit_header(partaudit_t *a, uint64_t idx, uint8_t hdr, const char *s, unsigned n)
{
    unsigned e = 0, atoms = 0, w = 0;
    int ends_n = 0;
    for (unsigned k = 0; k < n; k++) {
        e += s[k] == 'E';
        atoms += s[k] == 'E' || s[k] == 'N';
        w += s[k] == 'W';
        ends_n = s[k] == 'N';
    }
    a->headers++;
    if ((hdr & 0xF3) == 0x82)
        a->format2++;
    if (!a->ca && hdr == 0xFC)
        a->fc++;
    /* The header before this one closed early: it held neither its N nor 15 E
     * and was not a restart's first. */
    if (a->have_prev && !a->prev_closed && !a->prev_first && a->early++ == 0)
        snprintf(a->first_early, sizeof a->first_early,
                 "the P-header at byte %" PRIu64 " closed after %u atoms without an N or 15 E, and another "
                 "P-header follows it at byte %" PRIu64, a->prev_idx, a->prev_atoms, idx);
    a->prev_first = 0;
    if (a->after_restart) {
        a->restarts++;
        a->first_alone += a->ca ? w == 1 : atoms == 1;
        a->after_restart = 0;
        a->prev_first = 1;
    }
    a->have_prev = 1;
    a->prev_closed = ends_n || e == 15;
    a->prev_atoms = atoms;
    a->prev_idx = idx;
}

static void end_run(partaudit_t *a, int cancel)
{
    if (cancel && a->have_prev) {
        a->cancels++;
        a->cancels_shared += a->prev_atoms > 1;
    }
    a->have_prev = 0;
}

void partaudit_isync(partaudit_t *a, uint8_t info, int periodic)
{
    end_run(a, 0);
    a->isyncs++;
    a->isync_bit0 += info & 1;
    if (!periodic) {
        a->after_restart = 1;
        return;
    }
    if (a->have_async) {
        uint64_t d = a->counted - a->async_at;
        a->halves++;
        a->half_min = d < a->half_min ? d : a->half_min;
        a->half_max = d > a->half_max ? d : a->half_max;
    }
}

void partaudit_async(partaudit_t *a)
{
    end_run(a, 0);
    a->async_at = a->counted;
    a->have_async = 1;
}

void partaudit_other(partaudit_t *a, int cancel) { end_run(a, cancel); }

void partaudit_bytes(partaudit_t *a, unsigned n) { a->counted += n; }

int partaudit_check(const partaudit_t *a, const partaudit_choices_t *c, char *msg, size_t size)
{
    if (c->ph_packing && a->format2) {
        snprintf(msg, size, "%" PRIu64 " of %" PRIu64 " P-headers are format 2 (PH_PACKING=1: format 1 only)",
                 a->format2, a->headers);
        return 1;
    }
    if (c->ph_packing && a->fc) {
        snprintf(msg, size, "%" PRIu64 " P-headers are 0xFC, 15 E and an N (PH_PACKING=1 closes at the 15th E)",
                 a->fc);
        return 1;
    }
    if (c->ph_packing && !c->eager && a->early) {
        snprintf(msg, size, "%s (%" PRIu64 " such; PH_PACKING=1 closes a header at its N or 15th E)",
                 a->first_early, a->early);
        return 1;
    }
    if (c->trace_start && a->first_alone != a->restarts) {
        snprintf(msg, size, "%" PRIu64 " of %" PRIu64 " restarts give the first %s a P-header of its own "
                 "(TRACE_START=1: all)", a->first_alone, a->restarts, a->ca ? "cycle" : "atom");
        return 1;
    }
    if (c->isync_bit0 && a->isync_bit0 != a->isyncs) {
        snprintf(msg, size, "%" PRIu64 " of %" PRIu64 " I-syncs have information bit 0 set (ISYNC_INFO: all)",
                 a->isync_bit0, a->isyncs);
        return 1;
    }
    if (!c->isync_bit0 && a->isync_bit0) {
        snprintf(msg, size, "%" PRIu64 " of %" PRIu64 " I-syncs have information bit 0 set (ISYNC_INFO: none)",
                 a->isync_bit0, a->isyncs);
        return 1;
    }
    if (c->sync_placement && c->sync_period && a->halves &&
        (a->half_min + PARTAUDIT_SLACK < c->sync_period / 2 || a->half_max > c->sync_period / 2 + PARTAUDIT_SLACK)) {
        snprintf(msg, size, "periodic I-syncs %" PRIu64 " to %" PRIu64 " bytes after their A-sync "
                 "(SYNC_PLACEMENT=1: half of ETMSYNCFR %" PRIu32 ", give or take %u)", a->half_min, a->half_max,
                 c->sync_period, (unsigned)PARTAUDIT_SLACK);
        return 1;
    }
    return 0;
}
