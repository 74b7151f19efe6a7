/* program.c - the programming sequence of etm/program.h and its APB driver. */
#include "etm/program.h"

#include <string.h>

static int put(etm_apb_op_t *ops, size_t max, size_t *n, uint8_t kind, unsigned offset, uint32_t value,
               uint32_t mask)
{
    if (*n >= max)
        return 0;
    etm_apb_op_t *o = &ops[(*n)++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->offset = (uint16_t)offset;
    o->value = value;
    o->mask = mask;
    return 1;
}

size_t etm_program_ops(const etm_config_t *target, const etm_config_t *from, etm_apb_op_t *ops, size_t max)
{
    size_t n = 0;
    unsigned version = 0;
    if (etm_config_version(target, &version, NULL) != ETM_OK)
        return 0;
    uint32_t prog = ETM_FIELD_MASK(ETM_CR_PROGRAMMING), pd = ETM_FIELD_MASK(ETM_CR_POWERDOWN);
    int ok = 1;
    if (version >= etm_mgmt_registers[ETM_MGMT_LAR].first) /* unlock */
        ok &= put(ops, max, &n, ETM_APB_WRITE, 4u * etm_mgmt_registers[ETM_MGMT_LAR].number, ETM_LAR_KEY, 0);
    ok &= put(ops, max, &n, ETM_APB_WRITE, 0, ((from ? from : target)->etmcr | prog) & ~pd, 0);
    if (version >= etm_mgmt_registers[ETM_MGMT_SR].first)
        ok &= put(ops, max, &n, ETM_APB_POLL, 4u * etm_mgmt_registers[ETM_MGMT_SR].number, 2u, 2u); /* ETMSR[1] */
    for (unsigned number = 1; number < 0x100 && ok; number++) {
        etm_regloc_t loc;
        if (!etm_reg_locate(target, number, &loc) || !loc.reg || !(loc.access & ETM_ACCESS_W))
            continue;
        ok &= put(ops, max, &n, ETM_APB_WRITE, 4u * number, etm_register_get(target, loc.reg, loc.index), 0);
    }
    ok &= put(ops, max, &n, ETM_APB_WRITE, 0, target->etmcr, 0);
    if (version >= etm_mgmt_registers[ETM_MGMT_LAR].first) /* lock again, as drivers do */
        ok &= put(ops, max, &n, ETM_APB_WRITE, 4u * etm_mgmt_registers[ETM_MGMT_LAR].number, 0, 0);
    ok &= put(ops, max, &n, ETM_APB_IDLE, 0, 0, 0);
    return ok ? n : 0;
}

void etm_apb_driver_start(etm_apb_driver_t *d, const etm_apb_op_t *ops, size_t n)
{
    memset(d, 0, sizeof *d);
    d->ops = ops;
    d->n = n;
}

int etm_apb_busy(const etm_apb_driver_t *d) { return d->pc < d->n; }

void etm_apb_drive(etm_apb_driver_t *d, etm_in_t *in)
{
    in->psel = in->penable = in->pwrite = in->paddrdbg31 = 0;
    in->paddr = 0;
    in->pwdata = 0;
    if (d->pc >= d->n)
        return;
    const etm_apb_op_t *o = &d->ops[d->pc];
    d->cycles++;
    if (o->kind == ETM_APB_IDLE)
        return;
    in->psel = 1;
    in->penable = d->access;
    in->pwrite = o->kind == ETM_APB_WRITE;
    in->paddr = (uint16_t)(o->offset & 0xFFCu);
    in->pwdata = o->kind == ETM_APB_WRITE ? o->value : 0;
    in->paddrdbg31 = o->debugger;
}

void etm_apb_observe(etm_apb_driver_t *d, const etm_out_t *out)
{
    if (d->pc >= d->n)
        return;
    if (d->ops[d->pc].kind == ETM_APB_IDLE) {
        d->pc++;
        return;
    }
    if (!d->access) {
        d->access = 1;
        return;
    }
    d->access = 0;
    const etm_apb_op_t *o = &d->ops[d->pc];
    if (o->kind != ETM_APB_WRITE)
        d->last_read = out->prdata;
    if (o->kind == ETM_APB_POLL && (out->prdata & o->mask) != o->value)
        return; /* read it again */
    d->pc++;
}
