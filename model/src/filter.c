/* filter.c - stage `filter`: TraceEnable and the trigger event.
 *
 * Events are "function of resources A and B" (17 bits: A [6:0], B [13:7],
 * function [16:14]). The resources evaluated are the hard-wired TRUE (0x6F) and
 * the EmbeddedICE/DWT comparator inputs (type 0b010, ETMTRIGGER[3:0]).
 * TraceEnable is the ETMTEEVR event with the ETMTECR1 include/exclude setting;
 * address comparators, counters and the start/stop block are rejected by
 * etm_model_supports() until they are modelled. The trigger fires once, in the
 * first cycle its event is true.
 */
#include <string.h>

#include "stages.h"

void etm_filter_reset(filter_state_t *s) { memset(s, 0, sizeof *s); }

static int resource(unsigned r, const etm_in_t *in)
{
    if (r == 0x6F)
        return 1;
    if ((r >> 4) == 2 && (r & 0xf) < 4)
        return (in->trigger >> (r & 0xf)) & 1;
    return 0;
}

static int event(uint32_t ev, const etm_in_t *in)
{
    int a = resource(ev & 0x7f, in), b = resource((ev >> 7) & 0x7f, in);
    switch ((ev >> 14) & 7) {
    case 0: return a;
    case 1: return !a;
    case 2: return a && b;
    case 3: return !a && b;
    case 4: return !a && !b;
    case 5: return a || b;
    case 6: return !a || b;
    default: return !a || !b;
    }
}

void etm_filter(filter_state_t *s, const etm_config_t *cfg, const etm_in_t *in, filter_out_t *out)
{
    int exclude = (cfg->etmtecr1 >> 24) & 1;
    /* With no region selected, exclude mode traces everywhere and include mode nowhere. */
    out->trace_enable = (uint8_t)(event(cfg->etmteevr, in) && exclude);
    out->trigger = 0;
    if (!s->triggered_q && event(cfg->etmtrigger, in)) {
        out->trigger = 1;
        s->triggered_q = 1;
    }
}
