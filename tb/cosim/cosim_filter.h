/* cosim_filter.h - random programming of the filter stage for the lockstep
 * (etm_cosim --random-filter SEED): address comparators around the stimulus
 * generator's code and data, include/exclude regions, the start/stop block,
 * counters, ViewData and events over every resource the model evaluates.
 * Comparators are often put on addresses a short run of the same stimulus
 * executes or accesses (`hot`), so that the start/stop block starts and stops,
 * regions are entered and left and counters reload on events.
 * Draws until etm_create accepts the image (the model refuses some mixes). */
#ifndef ETM_COSIM_FILTER_H
#define ETM_COSIM_FILTER_H

#include <cstdint>
#include <vector>

#include "etm/etm.h"

namespace cosim {

struct Rng {
    uint64_t s;
    uint64_t next()
    {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 2685821657736338717ull;
    }
    unsigned below(unsigned n) { return n ? (unsigned)((next() >> 16) % n) : 0; }
    bool pct(unsigned p) { return below(100) < p; }
};

/* An event over the resources the filter evaluates; `bias` percent "always". */
inline uint32_t random_event(Rng &r, unsigned pairs, unsigned ncnt, unsigned bias)
{
    if (r.pct(bias))
        return 0x6F;
    auto res = [&]() -> uint32_t {
        switch (r.below(6)) {
        case 0: return pairs ? r.below(2 * pairs) : 0x6F;      /* single comparator */
        case 1: return pairs ? 0x10 + r.below(pairs) : 0x6F;   /* range */
        case 2: return 0x20 + r.below(4);                       /* DWT input */
        case 3: return ncnt ? 0x40 + r.below(ncnt) : 0x6F;     /* counter at zero */
        case 4: return 0x5F;                                    /* start/stop */
        default: return 0x6F;
        }
    };
    return (uint32_t)(r.below(8) << 14 | res() << 7 | res());
}

/* Addresses seen in a short run of the stimulus: instructions and data. */
struct HotAddresses {
    std::vector<uint32_t> insn, data;
};

/* Program cfg's filter registers at random; returns the number of draws. */
inline unsigned random_filter(etm_config_t *cfg, uint64_t seed, const HotAddresses &hot)
{
    Rng r{ seed * 0x9E3779B97F4A7C15ull + 0x51ED27ull };
    etm_config_t base = *cfg;
    for (unsigned tries = 1; tries <= 10000; tries++) {
        etm_config_t c = base;
        unsigned pairs = ETM_FIELD_GET(ETM_CCR_PAIRS, c.etmccr);
        unsigned ncnt = ETM_FIELD_GET(ETM_CCR_COUNTERS, c.etmccr);
        if (pairs > 8)
            pairs = 8;
        uint32_t instr_single = 0, data_single = 0, instr_range = 0, data_range = 0;
        for (unsigned k = 0; k < pairs; k++) {
            unsigned use = r.below(3); /* 0 instruction range, 1 data range, 2 two singles */
            for (unsigned j = 0; j < 2; j++) {
                unsigned n = 2 * k + j;
                bool data = use == 1 || (use == 2 && r.pct(40));
                unsigned size = r.below(3) == 0 ? 0 : r.pct(50) ? 1 : 3;
                unsigned type = data ? 4 + r.below(3) : 1 + r.below(3);
                uint32_t exact = (!data && r.pct(25)) ? 1u << 7 : 0;
                c.etmactr[n] = type | size << 3 | exact;
                uint32_t window = data || r.pct(30) ? 0x20000000u : 0;
                uint32_t a = window | (0x100 + r.below(0x3000)) * 2;
                const std::vector<uint32_t> &h = data ? hot.data : hot.insn;
                if (!h.empty() && r.pct(60)) {
                    a = h[r.below((unsigned)h.size())];
                    if (!data && r.pct(70)) { /* executed, Thumb: matches whenever it runs */
                        size = 1;
                        c.etmactr[n] = 1 | 1 << 3;
                    }
                }
                c.etmacvr[n] = a & ~(size == 3 ? 3u : size == 1 ? 1u : 0u);
                if (use == 2)
                    (data ? data_single : instr_single) |= 1u << n;
            }
            if (use < 2) {
                c.etmactr[2 * k + 1] = c.etmactr[2 * k];
                c.etmacvr[2 * k + 1] = c.etmacvr[2 * k] + 0x40 + r.below(r.pct(50) ? 0x80 : 0x2000) * 4;
                (use == 1 ? data_range : instr_range) |= 1u << k;
            }
        }
        c.etmtecr1 = (instr_range & r.below(256)) | (r.pct(70) ? 1u << 24 : 0) | (r.pct(20) ? 1u << 25 : 0);
        c.etmtecr2 = instr_single & r.below(65536);
        /* Mostly (80 %) replaced below by a start and a different stop
         * comparator; drawn first all the same, so that a seed keeps its programming. */
        c.etmtsscr = (instr_single & r.below(65536)) | (instr_single & r.below(65536)) << 16;
        if (instr_single && r.pct(80)) {
            auto pick = [&](uint32_t avoid) {
                unsigned n;
                do
                    n = r.below(16);
                while (!(instr_single >> n & 1) || ((avoid >> n & 1) && (instr_single & ~avoid)));
                return 1u << n;
            };
            uint32_t st = pick(0);
            c.etmtsscr = st | pick(st) << 16; /* different comparators where there are two */
        }
        c.etmtesseicr = r.pct(30) ? (r.below(16) | r.below(16) << 16) : 0;
        c.etmteevr = random_event(r, pairs, ncnt, 75);
        c.etmtrigger = r.pct(30) ? 0x406F : random_event(r, pairs, ncnt, 0);
        c.etmvdevr = random_event(r, pairs, ncnt, 50);
        c.etmvdcr1 = (data_single & r.below(65536)) | (data_single & r.below(65536)) << 16;
        c.etmvdcr3 = (data_range & r.below(256)) | (data_range & r.below(256)) << 8 | (r.pct(50) ? 1u << 16 : 0);
        for (unsigned i = 0; i < ncnt && i < ETM_NUM_COUNTERS; i++) {
            c.etmcntrldvr[i] = 1 + r.below(r.pct(50) ? 20 : 2000);
            c.etmcntvr[i] = r.below(2000);
            c.etmcntenr[i] = random_event(r, pairs, ncnt, 30) | (r.pct(70) ? 1u << 17 : 0);
            c.etmcntrldevr[i] = r.pct(30) ? 0x406F : random_event(r, pairs, ncnt, 0);
        }
        etm_ctx_t *ctx;
        etm_diag_t d;
        if (etm_create(&ctx, &c, &d) == ETM_OK) {
            etm_destroy(ctx);
            *cfg = c;
            return tries;
        }
    }
    return 0;
}

} // namespace cosim

#endif
