/* selftrace.c - a program that programs its own ETM, as firmware does: it
 * unlocks the ETM, sets the programming bit, writes the trace controls (trace
 * ID, TraceEnable everywhere, trigger never), clears the programming bit, runs
 * the sort kernel traced, sets the bit again and runs the CRC kernel
 * untraced. Stores only: QEMU reads the ETM as zero (workloads/tool/
 * etm_fwloop.py answers reads for firmware that needs them). `etm-qemu
 * stimulus --apb` drives its stores on the ETM's APB; `etm run --at-reset`
 * then traces exactly the sort kernel (docs/silicon.md, "Start and stop"). */
#include "workload.h"

#define ETM_BASE 0xE0041000u
#define ETMCR REG32(ETM_BASE + 0x000u)
#define ETMTRIGGER REG32(ETM_BASE + 0x008u)
#define ETMTEEVR REG32(ETM_BASE + 0x020u)
#define ETMTECR1 REG32(ETM_BASE + 0x024u)
#define ETMTRACEIDR REG32(ETM_BASE + 0x200u)
#define ETMLAR REG32(ETM_BASE + 0xFB0u)

#define ETMCR_TRACE 0x00000810u      /* ETMEN, 8-bit port: what the model's default ETMCR has */
#define ETMCR_PROGRAMMING 0x00000400u

int main(void)
{
    ETMLAR = 0xC5ACCE55u;
    ETMCR = ETMCR_TRACE | ETMCR_PROGRAMMING;
    ETMTRACEIDR = 0x10u;
    ETMTECR1 = 0x01000000u; /* exclude nothing: trace everywhere */
    ETMTEEVR = 0x0000006Fu; /* always */
    ETMTRIGGER = 0x0000406Fu; /* never */
    ETMCR = ETMCR_TRACE; /* tracing from the next instruction */
    int bad = wl_sort();
    ETMCR = ETMCR_TRACE | ETMCR_PROGRAMMING; /* the last traced instruction */
    bad |= wl_crc();
    return bad;
}
