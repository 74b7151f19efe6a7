/* pheader.h - stage `pheader` (pheader.c): atoms into P-headers */
#ifndef ETM_PHEADER_H
#define ETM_PHEADER_H

#include "cbuf.h"

typedef struct pheader_state {
    uint8_t open_q;        /* PH_OPEN_*: the header being built */
    uint8_t open_e_q;      /* its E atoms (format 1) */
    uint8_t held_q;        /* a closed header not yet sent: its byte, 0 when none */
    uint8_t held_atoms_q;  /* atoms in the held header */
    uint8_t held_w_q;      /* W atoms in the held header */
    uint32_t wrun_q;       /* cycle-accurate: W atoms of a run of idle cycles not yet sent */
    uint8_t wdebt_q;       /* W atoms sent early, to be taken back from the next idle cycles */
} pheader_state_t;

enum { PH_OPEN_NONE, PH_OPEN_F1, PH_OPEN_N };

void ph_reset(pheader_state_t *p);
/* One cycle: W (cycle-accurate) followed by its atoms. */
void ph_cycle(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, const uint8_t *exec, cycle_buf_t *c);
/* An atom without a W: the second of a cycle after a packet between the two.
 * Before ETMv3.3 (no format 4) in cycle-accurate mode it gets a W of its own,
 * which the next idle cycle gives back; returns 0 then (the timing of the
 * instructions in between is one cycle late). */
int ph_atom_nowait(pheader_state_t *p, const etm_mode_t *m, uint8_t exec, cycle_buf_t *c);
/* Send every atom gathered (the W run stays, it carries no atom). */
void ph_close_atoms(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c);
/* Send everything: atoms and the W run (as format 3 headers or a cycle count). */
void ph_close_all(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c);
/* n cycle-accurate idle cycles: what ph_cycle with no atom does n times. */
void ph_idle(pheader_state_t *p, const etm_mode_t *m, uint32_t n, cycle_buf_t *c);
/* Take the W run out without sending it (it goes into an I-sync's count). */
uint32_t ph_take_wrun(pheader_state_t *p);
/* Make the most recent atom the only atom of the last header sent, as a
 * cancelling exception packet needs; returns 0 when that atom was already sent
 * with others and cannot be separated. */
int ph_isolate_last(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c);
/* Anything gathered or held? */
int ph_pending(const pheader_state_t *p);

#endif
