/* setup.c - from the registers to what the stages read: the version and mode
 * (etm_mode_t), the filter's setup, and whether the model implements what the
 * registers select (etm_model_supports). */
#include <stdio.h>
#include <string.h>

#include "ctx.h"
#include "util.h"

/* Tracing runs: not powered down (ETMCR[0]) and not being programmed (ETMCR[10]). */
int etm_cr_enabled(uint32_t etmcr)
{
    return !(ETM_FIELD_GET(ETM_CR_POWERDOWN, etmcr) || ETM_FIELD_GET(ETM_CR_PROGRAMMING, etmcr));
}

static void mode_from_config(const etm_config_t *c, etm_mode_t *m)
{
    unsigned v = 0;
    etm_config_version(c, &v, NULL);
    memset(m, 0, sizeof *m);
    m->version = v;
    m->v3 = ETM_V_MAJOR(v) == 3;
    m->cycle_accurate = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, c->etmcr) != 0;
    m->branch_broadcast = ETM_FIELD_GET(ETM_CR_BRANCH_OUTPUT, c->etmcr) != 0;
    m->alt_branch = v >= ETM_V(3, 4) && ETM_FIELD_GET(ETM_IDR_ALT_BRANCH, c->etmidr);
    m->format4 = v >= ETM_V(3, 3);
    m->exc_ext = v >= ETM_V(3, 4);
    m->sync_in_bytes = v >= ETM_V(3, 1);
    m->enabled = etm_cr_enabled(c->etmcr);
    m->sync_period = ETM_FIELD_GET(ETM_SYNCFR_PERIOD, c->etmsyncfr);
    m->fifo_depth = c->fifo_depth;
    m->port_bytes = c->port_bytes;
    m->fifo_write = c->fifo_write;
    m->pkt_queue = m->v3 ? c->pkt_queue : 0;
    m->ph_eager = c->ph_eager != 0;
    m->branch_full = c->branch_full != 0;
    m->trace_id = (uint8_t)(m->v3 && v >= ETM_V(3, 0) ? ETM_FIELD_GET(ETM_TRACEIDR_ID, c->etmtraceidr) : 0);
    m->atb_flush = m->v3 && c->port_bytes > 1;
    unsigned psize = ETM_FIELD_GET(ETM_CR_PORTSIZE, c->etmcr);
    m->v1_port_bits = psize == 0 ? 4 : psize == 1 ? 8 : 16;
    m->data_addr = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, c->etmcr) & ETM_DATA_ACCESS_ADDR) != 0;
    m->data_value = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, c->etmcr) & ETM_DATA_ACCESS_VALUE) != 0;
    /* FIFOFULL where ETMFFRR lets it stall: with no range selected (the model's
     * only case), everywhere when it excludes, nowhere when it includes. */
    int ff_region = ETM_FIELD_GET(ETM_FFRR_EXCLUDE, c->etmffrr) != 0;
    m->fifofull_level = ETM_FIELD_GET(ETM_CR_STALL, c->etmcr) && ff_region ? ETM_FIELD_GET(ETM_FFLR_LEVEL, c->etmfflr) : 0;
    m->ph_m3 = m->v3 && c->ph_packing && !m->cycle_accurate;
    m->trace_start = m->v3 && c->trace_start;
    m->isync_info = (uint8_t)(c->isync_info & 1u);
    m->sync_m3 = m->v3 && c->sync_placement;
    m->tailchain_return = m->exc_ext && c->tailchain_return;
    m->cancel_withdraw = m->v3 && c->cancel_form;
}

/* The resources and comparator uses the filter stage evaluates (docs/filter.md). */
static etm_err_t filter_supports(const etm_config_t *c, unsigned v, etm_diag_t *diag)
{
    unsigned ncnt = ETM_FIELD_GET(ETM_CCR_COUNTERS, c->etmccr);
    int reduced1 = v >= ETM_V(3, 5) && ETM_FIELD_GET(ETM_CCER_REDUCED_COUNTER, c->etmccer);
    struct { const char *name; unsigned idx; uint32_t v; } ev[3 + 2 * ETM_NUM_COUNTERS];
    unsigned nev = 0;
    ev[nev].name = "ETMTEEVR", ev[nev].idx = 0, ev[nev++].v = c->etmteevr;
    ev[nev].name = "ETMTRIGGER", ev[nev].idx = 0, ev[nev++].v = c->etmtrigger;
    ev[nev].name = "ETMVDEVR", ev[nev].idx = 0, ev[nev++].v = c->etmvdevr;
    for (unsigned i = reduced1 ? 1 : 0; i < ncnt; i++) {
        ev[nev].name = "ETMCNTENR", ev[nev].idx = i + 1, ev[nev++].v = c->etmcntenr[i];
        ev[nev].name = "ETMCNTRLDEVR", ev[nev].idx = i + 1, ev[nev++].v = c->etmcntrldevr[i];
    }
    uint32_t used_single = (c->etmtecr2 & 0xffff) | (c->etmtsscr & 0xffff) | (c->etmtsscr >> 16) |
                           (c->etmvdcr1 & 0xffff) | (c->etmvdcr1 >> 16);
    uint32_t used_range = (c->etmtecr1 & 0xff) | (c->etmvdcr3 & 0xff) | ((c->etmvdcr3 >> 8) & 0xff);
    for (unsigned i = 0; i < nev; i++) {
        unsigned fn = (ev[i].v >> 14) & 7;
        unsigned rs[2] = { ev[i].v & 0x7f, (ev[i].v >> 7) & 0x7f };
        for (unsigned k = 0; k < (fn >= 2 ? 2u : 1u); k++) {
            unsigned r = rs[k], type = r >> 4, idx = r & 0xf;
            const char *what = NULL;
            if (type == 0)
                used_single |= 1u << idx;
            else if (type == 1 && idx < 8)
                used_range |= 1u << idx;
            else if (type == 1)
                what = "an instrumentation resource (the interface has no instrumentation inputs)";
            else if (type == 3)
                what = "a memory map decoder (implementation defined; not modelled)";
            else if (type == 5 && idx <= 2)
                what = "a sequencer state (the sequencer is not modelled)";
            else if (type == 5 && idx != 15)
                what = "a context ID or VMID comparator (the interface carries no context ID)";
            else if (type == 6 && idx != 15)
                what = idx < 12 ? "an external input (the interface has no external inputs)"
                                : "a security state resource (the interface has no security state)";
            if (what) {
                char name[24];
                snprintf(name, sizeof name, ev[i].idx ? "%s%u" : "%s", ev[i].name, ev[i].idx);
                return etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "%s resource %c is 0x%02X, %s", name, k ? 'B' : 'A',
                                     r, what);
            }
        }
    }
    if ((c->etmtecr1 >> 8) & 0xffff)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "ETMTECR1[23:8] selects memory map decoders, which are implementation defined and "
                             "not modelled");
    for (unsigned k = 0; k < 8; k++)
        if ((used_range >> k) & 1)
            used_single |= 3u << (2 * k);
    for (unsigned n = 0; n < ETM_NUM_ADDR_COMP; n++) {
        if (!((used_single >> n) & 1))
            continue;
        uint32_t actr = c->etmactr[n];
        unsigned type = actr & 7;
        if (type == 0)
            return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                 "ETMACTR%u access type 0b000 (instruction fetch): the interface carries no fetch "
                                 "addresses; use 0b001 (instruction executed)", n + 1);
        if ((actr >> 10) & 0xf)
            return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                 "ETMACTR%u selects a security state ([13:10]); the interface has no security state",
                                 n + 1);
        if ((n & 1) == 0 && ((used_range >> (n / 2)) & 1) && c->etmactr[n] != c->etmactr[n + 1])
            return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                 "address range comparator %u: ETMACTR%u and ETMACTR%u must be programmed alike "
                                 "(0x%08X, 0x%08X)", n / 2 + 1, n + 1, n + 2, (unsigned)c->etmactr[n],
                                 (unsigned)c->etmactr[n + 1]);
    }
    /* Which kind of item each selection may compare. */
    struct { const char *name; uint32_t singles, ranges; int want_data; } sel[] = {
        { "ETMTECR2 (include/exclude)", c->etmtecr2 & 0xffff, 0, 0 },
        { "ETMTECR1 (include/exclude)", 0, c->etmtecr1 & 0xff, 0 },
        { "ETMVDCR1 (ViewData)", (c->etmvdcr1 & 0xffff) | (c->etmvdcr1 >> 16), 0, 1 },
        { "ETMVDCR3 (ViewData)", 0, (c->etmvdcr3 & 0xff) | ((c->etmvdcr3 >> 8) & 0xff), 1 },
    };
    for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
        uint32_t all = sel[i].singles;
        for (unsigned k = 0; k < 8; k++)
            if ((sel[i].ranges >> k) & 1)
                all |= 1u << (2 * k);
        for (unsigned n = 0; n < ETM_NUM_ADDR_COMP; n++) {
            if (!((all >> n) & 1))
                continue;
            int data = (c->etmactr[n] & 7) >= 4;
            if (data != sel[i].want_data)
                return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                     "%s uses comparator %u, which compares %s; the model evaluates %s with %s "
                                     "comparators only", sel[i].name, n + 1, data ? "data addresses" : "instructions",
                                     sel[i].want_data ? "ViewData" : "include/exclude regions",
                                     sel[i].want_data ? "data address" : "instruction address");
        }
    }
    return ETM_OK;
}

etm_err_t etm_model_supports(const etm_config_t *c, etm_diag_t *diag)
{
    unsigned v = 0;
    etm_err_t e = etm_config_version(c, &v, diag);
    if (e != ETM_OK)
        return e;
    int v1 = ETM_V_MAJOR(v) == 1;
    for (size_t i = 0; i < etm_cr_unmodelled_count; i++)
        if ((c->etmcr & etm_cr_unmodelled[i].mask) && !(v1 ? etm_cr_unmodelled[i].v1_ok : etm_cr_unmodelled[i].v3_ok))
            return etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "the model does not implement %s",
                                 etm_cr_unmodelled[i].what);
    e = filter_supports(c, v, diag);
    if (e != ETM_OK)
        return e;
    if ((c->etmffrr & (ETM_FIELD_MASK(ETM_FFRR_RANGE) | ETM_FIELD_MASK(ETM_FFRR_DECODERS))) &&
        ETM_FIELD_GET(ETM_CCR_FIFOFULL, c->etmccr))
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "ETMFFRR=0x%08X selects address ranges or memory map decoders for FIFOFULL; the model "
                             "stalls everywhere (ETMFFRR[24] set, exclude nothing) or nowhere (clear) only",
                             (unsigned)c->etmffrr);
    if (c->fifo_depth < 24)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "FIFO_DEPTH=%u: the model needs 24 to 65535 bytes (at least the most one cycle "
                             "can produce when trace starts)", (unsigned)c->fifo_depth);
    int data = (c->etmcr & (ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR) |
                            ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE))) != 0;
    if (!v1 && c->pkt_queue && data)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "PKT_QUEUE=%u with ETMv3 data trace (ETMCR[3:2]): the packet generator's records "
                             "carry instruction trace only; use PKT_QUEUE=0", (unsigned)c->pkt_queue);
    if (!v1 && data && c->fifo_depth < 72)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "FIFO_DEPTH=%u: ETMv3 data trace (ETMCR[3:2]) needs at least 72 bytes, the most one "
                             "cycle can produce with data packets (docs/etmv3-encoder.md)", (unsigned)c->fifo_depth);
    return ETM_OK;
}

/* The mode and the filter's setup from the registers as they stand. */
void etm_refresh(etm_ctx_t *ctx)
{
    mode_from_config(&ctx->cfg, &ctx->mode);
    ctx->mode.enabled = ctx->mode.enabled && !ctx->rg.restart_q;
    etm_filter_setup(&ctx->cfg, ctx->mode.version, &ctx->fsetup);
    etm_fast_configure(ctx);
}
