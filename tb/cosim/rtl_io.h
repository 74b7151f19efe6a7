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

/* The configuration ports: the register image, held for the whole run; a
 * port cfg_<field>_i per register and parameter of etm/regs.def (register
 * arrays: element n in the port's 32-bit word n). */
static inline void rtl_drive_config(Vetm_top *t, const etm_config_t *c)
{
#define ETM_REG(field, name, number, layout, first, doc) t->cfg_##field##_i = c->field;
#define ETM_REG_ARRAY(field, name, number, count, layout, first, doc) \
    for (int i = 0; i < (count); i++)                                  \
        t->cfg_##field##_i[i] = c->field[i];
#define ETM_PARAM(field, name, doc) t->cfg_##field##_i = c->field;
#include "etm/regs.def"
}

/* Every input of etm_in_t onto the port of the same name (etm/signals.def;
 * ETMIA[31:1] takes the address without bit 0). */
static inline void rtl_drive_inputs(Vetm_top *t, const etm_in_t *in)
{
#define ETM_IN(field, name, width, lsb, ctype, part, doc) t->name = in->field >> (lsb);
#include "etm/signals.def"
}

/* The RTL's outputs as an etm_out_t (etm/signals.def), and its violation bits
 * (bit r = etm_rule_t r). */
static inline void rtl_read_outputs(const Vetm_top *t, etm_out_t *o, uint32_t *violations)
{
    std::memset(o, 0, sizeof *o);
#define ETM_OUT(field, name, width, ctype, where, doc) o->field = (ctype)t->name;
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    o->count = (uint8_t)t->countname;                                  \
    for (int i = 0; i < (n); i++)                                      \
        o->bytes[i] = (uint8_t)((uint64_t)t->dataname >> (8 * i));
#include "etm/signals.def"
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
