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

/* X(name, text): name is what the user sees (ETMIBRANCH_WITHOUT_IVALID). */
#define ETM_RULE_LIST(X)                                                                                  \
    X(IBRANCH_WITHOUT_IVALID, "ETMIBRANCH is qualified by ETMIVALID")                                     \
    X(ICCFAIL_WITHOUT_IVALID, "ETMICCFAIL is qualified by ETMIVALID")                                     \
    X(FOLD_WITHOUT_IVALID, "ETMFOLD is qualified by ETMIVALID")                                           \
    X(IINDBR_WITHOUT_IBRANCH, "ETMIINDBR is qualified by ETMIBRANCH")                                     \
    X(FINDBR_WITHOUT_FLUSH, "ETMFINDBR is qualified by ETMFLUSH")                                         \
    X(ISTALL_WITH_IVALID, "ETMISTALL says no instruction entered execute, ETMIVALID says one did")       \
    X(INTSTAT_RESERVED, "ETMINTSTAT values 5, 6 and 7 are reserved")                                      \
    X(INTSTAT_EXIT_WITH_IVALID, "interrupt exit (ETMINTSTAT=2) occurs without ETMIVALID")                 \
    X(INTSTAT_ENTRY_WITHOUT_IVALID,                                                                       \
      "interrupt entry and return (ETMINTSTAT=1, 3) mark the first instruction of the new context, "     \
      "so they need ETMIVALID")                                                                           \
    X(INTSTAT_ENTRY_NOT_INDIRECT,                                                                         \
      "the first instruction of a new context is the target of an indirect PC change: "                  \
      "ETMIBRANCH and ETMIINDBR")                                                                         \
    X(INTNUM_INVALID, "exception entry with ETMINTNUM 0, 7-10 or 13: not a Cortex-M3 exception")         \
    X(CANCEL_WITHOUT_ENTRY,                                                                               \
      "after ETMCANCEL the next instruction must be the first of an exception handler (ETMINTSTAT=1): "  \
      "cancelled instructions restart or continue on return")                                             \
    X(SLOT1_DISABLED, "the second instruction slot is used but ISSUE_WIDTH is 1")                         \
    X(SLOT1_WITHOUT_SLOT0, "ETMIVALID1 without ETMIVALID: slot 1 holds the second instruction of a cycle") \
    X(SLOT1_WITH_FOLD, "a folded IT already makes two instructions in the cycle; slot 1 must be empty")  \
    X(IBRANCH1_WITHOUT_IVALID1, "ETMIBRANCH1 is qualified by ETMIVALID1")                                 \
    X(ICCFAIL1_WITHOUT_IVALID1, "ETMICCFAIL1 is qualified by ETMIVALID1")                                 \
    X(IINDBR1_WITHOUT_IBRANCH1, "ETMIINDBR1 is qualified by ETMIBRANCH1")                                 \
    X(DD_WITHOUT_ADDRESS, "a data value on a slot with no outstanding data address")                     \
    X(DD_SAME_CYCLE,                                                                                      \
      "a data value belongs to an address from an earlier cycle, never to one of the same cycle")         \
    X(DA_FIRST_WITHOUT_NSEQ, "the first transfer of an instruction (after DALast) must assert DANSeq")   \
    X(DA_UNALIGNED_SECOND_HALF, "the transfer after DAUnaligned is its second half: DAUnaligned=0")      \
    X(DA_UNALIGNED_LAST_MISMATCH, "DALast must be the same on both halves of an unaligned access")      \
    X(DD_TOO_SOON, "a data value is not returned for at least two cycles after its address")              \
    X(DD_FAIL_NOT_STORE, "store-exclusive failed (ETMDDCTL[2]) on a value whose address is not a store")   \
    X(DA_FIRST_WITHOUT_INSN,                                                                              \
      "the first transfer of a data instruction comes with or after that instruction (ETMIVALID); "       \
      "two instructions' transfers need two instructions")                                                \
    X(DA_BLSEL_INVALID,                                                                                   \
      "DABLSel must select the bytes of the access: a contiguous run of lanes from lane DA[2:0] within "   \
      "one word")                                                                                         \
    X(DA_ROT_MISMATCH,                                                                                    \
      "DARot must bring the access's bytes to the bottom of the register: DA[1:0] little-endian, "        \
      "(4 - DA[1:0] - bytes) mod 4 big-endian (DASwizzle)")                                               \
    X(DA_NOT_SEQUENTIAL, "a later transfer without DANSeq must be at the word after the previous transfer") \
    X(DA_UNALIGNED_SPLIT,                                                                                 \
      "the halves of an unaligned access are the bytes to the end of a word and the bytes from the start " \
      "of the next word, at most 4 in all")                                                               \
    X(DA_CPRT_NOT_SINGLE, "a CPRT (DACPRT) is the only transfer of its instruction: DANSeq and DALast, not unaligned")

typedef enum etm_rule {
#define ETM_X_RULE(name, text) ETM_RULE_##name,
    ETM_RULE_LIST(ETM_X_RULE)
#undef ETM_X_RULE
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
