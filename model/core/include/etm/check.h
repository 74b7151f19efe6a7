/* etm/check.h - stage `check`: the interface contract of the Cortex-M3 ETM
 * interface (table 16.1 "Qualified by"), the second instruction slot, and the
 * ARM11 data slot interface (ARM1176 TRM section 15.1). One call per cycle, like
 * the RTL's assertions; each violation is reported with the rule's name.
 * docs/interface.md explains every rule and its source.
 */
#ifndef ETM_CHECK_H
#define ETM_CHECK_H

#include <stdint.h>

#include "etm/config.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rules, in the order of etm/rules.def (the bits of the RTL's VIOLATIONS). */
typedef enum etm_rule {
#define ETM_RULE(name, text) ETM_RULE_##name,
#include "etm/rules.def"
    ETM_RULE_COUNT
} etm_rule_t;

const char *etm_rule_name(etm_rule_t r); /* "IBRANCH_WITHOUT_IVALID" */
const char *etm_rule_text(etm_rule_t r); /* the sentence */

/* State of the checker (the RTL's assertion registers). Plain data: embed it. */
typedef struct etm_check {
    unsigned issue_width;
    uint64_t cycle;                  /* cycles checked so far */
    uint64_t counts[ETM_RULE_COUNT]; /* violations per rule */
    uint64_t total;                  /* all violations */
    /* Data slots 1..3: an address from an earlier cycle waiting for its value. */
    uint8_t pend_q[4];
    /* ETMCANCEL seen, waiting for the exception entry. */
    uint8_t cancel_q;
    /* Data address sequencing. */
    uint8_t first_q;     /* the next transfer is the first of an instruction */
    uint8_t unal_q;      /* the next transfer is the second half of an unaligned access */
    uint8_t unal_last_q; /* DALast of that first half */
    uint8_t insn_q;      /* an instruction came since the last first transfer */
    /* Per data slot: the cycle of the waiting address and whether it is a store. */
    uint64_t pend_cyc_q[4];
    uint8_t pend_write_q[4];
    uint32_t prev_da_q;  /* address of the last transfer */
    uint32_t unal_da_q;  /* first half of an unaligned access: its address, */
    uint8_t unal_n_q;    /*   bytes */
    uint8_t unal_write_q;/*   and DAWrite */
} etm_check_t;

void etm_check_init(etm_check_t *c, const etm_config_t *cfg);

/* Check one cycle. Writes up to `max` broken rules to `fired` and returns how
 * many rules were broken in this cycle (which may exceed max). */
unsigned etm_check_step(etm_check_t *c, const etm_in_t *in, etm_rule_t *fired, unsigned max);

#ifdef __cplusplus
}
#endif
#endif
