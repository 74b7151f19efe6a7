/* reprog.h - the --reprogram runs of the round trips (tb/oracle/roundtrip.c,
 * tb/e2e/etm_e2e.c): programming an ETM just out of reset through its debug
 * APB before the core runs, and the registers each later reprogramming
 * writes (etm_program_ops). */
#ifndef ETM_TB_REPROG_H
#define ETM_TB_REPROG_H

#include <stdint.h>

#include "etm/etm.h"

/* Programs `etm` (etm_create_at_reset) to `cfg` through the APB with the core
 * idle: 0 when the sequence ends within 10 000 cycles, every step ETM_OK and
 * no trace byte out; else -1. */
int reprog_from_reset(etm_ctx_t *etm, const etm_config_t *cfg);

/* The registers of a reprogramming: `first` (the first programming), with
 * ETMTRACEIDR = id unless id is 0; when `narrow`, trace of the first half of
 * the code [base, base + size) only, through address comparator pair 1, or of
 * nothing where the ETM has no pair or there is no code (size 0). */
void reprog_target(etm_config_t *t, const etm_config_t *first, unsigned id, int narrow, uint32_t base,
                   uint32_t size);

#endif
