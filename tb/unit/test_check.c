/* test_check.c - stage `check`: each rule fires on its violation (and only that
 * rule), and legal traffic next to it passes. The cases follow the sentences of
 * the Cortex-M3 TRM table 16.1 and the ARM1176 TRM table 15-5 quoted in
 * docs/interface.md. */
#include "etm/etm.h"
#include "test.h"

static etm_check_t chk;

static void reset(unsigned issue_width)
{
    etm_config_t cfg;
    etm_config_default(&cfg);
    cfg.issue_width = issue_width;
    etm_check_init(&chk, &cfg);
}

/* Run one cycle; return the set of fired rules as a bit mask. */
static uint64_t step(const etm_in_t *in)
{
    etm_rule_t fired[ETM_RULE_COUNT];
    unsigned n = etm_check_step(&chk, in, fired, ETM_RULE_COUNT);
    uint64_t m = 0;
    for (unsigned i = 0; i < n; i++)
        m |= 1ull << fired[i];
    return m;
}

#define R(name) (1ull << ETM_RULE_##name)

static etm_in_t insn(uint32_t ia)
{
    etm_in_t in;
    memset(&in, 0, sizeof in);
    in.ivalid = 1;
    in.ia = ia;
    return in;
}

static etm_in_t idle(void)
{
    etm_in_t in;
    memset(&in, 0, sizeof in);
    return in;
}

static void test_qualifiers(void)
{
    reset(1);
    etm_in_t in = idle();
    CHECK_EQ(step(&in), 0);
    in.ibranch = 1;
    CHECK_EQ(step(&in), R(IBRANCH_WITHOUT_IVALID));
    in = idle();
    in.iccfail = 1;
    CHECK_EQ(step(&in), R(ICCFAIL_WITHOUT_IVALID));
    in = idle();
    in.fold = 1;
    CHECK_EQ(step(&in), R(FOLD_WITHOUT_IVALID));
    in = insn(0x100);
    in.iindbr = 1;
    CHECK_EQ(step(&in), R(IINDBR_WITHOUT_IBRANCH));
    in.ibranch = 1;
    CHECK_EQ(step(&in), 0);
    in = idle();
    in.findbr = 1;
    CHECK_EQ(step(&in), R(FINDBR_WITHOUT_FLUSH));
    in.flush = 1;
    CHECK_EQ(step(&in), 0);
    in = insn(0x100);
    in.istall = 1;
    CHECK_EQ(step(&in), R(ISTALL_WITH_IVALID));
    in = idle();
    in.istall = 1;
    in.cancel = 1; /* "stalled instruction did not execute, previous one cancelled" */
    CHECK_EQ(step(&in), 0);
    reset(1);
    in = insn(0x100);
    in.iccfail = 1;
    in.fold = 1;
    CHECK_EQ(step(&in), 0);
    /* Two violations in one cycle are both reported. */
    in = idle();
    in.ibranch = 1;
    in.iccfail = 1;
    CHECK_EQ(step(&in), R(IBRANCH_WITHOUT_IVALID) | R(ICCFAIL_WITHOUT_IVALID));
}

static void test_intstat(void)
{
    reset(1);
    for (unsigned s = 5; s <= 7; s++) {
        etm_in_t in = idle();
        in.intstat = (uint8_t)s;
        CHECK_EQ(step(&in), R(INTSTAT_RESERVED));
    }
    etm_in_t in = insn(0x200);
    in.intstat = ETM_INTSTAT_EXIT;
    CHECK_EQ(step(&in), R(INTSTAT_EXIT_WITH_IVALID));
    in = idle();
    in.intstat = ETM_INTSTAT_EXIT;
    in.intnum = 15;
    CHECK_EQ(step(&in), 0);
    in = idle();
    in.intstat = ETM_INTSTAT_FETCH;
    CHECK_EQ(step(&in), 0);
    /* Entry: first instruction of the handler, an indirect branch target. */
    in = idle();
    in.intstat = ETM_INTSTAT_ENTRY;
    in.intnum = 15;
    CHECK_EQ(step(&in), R(INTSTAT_ENTRY_WITHOUT_IVALID));
    in = insn(0x40);
    in.intstat = ETM_INTSTAT_ENTRY;
    in.intnum = 15;
    CHECK_EQ(step(&in), R(INTSTAT_ENTRY_NOT_INDIRECT));
    in.ibranch = 1;
    CHECK_EQ(step(&in), R(INTSTAT_ENTRY_NOT_INDIRECT));
    in.iindbr = 1;
    CHECK_EQ(step(&in), 0);
    in.intstat = ETM_INTSTAT_RETURN;
    in.intnum = 0; /* return to thread mode */
    CHECK_EQ(step(&in), 0);
    in.ibranch = 0;
    in.iindbr = 0;
    CHECK_EQ(step(&in), R(INTSTAT_ENTRY_NOT_INDIRECT));
    in = idle();
    in.intstat = ETM_INTSTAT_RETURN;
    CHECK_EQ(step(&in), R(INTSTAT_ENTRY_WITHOUT_IVALID));
    /* Exception numbers a Cortex-M3 can enter. */
    static const unsigned bad[] = { 0, 7, 8, 9, 10, 13 };
    static const unsigned good[] = { 1, 2, 3, 4, 5, 6, 11, 12, 14, 15, 16, 255, 511 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        in = insn(0x40);
        in.ibranch = in.iindbr = 1;
        in.intstat = ETM_INTSTAT_ENTRY;
        in.intnum = (uint16_t)bad[i];
        CHECK_EQ(step(&in), R(INTNUM_INVALID));
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        in = insn(0x40);
        in.ibranch = in.iindbr = 1;
        in.intstat = ETM_INTSTAT_ENTRY;
        in.intnum = (uint16_t)good[i];
        CHECK_EQ(step(&in), 0);
    }
    /* A cancel must be followed by an exception entry. */
    in = idle();
    in.cancel = 1;
    CHECK_EQ(step(&in), 0);
    in = idle();
    CHECK_EQ(step(&in), 0);
    in = insn(0x44);
    CHECK_EQ(step(&in), R(CANCEL_WITHOUT_ENTRY));
    in = idle();
    in.cancel = 1;
    in.istall = 1;
    CHECK_EQ(step(&in), 0);
    in = insn(0x40);
    in.ibranch = in.iindbr = 1;
    in.intstat = ETM_INTSTAT_ENTRY;
    in.intnum = 16;
    CHECK_EQ(step(&in), 0);
    in = insn(0x42);
    CHECK_EQ(step(&in), 0);
    /* ETMINTNUM without a status is the current context: not a violation. */
    in = insn(0x44);
    in.intnum = 15;
    CHECK_EQ(step(&in), 0);
}

static void test_slot1(void)
{
    reset(1);
    etm_in_t in = insn(0x100);
    in.ivalid1 = 1;
    in.ia1 = 0x102;
    CHECK_EQ(step(&in), R(SLOT1_DISABLED));
    reset(2);
    CHECK_EQ(step(&in), 0);
    in.ivalid = 0;
    CHECK_EQ(step(&in), R(SLOT1_WITHOUT_SLOT0));
    in = insn(0x100);
    in.fold = 1;
    in.ivalid1 = 1;
    CHECK_EQ(step(&in), R(SLOT1_WITH_FOLD));
    in = insn(0x100);
    in.ibranch1 = 1;
    CHECK_EQ(step(&in), R(IBRANCH1_WITHOUT_IVALID1));
    in = insn(0x100);
    in.iccfail1 = 1;
    CHECK_EQ(step(&in), R(ICCFAIL1_WITHOUT_IVALID1));
    in = insn(0x100);
    in.ivalid1 = 1;
    in.iindbr1 = 1;
    CHECK_EQ(step(&in), R(IINDBR1_WITHOUT_IBRANCH1));
    in.ibranch1 = 1;
    in.iccfail1 = 1;
    CHECK_EQ(step(&in), 0);
}

/* DACTL value from fields. */
static uint32_t dactl(unsigned slot, unsigned nseq, unsigned last, unsigned unaligned)
{
    return (uint32_t)(slot | (unaligned << 11) | (last << 16) | (nseq << 17));
}

static void test_data(void)
{
    reset(1);
    etm_in_t in = idle();
    /* A value with no address. */
    in.ddctl = 3;
    CHECK_EQ(step(&in), R(DD_WITHOUT_ADDRESS));
    /* Address and value in the same cycle. */
    in = idle();
    in.dactl = dactl(3, 1, 1, 0);
    in.ddctl = 3;
    CHECK_EQ(step(&in), R(DD_SAME_CYCLE));
    /* That address is now outstanding: its value next cycle is fine. */
    in = idle();
    in.ddctl = 3;
    CHECK_EQ(step(&in), 0);
    /* ... and consumed: a second value is not. */
    CHECK_EQ(step(&in), R(DD_WITHOUT_ADDRESS));
    /* Values on other slots are matched by slot number; a value for an older
     * address of a slot may come in the cycle a new address of it arrives. */
    in = idle();
    in.dactl = dactl(1, 1, 0, 0);
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(2, 0, 1, 0);
    CHECK_EQ(step(&in), 0);
    in = idle();
    in.ddctl = 2;
    CHECK_EQ(step(&in), 0);
    in.ddctl = 1;
    in.dactl = dactl(1, 1, 1, 0);
    CHECK_EQ(step(&in), 0);
    in = idle();
    in.ddctl = 1;
    CHECK_EQ(step(&in), 0);
    /* STREX-failed and imprecise-abort qualifiers do not change the matching. */
    in = idle();
    in.dactl = dactl(3, 1, 1, 0);
    step(&in);
    in = idle();
    in.ddctl = 3 | 4 | 8;
    CHECK_EQ(step(&in), 0);
}

static void test_data_sequence(void)
{
    reset(1);
    etm_in_t in = idle();
    /* The very first transfer is the first of an instruction. */
    in.dactl = dactl(3, 0, 1, 0);
    CHECK_EQ(step(&in), R(DA_FIRST_WITHOUT_NSEQ));
    /* LDM of three words: NSeq on the first, Last on the third. */
    reset(1);
    in.dactl = dactl(3, 1, 0, 0);
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(3, 0, 0, 0);
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(3, 0, 1, 0);
    CHECK_EQ(step(&in), 0);
    /* The next instruction's first transfer needs NSeq. */
    in.dactl = dactl(3, 0, 1, 0);
    CHECK_EQ(step(&in), R(DA_FIRST_WITHOUT_NSEQ));
    /* Cycles without transfers do not matter. */
    in = idle();
    CHECK_EQ(step(&in), 0);
    /* Unaligned LDR: two halves, DALast on both; the second half is not a new
     * instruction's first transfer, and its DANSeq is not checked. */
    in.dactl = dactl(3, 1, 1, 1);
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(3, 0, 1, 0);
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(3, 1, 1, 0);
    CHECK_EQ(step(&in), 0);
    /* Second half with DAUnaligned again. */
    in.dactl = dactl(3, 1, 1, 1);
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(3, 0, 1, 1);
    CHECK_EQ(step(&in), R(DA_UNALIGNED_SECOND_HALF));
    /* DALast differing between halves. */
    reset(1);
    in.dactl = dactl(3, 1, 1, 1);
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(3, 0, 0, 0);
    CHECK_EQ(step(&in), R(DA_UNALIGNED_LAST_MISMATCH));
    /* Fields other than DASlot are ignored while DASlot is 0. */
    reset(1);
    in = idle();
    in.dactl = 0x3fffc;
    CHECK_EQ(step(&in), 0);
}

static void test_counts(void)
{
    reset(1);
    etm_in_t in = idle();
    in.ibranch = 1;
    in.iccfail = 1;
    etm_rule_t one[1];
    CHECK_EQ(etm_check_step(&chk, &in, one, 1), 2); /* room for one name, both counted */
    CHECK_EQ(chk.total, 2);
    CHECK_EQ(chk.counts[ETM_RULE_IBRANCH_WITHOUT_IVALID], 1);
    CHECK_EQ(chk.counts[ETM_RULE_ICCFAIL_WITHOUT_IVALID], 1);
    CHECK_EQ(chk.cycle, 1);
    for (int r = 0; r < ETM_RULE_COUNT; r++) {
        CHECK(etm_rule_name((etm_rule_t)r)[0] != '\0');
        CHECK(strlen(etm_rule_text((etm_rule_t)r)) > 10);
    }
}

int main(void)
{
    test_qualifiers();
    test_intstat();
    test_slot1();
    test_data();
    test_data_sequence();
    test_counts();
    return test_report("test_check");
}
