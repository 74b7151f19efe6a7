/* etm/program.h - programming an ETM through its debug APB, as a debugger or a
 * driver does: a list of register operations (etm_apb_op_t) and a driver that
 * turns them into the APB fields of etm_in_t, one AMBA 3 APB transfer (a setup
 * cycle, then an access cycle) per operation.
 *
 *     etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
 *     size_t n = etm_program_ops(&cfg, NULL, ops, ETM_PROGRAM_MAX_OPS);
 *     etm_apb_driver_t drv;
 *     etm_apb_driver_start(&drv, ops, n);
 *     while (etm_apb_busy(&drv)) {
 *         etm_in_t in = { 0 };                   (or the core's cycle)
 *         etm_apb_drive(&drv, &in);
 *         etm_step(etm, &in, &out);
 *         etm_apb_observe(&drv, &out);           a poll reads PRDATA
 *     }
 *
 * The same cycles program the RTL twin, so the C model and the RTL see one
 * sequence. No global state; the library never prints.
 */
#ifndef ETM_PROGRAM_H
#define ETM_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "etm/config.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etm_apb_kind {
    ETM_APB_WRITE, /* write value */
    ETM_APB_READ,  /* read; the value read is kept in the driver (last_read) */
    ETM_APB_POLL,  /* read again until (value read & mask) == value */
    ETM_APB_IDLE   /* one cycle with no transfer */
} etm_apb_kind_t;

typedef struct etm_apb_op {
    uint8_t kind;     /* etm_apb_kind_t */
    uint8_t debugger; /* PADDRDBG31: from the debugger (1) or software (0) */
    uint16_t offset;  /* byte offset in the ETM's 4 KB, a multiple of 4 */
    uint32_t value;
    uint32_t mask;    /* ETM_APB_POLL */
} etm_apb_op_t;

/* The most operations etm_program_ops writes. */
#define ETM_PROGRAM_MAX_OPS 128

/* The architecture's programming sequence for the registers of `target`, as
 * software does it (PADDRDBG31 = 0): unlock (ETMLAR, ETMv3), set ETMCR's
 * programming bit with power-down clear (the rest of ETMCR as `from` has it:
 * the ETM's registers now, NULL for an ETM just out of reset, whose ETMCR[10]
 * is set already), wait for ETMSR[1], write every register the implementation
 * of `target` has (etm_reg_locate; the read-only ones are skipped), then ETMCR
 * as `target` has it, locks again (ETMLAR, ETMv3), then one idle cycle: the one
 * in which the trace stages restart, so that the core's next cycle is traced.
 * The ETM is then as etm_create makes it from `target`. Returns the number of operations written (at most max;
 * 0 when max is too small). */
size_t etm_program_ops(const etm_config_t *target, const etm_config_t *from, etm_apb_op_t *ops, size_t max);

typedef struct etm_apb_driver {
    const etm_apb_op_t *ops;
    size_t n, pc;       /* operations, and the one under way */
    uint8_t access;     /* the next cycle is the access phase of ops[pc] */
    uint32_t last_read; /* PRDATA of the last read or poll */
    uint64_t cycles;    /* cycles driven */
} etm_apb_driver_t;

void etm_apb_driver_start(etm_apb_driver_t *d, const etm_apb_op_t *ops, size_t n);

/* Operations are left (the next cycle carries a transfer). */
int etm_apb_busy(const etm_apb_driver_t *d);

/* The cycle's APB fields into `in` (the other fields are left as they are);
 * an idle bus when nothing is left. */
void etm_apb_drive(etm_apb_driver_t *d, etm_in_t *in);

/* After the cycle: its outputs (PRDATA of an access phase); moves on. */
void etm_apb_observe(etm_apb_driver_t *d, const etm_out_t *out);

#ifdef __cplusplus
}
#endif
#endif
