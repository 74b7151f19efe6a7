/* judge_ocsd.h - OpenCSD (Debian's libopencsd, written by others) as a decoder
 * for the judge: its full ETMv3 decoder with a Cortex-M profile, fed the
 * model's bytes, reporting to a judge_t (judge.h).
 *
 * OpenCSD attaches cycle counts to the elements it outputs, so when a Cancel
 * makes it withdraw the range of the cancelled atom, the W atoms of that
 * range's P-header vanish from its sums. The cycles did pass; the packet
 * monitor adds that header's count back.
 */
#ifndef ETM_TB_JUDGE_OCSD_H
#define ETM_TB_JUDGE_OCSD_H

#include <stddef.h>
#include <stdint.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include "etm/regmap.h"
#include "judge.h"

typedef struct judge_ocsd {
    dcd_tree_handle_t tree;
    judge_t *j;
    uint64_t fed;   /* bytes given to OpenCSD */
    int fatal;      /* OpenCSD gave up: nothing more is fed */
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
/* End of trace: OpenCSD's last error, if any, is a difference. */
void judge_ocsd_close(judge_ocsd_t *o);

#endif
