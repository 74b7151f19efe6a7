/* etm.c - the model's top level: one etm_step = one rising clock edge through
 * the stages check, frontend, filter, pheader/packet and fifo. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "etm/model.h"
#include "stages.h"
#include "etm/watch.h"
#include "util.h"

#define MAX_RULES_KEPT 8

#define RP_MAX_STATS 6 /* the repeat path's statistics a cycle may move */
/* The state counters a repeated cycle may move (the repeat path, below). */
enum { RP_WTOTAL, RP_WRUN, RP_SINCE_FULL, RP_SYNC, RP_PQ_NOW, RP_NCOUNT };
/* The records' queue but for the records themselves: its ends, its flags, the
 * stage's cycle count and the generator. All of it may change in a cycle (the
 * repeat path keeps and compares it whole); the records waiting change only
 * where head or len move. */
typedef struct pq_state {
    uint8_t head, len;
    uint8_t busy;     /* gen holds the record being generated */
    uint8_t gap;      /* records were lost after the last one queued */
    uint8_t ovf;      /* overflow: records are lost until the generator and the FIFO are empty */
    uint8_t untraced; /* an overflow whose restart I-sync is not made yet (OVERFLOW, ETMSR[0]) */
    uint8_t te;       /* TraceEnable in the last cycle (etm_packet_wants) */
    uint8_t tail_plain; /* the newest record queued was a plain cycle's (step_plain_queued) */
    uint32_t now;     /* the stage's cycle count (what wtotal_q counts without records) */
    pk_gen_t gen;
} pq_state_t;

struct etm_ctx {
    etm_config_t cfg;  /* the registers as they stand (the programmer's model writes them) */
    etm_config_t cfg0; /* as at init: etm_reset returns to it */
    etm_mode_t mode;
    regs_state_t rg;
    etm_check_t chk;
    etm_rule_t last_rules[MAX_RULES_KEPT];
    unsigned nlast;
    uint64_t last_mask; /* the rules of the last cycle, bit r for etm_rule_t r */
    filter_setup_t fsetup;
    filter_state_t flt;
    packet_state_t pk;
    pipestat_state_t ps;
    etm_stats_t st;
    int ended;
    int end_wait; /* etm_end's bytes found no room: they wait for the next drain edge */
    int owned;     /* allocated by etm_create */
    int watch;     /* etm_watch_create: the stages up to the filter only */
    etm_in_t idle_in; /* all zero: a cycle with no core activity */
    /* The repeat path (docs/performance.md, "The repeat path"). */
    uint8_t rp_on;      /* the state is a fixed point of rp_in: the next cycle with rp_in gives rp_out */
    uint8_t rp_off;     /* etm_set_repeat_path(ctx, 0) */
    uint8_t rp_have;    /* rp_in holds the last cycle's inputs (it had no instruction, no APB access) */
    uint8_t rp_run;     /*   the cycles before it with the same (up to RP_TRY_AFTER) */
    uint8_t rp_wait;    /* cycles before the next try, */
    uint8_t rp_backoff; /*   and the wait after a try that fails */
    uint8_t rp_miss;    /* quiet cycles since one that made a run long enough to be tried */
    uint8_t rp_pause;   /* cycles left before quiet cycles' inputs are compared again */
    uint8_t rp_ncount;  /* counters the cycle moves by one (RP_*), */
    uint32_t rp_count_off[RP_NCOUNT]; /*   each as its offset in the context */
    uint32_t rp_budget; /* cycles it may repeat before one of them reaches its limit */
    uint8_t rp_nst;     /* statistics it moves: which (a uint64_t's index), */
    uint8_t rp_st_idx[RP_MAX_STATS];
    uint64_t rp_st_add[RP_MAX_STATS]; /*   by how much */
    uint64_t rp_count;  /* cycles it gave */
    etm_in_t rp_in;     /* the last cycle's inputs, if rp_have */
    etm_out_t rp_out;   /* what they gave, once rp_on */
    etm_seen_t rp_seen; /*   (a watching instance: what it saw) */
    /* The plain-cycle path (docs/performance.md, "The plain-cycle path"). */
    uint8_t plain_cfg;   /* the configuration allows it (refresh) */
    uint64_t plain_forbid[2][sizeof(etm_in_t) / 8]; /* the input bits a plain cycle has none of: [ETMIVALID] */
    uint8_t plain_off;   /* etm_set_plain_path(ctx, 0) */
    etm_out_t plain_out; /* a plain cycle's outputs before its FIFO cycle: all of them while
                            the FIFO is idle (refresh) */
    uint8_t plain_go;    /* plain_state() as the last cycle left it (0: not known, as after
                            anything outside etm_step changed the state: rp_leave, refresh) */
    uint64_t plain_count; /* cycles it gave */
    /* The packet generator's records (PKT_QUEUE > 0; docs/etmv3-encoder.md, "Records"). */
    pk_record_t pq_rec[ETM_MAX_PKT_QUEUE]; /* waiting, oldest at pq.head */
    pq_state_t pq;
    fifo_state_t fifo; /* last: the largest */
};

/* What a cycle may change, less the FIFO's store (written only where its level
 * or read pointer moves, which the header holds). */
typedef struct rp_snap {
    regs_state_t rg;
    etm_check_t chk;
    filter_state_t flt;
    packet_state_t pk;
    etm_stats_t st;
    int end_wait;
    uint8_t fifo[offsetof(fifo_state_t, mem)];
    pipestat_state_t ps;
    pq_state_t pq; /* with records */
} rp_snap_t;

static const char *const pkt_names[ETM_PKT_ALL_COUNT] = {
    "P-header format 1", "P-header format 2", "P-header format 3", "P-header format 4",
    "branch address", "branch address with exception", "A-sync", "I-sync", "I-sync with cycle count",
    "cycle count", "trigger", "exception return", "ignore",
    "normal data", "value not traced", "out-of-order placeholder", "out-of-order data", "store failed",
};

const char *etm_pkt_kind_name(etm_pkt_kind_t k) { return (unsigned)k < ETM_PKT_ALL_COUNT ? pkt_names[k] : "?"; }

size_t etm_ctx_size(void) { return sizeof(struct etm_ctx); }
size_t etm_stats_size(void) { return sizeof(etm_stats_t); }

/* Tracing runs: not powered down (ETMCR[0]) and not being programmed (ETMCR[10]). */
static int cr_enabled(uint32_t etmcr)
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
    m->enabled = cr_enabled(c->etmcr);
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
    m->fifofull_level = ETM_FIELD_GET(ETM_CR_STALL, c->etmcr) ? ETM_FIELD_GET(ETM_FFLR_LEVEL, c->etmfflr) : 0;
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
    if (c->fifo_depth < 24)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "FIFO_DEPTH=%u: the model needs at least 24 bytes, the most one cycle can produce "
                             "when trace starts", (unsigned)c->fifo_depth);
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

etm_err_t etm_ctx_init(etm_ctx_t *ctx, const etm_config_t *cfg, etm_diag_t *diag)
{
    etm_err_t e = etm_config_validate(cfg, diag, NULL);
    if (e != ETM_OK)
        return e;
    e = etm_model_supports(cfg, diag);
    if (e != ETM_OK)
        return e;
    ctx->cfg0 = *cfg;
    ctx->owned = 0;
    ctx->watch = 0;
    ctx->rp_off = 0;
    ctx->plain_off = 0;
    etm_reset(ctx);
    return ETM_OK;
}

etm_err_t etm_ctx_init_at_reset(etm_ctx_t *ctx, const etm_config_t *impl, etm_diag_t *diag)
{
    etm_err_t e = etm_ctx_init(ctx, impl, diag);
    if (e != ETM_OK)
        return e;
    etm_config_at_reset(&ctx->cfg0);
    etm_reset(ctx);
    return ETM_OK;
}

/* Sets the bits of field (at off, size bytes) that are in bits, in a byte
 * image of etm_in_t: the host's byte order, as a record in memory. */
static void forbid(unsigned char *img, size_t off, size_t size, uint64_t bits)
{
    unsigned char b[8];
    if (size == 1) {
        b[0] = (unsigned char)bits;
    } else if (size == 2) {
        uint16_t v = (uint16_t)bits;
        memcpy(b, &v, 2);
    } else if (size == 4) {
        uint32_t v = (uint32_t)bits;
        memcpy(b, &v, 4);
    } else {
        memcpy(b, &bits, 8);
    }
    for (size_t i = 0; i < size; i++)
        img[off + i] |= b[i];
}
#define FORBID(img, field, bits) forbid(img, offsetof(etm_in_t, field), sizeof(((etm_in_t *)0)->field), bits)

/* plain_in's masks (the plain-cycle path, below): the signals no plain cycle
 * has; with an instruction ETMISTALL; without one, the instruction's
 * qualifiers; ETMFLUSH under PH_EAGER. */
static void plain_masks(etm_ctx_t *ctx)
{
    unsigned char img[2][sizeof(etm_in_t)];
    memset(img, 0, sizeof img);
    for (int insn = 0; insn < 2; insn++) {
        unsigned char *m = img[insn];
        FORBID(m, psel, ~0ull);
        FORBID(m, cancel, ~0ull);
        FORBID(m, intstat, ~0ull);
        FORBID(m, trigger, ~0ull);
        FORBID(m, ivalid1, ~0ull);
        FORBID(m, ibranch1, ~0ull);
        FORBID(m, iindbr1, ~0ull);
        FORBID(m, iccfail1, ~0ull);
        FORBID(m, dactl, 3); /* DASlot */
        FORBID(m, ddctl, 3); /* DDSlot */
        if (ctx->mode.ph_eager)
            FORBID(m, flush, ~0ull);
        if (insn) {
            FORBID(m, istall, ~0ull);
        } else {
            FORBID(m, ibranch, ~0ull);
            FORBID(m, iindbr, ~0ull);
            FORBID(m, iccfail, ~0ull);
            FORBID(m, fold, ~0ull);
        }
        memcpy(ctx->plain_forbid[insn], m, sizeof(etm_in_t));
    }
}

/* The mode and the filter's setup from the registers as they stand. */
static void refresh(etm_ctx_t *ctx)
{
    mode_from_config(&ctx->cfg, &ctx->mode);
    ctx->mode.enabled = ctx->mode.enabled && !ctx->rg.restart_q;
    etm_filter_setup(&ctx->cfg, ctx->mode.version, &ctx->fsetup);
    const etm_mode_t *m = &ctx->mode;
    /* plain_in reads the record as words ("Records as words": etm_in_t holds a uint64_t, its size is a multiple of 8). */
    ctx->plain_cfg = (uint8_t)(m->v3 && m->enabled && !m->data_addr && !m->data_value && ctx->fsetup.plain &&
                               !ctx->plain_off && sizeof(etm_in_t) % 8 == 0);
    ctx->plain_go = 0; /* the next cycle finds out */
    plain_masks(ctx);
    memset(&ctx->plain_out, 0, sizeof ctx->plain_out);
    ctx->plain_out.pready = 1;
    ctx->plain_out.trace_enable = 1;
    ctx->plain_out.fifofull = (uint8_t)(m->fifo_depth < m->fifofull_level); /* as fifofull() with nothing held */
}

static etm_err_t create(etm_ctx_t **out, const etm_config_t *cfg, int at_reset, etm_diag_t *diag)
{
    *out = NULL;
    etm_ctx_t *ctx = (etm_ctx_t *)malloc(sizeof *ctx);
    if (!ctx)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    etm_err_t e = at_reset ? etm_ctx_init_at_reset(ctx, cfg, diag) : etm_ctx_init(ctx, cfg, diag);
    if (e != ETM_OK) {
        free(ctx);
        return e;
    }
    ctx->owned = 1;
    *out = ctx;
    return ETM_OK;
}

etm_err_t etm_create(etm_ctx_t **out, const etm_config_t *cfg, etm_diag_t *diag) { return create(out, cfg, 0, diag); }

etm_err_t etm_create_at_reset(etm_ctx_t **out, const etm_config_t *impl, etm_diag_t *diag)
{
    return create(out, impl, 1, diag);
}

void etm_destroy(etm_ctx_t *ctx)
{
    if (ctx && ctx->owned)
        free(ctx);
}

/* The packet generator's records: none. */
static void pq_reset(etm_ctx_t *ctx)
{
    memset(&ctx->pq, 0, sizeof ctx->pq);
}

void etm_reset(etm_ctx_t *ctx)
{
    ctx->rp_on = ctx->rp_have = ctx->rp_run = ctx->rp_wait = ctx->rp_backoff = 0;
    ctx->rp_miss = ctx->rp_pause = 0;
    ctx->rp_count = 0;
    ctx->plain_count = 0;
    memset(&ctx->rp_in, 0, sizeof ctx->rp_in);
    ctx->cfg = ctx->cfg0;
    ctx->last_mask = 0;
    unsigned version = 0;
    etm_config_version(&ctx->cfg, &version, NULL);
    etm_regs_reset(&ctx->rg, version);
    refresh(ctx);
    etm_check_init(&ctx->chk, &ctx->cfg);
    ctx->nlast = 0;
    etm_filter_reset(&ctx->flt, &ctx->fsetup);
    etm_packet_reset(&ctx->pk);
    pq_reset(ctx);
    etm_pipestat_reset(&ctx->ps);
    memset(&ctx->idle_in, 0, sizeof ctx->idle_in);
    etm_fifo_reset(&ctx->fifo);
    memset(&ctx->st, 0, sizeof ctx->st);
    ctx->ended = 0;
    ctx->end_wait = 0;
}

const etm_stats_t *etm_get_stats(const etm_ctx_t *ctx) { return &ctx->st; }
const etm_config_t *etm_get_config(const etm_ctx_t *ctx) { return &ctx->cfg; }

uint64_t etm_last_rule_mask(const etm_ctx_t *ctx) { return ctx->last_mask; }

unsigned etm_last_rules(const etm_ctx_t *ctx, etm_rule_t *rules, unsigned max)
{
    unsigned n = ctx->nlast < max ? ctx->nlast : max;
    memcpy(rules, ctx->last_rules, n * sizeof *rules);
    return ctx->nlast;
}

static void clear_out(etm_out_t *out) { memset(out, 0, sizeof *out); }

/* The generator has nothing left: no record waiting or being generated, no gap. */
static int pq_idle(const etm_ctx_t *ctx) { return !(ctx->pq.len | ctx->pq.busy | ctx->pq.gap); }

/* Anything that changes the state outside etm_step ends a fixed point. */
static void rp_leave(etm_ctx_t *ctx)
{
    ctx->rp_on = 0;
    ctx->plain_go = 0;
}

/* FIFOFULL after the cycle (ETMCR[7]): fewer than ETMFFLR bytes free, or with
 * records PKT_QUEUE of them waiting, so that the next would be lost (the
 * store's level alone does not see the records the generator is behind by). */
static void fifofull(etm_ctx_t *ctx, etm_out_t *out)
{
    unsigned held = etm_fifo_counted(&ctx->fifo, &ctx->mode);
    unsigned free_bytes = held < ctx->mode.fifo_depth ? ctx->mode.fifo_depth - held : 0;
    out->fifofull = (uint8_t)(free_bytes < ctx->mode.fifofull_level ||
                              (ctx->mode.fifofull_level && ctx->mode.pkt_queue && ctx->pq.len >= ctx->mode.pkt_queue));
    ctx->st.fifofull_cycles += out->fifofull;
}

unsigned etm_fifo_level(const etm_ctx_t *ctx) { return etm_fifo_counted(&ctx->fifo, &ctx->mode); }

static etm_err_t end_try(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);
static void pq_finish_external(etm_ctx_t *ctx);

unsigned etm_port_take(etm_ctx_t *ctx, uint8_t *buf, unsigned max)
{
    if (!ctx->mode.v3 || ctx->mode.port_bytes)
        return 0;
    rp_leave(ctx);
    unsigned n = etm_fifo_take(&ctx->fifo, buf, max);
    ctx->st.port_bytes += n;
    if (ctx->mode.pkt_queue) {
        if (ctx->ended && n)
            pq_finish_external(ctx);
    } else if (ctx->end_wait && n) {
        end_try(ctx, NULL, NULL);
        if (ctx->ended)
            etm_fifo_settle(&ctx->fifo); /* no more cycles to let them through */
    }
    return n;
}

/* Bytes that went into the FIFO: counted in the statistics. */
static ETM_INLINE void count_bytes(etm_ctx_t *ctx, const cycle_buf_t *c)
{
    if (!c->n) /* no bytes, no packets */
        return;
    ctx->st.bytes += c->n;
    for (uint32_t m = c->kmask; m; m &= m - 1) {
        unsigned k = etm_lowest_bit(m);
        ctx->st.packets[k] += c->kinds[k];
    }
}

/* The cycle's packets were accepted into the FIFO: count them. */
static ETM_INLINE void count_accepted(etm_ctx_t *ctx, const cycle_buf_t *c)
{
    etm_packet_accepted(&ctx->pk, &ctx->mode, c);
    count_bytes(ctx, c);
}

/* The port, then the cycle's bytes into the FIFO, or an overflow when they do
 * not fit (or, never expected, did not fit the cycle buffer). No roll-back:
 * after an overflow the encoder keeps the state the cycle left, and
 * etm_packet_overflow drops what it had gathered (P-headers, data transfers
 * waiting for values) and waits for the FIFO to empty; the A-sync of a dropped
 * cycle never went out, so it is still to be sent (started_before). */
static ETM_INLINE void commit_cycle(etm_ctx_t *ctx, const etm_in_t *in, uint8_t started_before, cycle_buf_t *c,
                                    etm_out_t *out)
{
    int fit = etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, c->b, c->overrun ? 0 : c->n, out) && !c->overrun;
    if (fit) {
        count_accepted(ctx, c);
        ctx->pk.single_q = c->last_single;
        ctx->st.atoms += c->atoms;
    } else {
        ctx->pk.started_q = started_before;
        etm_packet_overflow(&ctx->pk);
        ctx->st.overflows++;
        ctx->st.stage_overflows += ctx->fifo.stage_full;
        ctx->st.bytes_lost += c->n + c->overrun;
        ctx->st.cycles_lost++;
    }
    ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
    ctx->st.internal_errors += c->overrun != 0;
    out->overflow = (uint8_t)(!fit || ctx->pk.ovf_q);
    ctx->st.port_bytes += out->v3_count;
}

/* What the status registers and ETMCNTVR read in this cycle. */
static void live_values(const etm_ctx_t *ctx, regs_live_t *l)
{
    l->overflow = !ctx->mode.v3 ? ctx->ps.ovf_q : ctx->mode.pkt_queue ? ctx->pq.untraced : etm_packet_untraced(&ctx->pk);
    l->drained = !ctx->rg.stop_q && etm_fifo_held(&ctx->fifo) == 0 &&
                 (ctx->mode.v3 ? !ctx->end_wait : !etm_pipestat_busy(&ctx->ps));
    l->ss = ctx->flt.ss_q;
    l->triggered = ctx->flt.triggered_q;
    l->live_cnt = ctx->mode.enabled || ctx->rg.stop_q;
    for (unsigned i = 0; i < ETM_NUM_COUNTERS; i++)
        l->cnt[i] = ctx->flt.cnt_q[i];
}

/* The cycle after tracing was enabled: the trace stages start again from
 * reset, as after etm_reset; ETMv3 bytes already in the FIFO still leave it,
 * an ETMv1 FIFO (whose bytes belong to the PIPESTAT sequence) is emptied: its
 * bytes are lost, counted and signalled (OVERFLOW) as an overflow's; returns 1
 * then. Trace restarts with A-sync and I-sync (ETMv3) or TRACESYNC (ETMv1) at
 * the next traced instruction. */
static int restart_stages(etm_ctx_t *ctx)
{
    etm_filter_reset(&ctx->flt, &ctx->fsetup);
    etm_packet_reset(&ctx->pk);
    pq_reset(ctx);
    etm_pipestat_reset(&ctx->ps);
    ctx->end_wait = 0;
    int dropped = 0;
    if (!ctx->mode.v3) {
        /* Bytes still there (programmed again before ETMSR[1] said the port had
         * drained) are lost, as to an overflow. */
        dropped = ctx->fifo.level_q != 0;
        ctx->st.bytes_lost += ctx->fifo.level_q;
        ctx->st.overflows += (unsigned)dropped;
        etm_fifo_reset(&ctx->fifo);
    }
    return dropped;
}

/* The APB rules of the cycle, after the interface's: counted as the check
 * stage counts its own. */
static unsigned add_apb_rules(etm_ctx_t *ctx, etm_rule_t *rules, unsigned nr, uint64_t apb)
{
    for (unsigned r = 0; apb; r++, apb >>= 1) {
        if (!(apb & 1))
            continue;
        ctx->chk.counts[r]++;
        ctx->chk.total++;
        rules[nr++] = (etm_rule_t)r;
    }
    return nr;
}

/* The edge's register write, and the programming flow it starts: tracing
 * stops when ETMCR[10] or ETMCR[0] is set, and restarts when both are clear. */
static void regs_edge(etm_ctx_t *ctx, const regs_access_t *acc)
{
    uint8_t restart_was = ctx->rg.restart_q;
    if (ctx->rg.stop_q) {
        /* The counters hold their values while tracing is stopped: ETMCNTVR
         * reads them, and trace starts again from them unless written. */
        unsigned ncnt = ETM_FIELD_GET(ETM_CCR_COUNTERS, ctx->cfg.etmccr);
        for (unsigned i = 0; i < ncnt && i < ETM_NUM_COUNTERS; i++)
            ctx->cfg.etmcntvr[i] = ctx->flt.cnt_q[i];
    }
    int was = cr_enabled(ctx->cfg.etmcr);
    etm_regs_commit(&ctx->rg, &ctx->cfg, acc);
    int now = cr_enabled(ctx->cfg.etmcr);
    ctx->rg.stop_q = (uint8_t)(was && !now);
    ctx->rg.restart_q = (uint8_t)(!was && now);
    if (acc->write || ctx->rg.stop_q || restart_was != ctx->rg.restart_q)
        refresh(ctx);
    ctx->st.reg_writes += acc->write;
    ctx->st.restarts += ctx->rg.restart_q;
}

/* ETMv1 with nothing more to trace (after etm_end, or while programming): the
 * PIPESTAT port gives out what the queue and the FIFO hold, whatever ETMCR
 * says. Returns 0, with out an idle TD cycle, when nothing is left. */
static int v1_drain_cycle(etm_ctx_t *ctx, etm_out_t *out)
{
    if (ctx->fifo.level_q == 0 && !etm_pipestat_busy(&ctx->ps)) {
        out->pipestat = ETM_V1_PS_TD;
        return 0;
    }
    fe_cycle_t fe;
    filter_out_t fo;
    memset(&fe, 0, sizeof fe);
    memset(&fo, 0, sizeof fo);
    fo.trace_enable = 1;
    etm_mode_t m = ctx->mode;
    m.enabled = 1;
    etm_pipestat_cycle(&ctx->ps, &m, &ctx->idle_in, &fe, &fo, &ctx->fifo, out, &ctx->st);
    return 1;
}

/* What a watching instance saw in the cycle (etm/watch.h). */
static void watch_record(const etm_ctx_t *ctx, const etm_in_t *in, const fe_cycle_t *fe, const filter_out_t *fo,
                         etm_seen_t *s)
{
    memset(s, 0, sizeof *s);
    s->running = (uint8_t)ctx->mode.enabled;
    s->trace_enable = fo->trace_enable;
    s->view_data = fo->view_data;
    s->trigger = fo->trigger;
    s->ninsn = fe->natoms;
    for (unsigned i = 0; i < fe->natoms; i++) {
        s->insn[i].addr = fe->atom[i].addr;
        s->insn[i].exec = fe->atom[i].exec;
        s->insn[i].indirect = fe->atom[i].target;
    }
    s->insn[0].branch = (uint8_t)(fe->natoms && in->ibranch);
    s->insn[1].branch = (uint8_t)(fe->natoms > 1 && !fe->fold && in->ibranch1);
    s->fold = fe->fold;
    s->entry = fe->entry;
    s->ret = fe->ret;
    s->exc = fe->exc;
    s->cancel = fe->cancel;
    s->flush = fe->flush;
    s->trace_id = ctx->mode.trace_id;
    s->etmcr = ctx->cfg.etmcr;
}

/* The frontend and the filter: the part of a cycle a watching instance runs too. */
static void front_cycle(etm_ctx_t *ctx, const etm_in_t *in, fe_cycle_t *fe, filter_out_t *fo)
{
    etm_frontend(&ctx->mode, in, fe);
    if (ctx->mode.enabled) /* powered down or programming: resources are held */
        etm_filter(&ctx->flt, &ctx->fsetup, in, fe, fo);
    else
        memset(fo, 0, sizeof *fo);
}

/* ---- Records (PKT_QUEUE > 0) ----------------------------------------------------------------------
 * The cycle hands its record to the packet generator's queue; the generator
 * runs one phase of the oldest record a cycle, when the bytes of the phase
 * before have all entered the FIFO's store (docs/etmv3-encoder.md, "Records"). */

/* A generator cycle's bytes into the FIFO with the port's cycle (the staging
 * buffer is empty when a phase is written: they always go in), counted. */
static void pq_put(etm_ctx_t *ctx, const etm_in_t *in, const cycle_buf_t *c, etm_out_t *out)
{
    etm_fifo_cycle_rec(&ctx->fifo, &ctx->mode, in, c->b, c->overrun ? 0 : c->n, c->ends, out);
    count_bytes(ctx, c);
    ctx->st.atoms += c->atoms;
    ctx->st.internal_errors += c->overrun != 0;
    ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
    ctx->pk.single_q = c->last_single;
}

/* One generator cycle and the FIFO's: a phase of the record being generated
 * (the oldest waiting one begun first, so a record can be generated in the
 * cycle it is made), the gap an overflow left, or (finish: at the end of
 * trace, with nothing else left) the end's bytes. Returns 1 when the end's
 * bytes went out. */
static int pq_generate(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, int finish)
{
    const etm_mode_t *m = &ctx->mode;
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    int in_rec = 0, rec_done = 0, ended = 0;
    if (ctx->fifo.slevel_q == 0) {
        if (!ctx->pq.busy && ctx->pq.len) {
            ctx->pq.gen.rec = ctx->pq_rec[ctx->pq.head];
            ctx->pq.head = (uint8_t)((ctx->pq.head + 1u) % ETM_MAX_PKT_QUEUE);
            ctx->pq.len--;
            ctx->pq.busy = 1;
            etm_packet_begin(&ctx->pk, m, &ctx->pq.gen, &c);
        }
        if (ctx->pq.busy) {
            in_rec = 1;
            rec_done = etm_packet_phase(&ctx->pk, m, &ctx->pq.gen, &c, &ctx->st);
        } else if (ctx->pq.gap) {
            etm_packet_gap(&ctx->pk);
            ctx->pq.gap = 0;
        } else if (finish) {
            etm_packet_catch_up(&ctx->pk, m, ctx->pq.now, &c);
            etm_packet_end(&ctx->pk, m, &c);
            ended = 1;
        }
    }
    pq_put(ctx, in, &c, out);
    if (in_rec) { /* the record's bytes count towards a periodic sync after its last phase */
        ctx->pk.wsent_q += c.w;
        ctx->pq.gen.bytes += c.n;
    } else {
        etm_packet_accepted_n(&ctx->pk, m, c.n, c.w);
    }
    if (rec_done) {
        etm_packet_record_end(&ctx->pk, m, ctx->pq.gen.bytes);
        ctx->pq.busy = 0;
    }
    /* Trace restarted after the gap: the overflow has been traced. */
    if (ctx->pq.untraced && !ctx->pq.gap && ctx->pk.active_q)
        ctx->pq.untraced = 0;
    out->overflow = ctx->pq.untraced;
    return ended;
}

/* An external port with records after etm_end: there are no more cycles, so
 * the generator's remaining phases, the end's bytes and the write port's
 * cycles run at once, as far as the store's room lets them; etm_port_take
 * resumes them when it has made room (as the end's bytes wait without
 * records). */
static void pq_finish_external(etm_ctx_t *ctx)
{
    etm_out_t o;
    while (ctx->end_wait || ctx->fifo.slevel_q) {
        unsigned staged = ctx->fifo.slevel_q;
        memset(&o, 0, sizeof o);
        if (!ctx->end_wait)
            etm_fifo_stage(&ctx->fifo, &ctx->mode, NULL, 0);
        else if (pq_generate(ctx, NULL, &o, 1))
            ctx->end_wait = 0;
        if (staged && !ctx->fifo.wrote_q) /* the store is full: the port takes first */
            return;
    }
}

/* A traced cycle with records: the cycle's record into the queue (an
 * overflow when the queue is full), then the generator's cycle. */
static etm_err_t pq_cycle(etm_ctx_t *ctx, const etm_in_t *in, const fe_cycle_t *fe, const filter_out_t *fo,
                          uint8_t plain, etm_out_t *out)
{
    const etm_mode_t *m = &ctx->mode;
    if (m->enabled) {
        int want = etm_packet_wants(m, fe, fo, &ctx->pq.te);
        /* After an overflow nothing is traced until the generator and the FIFO have drained. */
        if (ctx->pq.ovf && pq_idle(ctx) && etm_fifo_held(&ctx->fifo) == 0)
            ctx->pq.ovf = 0;
        if (ctx->pq.ovf) {
            ctx->st.cycles_lost++;
        } else if (want && ctx->pq.len < m->pkt_queue) {
            pk_record_t *r = &ctx->pq_rec[(ctx->pq.head + ctx->pq.len) % ETM_MAX_PKT_QUEUE];
            ctx->pq.len++;
            r->fe = *fe;
            r->flt = *fo;
            r->cycle = ctx->pq.now;
            ctx->pq.tail_plain = plain;
        } else if (want) {
            ctx->pq.ovf = 1;
            ctx->pq.untraced = 1;
            ctx->pq.gap = 1;
            ctx->st.overflows++;
            ctx->st.cycles_lost++;
        }
    }
    ctx->pq.now++;
    pq_generate(ctx, in, out, 0);
    ctx->st.port_bytes += out->v3_count;
    fifofull(ctx, out);
    return ETM_OK;
}

/* The trace stages' cycle: filter, then pheader/packet or pipestat, then the
 * FIFO (a watching instance stops after the filter). */
static etm_err_t trace_cycle(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    fe_cycle_t fe;
    filter_out_t fo;
    front_cycle(ctx, in, &fe, &fo);
    out->trigger = fo.trigger;
    out->trace_enable = fo.trace_enable;
    out->view_data = fo.view_data;
    if (fo.trigger | fe.entry | fo.ss_change | fo.cnt_reload | fo.ie_hit) { /* most cycles have none */
        ctx->st.triggers += fo.trigger;
        ctx->st.exceptions += fe.entry && fo.trace_enable;
        ctx->st.ss_starts += fo.ss_change & 1;
        ctx->st.ss_stops += (fo.ss_change >> 1) & 1;
        for (unsigned m = fo.cnt_reload; m; m &= m - 1)
            ctx->st.counter_reloads++;
        ctx->st.include_hits += fo.ie_hit & 1;
        ctx->st.exclude_hits += (fo.ie_hit >> 1) & 1;
    }

    if (!ctx->mode.v3) {
        if (ctx->rg.stop_q) {
            /* Tracing stopped: the last instruction is resolved (as at
             * etm_end); this edge has no port cycle. */
            etm_pipestat_end(&ctx->ps);
            out->pipestat = ETM_V1_PS_TD;
            out->fifo_level = (uint16_t)ctx->fifo.level_q;
        } else if (!ctx->mode.enabled && !ctx->rg.restart_q) {
            v1_drain_cycle(ctx, out); /* while programming, the port drains */
        } else {
            etm_pipestat_cycle(&ctx->ps, &ctx->mode, in, &fe, &fo, &ctx->fifo, out, &ctx->st);
            out->trigger = fo.trigger;
        }
        fifofull(ctx, out);
        return ETM_OK;
    }
    if (ctx->rg.restart_q) {
        /* The trace stages are held in reset for this cycle: the port alone runs. */
        etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, NULL, 0, out);
        ctx->st.port_bytes += out->v3_count;
        fifofull(ctx, out);
        return ETM_OK;
    }
    if (ctx->rg.stop_q || ctx->end_wait) {
        /* Tracing stopped: what was gathered goes into the FIFO, as at etm_end,
         * with the port's cycle; until it fits it waits (ETMSR[1] stays 0). */
        etm_err_t e = end_try(ctx, in, out);
        ctx->st.port_bytes += out->v3_count;
        fifofull(ctx, out);
        return e;
    }
    if (ctx->mode.pkt_queue)
        return pq_cycle(ctx, in, &fe, &fo, 0, out);
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    uint8_t started_before = ctx->pk.started_q;
    etm_packet_cycle(&ctx->pk, &ctx->mode, &fe, &fo, etm_fifo_held(&ctx->fifo) == 0, &c, &ctx->st);
    commit_cycle(ctx, in, started_before, &c, out);
    etm_packet_tick(&ctx->pk, &ctx->mode);
    fifofull(ctx, out);
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

/* The start of an edge, shared by etm_step and etm_watch_step: the interface
 * check and the debug APB access (its rules added to the check's), kept for
 * etm_last_rules. Returns the number of rules broken. */
static unsigned edge_begin(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, regs_access_t *acc)
{
    etm_rule_t rules[ETM_RULE_COUNT];
    unsigned nr = etm_check_step(&ctx->chk, in, rules, ETM_RULE_COUNT);
    out->pready = 1;
    if (in->psel) {
        regs_live_t live;
        live_values(ctx, &live);
        uint64_t apb = etm_regs_cycle(&ctx->rg, &ctx->cfg, &live, in, out, acc);
        if (apb)
            nr = add_apb_rules(ctx, rules, nr < (unsigned)ETM_RULE_COUNT ? nr : (unsigned)ETM_RULE_COUNT, apb);
    } else {
        ctx->rg.setup_q = 0;
        acc->write = 0;
    }
    ctx->nlast = nr < MAX_RULES_KEPT ? nr : MAX_RULES_KEPT;
    ctx->last_mask = 0;
    if (nr) { /* the common cycle breaks none: nothing to copy */
        memcpy(ctx->last_rules, rules, ctx->nlast * sizeof *rules);
        for (unsigned i = 0; i < nr && i < ETM_RULE_COUNT; i++)
            ctx->last_mask |= 1ull << rules[i];
    }
    ctx->st.violations = ctx->chk.total;
    ctx->st.cycles++;
    return nr;
}

/* ---- The repeat path ----------------------------------------------------------------------------
 * etm_step is a function of the state and the inputs. When a cycle leaves the
 * state as it found it, but for counters that nothing in such a cycle reads,
 * and the next cycle's inputs are the same bytes, that cycle does exactly the
 * same again: the repeat path gives the stored outputs and moves the counters
 * on, without running the stages. Idle stretches (WFI, stalls, an empty FIFO)
 * are such cycles. A cycle is tried as a fixed point when its inputs equal the
 * last cycle's and it has no APB access and no data value (the interface check
 * reads its cycle number only for a value). A try that fails waits 1, 3, 7 ...
 * 63 cycles before the next.
 *
 * The counters: the statistics (written, never read, by the stages), the
 * interface check's cycle number, and four that a cycle may move by one:
 *   - the packet stage's cycle count, read only for an I-sync's count (an
 *     I-sync's bytes would move the FIFO: no fixed point sends one);
 *   - the run of idle cycles not yet sent (cycle-accurate), read by an idle
 *     cycle only as 0 or full: it may move from 1 on;
 *   - the ETMv1 cycles since a full branch address, read only for a branch
 *     status, whose bytes would move the FIFO;
 *   - the ETMv3.0 cycles since an A-sync, read as having reached ETMSYNCFR:
 *     it may move while it stays below (or once the sync is due);
 *   - with records, the stage's cycle count (pq_now), read only when a record
 *     is queued, which would move the queue: no fixed point queues one.
 * A counter that moved leaves the repeat path at its limit (RP_* at the top). */

static inline int rp_allowed(const etm_ctx_t *ctx) { return !ctx->rp_off; }
#define RP_LIMIT 0xFFFFFFF0u

static void rp_counters(packet_state_t *pk, pipestat_state_t *ps, uint32_t *pq_now, uint32_t *c[RP_NCOUNT])
{
    c[RP_WTOTAL] = &pk->wtotal_q;
    c[RP_WRUN] = &pk->ph.wrun_q;
    c[RP_SINCE_FULL] = &ps->since_full_q;
    c[RP_SYNC] = &pk->sync_count_q;
    c[RP_PQ_NOW] = pq_now;
}

/* The highest value counter k may have before a repeated cycle moves it from
 * `before` (0: it may not move). */
static uint32_t rp_limit(const etm_ctx_t *ctx, unsigned k, uint32_t before)
{
    switch (k) {
    case RP_WRUN:
        return before ? RP_LIMIT : 0;
    case RP_SYNC:
        return ctx->pk.sync_due_q || ctx->mode.sync_period < 2 ? RP_LIMIT : ctx->mode.sync_period - 2;
    default:
        return RP_LIMIT;
    }
}

static void rp_take(const etm_ctx_t *ctx, rp_snap_t *s)
{
    memcpy(&s->rg, &ctx->rg, sizeof s->rg);
    memcpy(&s->chk, &ctx->chk, sizeof s->chk);
    memcpy(&s->flt, &ctx->flt, sizeof s->flt);
    memcpy(&s->pk, &ctx->pk, sizeof s->pk);
    memcpy(&s->st, &ctx->st, sizeof s->st);
    s->end_wait = ctx->end_wait;
    memcpy(s->fifo, &ctx->fifo, sizeof s->fifo);
    if (!ctx->mode.v3)
        memcpy(&s->ps, &ctx->ps, sizeof s->ps);
    else /* ETMv3 leaves the ETMv1 stage alone */
        s->ps.since_full_q = ctx->ps.since_full_q;
    if (ctx->mode.pkt_queue)
        memcpy(&s->pq, &ctx->pq, sizeof s->pq);
    else /* without records only the cycle count is read (rp_counters) */
        s->pq.now = ctx->pq.now;
}

/* The records' part of rp_same (nothing without records). */
static int rp_same_pq(const etm_ctx_t *ctx, const rp_snap_t *s)
{
    return !ctx->mode.pkt_queue || !memcmp(&s->pq, &ctx->pq, sizeof s->pq);
}

static int rp_same(const etm_ctx_t *ctx, const rp_snap_t *s)
{
    return !memcmp(&s->rg, &ctx->rg, sizeof s->rg) && !memcmp(&s->chk, &ctx->chk, sizeof s->chk) &&
           !memcmp(&s->flt, &ctx->flt, sizeof s->flt) && !memcmp(&s->pk, &ctx->pk, sizeof s->pk) &&
           s->end_wait == ctx->end_wait && !memcmp(s->fifo, &ctx->fifo, sizeof s->fifo) &&
           (ctx->mode.v3 ? s->ps.since_full_q == ctx->ps.since_full_q : !memcmp(&s->ps, &ctx->ps, sizeof s->ps)) &&
           rp_same_pq(ctx, s);
}

/* ---- Records as words --------------------------------------------------------------------------
 * The repeat path and the plain-cycle path read a whole etm_in_t per cycle:
 * as 16-byte words where the compiler has vector types (SSE2 on x86-64, NEON
 * on AArch64, or its own lowering), else as 8-byte words. etm_in_t holds a
 * uint64_t, so its size is a whole number of 8-byte words: REC_N words of
 * REC_WORD_BYTES, then one 8-byte word when REC_REST. */
#if defined(__GNUC__)
typedef uint64_t rec_word_t __attribute__((vector_size(16)));
#define REC_WORD_BYTES 16
static inline uint64_t rec_any(rec_word_t w) { return w[0] | w[1]; }
#else
typedef uint64_t rec_word_t;
#define REC_WORD_BYTES 8
static inline uint64_t rec_any(rec_word_t w) { return w; }
#endif
#define REC_N (sizeof(etm_in_t) / REC_WORD_BYTES) /* whole rec_word_t in a record */
/* Their loops are unrolled: a record is a few words. */
#if defined(__GNUC__)
#define REC_UNROLL _Pragma("GCC unroll 8")
#else
#define REC_UNROLL
#endif
#define REC_REST (sizeof(etm_in_t) % REC_WORD_BYTES != 0) /* and an 8-byte word after them */

static inline rec_word_t rec_load(const unsigned char *p)
{
    rec_word_t w;
    memcpy(&w, p, sizeof w);
    return w;
}
static inline uint64_t rec_load_tail(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p + REC_N * REC_WORD_BYTES, 8);
    return w;
}

/* The same inputs, byte for byte (padding included: a difference there only
 * costs a repeat). Inline: a call to memcmp costs as much as the rest of a
 * repeated cycle. */
static inline int rp_same_in(const etm_in_t *a, const etm_in_t *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    rec_word_t d = rec_load(x) ^ rec_load(y);
    REC_UNROLL
    for (size_t i = 1; i < REC_N; i++)
        d |= rec_load(x + i * REC_WORD_BYTES) ^ rec_load(y + i * REC_WORD_BYTES);
    uint64_t t = REC_REST ? rec_load_tail(x) ^ rec_load_tail(y) : 0;
    return (rec_any(d) | t) == 0;
}

/* A quiet cycle's inputs: are they the bytes rp_in holds? They are kept
 * there for the next cycle, in the same pass. */
static inline int rp_keep_in(etm_ctx_t *ctx, const etm_in_t *in)
{
    const unsigned char *x = (const unsigned char *)in;
    unsigned char *y = (unsigned char *)&ctx->rp_in;
    rec_word_t d = rec_load(x) ^ rec_load(y);
    memcpy(y, x, REC_WORD_BYTES);
    REC_UNROLL
    for (size_t i = 1; i < REC_N; i++) {
        rec_word_t u = rec_load(x + i * REC_WORD_BYTES);
        d |= u ^ rec_load(y + i * REC_WORD_BYTES);
        memcpy(y + i * REC_WORD_BYTES, &u, sizeof u);
    }
    uint64_t t = 0;
    if (REC_REST) {
        uint64_t u = rec_load_tail(x);
        t = u ^ rec_load_tail(y);
        memcpy(y + REC_N * REC_WORD_BYTES, &u, 8);
    }
    return (rec_any(d) | t) == 0;
}

/* Is this cycle tried as a fixed point? Only a cycle without an instruction or
 * an APB access is (an instruction traced moves the trace; one not traced
 * repeats only in a loop of one instruction), and only the seventh of the
 * same inputs in a row: a try costs a copy and a comparison of the state,
 * and runs of idle cycles among instructions are short (on random stimulus,
 * a try after the third paid for itself less often than it cost). */
#define RP_TRY_AFTER 6
/* After RP_MISSES quiet cycles none of which ended a run long enough to be
 * tried, the next RP_PAUSE cycles are not compared: where idle cycles are
 * bubbles between instructions, keeping their inputs costs more than the path
 * gives; a long idle stretch is still found, at most RP_PAUSE cycles late. */
#define RP_MISSES 32
#define RP_PAUSE 240
static int rp_try(etm_ctx_t *ctx, const etm_in_t *in)
{
    if (!rp_allowed(ctx) || ctx->rp_run < RP_TRY_AFTER)
        return 0;
    if (ctx->rp_wait) {
        ctx->rp_wait--;
        return 0;
    }
    return ETM_DDCTL_SLOT(in->ddctl) == 0;
}

/* Was the cycle just modelled a fixed point but for its counters? s: the
 * state before it. */
static int rp_judge(etm_ctx_t *ctx, rp_snap_t *s, etm_err_t e)
{
    uint32_t *now[RP_NCOUNT], *was[RP_NCOUNT];
    rp_counters(&ctx->pk, &ctx->ps, &ctx->pq.now, now);
    rp_counters(&s->pk, &s->ps, &s->pq.now, was);
    ctx->rp_ncount = 0;
    ctx->rp_budget = 0xFFFFFFFFu;
    for (unsigned k = 0; k < RP_NCOUNT; k++) {
        uint32_t limit = rp_limit(ctx, k, *was[k]);
        if (*now[k] != *was[k] + 1 || !limit || *was[k] > limit)
            continue; /* it did not move by one, or may not: the state differs */
        ctx->rp_count_off[ctx->rp_ncount++] = (uint32_t)((unsigned char *)now[k] - (unsigned char *)ctx);
        uint32_t budget = *now[k] < limit ? limit - *now[k] : 0;
        ctx->rp_budget = budget < ctx->rp_budget ? budget : ctx->rp_budget;
        ++*was[k];
    }
    s->chk.cycle++;
    /* The statistics that moved, and by how much: commonly the cycles alone. */
    unsigned nst = 0;
    s->st.cycles++;
    if (!memcmp(&s->st, &ctx->st, sizeof s->st)) {
        ctx->rp_st_idx[nst] = offsetof(etm_stats_t, cycles) / sizeof(uint64_t);
        ctx->rp_st_add[nst++] = 1;
    } else {
        s->st.cycles--;
        const uint64_t *sn = (const uint64_t *)(const void *)&ctx->st, *sw = (const uint64_t *)(const void *)&s->st;
        for (unsigned i = 0; i < sizeof s->st / sizeof(uint64_t); i++) {
            if (sn[i] == sw[i])
                continue;
            if (nst == RP_MAX_STATS) {
                e = ETM_ERR_INTERNAL; /* not tried again: too many */
                break;
            }
            ctx->rp_st_idx[nst] = (uint8_t)i;
            ctx->rp_st_add[nst++] = sn[i] - sw[i];
        }
    }
    ctx->rp_nst = (uint8_t)nst;
    if (e == ETM_OK && rp_same(ctx, s)) {
        ctx->rp_on = 1;
        ctx->rp_backoff = 0;
        return 1;
    }
    ctx->rp_wait = ctx->rp_backoff;
    ctx->rp_backoff = (uint8_t)(ctx->rp_backoff < 32 ? 2 * ctx->rp_backoff + 1 : 63);
    return 0;
}

/* Before a cycle that is not repeated: is it tried as a fixed point
 * (step_tried)? *quiet says what rp_after needs. A quiet cycle's inputs are
 * compared with the last cycle's and kept for the next. */
static ETM_INLINE int rp_before(etm_ctx_t *ctx, const etm_in_t *in, int *quiet)
{
    if (ctx->rp_pause) { /* not compared: as a cycle that is not quiet (a branch taken alike each cycle) */
        ctx->rp_pause--;
        *quiet = 0;
        ctx->rp_run = 0;
        return 0;
    }
    *quiet = !in->ivalid && !in->psel && rp_allowed(ctx);
    if (!*quiet) {
        ctx->rp_run = 0;
        return 0;
    }
    int same = rp_keep_in(ctx, in) && ctx->rp_have;
    ctx->rp_run = (uint8_t)(same ? ctx->rp_run + (ctx->rp_run < RP_TRY_AFTER) : 0);
    ctx->rp_miss = (uint8_t)(ctx->rp_run == RP_TRY_AFTER ? 0 : ctx->rp_miss + 1);
    if (ctx->rp_miss == RP_MISSES) { /* idle runs are short here: compare fewer */
        ctx->rp_miss = 0;
        ctx->rp_pause = RP_PAUSE;
    }
    return same && rp_try(ctx, in);
}

/* After it: rp_in holds its inputs if it was quiet (rp_keep_in). */
static ETM_INLINE void rp_after(etm_ctx_t *ctx, int quiet) { ctx->rp_have = (uint8_t)quiet; }

/* k repeated cycles' counters (the caller gives their outputs), k at most
 * rp_budget. */
static inline void rp_advance(etm_ctx_t *ctx, uint32_t k)
{
    ctx->rp_budget -= k;
    unsigned char *base = (unsigned char *)ctx;
    for (unsigned i = 0; i < ctx->rp_ncount; i++) {
        uint32_t *c = (uint32_t *)(void *)(base + ctx->rp_count_off[i]);
        *c += k;
    }
    ctx->chk.cycle += k;
    uint64_t *st = (uint64_t *)(void *)&ctx->st;
    for (unsigned i = 0; i < ctx->rp_nst; i++)
        st[ctx->rp_st_idx[i]] += k * ctx->rp_st_add[i];
    ctx->rp_count += k;
}

/* A repeated cycle's counters: 0 when a counter has reached its limit (the
 * cycle is then modelled in full). */
static inline int rp_repeat(etm_ctx_t *ctx)
{
    if (!ctx->rp_budget)
        return 0;
    rp_advance(ctx, 1);
    return 1;
}

void etm_set_repeat_path(etm_ctx_t *ctx, int on)
{
    ctx->rp_off = (uint8_t)!on;
    ctx->rp_on = 0;
}

uint64_t etm_repeated_cycles(const etm_ctx_t *ctx) { return ctx->rp_count; }

/* ---- The plain-cycle path ---------------------------------------------------------------------
 * Most cycles of a program traced without data and without filtering are
 * plain: no instruction, or one (with an IT folded after it) that is not an
 * exception entry or a return, with no cancel, no DWT match, no data
 * transfer, no APB access, while trace is on and nothing waits. Such a cycle
 * breaks no rule, sends no packet of its own but the branch address when its
 * instruction is a traced branch's target, and leaves TraceEnable on: it is
 * the stages' own plain steps (etm_check_plain, etm_filter_plain,
 * etm_packet_plain) and the FIFO's cycle, in step_stages' order, with the
 * same outputs, state and statistics. Which signals and which
 * state make a cycle plain is listed here and in each stage's *_plain_ok; a
 * rule, packet or filter term on a signal not listed must add it. */

/* None of the signals a plain cycle does not have (plain_masks): no APB
 * access, ETMCANCEL, ETMINTSTAT, DWT match, second instruction or data slot
 * activity; ETMFLUSH closes nothing only without PH_EAGER; without an
 * instruction, its qualifiers break rules, and so do ETMIINDBR without
 * ETMIBRANCH and ETMFINDBR without ETMFLUSH. ETMFINDBR with ETMFLUSH (the
 * indirect branch or exception that refills the pipeline, cycles before its
 * target) is read by the interface check's rule alone. The record is read a
 * word at a time against the masks. */
static inline int plain_in(const etm_ctx_t *ctx, const etm_in_t *in)
{
    const unsigned char *f = (const unsigned char *)ctx->plain_forbid[in->ivalid != 0];
    const unsigned char *x = (const unsigned char *)in;
    rec_word_t hit = rec_load(x) & rec_load(f);
    REC_UNROLL
    for (size_t i = 1; i < REC_N; i++)
        hit |= rec_load(x + i * REC_WORD_BYTES) & rec_load(f + i * REC_WORD_BYTES);
    uint64_t t = REC_REST ? rec_load_tail(x) & rec_load_tail(f) : 0;
    return (rec_any(hit) | t) == 0 && !(in->iindbr && !in->ibranch) && !(in->findbr && !in->flush);
}

/* The plain cycle's instruction is a traced branch's target (as the frontend
 * says: ETMIBRANCH with ETMIINDBR, or with branch broadcast). */
static inline int plain_target(const etm_ctx_t *ctx, const etm_in_t *in)
{
    return in->ivalid && in->ibranch && (in->iindbr || ctx->mode.branch_broadcast);
}

/* The state a plain cycle needs up to the filter (a watching instance's
 * whole need): the configuration allows it, no programming stop or restart,
 * no cancel waiting in the interface check, TraceEnable on to stay. */
static inline int plain_front_state(const etm_ctx_t *ctx)
{
    return ctx->plain_cfg && !(ctx->rg.stop_q | ctx->rg.restart_q) && etm_check_plain_ok(&ctx->chk) &&
           etm_filter_plain_ok(&ctx->fsetup, &ctx->flt);
}

/* With records: the generator has nothing left and nothing is staged, so a
 * plain cycle's record would be begun and finished in the cycle; no overflow
 * is lost or untraced. */
static inline int plain_records_ok(const etm_ctx_t *ctx)
{
    return !ctx->mode.pkt_queue ||
           (pq_idle(ctx) && !(ctx->pq.ovf | ctx->pq.untraced) && ctx->fifo.slevel_q == 0);
}

/* ... and for the trace stages: no end of trace, nothing waiting in the packet stage. */
static inline int plain_state(const etm_ctx_t *ctx)
{
    return plain_front_state(ctx) && !(ctx->end_wait | ctx->ended) && etm_packet_plain_ok(&ctx->pk) &&
           plain_records_ok(ctx);
}

/* edge_begin for a plain cycle: no rule broken, no APB access. */
static inline void plain_edge_begin(etm_ctx_t *ctx, const etm_in_t *in)
{
    etm_check_plain(&ctx->chk, in->ivalid);
    ctx->rg.setup_q = 0;
    ctx->nlast = 0;
    ctx->last_mask = 0;
    ctx->st.violations = ctx->chk.total;
    ctx->st.cycles++;
}

/* The instructions a plain cycle carries (an IT folded after one counts). */
static inline unsigned plain_natoms(const etm_in_t *in) { return in->ivalid ? 1u + in->fold : 0u; }

/* What every plain step begins with: the outputs as plain_out holds them (the
 * FIFO's cycle writes its own over them), edge_begin without a rule or an
 * access, the cycle's natoms instructions counted, and the filter's plain
 * step. Returns counter 1's reload (filter_out_t's cnt_reload). */
static ETM_INLINE uint8_t plain_begin(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, etm_out_t *out)
{
    *out = ctx->plain_out;
    plain_edge_begin(ctx, in);
    ctx->st.instructions += natoms;
    uint8_t reload = etm_filter_plain(&ctx->flt, &ctx->fsetup, in);
    ctx->st.counter_reloads += reload;
    return reload;
}

/* commit_cycle for a plain cycle that put no byte (etm_packet_plain_quick):
 * the FIFO's cycle with nothing to stage, which always fits, and what
 * commit_cycle counts of an empty cycle buffer. With the FIFO idle, the
 * outputs are plain_out's as they stand. */
static ETM_INLINE void commit_quiet(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    if (etm_fifo_idle(&ctx->fifo)) {
        etm_fifo_idle_cycle(&ctx->fifo, &ctx->mode, in, out);
        ctx->st.fifofull_cycles += ctx->plain_out.fifofull; /* not out's: just written whole */
    } else {
        static const uint8_t nothing[1] = { 0 };
        (void)etm_fifo_cycle_full(&ctx->fifo, &ctx->mode, in, nothing, 0, out);
        out->overflow = ctx->pk.ovf_q;
        ctx->st.port_bytes += out->v3_count;
        ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
        fifofull(ctx, out);
    }
    etm_packet_accepted_n(&ctx->pk, &ctx->mode, 0, 0);
}

/* A plain cycle that puts bytes (a branch address, a P-header): its packets
 * through a cycle buffer into the FIFO. Out of line: the cycle buffer needs a
 * frame the commoner cycle without bytes does not. */
ETM_NOINLINE static etm_err_t plain_bytes(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, int target,
                                          etm_out_t *out)
{
    const uint8_t exec[2] = { (uint8_t)!in->iccfail, 1 }; /* a folded IT always executes */
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    etm_packet_plain(&ctx->pk, &ctx->mode, natoms, exec, target, in->ia & ~1u, &c);
    commit_cycle(ctx, in, ctx->pk.started_q, &c, out);
    fifofull(ctx, out);
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

/* With records, a plain cycle's record (natoms atoms with their exec bits,
 * the first at addr, a traced branch's target or not, made in cycle): begun
 * and its one phase (atoms) run at once, as pq_generate would, without the
 * record: the idle cycles before it, its atoms, the FIFO's cycle (in: this
 * cycle's inputs), its cycle passing. */
ETM_NOINLINE static etm_err_t plain_record(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, const uint8_t *exec,
                                           int target, uint32_t addr, uint32_t cycle, etm_out_t *out)
{
    const etm_mode_t *m = &ctx->mode;
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    etm_packet_catch_up(&ctx->pk, m, cycle, &c);
    etm_packet_plain(&ctx->pk, m, natoms, exec, target, addr, &c);
    pq_put(ctx, in, &c, out);
    ctx->pk.wsent_q += c.w;
    etm_packet_record_end(&ctx->pk, m, c.n);
    ctx->st.port_bytes += out->v3_count;
    fifofull(ctx, out);
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

/* step_stages for a plain cycle: edge_begin without a rule or an access, the
 * frontend's atoms, then trace_cycle's ETMv3 part. What it leaves for
 * plain_state: only an overflow or a periodic sync due can end the path
 * (nothing else it reads moves here). Out of line: the general path's frame
 * is large. */
ETM_NOINLINE static etm_err_t step_stages(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);

/* step_plain with records (PKT_QUEUE): a cycle without instructions makes no
 * record (the cycle count moves); one with them, plain_record. The idle
 * cycles before a record can bring an ETMv3.0 periodic sync due, and the
 * record a phase more: such a cycle takes every stage. */
ETM_NOINLINE static etm_err_t step_plain_records(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    unsigned natoms = plain_natoms(in);
    if (natoms && etm_packet_sync_due_at(&ctx->pk, &ctx->mode, ctx->pq.now))
        return step_stages(ctx, in, out);
    (void)plain_begin(ctx, in, natoms, out);
    ctx->pq.te = 1; /* TraceEnable stays on */
    uint32_t cycle = ctx->pq.now++;
    etm_err_t e = ETM_OK;
    int target = plain_target(ctx, in);
    if (!natoms) {
        commit_quiet(ctx, in, out);
    } else if (etm_packet_record_quick(&ctx->pk, &ctx->mode, cycle, natoms, (uint8_t)!in->iccfail, target)) {
        /* A record that puts no byte: the FIFO's cycle of a cycle without
         * one, its atoms counted, and its cycle passing (etm_packet_record_end
         * with no bytes). */
        ctx->st.atoms += natoms;
        commit_quiet(ctx, in, out);
        etm_packet_tick(&ctx->pk, &ctx->mode);
    } else {
        const uint8_t exec[2] = { (uint8_t)!in->iccfail, 1 }; /* a folded IT always executes */
        e = plain_record(ctx, in, natoms, exec, target, in->ia & ~1u, cycle, out);
    }
    ctx->plain_count++;
    ctx->plain_go = (uint8_t)(!ctx->pk.sync_due_q && ctx->fifo.slevel_q == 0);
    return e;
}

/* With records, a plain cycle while the generator is still busy, or bytes are
 * staged: its record is queued behind the others, as pq_cycle queues any
 * record, but the stages before it run their plain steps (the interface
 * check, the filter), and the record's filter outputs are a plain cycle's:
 * TraceEnable on, nothing else but a counter 1 reload. */
static inline int plain_queued_ok(const etm_ctx_t *ctx, const etm_in_t *in)
{
    return ctx->mode.pkt_queue && plain_front_state(ctx) && !(ctx->end_wait | ctx->ended) && plain_in(ctx, in);
}

/* A plain cycle's record waits alone in the queue, the queue has room for
 * this cycle's behind it (a queue of one record has none: this cycle's is
 * lost to an overflow), and the generator is free to begin the waiting one
 * (pq_generate): nothing staged, nothing being generated, no gap or overflow.
 * It has one phase, its atoms (its trace was on, nothing waits in the packet
 * stage, no periodic sync falls due in the idle cycles before it): a record
 * of a plain cycle a cycle late, which plain_record's steps generate. */
static inline int pq_lone_plain(const etm_ctx_t *ctx)
{
    return ctx->pq.len == 1 && ctx->mode.pkt_queue > 1 && ctx->pq.tail_plain &&
           !(ctx->pq.busy | ctx->pq.gap | ctx->pq.ovf | ctx->pq.untraced) &&
           ctx->fifo.slevel_q == 0 && ctx->mode.enabled && etm_packet_plain_ok(&ctx->pk) &&
           !etm_packet_sync_due_at(&ctx->pk, &ctx->mode, ctx->pq_rec[ctx->pq.head].cycle);
}

/* This plain cycle's record into the queue, which has room for it, as
 * pq_cycle queues a record: its filter outputs a plain cycle's (TraceEnable
 * on, nothing else but counter 1's reload). */
static inline void pq_queue_plain(etm_ctx_t *ctx, const etm_in_t *in, uint8_t reload)
{
    pk_record_t *r = &ctx->pq_rec[(ctx->pq.head + ctx->pq.len) % ETM_MAX_PKT_QUEUE];
    etm_frontend(&ctx->mode, in, &r->fe);
    memset(&r->flt, 0, sizeof r->flt);
    r->flt.trace_enable = 1;
    r->flt.cnt_reload = reload;
    r->cycle = ctx->pq.now;
    ctx->pq.len++;
    ctx->pq.tail_plain = 1;
}

/* pq_cycle for a plain cycle with instructions when pq_lone_plain: this
 * cycle's record queued behind the waiting one, which is generated (a code
 * stream busy enough to keep one record waiting, cycle after cycle, after
 * bytes were staged). */
ETM_NOINLINE static etm_err_t pq_shift(etm_ctx_t *ctx, const etm_in_t *in, uint8_t reload, etm_out_t *out)
{
    pq_queue_plain(ctx, in, reload);
    ctx->pq.now++;
    ctx->pq.te = 1;
    const pk_record_t *w = &ctx->pq_rec[ctx->pq.head];
    ctx->pq.head = (uint8_t)((ctx->pq.head + 1u) % ETM_MAX_PKT_QUEUE);
    ctx->pq.len--; /* one record waits, as before */
    const fe_cycle_t *fe = &w->fe;
    const uint8_t exec[2] = { fe->atom[0].exec, (uint8_t)(fe->natoms > 1 ? fe->atom[1].exec : 0) };
    return plain_record(ctx, in, fe->natoms, exec, fe->atom[0].target, fe->atom[0].addr, w->cycle, out);
}

/* Bytes are staged: the generator begins nothing in this cycle (pq_generate),
 * whatever waits; the queue has room for this plain cycle's record, and no
 * overflow is under way or untraced. */
static inline int pq_staged_ok(const etm_ctx_t *ctx)
{
    return ctx->fifo.slevel_q != 0 && !(ctx->pq.ovf | ctx->pq.untraced) && ctx->pq.len < ctx->mode.pkt_queue &&
           ctx->mode.enabled;
}

/* pq_cycle for a plain cycle when pq_staged_ok: its record queued (when it
 * has instructions), and the FIFO's cycle with no new bytes. */
ETM_NOINLINE static etm_err_t pq_staged(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, uint8_t reload,
                                        etm_out_t *out)
{
    if (natoms)
        pq_queue_plain(ctx, in, reload);
    ctx->pq.now++;
    ctx->pq.te = 1;
    static const uint8_t no_bytes[1] = { 0 };
    static const uint64_t no_ends[1] = { 0 };
    etm_fifo_cycle_rec(&ctx->fifo, &ctx->mode, in, no_bytes, 0, no_ends, out);
    ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
    etm_packet_accepted_n(&ctx->pk, &ctx->mode, 0, 0);
    out->overflow = 0;
    ctx->st.port_bytes += out->v3_count;
    fifofull(ctx, out);
    ctx->plain_go = (uint8_t)plain_state(ctx);
    return ETM_OK;
}

ETM_NOINLINE static etm_err_t step_plain_queued(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    unsigned natoms = plain_natoms(in);
    uint8_t reload = plain_begin(ctx, in, natoms, out);
    if (natoms && pq_lone_plain(ctx))
        return pq_shift(ctx, in, reload, out); /* (plain_state stays 0: a record waits) */
    if (pq_staged_ok(ctx))
        return pq_staged(ctx, in, natoms, reload, out);
    filter_out_t fo;
    memset(&fo, 0, sizeof fo);
    fo.trace_enable = 1;
    fo.cnt_reload = reload;
    fe_cycle_t fe;
    etm_frontend(&ctx->mode, in, &fe);
    etm_err_t e = pq_cycle(ctx, in, &fe, &fo, 1, out);
    ctx->plain_go = (uint8_t)plain_state(ctx);
    return e;
}

ETM_NOINLINE static etm_err_t step_plain(etm_ctx_t *ETM_RESTRICT ctx, const etm_in_t *ETM_RESTRICT in,
                                         etm_out_t *ETM_RESTRICT out)
{
    if (ctx->mode.pkt_queue)
        return step_plain_records(ctx, in, out);
    unsigned natoms = plain_natoms(in);
    (void)plain_begin(ctx, in, natoms, out);
    int target = plain_target(ctx, in);
    etm_err_t e = ETM_OK;
    if (etm_packet_plain_quick(&ctx->pk, &ctx->mode, natoms, (uint8_t)!in->iccfail, target)) {
        ctx->st.atoms += natoms;
        commit_quiet(ctx, in, out);
    } else {
        e = plain_bytes(ctx, in, natoms, target, out);
    }
    etm_packet_tick(&ctx->pk, &ctx->mode);
    ctx->plain_count++;
    ctx->plain_go = (uint8_t)!(ctx->pk.ovf_q | ctx->pk.sync_due_q);
    return e;
}

void etm_set_plain_path(etm_ctx_t *ctx, int on)
{
    ctx->plain_off = (uint8_t)!on;
    refresh(ctx);
}

uint64_t etm_plain_cycles(const etm_ctx_t *ctx) { return ctx->plain_count; }

/* One edge through every stage. */
ETM_NOINLINE static etm_err_t step_stages(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    clear_out(out);
    regs_access_t acc;
    unsigned nr = edge_begin(ctx, in, out, &acc);
    if (in->ivalid)
        ctx->st.instructions += 1u + (in->fold || in->ivalid1);

    int dropped = ctx->rg.restart_q ? restart_stages(ctx) : 0;
    etm_err_t e = trace_cycle(ctx, in, out);
    out->overflow |= (uint8_t)dropped;
    if (acc.write || ctx->rg.stop_q || ctx->rg.restart_q) /* else the registers stay as they are */
        regs_edge(ctx, &acc);
    ctx->plain_go = (uint8_t)plain_state(ctx);
    return e != ETM_OK ? e : nr ? ETM_ERR_RULE : ETM_OK;
}

/* One edge: the plain-cycle path or every stage. */
static inline etm_err_t step_edge(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    if (ctx->plain_go && plain_in(ctx, in))
        return step_plain(ctx, in, out);
    return step_stages(ctx, in, out);
}

/* A cycle tried as a fixed point: modelled with the state before it kept. */
ETM_NOINLINE static etm_err_t step_tried(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, int quiet)
{
    rp_snap_t snap;
    rp_take(ctx, &snap);
    etm_err_t e = step_edge(ctx, in, out);
    if (rp_judge(ctx, &snap, e))
        ctx->rp_out = *out;
    rp_after(ctx, quiet);
    return e;
}

/* A cycle that is not repeated nor plain: every stage runs, and the cycle
 * may be tried as a fixed point. Kept out of etm_step so that a repeated or
 * plain cycle needs no large stack frame. */
ETM_NOINLINE static etm_err_t step_full(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    if (ctx->ended) {
        clear_out(out);
        return ETM_ERR_STATE;
    }
    int quiet;
    if (rp_before(ctx, in, &quiet))
        return step_tried(ctx, in, out, quiet);
    etm_err_t e = plain_queued_ok(ctx, in) ? step_plain_queued(ctx, in, out) : step_stages(ctx, in, out);
    rp_after(ctx, quiet);
    return e;
}

etm_err_t etm_step(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    if (ctx->rp_on) {
        if (rp_same_in(in, &ctx->rp_in) && rp_repeat(ctx)) {
            *out = ctx->rp_out;
            return ETM_OK;
        }
        ctx->rp_on = 0;
    }
    if (ctx->plain_go && plain_in(ctx, in)) {
        int quiet;
        if (rp_before(ctx, in, &quiet))
            return step_tried(ctx, in, out, quiet);
        etm_err_t e = ctx->mode.pkt_queue ? step_plain_records(ctx, in, out) : step_plain(ctx, in, out);
        rp_after(ctx, quiet);
        return e;
    }
    return step_full(ctx, in, out);
}

etm_err_t etm_watch_create(etm_ctx_t **out, const etm_config_t *cfg, int at_reset, etm_diag_t *diag)
{
    etm_err_t e = create(out, cfg, at_reset, diag);
    if (e == ETM_OK)
        (*out)->watch = 1;
    return e;
}

/* etm_step's edge up to the filter, without the trace stages' bookkeeping. */
static etm_err_t watch_edge(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen)
{
    etm_out_t out;
    out.prdata = 0;
    regs_access_t acc;
    unsigned nr = edge_begin(ctx, in, &out, &acc);
    if (ctx->rg.restart_q)
        restart_stages(ctx);
    fe_cycle_t fe;
    filter_out_t fo;
    front_cycle(ctx, in, &fe, &fo);
    watch_record(ctx, in, &fe, &fo, seen);
    if (acc.write || ctx->rg.stop_q || ctx->rg.restart_q)
        regs_edge(ctx, &acc);
    return nr ? ETM_ERR_RULE : ETM_OK;
}

/* The same for a plain cycle (the plain-cycle path): the interface check's
 * and the filter's plain steps, and what watch_record makes of such a cycle
 * (the frontend's atoms: the instruction, maybe a traced branch's target,
 * and a folded IT; trace on; no trigger, data, exception or cancel).
 * The packet stage, which a watching instance does not run, does not count. */
static etm_err_t watch_plain(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *s)
{
    plain_edge_begin(ctx, in);
    etm_filter_plain(&ctx->flt, &ctx->fsetup, in); /* a watching instance counts no reloads */
    memset(s, 0, sizeof *s);
    s->running = 1;
    s->trace_enable = 1;
    if (in->ivalid) {
        uint32_t a = in->ia & ~1u;
        s->ninsn = (uint8_t)(1u + (in->fold != 0));
        s->insn[0].addr = a;
        s->insn[0].exec = (uint8_t)!in->iccfail;
        s->insn[0].indirect = (uint8_t)plain_target(ctx, in);
        s->insn[0].branch = (uint8_t)(in->ibranch != 0);
        if (in->fold) {
            s->fold = 1;
            s->insn[1].addr = a + 2;
            s->insn[1].exec = 1;
        }
    }
    s->flush = in->flush;
    s->trace_id = ctx->mode.trace_id;
    s->etmcr = ctx->cfg.etmcr;
    ctx->plain_count++;
    return ETM_OK;
}

static inline int watch_plain_ok(const etm_ctx_t *ctx, const etm_in_t *in)
{
    return plain_front_state(ctx) && plain_in(ctx, in);
}

/* A watched cycle tried as a fixed point (as step_tried). */
ETM_NOINLINE static etm_err_t watch_tried(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen, int quiet)
{
    rp_snap_t snap;
    rp_take(ctx, &snap);
    etm_err_t e = watch_plain_ok(ctx, in) ? watch_plain(ctx, in, seen) : watch_edge(ctx, in, seen);
    if (rp_judge(ctx, &snap, e))
        ctx->rp_seen = *seen;
    rp_after(ctx, quiet);
    return e;
}

/* A watched cycle that is not repeated nor plain (out of line, as step_full). */
ETM_NOINLINE static etm_err_t watch_full(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen)
{
    int quiet;
    if (rp_before(ctx, in, &quiet))
        return watch_tried(ctx, in, seen, quiet);
    etm_err_t e = watch_edge(ctx, in, seen);
    rp_after(ctx, quiet);
    return e;
}

etm_err_t etm_watch_step(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen)
{
    if (!ctx->watch)
        return ETM_ERR_ARG;
    if (ctx->rp_on) { /* the repeat path, as in etm_step */
        if (rp_same_in(in, &ctx->rp_in) && rp_repeat(ctx)) {
            *seen = ctx->rp_seen;
            return ETM_OK;
        }
        ctx->rp_on = 0;
    }
    if (watch_plain_ok(ctx, in)) { /* the plain-cycle path, as in etm_step */
        int quiet;
        if (rp_before(ctx, in, &quiet))
            return watch_tried(ctx, in, seen, quiet);
        etm_err_t e = watch_plain(ctx, in, seen);
        rp_after(ctx, quiet);
        return e;
    }
    return watch_full(ctx, in, seen);
}

/* The leading cycles of in[0..n-1] that the repeat path gives, at once. */
static size_t rp_repeat_run(etm_ctx_t *ctx, const etm_in_t *in, size_t n)
{
    if (!ctx->rp_on)
        return 0;
    size_t max = n < ctx->rp_budget ? n : ctx->rp_budget, k = 0;
    while (k < max && rp_same_in(&in[k], &ctx->rp_in))
        k++;
    rp_advance(ctx, (uint32_t)k);
    return k;
}

size_t etm_watch_repeat(etm_ctx_t *ctx, const etm_in_t *in, size_t n)
{
    return ctx->watch ? rp_repeat_run(ctx, in, n) : 0;
}

size_t etm_step_repeat(etm_ctx_t *ctx, const etm_in_t *in, size_t n, etm_out_t *out)
{
    if (!ctx->rp_on || ctx->watch) /* the common answer on busy code: at once */
        return 0;
    size_t k = rp_repeat_run(ctx, in, n);
    if (k)
        *out = ctx->rp_out;
    return k;
}

/* etm_end's bytes (the P-headers still being gathered) into the FIFO: on the
 * end's own edge (out NULL, no port cycle), then on each drain edge with the
 * port's cycle until they fit. Until then they wait, as in an ETM that holds
 * its last packet until the FIFO has room: no trace is lost at the end. in: the
 * cycle's ATB inputs (NULL: a drain edge, the sink ready). */
static etm_err_t end_try(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    if (ctx->mode.pkt_queue) {
        /* Records: the generator finishes the queue, then the end's bytes go
         * out on a cycle of their own; etm_end's edge has no generator cycle,
         * only the write port's (as without records). */
        ctx->end_wait = 1;
        if (!out)
            etm_fifo_stage(&ctx->fifo, &ctx->mode, NULL, 0);
        else if (pq_generate(ctx, in, out, 1))
            ctx->end_wait = 0;
        return ETM_OK;
    }
    packet_state_t before = ctx->pk;
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    etm_packet_end(&ctx->pk, &ctx->mode, &c);
    int fit;
    if (c.overrun)
        fit = 0;
    else if (out)
        fit = etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, c.b, c.n, out);
    else
        fit = etm_fifo_stage(&ctx->fifo, &ctx->mode, c.b, c.n);
    ctx->st.internal_errors += c.overrun != 0;
    ctx->end_wait = 0;
    if (fit) {
        count_accepted(ctx, &c);
    } else if (c.overrun || (etm_fifo_held(&ctx->fifo) == 0 && out)) {
        /* never expected: more than the cycle buffer, or more than an empty FIFO holds */
        ctx->st.overflows++;
        ctx->st.bytes_lost += c.n + c.overrun;
        if (out)
            out->overflow = 1;
    } else {
        ctx->pk = before;
        ctx->end_wait = 1;
    }
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

etm_err_t etm_end(etm_ctx_t *ctx)
{
    rp_leave(ctx);
    if (ctx->ended)
        return ETM_ERR_STATE;
    if (!ctx->mode.v3) {
        etm_pipestat_end(&ctx->ps);
        ctx->ended = 1;
        return ETM_OK;
    }
    etm_err_t e = end_try(ctx, NULL, NULL);
    if (ctx->mode.port_bytes == 0 && ctx->mode.pkt_queue) /* an external port: no more cycles */
        pq_finish_external(ctx);
    else if (ctx->mode.port_bytes == 0)
        etm_fifo_settle(&ctx->fifo);
    ctx->ended = 1;
    return e;
}

etm_err_t etm_drain_in(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    rp_leave(ctx);
    clear_out(out);
    out->pready = 1;
    if (!ctx->mode.v3) {
        if (!v1_drain_cycle(ctx, out))
            return ETM_END;
        fifofull(ctx, out);
        return ETM_OK;
    }
    /* An external port drains through etm_port_take (which also offers end_try). */
    if (ctx->mode.port_bytes == 0 || (etm_fifo_held(&ctx->fifo) == 0 && !ctx->end_wait)) {
        out->fifo_level = (uint16_t)etm_fifo_counted(&ctx->fifo, &ctx->mode);
        return ETM_END;
    }
    etm_err_t e = ETM_OK;
    if (ctx->end_wait)
        e = end_try(ctx, in, out); /* the port's cycle, and the end's bytes if they fit now */
    else
        etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, NULL, 0, out);
    ctx->st.port_bytes += out->v3_count;
    fifofull(ctx, out);
    return e;
}

etm_err_t etm_drain(etm_ctx_t *ctx, etm_out_t *out) { return etm_drain_in(ctx, NULL, out); }

etm_err_t etm_run_records(etm_ctx_t *ctx, const etm_in_t *in, size_t n, int finish, uint8_t *bytes, size_t cap,
                          size_t *nbytes, size_t *done)
{
    etm_out_t out;
    size_t nb = 0, k = 0;
    etm_err_t e = ETM_OK;
    for (; k < n && cap - nb >= ETM_MAX_PORT_BYTES; k++) {
        if (ctx->rp_on && !ctx->rp_out.v3_count) { /* a run of repeated cycles: no bytes leave */
            size_t r = rp_repeat_run(ctx, &in[k], n - k);
            k += r;
            if (r && k == n)
                break;
        }
        e = etm_step(ctx, &in[k], &out);
        if (e == ETM_ERR_RULE)
            e = ETM_OK;
        if (e != ETM_OK)
            break;
        memcpy(bytes + nb, out.v3_bytes, out.v3_count);
        nb += out.v3_count;
    }
    if (e == ETM_OK && finish && k == n) {
        if (!ctx->ended)
            e = etm_end(ctx);
        while (e == ETM_OK && cap - nb >= ETM_MAX_PORT_BYTES) {
            etm_err_t d = etm_drain(ctx, &out);
            if (d != ETM_OK)
                break;
            memcpy(bytes + nb, out.v3_bytes, out.v3_count);
            nb += out.v3_count;
        }
    }
    *nbytes = nb;
    *done = k;
    return e;
}

uint32_t etm_reg_peek(const etm_ctx_t *ctx, unsigned offset, int debugger)
{
    etm_in_t in;
    etm_out_t out;
    regs_state_t rg = ctx->rg;
    regs_live_t live;
    regs_access_t acc;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.psel = in.penable = 1;
    in.paddr = (uint16_t)(offset & 0xFFCu);
    in.paddrdbg31 = (uint8_t)(debugger != 0);
    rg.setup_q = 1;
    live_values(ctx, &live);
    etm_regs_cycle(&rg, &ctx->cfg, &live, &in, &out, &acc);
    return out.prdata;
}

int etm_untraced_overflow(const etm_ctx_t *ctx)
{
    return (int)(etm_reg_peek(ctx, 4u * etm_mgmt_registers[ETM_MGMT_SR].number, 1) & 1u);
}
