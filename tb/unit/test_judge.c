/* test_judge.c - the judge's handling of a decoder that keeps an atom a Cancel
 * withdrew (judge_keep_cancels, tb/common/judge.h): counted where it was
 * withdrawn, a difference anywhere else or when not allowed. */
#include <string.h>

#include "judge.h"
#include "test.h"

static judge_item_t insn(uint32_t addr)
{
    judge_item_t x;
    memset(&x, 0, sizeof x);
    x.kind = JX_INSN;
    x.exec = 1;
    x.addr = addr;
    return x;
}

/* Executed: 0x100, 0x102 (cancelled), exception 15, 0x200. The decoder
 * reports `got` instructions in order, with the exception after the third. */
static judge_t run(int keep, const uint32_t *got, unsigned n)
{
    judge_t j;
    judge_init(&j, "decoder", 64);
    if (keep)
        judge_keep_cancels(&j);
    judge_item_t x = insn(0x100);
    judge_push(&j, &x);
    x = insn(0x102);
    judge_push(&j, &x);
    judge_cancel_last(&j);
    judge_item_t e;
    memset(&e, 0, sizeof e);
    e.kind = JX_EXC;
    e.num = 15;
    judge_push(&j, &e);
    x = insn(0x200);
    judge_push(&j, &x);
    for (unsigned k = 0; k < n; k++) {
        judge_got_insn(&j, got[k], 1, 0, 0, 0);
        if (k == (n == 3 ? 1u : 0u))
            judge_got(&j, JX_EXC, 15);
    }
    judge_finish(&j, 0, 0);
    return j;
}

int main(void)
{
    /* The decoder withdrew it: nothing kept, no difference, either way. */
    const uint32_t right[] = { 0x100, 0x200 };
    for (int keep = 0; keep < 2; keep++) {
        judge_t j = run(keep, right, 2);
        CHECK_EQ(j.errors, 0);
        CHECK_EQ(j.cancels_kept, 0);
        judge_free(&j);
    }
    /* It kept 0x102 where it stood: counted when allowed, else a difference. */
    const uint32_t kept[] = { 0x100, 0x102, 0x200 };
    judge_t j = run(1, kept, 3);
    CHECK_EQ(j.errors, 0);
    CHECK_EQ(j.cancels_kept, 1);
    CHECK_EQ(j.compared, 2);
    judge_free(&j);
    j = run(0, kept, 3);
    CHECK(j.errors > 0);
    judge_free(&j);
    /* Another instruction in its place is a difference even when allowed. */
    const uint32_t other[] = { 0x100, 0x104, 0x200 };
    j = run(1, other, 3);
    CHECK(j.errors > 0);
    CHECK_EQ(j.cancels_kept, 0);
    judge_free(&j);
    return test_report("test_judge");
}
