/* frontend.c - stage `frontend`: the Cortex-M3 interface signals of one cycle
 * become the trace items of that cycle, in program order.
 *
 *  - ETMIVALID: one atom for the instruction at ETMIA, E or (ETMICCFAIL) N.
 *  - ETMFOLD: the instruction and the IT folded after it, two atoms; the IT is
 *    at ETMIA+2 and always executes. A decoder walking the code image counts the
 *    IT as an instruction (OpenCSD does), so it gets its own atom.
 *  - Slot 1 (ETMIVALID1): the second instruction of the cycle, after slot 0.
 *  - ETMIBRANCH with ETMIINDBR (or with branch broadcast, ETMCR[8]): the
 *    instruction is the target of a traced branch; its address goes out in a
 *    branch packet before its atom.
 *  - ETMINTSTAT entry / return on the instruction: exception entry (with the
 *    number of Cortex-M3 TRM table 14-8) or exception return.
 *  - The data slot's transfer and value of the cycle, after its instructions
 *    (docs/data-trace.md).
 */
#include <string.h>

#include "frontend.h"

unsigned etm_m3_traced_exception(unsigned intnum)
{
    /* Cortex-M3 TRM (DDI 0337G) table 14-8. */
    static const uint8_t low[24] = {
        0,  /* 0: none (thread) */
        17, /* 1: Reset */
        10, /* 2: NMI */
        19, /* 3: HardFault */
        13, /* 4: MemManage */
        21, /* 5: BusFault */
        9,  /* 6: UsageFault */
        22, /* 7: reserved */
        16, /* 8: reserved */
        20, /* 9: reserved */
        18, /* 10: reserved */
        11, /* 11: SVCall */
        12, /* 12: DebugMonitor */
        23, /* 13: reserved */
        14, /* 14: PendSV */
        15, /* 15: SysTick */
        8,  /* 16: IRQ0 */
        1, 2, 3, 4, 5, 6, 7 /* 17-23: IRQ1-IRQ7 */
    };
    return intnum < 24 ? low[intnum] : (intnum & 0x1ff); /* IRQ8 and up: the number itself */
}

void etm_frontend(const etm_mode_t *m, const etm_in_t *in, fe_cycle_t *fe)
{
    memset(fe, 0, sizeof *fe);
    fe->cancel = in->cancel;
    fe->flush = in->flush;
    fe->dactl = in->dactl;
    fe->da = in->da;
    fe->ddctl = in->ddctl;
    fe->dd = in->dd;
    if (!in->ivalid) {
        fe->exit = in->intstat == ETM_INTSTAT_EXIT;
        return;
    }
    fe->natoms = 1;
    fe->atom[0].addr = in->ia & ~1u;
    fe->atom[0].exec = (uint8_t)!in->iccfail;
    fe->atom[0].target = (uint8_t)(in->ibranch && (in->iindbr || m->branch_broadcast));
    if (in->intstat == ETM_INTSTAT_ENTRY) {
        fe->entry = 1;
        fe->exc = (uint16_t)etm_m3_traced_exception(in->intnum);
    } else if (in->intstat == ETM_INTSTAT_RETURN) {
        fe->ret = 1;
    }
    if (in->fold) {
        fe->fold = 1;
        fe->natoms = 2;
        fe->atom[1].addr = (in->ia & ~1u) + 2;
        fe->atom[1].exec = 1;
    } else if (in->ivalid1) {
        fe->natoms = 2;
        fe->atom[1].addr = in->ia1 & ~1u;
        fe->atom[1].exec = (uint8_t)!in->iccfail1;
        fe->atom[1].target = (uint8_t)(in->ibranch1 && (in->iindbr1 || m->branch_broadcast));
    }
}
