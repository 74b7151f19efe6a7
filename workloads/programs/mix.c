/* mix.c - the default workload: every kernel in turn while SysTick, PendSV and
 * SVC exceptions come and go (nesting, tail-chaining, interrupted instructions). */
#include "workload.h"

int main(void)
{
    int (*const kernels[])(void) = { wl_sort, wl_crc, wl_fir, wl_fsm, wl_fnptr, wl_itblock, wl_divide };
    int bad = 0;
    wl_irq_start(450);
    for (unsigned i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        bad |= kernels[i]();
        wl_svc_poke();
    }
    wl_irq_stop();
    return bad | wl_irq_check();
}
