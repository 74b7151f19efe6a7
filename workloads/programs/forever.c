/* forever.c - firmware that never exits, for the recorder's limits (not a
 * workload: etm-qemu list does not show it). Built twice:
 *   -DFOREVER_SLEEP  a little work, then WFI for good with no interrupt enabled:
 *                    QEMU executes nothing more (the idle limit, --idle-timeout);
 *   otherwise        a little work, then a loop that spins for good (the
 *                    instruction limit, --max-insns).
 * Either way `etm-qemu record --stop-after N` records its first N instructions.
 */
#include "workload.h"

int main(void)
{
    uint32_t s = 1, sum = 0;
    for (int i = 0; i < 100; i++)
        sum += wl_rand(&s) & 0xFF;
    WL_OPAQUE(sum);
    for (;;) {
#ifdef FOREVER_SLEEP
        __asm__ volatile("wfi");
#else
        sum = sum * 3u + 1u;
        WL_OPAQUE(sum);
#endif
    }
}
