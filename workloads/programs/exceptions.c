/* exceptions.c - SysTick, PendSV and SVC with nesting and tail-chaining.
 *
 * Priorities: SysTick 0x40 (highest), SVCall 0x80, PendSV 0xC0 (lowest).
 * - SysTick counts ticks and pends PendSV on every third tick: when it returns to
 *   thread mode the core tail-chains into PendSV.
 * - PendSV runs a long loop, so SysTick preempts it (nesting), and pends it
 *   again now and then (PendSV -> SysTick -> tail-chain back... no: PendSV is
 *   already active, so the pend is taken after PendSV returns: tail-chain).
 * - SVC (svc #n from thread code) reads its immediate from the stacked PC,
 *   and pends PendSV for odd n: SVC tail-chains into PendSV. SysTick preempts
 *   SVC too.
 * Counts are checked at the end; the trace harness counts nesting and
 * tail-chains in QEMU's own execution. */
#include "workload.h"

static volatile uint32_t ticks, pendsv_runs, svc_calls, svc_sum, nested_in_pendsv, nested_in_svc;
static volatile uint32_t in_pendsv, in_svc, pendsv_work;

void SysTick_Handler(void)
{
    uint32_t t = ticks + 1;
    ticks = t;
    if (in_pendsv)
        nested_in_pendsv++;
    if (in_svc)
        nested_in_svc++;
    if (t % 3u == 0)
        SCB_ICSR = ICSR_PENDSVSET;
}

void PendSV_Handler(void)
{
    in_pendsv = 1;
    pendsv_runs++;
    uint32_t x = pendsv_work;
    for (int i = 0; i < 900; i++) {
        x = x * 1103515245u + 12345u;
        if (x & 0x100)
            x ^= x >> 7;
    }
    pendsv_work = x;
    in_pendsv = 0;
}

/* Called by SVC_Handler with the stacked exception frame. */
void wl_svc_c(uint32_t *frame);
void wl_svc_c(uint32_t *frame)
{
    in_svc = 1;
    const uint16_t *pc = (const uint16_t *)(uintptr_t)frame[6];
    uint32_t n = pc[-1] & 0xFFu; /* the SVC instruction's immediate */
    svc_calls++;
    svc_sum += n;
    frame[0] = frame[0] + n; /* the caller's r0 comes back incremented */
    for (uint32_t i = 0; i < 40u * (n & 3u); i++)
        pendsv_work += i;
    if (n & 1)
        SCB_ICSR = ICSR_PENDSVSET;
    in_svc = 0;
}

__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("tst lr, #4\n"
                     "ite eq\n"
                     "mrseq r0, msp\n"
                     "mrsne r0, psp\n"
                     "b wl_svc_c\n");
}

void wl_irq_start(uint32_t period)
{
    SCB_SHPR2 = 0x80u << 24;                 /* SVCall */
    SCB_SHPR3 = (0x40u << 24) | (0xC0u << 16); /* SysTick, PendSV */
    SYST_RVR = period - 1;
    SYST_CVR = 0;
    SYST_CSR = 7; /* core clock, interrupt, enable */
}

void wl_irq_stop(void)
{
    SYST_CSR = 0;
}

static uint32_t svc_n;

static uint32_t svc_call(uint32_t r0, uint32_t n)
{
    register uint32_t a __asm__("r0") = r0;
    switch (n & 3) {
    case 0: __asm__ volatile("svc #4" : "+r"(a) : : "memory"); break;
    case 1: __asm__ volatile("svc #5" : "+r"(a) : : "memory"); break;
    case 2: __asm__ volatile("svc #6" : "+r"(a) : : "memory"); break;
    default: __asm__ volatile("svc #7" : "+r"(a) : : "memory"); break;
    }
    return a;
}

/* One SVC from thread code; checks that the handler saw it. */
void wl_svc_poke(void)
{
    uint32_t before = svc_calls, n = svc_n++;
    uint32_t r = svc_call(100, n);
    if (svc_calls != before + 1 || r != 100 + 4 + (n & 3))
        wl_exit(0);
}

int wl_irq_check(void)
{
    return !(ticks > 0 && pendsv_runs > 0 && svc_calls == svc_n);
}

int wl_exceptions(void)
{
    wl_irq_start(400);
    uint32_t seed = 5, acc = 0;
    for (int i = 0; i < 120; i++) {
        for (int k = 0; k < 150; k++)
            acc += wl_rand(&seed) >> 28;
        wl_svc_poke();
    }
    while (pendsv_runs < 20)
        acc++;
    wl_irq_stop();
    WL_OPAQUE(acc);
    return wl_irq_check() || nested_in_pendsv == 0;
}
