/* regs.c - stage `regs`: the programmer's model on the debug APB (AMBA 3 APB,
 * zero wait states). A read returns, in its access phase, the register as it
 * stands before the edge; a write takes effect at the edge that ends its
 * access phase, as in rtl/etm_regs.sv. What sits where: etm_reg_locate
 * (defs/src/regspace.c). Illegal accesses are ignored, as the architecture
 * says, and reported as rule violations (etm/rules.def, APB_*); a write while
 * tracing is the part's choice (APB_UNPRED, APB_STRICT).
 * etm.c runs the programming flow that ETMCR's writes start (docs/registers.md). */
#include <string.h>

#include "regs.h"

#define RULE(r) (1ull << ETM_RULE_##r)

void etm_regs_reset(regs_state_t *r, unsigned version)
{
    memset(r, 0, sizeof *r);
    r->has_lock = version >= etm_mgmt_registers[ETM_MGMT_LAR].first;
    r->locked_q = r->has_lock; /* CoreSight: the lock is set at reset */
}

static uint32_t mgmt_read(const regs_state_t *r, const etm_config_t *cfg, const etm_regloc_t *loc, int dbg,
                          const regs_live_t *live)
{
    switch ((etm_mgmt_t)loc->mgmt) {
    case ETM_MGMT_SR: {
        int prog = ETM_FIELD_GET(ETM_CR_PROGRAMMING, cfg->etmcr) != 0;
        return (uint32_t)live->overflow | (uint32_t)(prog && live->drained) << 1 | (uint32_t)live->ss << 2 |
               (uint32_t)live->triggered << 3;
    }
    case ETM_MGMT_PDSR: return 1; /* powered up: the model has no power domain of its own */
    case ETM_MGMT_CLAIMSET: return (1u << ETM_CLAIM_TAGS) - 1;
    case ETM_MGMT_CLAIMCLR: return r->claim_q;
    case ETM_MGMT_LSR: return dbg ? 0 : 1u | (uint32_t)r->locked_q << 1; /* no lock for the debugger */
    case ETM_MGMT_AUTHSTATUS: return ETM_AUTHSTATUS_VALUE;
    case ETM_MGMT_DEVTYPE: return ETM_DEVTYPE_VALUE;
    case ETM_MGMT_PIDR4: return (cfg->pidr >> 19) & 1 ? 0x04u : 0; /* JEP106 continuation of a JEDEC designer */
    case ETM_MGMT_PIDR0: return (cfg->pidr >> (8 * loc->index)) & 0xFFu;
    case ETM_MGMT_CIDR0: return (ETM_CIDR_VALUE >> (8 * loc->index)) & 0xFFu;
    default: return 0; /* ETMLAR (write-only), ETMPIDR5-7 */
    }
}

uint64_t etm_regs_cycle(regs_state_t *r, const etm_config_t *cfg, const regs_live_t *live, const etm_in_t *in,
                        etm_out_t *out, regs_access_t *acc)
{
    memset(acc, 0, sizeof *acc);
    out->pready = 1;
    int access = in->psel && in->penable;
    uint64_t rules = 0;
    if (access && !r->setup_q)
        rules |= RULE(APB_NO_SETUP);
    r->setup_q = in->psel && !in->penable;
    if (!access)
        return rules;
    unsigned number = (in->paddr >> 2) & 0x3FFu;
    etm_regloc_t loc;
    if (!etm_reg_locate(cfg, number, &loc))
        return rules | RULE(APB_UNMAPPED);
    int dbg = in->paddrdbg31 != 0;
    if (!in->pwrite) {
        if (!(loc.access & ETM_ACCESS_R))
            out->prdata = 0;
        else if (loc.reg && loc.reg->offset == offsetof(etm_config_t, etmcntvr) && live->live_cnt)
            out->prdata = live->cnt[loc.index];
        else if (loc.reg)
            out->prdata = etm_register_get(cfg, loc.reg, loc.index);
        else
            out->prdata = mgmt_read(r, cfg, &loc, dbg, live);
        return rules;
    }
    if (!(loc.access & ETM_ACCESS_W))
        return rules | RULE(APB_READ_ONLY);
    if (loc.mgmt == ETM_MGMT_LAR && dbg)
        return rules; /* the lock is not there for the debugger: the write is ignored */
    if (loc.mgmt != ETM_MGMT_LAR && r->locked_q && !dbg)
        return rules | RULE(APB_LOCKED);
    uint32_t mask = loc.write_mask;
    if (loc.reg && !ETM_FIELD_GET(ETM_CR_PROGRAMMING, cfg->etmcr)) {
        /* While tracing, only ETMCR's programming and power-down bits may be
         * written; anything else is UNPREDICTABLE (IHI 0014 3.4.3). The part
         * decides (APB_UNPRED): the ETM-M3 takes the write as written; the
         * other choice ignores it, ETMCR's trace controls changing only with
         * the programming bit set. APB_STRICT reports it either way. */
        uint32_t flow = ETM_FIELD_MASK(ETM_CR_PROGRAMMING) | ETM_FIELD_MASK(ETM_CR_POWERDOWN);
        int is_cr = loc.reg->offset == offsetof(etm_config_t, etmcr);
        int unpred = !is_cr || ((in->pwdata ^ cfg->etmcr) & mask & ~flow);
        if (unpred && cfg->apb_strict)
            rules |= RULE(APB_NOT_PROGRAMMING);
        if (!cfg->apb_unpred) {
            if (!is_cr)
                return rules;
            mask &= flow;
        }
    }
    acc->write = 1;
    acc->loc = loc;
    acc->value = in->pwdata & mask;
    acc->mask = mask;
    return rules;
}

void etm_regs_commit(regs_state_t *r, etm_config_t *cfg, const regs_access_t *acc)
{
    if (!acc->write)
        return;
    const etm_regloc_t *loc = &acc->loc;
    if (loc->reg) {
        uint32_t *v = etm_register_ptr(cfg, loc->reg, loc->index);
        *v = (*v & ~acc->mask) | acc->value;
        return;
    }
    switch ((etm_mgmt_t)loc->mgmt) {
    case ETM_MGMT_LAR: r->locked_q = acc->value != ETM_LAR_KEY; break;
    case ETM_MGMT_CLAIMSET: r->claim_q |= (uint8_t)acc->value; break;
    case ETM_MGMT_CLAIMCLR: r->claim_q &= (uint8_t)~acc->value; break;
    default: break;
    }
}
