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

/* ETMDACTL from fields: a little-endian word at a word address unless the
 * lanes and rotation are given. */
static uint32_t dactl_full(unsigned slot, unsigned nseq, unsigned last, unsigned unaligned, unsigned lanes,
                           unsigned rot, unsigned swz, unsigned write, unsigned cprt)
{
    return (uint32_t)(slot | write << 2 | (lanes & 0xFFu) << 3 | unaligned << 11 | (rot & 3u) << 12 | swz << 14 |
                      cprt << 15 | last << 16 | nseq << 17);
}

static uint32_t dactl(unsigned slot, unsigned nseq, unsigned last, unsigned unaligned)
{
    return dactl_full(slot, nseq, last, unaligned, 0x0F, 0, 0, 0, 0);
}

/* A cycle with an instruction and the first transfer of its data (a word at da). */
static etm_in_t load(uint32_t ia, unsigned slot, unsigned last, uint32_t da)
{
    etm_in_t in = insn(ia);
    in.dactl = dactl_full(slot, 1, last, 0, 0x0Fu << (da & 4), 0, 0, 0, 0);
    in.da = da;
    return in;
}

/* Step the cycle `in` with the transfer `dactl` at da. */
static uint64_t step_x(etm_in_t in, uint32_t dactl, uint32_t da)
{
    in.dactl = dactl;
    in.da = da;
    return step(&in);
}

static void test_data(void)
{
    reset(1);
    etm_in_t in = idle();
    /* A value with no address. */
    in.ddctl = 3;
    CHECK_EQ(step(&in), R(DD_WITHOUT_ADDRESS));
    /* Address and value in the same cycle. */
    in = load(0x100, 3, 1, 0x20000000);
    in.ddctl = 3;
    CHECK_EQ(step(&in), R(DD_SAME_CYCLE));
    /* That address is now outstanding, but a value in the very next cycle is
     * too soon ("not returned for at least two cycles after the address"). */
    in = idle();
    in.ddctl = 3;
    CHECK_EQ(step(&in), R(DD_TOO_SOON));
    /* ... and consumed: a second value is not. */
    CHECK_EQ(step(&in), R(DD_WITHOUT_ADDRESS));
    /* Two cycles later is fine. */
    in = load(0x102, 2, 1, 0x20000004);
    CHECK_EQ(step(&in), 0);
    in = idle();
    CHECK_EQ(step(&in), 0);
    in.ddctl = 2;
    CHECK_EQ(step(&in), 0);
    /* Values on other slots are matched by slot number; a value for an older
     * address of a slot may come in the cycle a new address of it arrives. */
    CHECK_EQ(step_x(insn(0x104), dactl(1, 1, 0, 0), 0x20000010), 0);
    CHECK_EQ(step_x(idle(), dactl_full(2, 0, 1, 0, 0xF0, 0, 0, 0, 0), 0x20000014), 0);
    in = idle();
    in.ddctl = 1;
    CHECK_EQ(step(&in), 0);
    in = load(0x106, 1, 1, 0x20000020);
    in.ddctl = 2;
    CHECK_EQ(step(&in), 0);
    in = idle();
    CHECK_EQ(step(&in), 0);
    in.ddctl = 1;
    CHECK_EQ(step(&in), 0);
    /* Slot 3 (DASlot b11) is a slot like the others. */
    in = load(0x108, 3, 1, 0x20000030);
    CHECK_EQ(step(&in), 0);
    in = idle();
    CHECK_EQ(step(&in), 0);
    in.ddctl = 3;
    CHECK_EQ(step(&in), 0);
    /* Store-exclusive failed and imprecise abort do not change the matching;
     * a failed store exclusive must be a store. */
    in = load(0x10A, 3, 1, 0x20000040);
    in.dactl |= 1u << 2; /* DAWrite */
    step(&in);
    in = idle();
    step(&in);
    in.ddctl = 3 | 4 | 8;
    CHECK_EQ(step(&in), 0);
    in = load(0x10C, 3, 1, 0x20000040);
    step(&in);
    in = idle();
    step(&in);
    in.ddctl = 3 | 4;
    CHECK_EQ(step(&in), R(DD_FAIL_NOT_STORE));
    in = load(0x10E, 3, 1, 0x20000040);
    step(&in);
    in = idle();
    step(&in);
    in.ddctl = 3 | 8; /* an imprecise abort may come on a load's slot */
    CHECK_EQ(step(&in), 0);
    /* The qualifiers mean nothing without a slot. */
    in = idle();
    in.ddctl = 4 | 8;
    CHECK_EQ(step(&in), 0);
}

static void test_data_sequence(void)
{
    reset(1);
    etm_in_t in = idle();
    /* The very first transfer is the first of an instruction: DANSeq, and an
     * instruction before it. */
    CHECK_EQ(step_x(insn(0x100), dactl(3, 0, 1, 0), 0x20000000), R(DA_FIRST_WITHOUT_NSEQ));
    reset(1);
    CHECK_EQ(step_x(idle(), dactl(3, 1, 1, 0), 0x20000000), R(DA_FIRST_WITHOUT_INSN));
    /* An instruction in an earlier cycle will do (the transfer belongs to it)... */
    reset(1);
    in = insn(0x100);
    CHECK_EQ(step(&in), 0);
    in = idle();
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(3, 1, 1, 0);
    in.da = 0x20000000;
    CHECK_EQ(step(&in), 0);
    /* ... but not for a second data instruction. */
    CHECK_EQ(step_x(idle(), dactl(3, 1, 1, 0), 0x20000008), R(DA_FIRST_WITHOUT_INSN));
    /* LDM of three words: NSeq on the first, Last on the third, each the word
     * after the one before. */
    reset(1);
    in = load(0x100, 3, 0, 0x20000008);
    CHECK_EQ(step(&in), 0);
    in = idle();
    in.dactl = dactl_full(1, 0, 0, 0, 0xF0, 0, 0, 0, 0);
    in.da = 0x2000000C;
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl(2, 0, 1, 0);
    in.da = 0x20000010;
    CHECK_EQ(step(&in), 0);
    /* The next instruction's first transfer needs NSeq. */
    in = load(0x102, 3, 1, 0x20000000);
    in.dactl &= ~(1u << 17);
    CHECK_EQ(step(&in), R(DA_FIRST_WITHOUT_NSEQ));
    /* A later transfer without NSeq that is not the next word. */
    in = load(0x104, 3, 0, 0x20000000);
    CHECK_EQ(step(&in), 0);
    CHECK_EQ(step_x(idle(), dactl(1, 0, 1, 0), 0x20000008), R(DA_NOT_SEQUENTIAL));
    /* LDM with the PC loaded first, and SWP: the out-of-sequence second
     * transfer asserts NSeq. */
    in = load(0x106, 3, 0, 0x20000018);
    CHECK_EQ(step(&in), 0);
    in = idle();
    in.dactl = dactl(1, 1, 0, 0);
    in.da = 0x20000010;
    CHECK_EQ(step(&in), 0);
    in.dactl = dactl_full(2, 0, 1, 0, 0xF0, 0, 0, 0, 0);
    in.da = 0x20000014;
    CHECK_EQ(step(&in), 0);
    in = load(0x108, 3, 0, 0x20000020);
    CHECK_EQ(step(&in), 0);
    CHECK_EQ(step_x(idle(), dactl_full(1, 1, 1, 0, 0x0F, 0, 0, 1, 0), 0x20000020), 0);
    /* Cycles without transfers do not matter. */
    in = idle();
    CHECK_EQ(step(&in), 0);
    /* Unaligned LDR at ...1: lanes 1-3 rotated by 1, then lane 4; DALast on
     * both; the second half is not a new instruction's first transfer, and its
     * DANSeq, DARot and DASwizzle are not checked. */
    CHECK_EQ(step_x(insn(0x10A), dactl_full(3, 1, 1, 1, 0x0E, 1, 0, 0, 0), 0x20000001), 0);
    CHECK_EQ(step_x(idle(), dactl_full(1, 1, 1, 0, 0x10, 3, 1, 0, 0), 0x20000004), 0);
    /* Second half with DAUnaligned again. */
    CHECK_EQ(step_x(insn(0x10C), dactl_full(3, 1, 1, 1, 0x0E, 1, 0, 0, 0), 0x20000001), 0);
    CHECK_EQ(step_x(idle(), dactl_full(1, 0, 1, 1, 0x10, 0, 0, 0, 0), 0x20000004), R(DA_UNALIGNED_SECOND_HALF));
    /* DALast differing between halves. */
    reset(1);
    CHECK_EQ(step_x(insn(0x100), dactl_full(3, 1, 1, 1, 0x0E, 1, 0, 0, 0), 0x20000001), 0);
    CHECK_EQ(step_x(idle(), dactl_full(1, 0, 0, 0, 0x10, 0, 0, 0, 0), 0x20000004), R(DA_UNALIGNED_LAST_MISMATCH));
    /* Halves that are not the two sides of a word boundary: a second half
     * elsewhere, a first half that stops short of its word's end, an aligned
     * word called unaligned, five bytes in all. */
    reset(1);
    CHECK_EQ(step_x(insn(0x100), dactl_full(3, 1, 1, 1, 0x0E, 1, 0, 0, 0), 0x20000001), 0);
    CHECK_EQ(step_x(idle(), dactl_full(1, 0, 1, 0, 0x01, 0, 0, 0, 0), 0x20000008), R(DA_UNALIGNED_SPLIT));
    CHECK_EQ(step_x(insn(0x102), dactl_full(3, 1, 1, 1, 0x06, 1, 0, 0, 0), 0x20000001), R(DA_UNALIGNED_SPLIT));
    CHECK_EQ(step_x(idle(), dactl_full(1, 0, 1, 0, 0x10, 0, 0, 0, 0), 0x20000004), 0);
    CHECK_EQ(step_x(insn(0x104), dactl_full(3, 1, 1, 1, 0x0F, 0, 0, 0, 0), 0x20000000), R(DA_UNALIGNED_SPLIT));
    CHECK_EQ(step_x(idle(), dactl_full(1, 0, 1, 0, 0x10, 0, 0, 0, 0), 0x20000004), R(DA_UNALIGNED_SPLIT)); /* 4 + 1 bytes */
    CHECK_EQ(step_x(insn(0x106), dactl_full(3, 1, 1, 1, 0x0E, 1, 0, 0, 0), 0x20000001), 0);
    CHECK_EQ(step_x(idle(), dactl_full(1, 0, 1, 0, 0x30, 0, 0, 0, 0), 0x20000004), R(DA_UNALIGNED_SPLIT));
    /* Fields other than DASlot are ignored while DASlot is 0. */
    reset(1);
    in = idle();
    in.dactl = 0x3fffc;
    CHECK_EQ(step(&in), 0);
}

static void test_data_lanes(void)
{
    /* DABLSel: the bytes of the access, from lane DA[2:0], within one word. */
    static const struct { uint32_t da; unsigned lanes, rot; int ok; } cases[] = {
        { 0x20000000, 0x0F, 0, 1 }, { 0x20000004, 0xF0, 0, 1 }, { 0x20000002, 0x0C, 2, 1 },
        { 0x20000007, 0x80, 3, 1 }, { 0x20000005, 0x20, 1, 1 }, { 0x20000001, 0x06, 1, 1 },
        { 0x20000000, 0x00, 0, 0 }, /* nothing selected */
        { 0x20000000, 0x0E, 0, 0 }, /* does not start at DA's lane */
        { 0x20000000, 0x0B, 0, 0 }, /* not contiguous */
        { 0x20000002, 0x3C, 2, 0 }, /* crosses into the next word */
        { 0x20000000, 0xFF, 0, 0 }, /* a doubleword: two transfers, one per word */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(1);
        etm_in_t in = insn(0x100);
        in.dactl = dactl_full(1, 1, 1, 0, cases[i].lanes, cases[i].rot, 0, 0, 0);
        in.da = cases[i].da;
        CHECK_EQ(step(&in), cases[i].ok ? 0 : R(DA_BLSEL_INVALID));
    }
    /* DARot: little-endian the byte offset, big-endian (4 - offset - bytes) mod 4. */
    static const struct { uint32_t da; unsigned lanes, rot, swz; int ok; } rots[] = {
        { 0x20000002, 0x0C, 2, 0, 1 }, { 0x20000002, 0x0C, 0, 0, 0 }, { 0x20000002, 0x0C, 0, 1, 1 },
        { 0x20000002, 0x0C, 2, 1, 0 }, { 0x20000001, 0x02, 2, 1, 1 }, { 0x20000001, 0x02, 1, 0, 1 },
        { 0x20000004, 0x30, 2, 1, 1 }, { 0x20000004, 0xF0, 0, 1, 1 }, { 0x20000004, 0xF0, 1, 0, 0 },
    };
    for (size_t i = 0; i < sizeof rots / sizeof rots[0]; i++) {
        reset(1);
        etm_in_t in = insn(0x100);
        in.dactl = dactl_full(2, 1, 1, 0, rots[i].lanes, rots[i].rot, rots[i].swz, 0, 0);
        in.da = rots[i].da;
        CHECK_EQ(step(&in), rots[i].ok ? 0 : R(DA_ROT_MISMATCH));
    }
    /* A CPRT has no address: lanes and rotation are not checked, but it is its
     * instruction's only transfer. */
    reset(1);
    etm_in_t in = insn(0x100);
    in.dactl = dactl_full(1, 1, 1, 0, 0, 3, 0, 0, 1);
    in.da = 0;
    CHECK_EQ(step(&in), 0);
    in = insn(0x102);
    in.dactl = dactl_full(1, 1, 0, 0, 0, 0, 0, 0, 1);
    CHECK_EQ(step(&in), R(DA_CPRT_NOT_SINGLE));
    in = idle();
    in.dactl = dactl_full(2, 0, 1, 0, 0xF0, 0, 0, 0, 0);
    in.da = 4;
    CHECK_EQ(step(&in), 0);
    in = insn(0x104);
    in.dactl = dactl(1, 1, 0, 0);
    in.da = 0x20000000;
    CHECK_EQ(step(&in), 0);
    in = idle();
    in.dactl = dactl_full(2, 0, 1, 0, 0, 0, 0, 0, 1);
    in.da = 0x20000004;
    CHECK_EQ(step(&in), R(DA_CPRT_NOT_SINGLE));
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
    test_data_lanes();
    test_counts();
    return test_report("test_check");
}
