/* reprog.c - see reprog.h. */
#include "reprog.h"

#include <string.h>

int reprog_from_reset(etm_ctx_t *etm, const etm_config_t *cfg)
{
    etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
    etm_apb_driver_t drv;
    etm_apb_driver_start(&drv, ops, etm_program_ops(cfg, NULL, ops, ETM_PROGRAM_MAX_OPS));
    while (etm_apb_busy(&drv)) {
        etm_in_t idle;
        etm_out_t out;
        memset(&idle, 0, sizeof idle);
        etm_apb_drive(&drv, &idle);
        if (etm_step(etm, &idle, &out) != ETM_OK || out.v3_count || drv.cycles > 10000)
            return -1;
        etm_apb_observe(&drv, &out);
    }
    return 0;
}

void reprog_target(etm_config_t *t, const etm_config_t *first, unsigned id, int narrow, uint32_t base,
                   uint32_t size)
{
    *t = *first;
    if (id)
        t->etmtraceidr = id;
    if (!narrow)
        return;
    if (ETM_FIELD_GET(ETM_CCR_PAIRS, t->etmccr) && size) {
        t->etmacvr[0] = base;
        t->etmacvr[1] = base + size / 2;
        t->etmactr[0] = t->etmactr[1] = 1; /* instruction executed */
        t->etmtecr1 = 1;                   /* include range 1 */
        t->etmteevr = 0x6F;                /* always */
    } else {
        t->etmteevr = 0x406F;              /* never */
    }
}
