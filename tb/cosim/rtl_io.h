/* rtl_io.h - the co-simulation contract between the C model and the Verilated
 * RTL twin (rtl/etm_top.sv), in the manner of ibex's cosim.h.
 *
 * One cycle of lockstep is:
 *
 *     rtl_drive_inputs(top, &in);        the cycle's inputs, clk_i low
 *     top->eval();                       outputs of the cycle settle
 *     etm_step(model, &in, &c_out);      the C model's edge
 *     rtl_read_outputs(top, &r_out);     the RTL's outputs of the same cycle
 *     compare c_out and r_out            every field of etm_out_t
 *     top->clk_i = 1; top->eval();       the RTL's edge commits its state
 *     top->clk_i = 0;
 *
 * Before the first cycle: rtl_drive_config() with the etm_config_t that created
 * the model, then rtl_reset() (etm_reset). The end of trace is one edge with
 * end_i = 1 (etm_end, no output compared) and then one edge per etm_drain call
 * that modelled a cycle (ETM_OK); ETM_END means nothing was left.
 */
#ifndef ETM_RTL_IO_H
#define ETM_RTL_IO_H

#include <cstdint>
#include <cstring>

#include "Vetm_top.h"
#include "etm/etm.h"

/* The configuration ports: the register image, held for the whole run. */
static inline void rtl_drive_config(Vetm_top *t, const etm_config_t *c)
{
    t->cfg_etmcr_i = c->etmcr;
    t->cfg_etmccr_i = c->etmccr;
    t->cfg_etmtrigger_i = c->etmtrigger;
    t->cfg_etmtsscr_i = c->etmtsscr;
    t->cfg_etmtecr2_i = c->etmtecr2;
    t->cfg_etmteevr_i = c->etmteevr;
    t->cfg_etmtecr1_i = c->etmtecr1;
    t->cfg_etmfflr_i = c->etmfflr;
    t->cfg_etmvdevr_i = c->etmvdevr;
    t->cfg_etmvdcr1_i = c->etmvdcr1;
    t->cfg_etmvdcr3_i = c->etmvdcr3;
    for (int i = 0; i < ETM_NUM_ADDR_COMP; i++) {
        t->cfg_etmacvr_i[i] = c->etmacvr[i];
        t->cfg_etmactr_i[i] = c->etmactr[i];
    }
    for (int i = 0; i < ETM_NUM_COUNTERS; i++) {
        t->cfg_etmcntrldvr_i[i] = c->etmcntrldvr[i];
        t->cfg_etmcntenr_i[i] = c->etmcntenr[i];
        t->cfg_etmcntrldevr_i[i] = c->etmcntrldevr[i];
        t->cfg_etmcntvr_i[i] = c->etmcntvr[i];
    }
    t->cfg_etmsyncfr_i = c->etmsyncfr;
    t->cfg_etmtesseicr_i = c->etmtesseicr;
    t->cfg_etmidr_i = c->etmidr;
    t->cfg_etmccer_i = c->etmccer;
    t->cfg_etmtraceidr_i = c->etmtraceidr;
    t->cfg_fifo_depth_i = c->fifo_depth;
    t->cfg_port_bytes_i = c->port_bytes;
    t->cfg_issue_width_i = c->issue_width;
}

/* Every input of etm_in_t onto the port of the same name. */
static inline void rtl_drive_inputs(Vetm_top *t, const etm_in_t *in)
{
    t->ETMIVALID = in->ivalid;
    t->ETMIBRANCH = in->ibranch;
    t->ETMIINDBR = in->iindbr;
    t->ETMICCFAIL = in->iccfail;
    t->ETMFOLD = in->fold;
    t->ETMIA = in->ia >> 1; /* ETMIA[31:1] */
    t->ETMDVALID = in->dvalid;
    t->ETMFLUSH = in->flush;
    t->ETMFINDBR = in->findbr;
    t->ETMCANCEL = in->cancel;
    t->ETMISTALL = in->istall;
    t->ETMINTSTAT = in->intstat;
    t->ETMINTNUM = in->intnum;
    t->ETMTRIGGER = in->trigger;
    t->ETMTRIGINOTD = in->triginotd;
    t->ETMIVALID1 = in->ivalid1;
    t->ETMIBRANCH1 = in->ibranch1;
    t->ETMIINDBR1 = in->iindbr1;
    t->ETMICCFAIL1 = in->iccfail1;
    t->ETMIA1 = in->ia1 >> 1;
    t->ETMDACTL = in->dactl;
    t->ETMDA = in->da;
    t->ETMDDCTL = in->ddctl;
    t->ETMDD = in->dd;
}

/* FIFOFULL, where etm_out_t has it (the field came with the FIFOFULL stall). */
template <typename T>
static inline auto rtl_set_fifofull(T *o, unsigned v, int) -> decltype(o->fifofull = 0, void())
{
    o->fifofull = (uint8_t)v;
}
template <typename T>
static inline void rtl_set_fifofull(T *, unsigned, long) {}

/* The RTL's outputs as an etm_out_t, and its violation bits (bit r = etm_rule_t r). */
static inline void rtl_read_outputs(const Vetm_top *t, etm_out_t *o, uint32_t *violations)
{
    std::memset(o, 0, sizeof *o);
    o->pipestat = t->PIPESTAT;
    o->tracesync = t->TRACESYNC;
    o->tracepkt = t->TRACEPKT;
    o->v3_count = t->V3COUNT;
    uint64_t d = t->V3DATA;
    for (int i = 0; i < ETM_MAX_PORT_BYTES; i++)
        o->v3_bytes[i] = (uint8_t)(d >> (8 * i));
    o->fifo_level = t->FIFOLEVEL;
    o->overflow = t->OVERFLOW;
    o->trigger = t->TRIGGER;
    rtl_set_fifofull(o, t->FIFOFULL, 0);
    o->trace_enable = t->TRACEENABLE;
    o->view_data = t->VIEWDATA;
    if (violations)
        *violations = t->VIOLATIONS;
}

/* etm_reset: a few cycles of rst_ni low. */
static inline void rtl_reset(Vetm_top *t)
{
    t->end_i = 0;
    t->clk_i = 0;
    t->rst_ni = 0;
    t->eval();
    t->clk_i = 1;
    t->eval();
    t->clk_i = 0;
    t->eval();
    t->rst_ni = 1;
    t->eval();
}

#endif
