/* judge_ocsd.h - OpenCSD (Debian's libopencsd, written by others) as a decoder
 * for the judge: its full ETMv3 decoder with a Cortex-M profile, fed the
 * model's bytes, reporting to a judge_t (judge.h).
 *
 * OpenCSD attaches cycle counts to the elements it outputs, so when a Cancel
 * makes it withdraw the range of the cancelled atom, the W atoms of that
 * range's P-header vanish from its sums. The cycles did pass; the packet
 * monitor adds that header's count back.
 *
 * The packet monitor also counts the P-headers against the fewest the atoms
 * between flush points need (phaudit.h). With the fewest-header packing
 * (PH_PACKING=0, PH_EAGER=0) and no data trace a header more than that is a
 * difference (TRACE_START=1: a restart's first header stands alone); otherwise
 * the figures are only reported (judge_ocsd_print_packing). And it counts the
 * implementation choices the configuration takes (partaudit.h): a trace that
 * breaks one is a difference.
 */
#ifndef ETM_TB_JUDGE_OCSD_H
#define ETM_TB_JUDGE_OCSD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include "etm/regmap.h"
#include "judge.h"
#include "partaudit.h"
#include "phaudit.h"

typedef struct judge_ocsd {
    dcd_tree_handle_t tree;
    judge_t *j;
    uint64_t fed;   /* bytes given to OpenCSD */
    int fatal;      /* OpenCSD gave up: nothing more is fed */
    int ca;         /* cycle-accurate: the cycle counts of cancelled atoms are added back */
    uint64_t kept_at_phdr; /* the judge's cancels_kept when the last packet was read */
    int exc_ext;    /* ETMv3.4 and later: every exception has its exception bytes */
    phaudit_t ph;   /* P-headers against the fewest possible */
    int ph_enforce; /* ... and more than that is a difference */
    int branch_enforce; /* a branch packet longer than it needs is a difference (not with BRANCH_FULL) */
    partaudit_t pa;     /* the implementation choices, counted */
    partaudit_choices_t choices; /* ... those the configuration takes */
    const uint64_t *cycles; /* judge_ocsd_feed_timed: the cycles of the bytes being fed */
    uint64_t cycles_base;   /* ... and the index of the first */
    size_t ncycles;
} judge_ocsd_t;

/* A full decoder for the configuration cfg (its register image, with data
 * trace off: OpenCSD 1.3.3's full decoder does not take data packets) that
 * reports to j; the code image is added with judge_ocsd_add_memory. Returns 0,
 * or -1 (OpenCSD refused) with a message on stderr. */
int judge_ocsd_open(judge_ocsd_t *o, const etm_config_t *cfg, judge_t *j);
/* The same for CoreSight-formatted input (a TPIU's pins or an ETB): OpenCSD's
 * own frame deformatter, configured by dfrmtr_flags (OCSD_DFRMTR_HAS_FSYNCS,
 * OCSD_DFRMTR_HAS_HSYNCS, OCSD_DFRMTR_FRAME_MEM_ALIGN), hands the decoder the
 * bytes of the configuration's trace ID (ETMTRACEIDR). 0: unformatted. */
int judge_ocsd_open_formatted(judge_ocsd_t *o, const etm_config_t *cfg, judge_t *j, uint32_t dfrmtr_flags);
void judge_ocsd_add_memory(judge_ocsd_t *o, uint32_t base, const uint8_t *bytes, uint32_t size);
/* The next n bytes of the stream (a fatal response is a difference). */
void judge_ocsd_feed(judge_ocsd_t *o, const uint8_t *bytes, size_t n);
/* The same, with the cycle each byte left the port (cycles[k] for bytes[k]),
 * for the judge's latency figures. */
void judge_ocsd_feed_timed(judge_ocsd_t *o, const uint8_t *bytes, const uint64_t *cycles, size_t n);
/* End of trace: OpenCSD's last error, if any, is a difference; so is a run of
 * P-headers longer than it needs to be, where that is enforced. */
void judge_ocsd_close(judge_ocsd_t *o);
/* "P-headers N, fewest possible M (K runs over)" on one line, after prefix, and
 * the latency when the bytes were fed with their cycles. */
void judge_ocsd_print_packing(const judge_ocsd_t *o, FILE *f, const char *prefix);

#endif
