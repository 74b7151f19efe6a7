/* workload.h - what every workload shares: semihosting exit, a small PRNG,
 * memory-mapped registers of the Cortex-M3 system control space.
 *
 * Each kernel is a function `int wl_NAME(void)` that returns 0 when its own
 * checks pass. A program's main() calls one kernel (main_one.c) or all of them
 * (mix.c); the reset handler exits through semihosting with the result, so
 * QEMU's exit status is 0 exactly when the program computed the right answers.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stdint.h>

#define REG32(a) (*(volatile uint32_t *)(uintptr_t)(a))

/* System control space (ARMv7-M ARM, B3.2 and B3.3). */
#define SYST_CSR  REG32(0xE000E010u) /* SysTick control and status */
#define SYST_RVR  REG32(0xE000E014u) /* reload value */
#define SYST_CVR  REG32(0xE000E018u) /* current value */
#define SCB_ICSR  REG32(0xE000ED04u) /* interrupt control and state */
#define SCB_SHPR2 REG32(0xE000ED1Cu) /* SVCall priority in [31:24] */
#define SCB_SHPR3 REG32(0xE000ED20u) /* SysTick [31:24], PendSV [23:16] */
#define ICSR_PENDSVSET (1u << 28)

/* Semihosting SYS_EXIT (ARM semihosting 2.0): reason ADP_Stopped_ApplicationExit
 * makes QEMU exit with status 0, any other reason with status 1. */
static inline __attribute__((noreturn)) void wl_exit(int ok)
{
    register uint32_t r0 __asm__("r0") = 0x18u;
    register uint32_t r1 __asm__("r1") = ok ? 0x20026u : 0x20023u; /* ApplicationExit : InternalError */
    __asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
    for (;;) {
    }
}

/* xorshift32: deterministic test data. */
static inline uint32_t wl_rand(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* Stops the compiler from folding a value into a constant. */
#define WL_OPAQUE(v) __asm__ volatile("" : "+r"(v))

int wl_sort(void);
int wl_crc(void);
int wl_fir(void);
int wl_fsm(void);
int wl_fnptr(void);
int wl_itblock(void);
int wl_divide(void);
int wl_exceptions(void);

/* exceptions.c: SysTick every `period` core clocks, PendSV, SVC. */
void wl_irq_start(uint32_t period);
void wl_irq_stop(void);
void wl_svc_poke(void);
int wl_irq_check(void);

#endif
