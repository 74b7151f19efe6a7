/* genopts.h - the options of the testbenches that drive the model with the
 * generator of a random Cortex-M3 program (etm/gen.h): the register image, the
 * generator's parameters, the run length and a random filter
 * (randfilter.h), parsed alike by the round trips. */
#ifndef ETM_TB_GENOPTS_H
#define ETM_TB_GENOPTS_H

#include <stdint.h>

#include "etm/config.h"
#include "etm/gen.h"

typedef struct genopts {
    etm_config_t cfg;
    etm_gen_params_t gp;
    uint64_t cycles;      /* default 10^6 */
    const char *preset;
    int random_filter;
    uint64_t filter_seed;
} genopts_t;

/* The preset's image, the generator's defaults. */
void genopts_init(genopts_t *g, const char *preset);

/* argv[*i] if it is one of --preset NAME, --set REG=0xV, --cycles N, --seed S,
 * --issue-width N, --irq-period N, --sleep N, --max-intnum N, --data,
 * --data-mix, --data-delay N, --triggers, --random-filter S: returns 1 and
 * moves *i past its value; 0 when it is not one of them; -1 when its value is
 * bad (said on stderr). */
int genopts_parse(genopts_t *g, int argc, char **argv, int *i);

/* With --random-filter, program the filter (cfg, and the generator's address
 * hints) and print it; data: the filter may use ViewData. Returns 0, or -1
 * (said on stderr). */
int genopts_filter(genopts_t *g, int data);

#endif
