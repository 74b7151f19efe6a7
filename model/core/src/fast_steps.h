/* fast_steps.h - the speed engine's plain steps (internal; fast.h has the
 * engine's contract): for each stage, the condition on its state under which
 * a plain cycle (fast_plain.c) does no more to it than the step beside it,
 * and that step. Each is what the stage's reference function does in such a
 * cycle, written out for speed; the stage's file stays the reference, and
 * unit.fast (tb/unit/test_fast.c) and fuzz_encoder hold every step here to it
 * cycle by cycle. A change to what a stage does in a cycle the engine may
 * take changes its step here too, or makes its condition false. */
#ifndef ETM_FAST_STEPS_H
#define ETM_FAST_STEPS_H

#include "etm/check.h"
#include "filter.h"
#include "packet.h"

/* ---- check ---------------------------------------------------------------------------------- */

/* The interface check: a cycle that breaks no rule and carries no data slot
 * activity counts an instruction for the data address rules, and the cycle.
 * A plain cycle breaks none when no cancel waits. */
static inline int fast_check_ok(const etm_check_t *c) { return !c->cancel_q; }
static inline void fast_check_step(etm_check_t *c, uint8_t ivalid)
{
    c->insn_q = (uint8_t)(c->insn_q | (ivalid != 0));
    c->cycle++;
}

/* ---- filter --------------------------------------------------------------------------------- */

/* With this setup and state, a cycle whose inputs have no ETMCANCEL, no DWT
 * match (ETMTRIGGER), no data transfer and no second instruction leaves
 * TraceEnable on, fires no trigger and reloads no counter; fast_filter_step
 * is then all that etm_filter does. TraceEnable is on after an instruction
 * and, with a plain setup (filter_setup_t.plain), stays on; the trigger is
 * never or has fired (it fires once). */
static inline int fast_filter_ok(const filter_setup_t *f, const filter_state_t *s)
{
    return f->plain && s->seen_insn_q && s->te_insn_q && (s->triggered_q || f->trigger_never);
}
/* What etm_filter changes in such a cycle: nothing compares, so only the DWT
 * inputs' latch (a comparison without a match: an instruction for the PC
 * comparators, ETMDVALID for the others), the instruction's
 * include/exclude term (true) and a reduced-function counter 1 move.
 * Returns filter_out_t's cnt_reload. */
static inline uint8_t fast_filter_step(filter_state_t *s, const filter_setup_t *f, const etm_in_t *in)
{
    uint8_t reload = 0;
    if (f->plain_count1) { /* as count() */
        if (s->cnt_q[0] == 0) {
            s->cnt_q[0] = f->cntrldvr[0];
            reload = 1;
        } else {
            s->cnt_q[0]--;
        }
    }
    uint8_t e_cmp = (uint8_t)(((in->ivalid ? s->eice_pc_q : 0) | (in->dvalid ? ~s->eice_pc_q : 0)) & 0xf);
    s->eice_latch_q = (uint8_t)(s->eice_latch_q & ~e_cmp);
    s->ie_q = (uint8_t)(s->ie_q | (in->ivalid != 0)); /* an instruction's term is true */
    return reload;
}

/* ---- pheader -------------------------------------------------------------------------------- */

/* The commonest cycles, done where ph_cycle would do just that and put no
 * byte; returns 0, having changed nothing, for any other (ph_cycle's). With no
 * header held back, one E that joins an open format 1 header
 * with room for it (15 E atoms, 7 cycle-accurate, after no idle run; with the
 * ETM-M3's packing one that opens a header or leaves it short of 15); without
 * cycle accuracy, no atom; cycle-accurate, an idle cycle with no header open
 * and no W owed, which lengthens the idle run. */
static inline int fast_ph_quick(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, uint8_t exec0)
{
    if (p->held_q)
        return 0;
    if (m->ph_m3) { /* an E that leaves its header short of 15 (pheader.c, cycle_m3) */
        if (natoms == 0)
            return 1;
        if (natoms == 1 && exec0 && (p->open_q == PH_OPEN_F1 ? p->open_e_q < 14 : p->open_q == PH_OPEN_NONE)) {
            p->open_q = PH_OPEN_F1;
            p->open_e_q++;
            return 1;
        }
        return 0;
    }
    if (!m->cycle_accurate) {
        if (natoms == 1 && exec0 && p->open_q == PH_OPEN_F1 && p->open_e_q < 15) {
            p->open_e_q++;
            return 1;
        }
    } else if (natoms == 0) {
        if (!p->wdebt_q && p->open_q == PH_OPEN_NONE && !p->open_e_q && p->wrun_q != 0xFFFFFFFFu) {
            p->wrun_q++;
            return 1;
        }
    } else if (natoms == 1 && exec0 && !p->wrun_q && p->open_q == PH_OPEN_F1 && p->open_e_q < 7) {
        p->open_e_q++;
        return 1;
    }
    return 0;
}
/* ph_cycle with the commonest cycles done here. */
static inline void fast_ph_cycle(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, const uint8_t *exec,
                                 cycle_buf_t *c)
{
    if (!fast_ph_quick(p, m, natoms, exec[0]))
        ph_cycle(p, m, natoms, exec, c);
}

/* ---- packet --------------------------------------------------------------------------------- */

/* Trace is on and nothing waits (no overflow, cancel, trigger or periodic
 * sync). A cycle with TraceEnable on and only instructions that are not
 * exception entries or returns (natoms of them, exec their E/N; the first may
 * be a traced branch's target), no trigger, no cancel and no flush that
 * closes headers is then all fast_packet_step does: the branch packet, if
 * any, and the atoms (or an idle cycle's W) into the P-headers. Without data
 * trace only. */
static inline int fast_packet_ok(const packet_state_t *s)
{
    return s->active_q && !(s->ovf_q | s->cancel_q | s->trig_pend_q | s->sync_due_q | s->first_q | s->exited_q |
                            s->isync_due_q);
}
/* instr_cycle's steps 5 and 6 for such a cycle: a branch packet when the
 * instruction is a traced branch's target (target), no other packet before
 * the atoms. Without atoms, ph_cycle does nothing unless cycle-accurate (a W):
 * it is called anyway, rather than branching on the inputs. */
static inline void fast_packet_step(packet_state_t *s, const etm_mode_t *m, unsigned natoms, const uint8_t *exec,
                                    int target, uint32_t addr, cycle_buf_t *c)
{
    if (target)
        etm_packet_plain_branch(s, m, addr, c);
    s->dp.newest_q = (uint8_t)(s->dp.newest_q | (natoms != 0));
    c->atoms = natoms;
    fast_ph_cycle(&s->ph, m, natoms, exec, c);
}
/* The same for a cycle that puts no byte, done without a cycle buffer: no
 * branch packet and atoms that fast_ph_quick takes. Returns 0, having changed
 * nothing, for any other cycle (fast_packet_step's). */
static inline int fast_packet_quick(packet_state_t *s, const etm_mode_t *m, unsigned natoms, uint8_t exec0,
                                    int target)
{
    if (target || !fast_ph_quick(&s->ph, m, natoms, exec0))
        return 0;
    s->dp.newest_q = (uint8_t)(s->dp.newest_q | (natoms != 0));
    return 1;
}
/* The idle cycles before a record at cycle would bring a periodic sync due
 * (ETMv3.0 counts cycles), or one is due already: the record then has a
 * periodic phase. */
static inline int fast_sync_due_at(const packet_state_t *s, const etm_mode_t *m, uint32_t cycle)
{
    return s->sync_due_q || s->isync_due_q || etm_packet_cycles_bring_sync(s, m, cycle - s->wtotal_q) ||
           (s->isync_wait_q && !m->sync_in_bytes);
}
/* A plain cycle's record that puts no byte: etm_packet_catch_up up to cycle
 * and fast_packet_quick, done without a cycle buffer. Returns 0, having
 * changed nothing, when either would put a byte (a branch packet, a P-header
 * closed, the W atoms of the idle cycles before it); the caller then takes
 * the path with the cycle buffer. */
static inline int fast_record_quick(packet_state_t *s, const etm_mode_t *m, uint32_t cycle, unsigned natoms,
                                    uint8_t exec0, int target)
{
    uint32_t n = cycle - s->wtotal_q;
    if (n && s->active_q && m->cycle_accurate)
        return 0; /* the idle cycles before it have W atoms to send */
    if (!fast_packet_quick(s, m, natoms, exec0, target))
        return 0;
    /* (The P-headers do not read the cycle counts: the order does not matter.) */
    etm_packet_tick_n(s, m, n);
    return 1;
}

#endif
