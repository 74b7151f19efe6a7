/* randfilter.h - random filter programming for round trips and co-simulation:
 * address comparators on code the program really executes, include/exclude
 * regions, the start/stop block, counters, DWT inputs, the trigger and
 * ViewData, drawn from what the chosen ETM has (ETMCCR/ETMCCER). A draw is kept
 * only if a short run of the model shows the filter at work: trace turning on
 * and off often, neither almost everything nor almost nothing traced. */
#ifndef ETM_TB_RANDFILTER_H
#define ETM_TB_RANDFILTER_H

#include <stdio.h>
#include <string.h>

#include "etm/etm.h"
#include "test.h"

#define RF_HOT 64
#define RF_DATA 16

typedef struct rf_profile {
    uint32_t hot[RF_HOT];    /* addresses of executed instructions */
    unsigned nhot;
    uint32_t data[RF_DATA];  /* word addresses of data transfers */
    unsigned ndata;
} rf_profile_t;

/* Sample executed instruction addresses and data addresses from n cycles of
 * the generator's program. */
static inline void rf_profile(const etm_gen_params_t *gp, uint64_t n, rf_profile_t *p, test_rng_t *r)
{
    etm_gen_t *g;
    etm_diag_t d;
    memset(p, 0, sizeof *p);
    if (etm_gen_create(&g, gp, &d) != ETM_OK)
        return;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_in_t in;
    uint64_t seen = 0, dseen = 0;
    for (uint64_t c = 0; c < n; c++) {
        unsigned k = etm_gen_next(g, &in, ev);
        for (unsigned i = 0; i < k; i++) {
            if (ev[i].kind != ETM_GEN_EV_INSN)
                continue;
            seen++; /* reservoir sampling: each executed instruction equally likely */
            if (p->nhot < RF_HOT)
                p->hot[p->nhot++] = ev[i].addr;
            else if (test_rand(r) % seen < RF_HOT)
                p->hot[test_rand(r) % RF_HOT] = ev[i].addr;
        }
        if (ETM_DACTL_SLOT(in.dactl) && ETM_DACTL_NSEQ(in.dactl)) {
            dseen++;
            if (p->ndata < RF_DATA)
                p->data[p->ndata++] = in.da & ~3u;
            else if (test_rand(r) % dseen < RF_DATA)
                p->data[test_rand(r) % RF_DATA] = in.da & ~3u;
        }
    }
    etm_gen_free(g);
}

static inline unsigned rf_below(test_rng_t *r, unsigned n) { return n ? (unsigned)(test_rand(r) % n) : 0; }

/* An event: "always" or a function of one or two of the resources in res[]. */
static inline uint32_t rf_event(test_rng_t *r, const unsigned *res, unsigned nres, unsigned always_pct)
{
    if (!nres || rf_below(r, 100) < always_pct)
        return 0x6F;
    unsigned a = res[rf_below(r, nres)], b = res[rf_below(r, nres)];
    static const unsigned fns[] = { 0, 0, 0, 5, 5, 2, 3, 1, 6 }; /* A, A or B, A and B, ... */
    unsigned fn = fns[rf_below(r, sizeof fns / sizeof fns[0])];
    return fn << 14 | b << 7 | a;
}

/* Program a random filter into cfg (other registers untouched). data: the run
 * drives the data slot interface. */
static inline void rf_draw(etm_config_t *cfg, const rf_profile_t *p, int data, test_rng_t *r)
{
    unsigned v = 0;
    etm_config_version(cfg, &v, NULL);
    unsigned pairs = ETM_FIELD_GET(ETM_CCR_PAIRS, cfg->etmccr), ncnt = ETM_FIELD_GET(ETM_CCR_COUNTERS, cfg->etmccr);
    int v1 = ETM_V_MAJOR(v) == 1;
    unsigned neice = v >= ETM_V(3, 4) ? (cfg->etmccer >> 16) & 0xf : 2;
    int ss_block = v == ETM_V(1, 2) || v == ETM_V(1, 3) || (!v1 && ((cfg->etmccr >> 26) & 1));
    int ss_eice = v >= ETM_V(3, 4) && ((cfg->etmccer >> 20) & 1);
    int reduced1 = v >= ETM_V(3, 5) && ((cfg->etmccer >> 27) & 1);
    int has_tecr2 = !v1 || v >= ETM_V(1, 2);
    unsigned res[24], nres = 0;      /* resources for events */
    uint16_t instr_single = 0, data_single = 0;

    if (pairs >= 4 && p->nhot) {
        for (unsigned k = 0; k < 2; k++) { /* ranges 1, 2: instructions */
            uint32_t lo = p->hot[rf_below(r, p->nhot)] & ~1u;
            uint32_t span = 0x20u << rf_below(r, 8);
            unsigned type = k == 0 ? 1 : 1 + rf_below(r, 3);
            cfg->etmacvr[2 * k] = lo;
            cfg->etmacvr[2 * k + 1] = lo + span;
            cfg->etmactr[2 * k] = cfg->etmactr[2 * k + 1] = 0x8u | type;
            res[nres++] = 0x10 + k;
        }
        for (unsigned n = 4; n < 8; n++) { /* singles 5-8 */
            if (n >= 6 && data && p->ndata && rf_below(r, 2)) {
                cfg->etmacvr[n] = p->data[rf_below(r, p->ndata)];
                cfg->etmactr[n] = 0x18u | (4 + rf_below(r, 3)); /* word, load/store, load or store */
                data_single |= (uint16_t)(1u << n);
            } else {
                cfg->etmacvr[n] = p->hot[rf_below(r, p->nhot)] & ~1u;
                cfg->etmactr[n] = 0x8u | (1 + rf_below(r, 3)) | (rf_below(r, 4) == 0 ? 0x80u : 0);
                instr_single |= (uint16_t)(1u << n);
            }
            res[nres++] = n;
        }
        /* Include/exclude: ranges and instruction singles. */
        int exclude = (int)rf_below(r, 2);
        uint32_t ranges = rf_below(r, 4), singles = has_tecr2 ? instr_single & rf_below(r, 0x100) : 0;
        if (!exclude && !ranges && !singles)
            ranges = 1;
        cfg->etmtecr1 = (uint32_t)exclude << 24 | ranges;
        cfg->etmtecr2 = singles;
    } else {
        cfg->etmtecr1 = rf_below(r, 2) ? 0 : 1u << 24; /* nothing to select: always true */
    }
    if (ss_block && (pairs >= 4 || ss_eice) && rf_below(r, 3)) {
        cfg->etmtecr1 |= 1u << 25;
        if (pairs >= 4 && p->nhot) {
            uint16_t all = instr_single | data_single;
            uint16_t st = all & (uint16_t)rf_below(r, 0x10000), sp = all & (uint16_t)rf_below(r, 0x10000);
            cfg->etmtsscr = (uint32_t)(st ? st : 1u << 4) | (uint32_t)(sp ? sp : 1u << 5) << 16;
        }
        if (ss_eice && neice) {
            unsigned a = rf_below(r, neice), b = rf_below(r, neice);
            cfg->etmtesseicr = 1u << a | 1u << (16 + b);
        }
        if (!v1 || v >= ETM_V(2, 0))
            res[nres++] = 0x5F;
    }
    for (unsigned i = 0; i < neice && i < 4; i++)
        res[nres++] = 0x20 + i;
    for (unsigned i = 0; i < ncnt; i++)
        res[nres++] = 0x40 + i;
    /* Counters count events among the others; counter resources see each other. */
    for (unsigned i = 0; i < ncnt; i++) {
        if (reduced1 && i == 0) {
            cfg->etmcntrldvr[0] = 20 + rf_below(r, 500);
            continue;
        }
        unsigned nother = nres - ncnt + i; /* counters before this one only: no loop of self-reloads */
        cfg->etmcntenr[i] = rf_event(r, res, nother, 40) | (v1 ? 1u << 17 : 0);
        cfg->etmcntrldevr[i] = rf_below(r, 3) ? rf_event(r, res, nother, 0) : 0x406F;
        cfg->etmcntrldvr[i] = 1 + rf_below(r, 300);
        cfg->etmcntvr[i] = rf_below(r, 300);
    }
    cfg->etmteevr = rf_event(r, res, nres, 35);
    cfg->etmtrigger = rf_below(r, 5) ? rf_event(r, res, nres, 0) : 0x406F;
    if (data) {
        cfg->etmvdevr = rf_event(r, res, nres, 70);
        if (data_single && rf_below(r, 2)) {
            if (rf_below(r, 2)) {
                cfg->etmvdcr1 = data_single; /* include */
                cfg->etmvdcr3 = 0;
            } else {
                cfg->etmvdcr1 = (uint32_t)data_single << 16; /* exclude only */
                cfg->etmvdcr3 = 1u << 16;
            }
        }
    }
}

/* The filter registers of cfg as NAME=0xVALUE words. */
static inline void rf_describe(const etm_config_t *cfg, int data, char *desc, size_t dsize)
{
    unsigned pairs = ETM_FIELD_GET(ETM_CCR_PAIRS, cfg->etmccr), ncnt = ETM_FIELD_GET(ETM_CCR_COUNTERS, cfg->etmccr);
    if (desc && dsize) {
        char *o = desc;
        size_t left = dsize;
        int w = snprintf(o, left, "ETMTEEVR=0x%05X ETMTECR1=0x%08X ETMTRIGGER=0x%05X", (unsigned)cfg->etmteevr,
                         (unsigned)cfg->etmtecr1, (unsigned)cfg->etmtrigger);
        if (w > 0 && (size_t)w < left)
            o += w, left -= (size_t)w;
        const struct { const char *name; uint32_t v; } extra[] = {
            { "ETMTECR2", cfg->etmtecr2 }, { "ETMTSSCR", cfg->etmtsscr }, { "ETMTESSEICR", cfg->etmtesseicr },
            { "ETMVDEVR", data ? cfg->etmvdevr : 0 }, { "ETMVDCR1", cfg->etmvdcr1 }, { "ETMVDCR3", cfg->etmvdcr3 },
        };
        for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
            if (extra[i].v && (w = snprintf(o, left, " %s=0x%X", extra[i].name, (unsigned)extra[i].v)) > 0 &&
                (size_t)w < left)
                o += w, left -= (size_t)w;
        for (unsigned n = 0; n < 2 * pairs && n < ETM_NUM_ADDR_COMP; n++)
            if (cfg->etmactr[n] && (w = snprintf(o, left, " ETMACVR%u=0x%X ETMACTR%u=0x%X", n + 1,
                                                 (unsigned)cfg->etmacvr[n], n + 1, (unsigned)cfg->etmactr[n])) > 0 &&
                (size_t)w < left)
                o += w, left -= (size_t)w;
        for (unsigned i = 0; i < ncnt; i++)
            if ((w = snprintf(o, left, " ETMCNTENR%u=0x%X ETMCNTRLDEVR%u=0x%X ETMCNTRLDVR%u=0x%X ETMCNTVR%u=0x%X",
                              i + 1, (unsigned)cfg->etmcntenr[i], i + 1, (unsigned)cfg->etmcntrldevr[i], i + 1,
                              (unsigned)cfg->etmcntrldvr[i], i + 1, (unsigned)cfg->etmcntvr[i])) > 0 &&
                (size_t)w < left)
                o += w, left -= (size_t)w;
    }
}

/* How the filter behaves over n cycles of the program: rising edges of
 * TraceEnable in each half of the run, and the share of instruction cycles
 * traced (per mille). */
static inline int rf_measure(const etm_config_t *cfg, const etm_gen_params_t *gp, uint64_t n, unsigned rises[2],
                             unsigned *permille, etm_diag_t *d)
{
    etm_gen_t *g;
    etm_ctx_t *e;
    if (etm_gen_create(&g, gp, d) != ETM_OK)
        return -1;
    if (etm_create(&e, cfg, d) != ETM_OK) {
        etm_gen_free(g);
        return -1;
    }
    etm_in_t in;
    etm_out_t out;
    uint64_t on = 0, all = 0;
    int prev = 0;
    rises[0] = rises[1] = 0;
    for (uint64_t c = 0; c < n; c++) {
        etm_gen_next(g, &in, NULL);
        etm_step(e, &in, &out);
        if (in.ivalid) {
            all++;
            on += out.trace_enable;
        }
        rises[c >= n / 2] += out.trace_enable && !prev;
        prev = out.trace_enable;
    }
    *permille = all ? (unsigned)(1000 * on / all) : 0;
    etm_destroy(e);
    etm_gen_free(g);
    return 0;
}

/* Draw until the filter is seen at work over the first `cycles` cycles (at
 * most 300000 are looked at): trace turns on at least 10 times in each half,
 * and 10-90% of the instructions are traced. At most 40 draws; the last one is
 * kept otherwise and the caller's coverage checks will say so. Returns -1 if a
 * draw is refused by the model (a bug in the draw: diag says why). */
static inline int rf_choose(etm_config_t *cfg, const etm_gen_params_t *gp, uint64_t seed, uint64_t cycles, int data,
                            char *desc, size_t dsize, etm_diag_t *d)
{
    test_rng_t r = { seed * 0x9E3779B97F4A7C15ull + 1 };
    rf_profile_t p;
    rf_profile(gp, 100000, &p, &r);
    etm_config_t base = *cfg;
    uint64_t n = cycles < 300000 ? cycles : 300000;
    etm_config_t best = base;
    unsigned best_score = 0;
    for (int attempt = 0; attempt < 40; attempt++) {
        *cfg = base;
        rf_draw(cfg, &p, data, &r);
        unsigned rises[2], pm = 0;
        if (rf_measure(cfg, gp, n, rises, &pm, d) != 0)
            return -1;
        unsigned score = rises[0] < rises[1] ? rises[0] : rises[1];
        if (pm < 50 || pm > 950)
            score = 0;
        if (score > best_score || attempt == 0) {
            best = *cfg;
            best_score = score;
        }
        if (score >= 10 && pm >= 100 && pm <= 900)
            break;
    }
    *cfg = best;
    rf_describe(cfg, data, desc, dsize);
    return 0;
}

#endif
