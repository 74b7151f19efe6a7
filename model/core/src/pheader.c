/* pheader.c - stage `pheader`: E, N and W atoms into P-headers (IHI 0014
 * section 7.3.1, tables 7.2 and 7.3). The packing policy is in
 * docs/etmv3-encoder.md; in short:
 *
 *  - PH_PACKING=0 (the fewest headers, a what-if since the ETM-M3's packing is
 *    known): headers are chosen greedily, the longest first header each time, which
 *    gives the fewest headers between two flush points (every header is one
 *    byte, and dropping atoms from the front of a sequence never makes it
 *    dearer to encode).
 *  - The last closed header is held back (held_q) until the next packet or a
 *    newer atom, so that an ETMCANCEL can still separate the cancelled atom.
 *  - Cycle-accurate: a cycle is one W then its atoms. Idle cycles are counted
 *    (wrun_q); a run of up to 24 goes out as format 3 headers (a lone W E left
 *    at its end opens a format 1 header instead), a longer one as a
 *    cycle-count packet. Format 0 (0x80) is never sent: format 3 with one W says
 *    the same in one byte, and 0x80 is reserved outside ETMv3.0.
 *  - PH_PACKING=1, the ETM-M3's (docs/silicon.md): format 1 only, a header
 *    closed at its N atom or at 15 E atoms and sent at once (cycle_m3).
 */
#include <string.h>

#include "pheader.h"

/* Header encodings. */
static uint8_t ca_f1(unsigned e, unsigned n) { return (uint8_t)(0x80 | n << 6 | e << 2); }         /* 1N0EEE00 */
static uint8_t ca_f3(unsigned w, unsigned e) { return (uint8_t)(0xA0 | e << 6 | (w - 1) << 2); }   /* 1E1WWW00 */
static uint8_t nca_f1(unsigned e, unsigned n) { return (uint8_t)(0x80 | n << 6 | e << 2); }        /* 1NEEEE00 */
static uint8_t f2(unsigned a, unsigned b) { return (uint8_t)(0x82 | (!a) << 3 | (!b) << 2); }      /* 1000FF10, 1 = N */
static uint8_t f4(unsigned a) { return (uint8_t)(0x92 | (!a) << 2); }                              /* 10010F10 */

static void count_kind(cycle_buf_t *c, uint8_t h, int ca)
{
    if ((h & 0x03) == 0x02)
        cbuf_kind(c, (h & 0xF0) == 0x90 ? ETM_PKT_PHDR_F4 : ETM_PKT_PHDR_F2);
    else if (ca && (h & 0x20))
        cbuf_kind(c, ETM_PKT_PHDR_F3);
    else
        cbuf_kind(c, ETM_PKT_PHDR_F1);
}

/* Send a header now. */
static void put_header(cycle_buf_t *c, const etm_mode_t *m, uint8_t h, unsigned atoms, unsigned w)
{
    if (atoms)
        cbuf_before_atoms(c); /* data trace: placeholders for transfers still waiting */
    cbuf_put(c, h);
    c->w += w;
    c->last_single = atoms == 1;
    count_kind(c, h, m->cycle_accurate);
}

static void push_held_now(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c)
{
    put_header(c, m, p->held_q, p->held_atoms_q, p->held_w_q);
    p->held_q = 0;
}

static ETM_INLINE void push_held(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c)
{
    if (p->held_q)
        push_held_now(p, m, c);
}

/* A header is complete: send the one held before it and hold this one (the
 * ETM-M3's packing holds nothing back: it sends it). */
static void hold(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c, uint8_t h, unsigned atoms, unsigned w)
{
    push_held(p, m, c);
    if (m->ph_m3) {
        put_header(c, m, h, atoms, w);
        return;
    }
    p->held_q = h;
    p->held_atoms_q = (uint8_t)atoms;
    p->held_w_q = (uint8_t)w;
}

void ph_reset(pheader_state_t *p) { memset(p, 0, sizeof *p); }

int ph_pending(const pheader_state_t *p) { return p->open_q != PH_OPEN_NONE || p->held_q || p->wrun_q; }

static void close_open(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c)
{
    if (p->open_q == PH_OPEN_F1) {
        if (m->cycle_accurate)
            hold(p, m, c, ca_f1(p->open_e_q, 0), p->open_e_q, p->open_e_q);
        else
            hold(p, m, c, nca_f1(p->open_e_q, 0), p->open_e_q, 0);
    } else if (p->open_q == PH_OPEN_N) { /* non-cycle-accurate lone N */
        hold(p, m, c, nca_f1(0, 1), 1, 0);
    }
    p->open_q = PH_OPEN_NONE;
    p->open_e_q = 0;
}

/* Send a cycle count packet for n W atoms: header 0x04 and 1-5 bytes. */
static void put_cycle_count(cycle_buf_t *c, uint32_t n)
{
    cbuf_put(c, ETMV3_HDR_CYCLE_COUNT);
    for (int i = 0; i < 5; i++) {
        uint8_t b = (uint8_t)(n & 0x7f);
        n >>= 7;
        if (i == 4) {
            cbuf_put(c, (uint8_t)(b & 0x0f));
            break;
        }
        cbuf_put(c, (uint8_t)(b | (n ? 0x80 : 0)));
        if (!n)
            break;
    }
    c->last_single = 0;
    cbuf_kind(c, ETM_PKT_CYCLE_COUNT);
}

/* Send the W run (n idle cycles) with no atom after it. */
static void flush_run(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c)
{
    uint32_t n = p->wrun_q;
    if (!n)
        return;
    push_held(p, m, c);
    if (n > ETM_LONG_RUN) {
        put_cycle_count(c, n);
        c->w += n;
    } else {
        while (n) {
            unsigned k = n > 8 ? 8 : n;
            put_header(c, m, ca_f3(k, 0), 0, k);
            n -= k;
        }
    }
    p->wrun_q = 0;
}

/* The ETM-M3's packing (PH_PACKING=1): format 1 only, E atoms gathered into
 * the open header, which closes at an N (E..E N, or N alone) or when it holds
 * 15 E, and goes out at once. */
static void cycle_m3(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, const uint8_t *exec, cycle_buf_t *c)
{
    for (unsigned i = 0; i < natoms; i++) {
        unsigned e = p->open_q == PH_OPEN_F1 ? p->open_e_q : 0;
        if (exec[i] && e + 1 < 15) {
            p->open_q = PH_OPEN_F1;
            p->open_e_q = (uint8_t)(e + 1);
            continue;
        }
        put_header(c, m, nca_f1(exec[i] ? 15 : e, !exec[i]), exec[i] ? 15 : e + 1, 0);
        p->open_q = PH_OPEN_NONE;
        p->open_e_q = 0;
    }
}

void ph_cycle(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, const uint8_t *exec, cycle_buf_t *c)
{
    if (natoms)
        push_held(p, m, c); /* a newer atom: the held header can no longer be cancelled */
    if (m->ph_m3) {
        cycle_m3(p, m, natoms, exec, c);
        return;
    }
    if (!m->cycle_accurate) {
        for (unsigned i = 0; i < natoms; i++) {
            unsigned e = exec[i];
            if (p->open_q == PH_OPEN_F1) {
                if (!e) {
                    hold(p, m, c, nca_f1(p->open_e_q, 1), p->open_e_q + 1u, 0);
                    p->open_q = PH_OPEN_NONE;
                    p->open_e_q = 0;
                } else if (p->open_e_q < 15) {
                    p->open_e_q++;
                } else {
                    close_open(p, m, c);
                    p->open_q = PH_OPEN_F1;
                    p->open_e_q = 1;
                }
            } else if (p->open_q == PH_OPEN_N) {
                hold(p, m, c, f2(0, e), 2, 0);
                p->open_q = PH_OPEN_NONE;
            } else {
                p->open_q = e ? PH_OPEN_F1 : PH_OPEN_N;
                p->open_e_q = e ? 1 : 0;
            }
        }
        return;
    }

    /* Cycle-accurate. */
    if (natoms == 0) {
        if (p->wdebt_q) { /* this cycle's W was sent early */
            p->wdebt_q--;
            return;
        }
        close_open(p, m, c);
        if (p->wrun_q != 0xFFFFFFFFu)
            p->wrun_q++;
        else { /* a count field holds 32 bits: send this run and start another */
            flush_run(p, m, c);
            p->wrun_q = 1;
        }
        return;
    }
    if (natoms == 2) {
        close_open(p, m, c);
        flush_run(p, m, c);
        hold(p, m, c, f2(exec[0], exec[1]), 2, 1);
        return;
    }
    unsigned e = exec[0];
    if (p->wrun_q) {
        uint32_t n = p->wrun_q;
        if (n > ETM_LONG_RUN || !e) {
            flush_run(p, m, c);
        } else {
            /* n idle cycles, then this cycle's W and its E: format 3 headers,
             * the last of which carries the E. When that last one would be
             * just W E, it opens a format 1 header instead, which the next
             * cycles' E atoms can join. */
            push_held(p, m, c);
            uint32_t w = n + 1;
            while (w > 8) {
                put_header(c, m, ca_f3(8, 0), 0, 8);
                w -= 8;
            }
            p->wrun_q = 0;
            if (w == 1) {
                p->open_q = PH_OPEN_F1;
                p->open_e_q = 1;
            } else {
                hold(p, m, c, ca_f3(w, 1), 1, w);
            }
            return;
        }
    }
    if (p->open_q == PH_OPEN_F1) {
        if (!e) {
            hold(p, m, c, ca_f1(p->open_e_q, 1), p->open_e_q + 1u, p->open_e_q + 1u);
            p->open_q = PH_OPEN_NONE;
            p->open_e_q = 0;
        } else if (p->open_e_q < 7) {
            p->open_e_q++;
        } else {
            close_open(p, m, c);
            p->open_q = PH_OPEN_F1;
            p->open_e_q = 1;
        }
        return;
    }
    push_held(p, m, c);
    if (e) {
        p->open_q = PH_OPEN_F1;
        p->open_e_q = 1;
    } else {
        hold(p, m, c, ca_f1(0, 1), 1, 1);
    }
}

void ph_idle(pheader_state_t *p, const etm_mode_t *m, uint32_t n, cycle_buf_t *c)
{
    /* The W atoms sent early are taken back first. */
    uint32_t d = p->wdebt_q < n ? p->wdebt_q : n;
    p->wdebt_q = (uint8_t)(p->wdebt_q - d);
    n -= d;
    if (!n)
        return;
    /* The first idle cycle closes the open header; the others find none. */
    close_open(p, m, c);
    while (n) {
        uint32_t room = 0xFFFFFFFFu - p->wrun_q;
        if (n <= room) {
            p->wrun_q += n;
            return;
        }
        /* A count field holds 32 bits: the full run goes out, another starts. */
        p->wrun_q = 0xFFFFFFFFu;
        n -= room;
        flush_run(p, m, c);
        p->wrun_q = 1;
        n--;
    }
}

int ph_atom_nowait(pheader_state_t *p, const etm_mode_t *m, uint8_t exec, cycle_buf_t *c)
{
    if (!m->cycle_accurate) {
        ph_cycle(p, m, 1, &exec, c);
        return 1;
    }
    if (!m->format4) {
        ph_cycle(p, m, 1, &exec, c);
        if (p->wdebt_q < 255)
            p->wdebt_q++;
        return 0;
    }
    close_open(p, m, c);
    flush_run(p, m, c);
    hold(p, m, c, f4(exec), 1, 0);
    return 1;
}

void ph_close_atoms(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c)
{
    close_open(p, m, c);
    push_held(p, m, c);
}

void ph_close_all(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c)
{
    ph_close_atoms(p, m, c);
    flush_run(p, m, c);
}

uint32_t ph_take_wrun(pheader_state_t *p)
{
    uint32_t n = p->wrun_q;
    p->wrun_q = 0;
    return n;
}

/* Send `prefix` (a header holding the atoms before the last one, if any), then
 * hold `last` (a header holding the last atom alone), with an Ignore packet
 * between when the packet before `last` is itself a one-atom header (a decoder
 * may keep such an atom back and then cancel the wrong one). */
static void split(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c, int have_prefix, uint8_t prefix,
                  unsigned prefix_atoms, unsigned prefix_w, uint8_t last, unsigned last_w)
{
    if (have_prefix)
        put_header(c, m, prefix, prefix_atoms, prefix_w);
    if (c->last_single) {
        cbuf_put(c, ETMV3_HDR_IGNORE);
        c->last_single = 0;
        cbuf_kind(c, ETM_PKT_IGNORE);
    }
    p->held_q = last;
    p->held_atoms_q = 1;
    p->held_w_q = (uint8_t)last_w;
}

int ph_isolate_last(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c)
{
    int ca = m->cycle_accurate;
    if (p->open_q == PH_OPEN_F1) {
        unsigned k = p->open_e_q;
        p->open_q = PH_OPEN_NONE;
        p->open_e_q = 0;
        push_held(p, m, c);
        if (ca)
            split(p, m, c, k > 1, ca_f1(k - 1, 0), k - 1, k - 1, ca_f1(1, 0), 1);
        else
            split(p, m, c, k > 1, nca_f1(k - 1, 0), k - 1, 0, nca_f1(1, 0), 0);
        return 1;
    }
    if (p->open_q == PH_OPEN_N) {
        p->open_q = PH_OPEN_NONE;
        push_held(p, m, c);
        split(p, m, c, 0, 0, 0, 0, nca_f1(0, 1), 0);
        return 1;
    }
    if (!p->held_q || !p->held_atoms_q)
        return 0;
    uint8_t h = p->held_q;
    p->held_q = 0;
    if ((h & 0x03) == 0x02) {
        if ((h & 0xF0) == 0x90) { /* format 4: one atom */
            split(p, m, c, 0, 0, 0, 0, h, 0);
            return 1;
        }
        /* format 2: two atoms a, b */
        unsigned a = !(h & 0x08), b = !(h & 0x04);
        if (!ca) {
            split(p, m, c, 1, nca_f1(a, !a), 1, 0, nca_f1(b, !b), 0);
            return 1;
        }
        if (!m->format4) {
            p->held_q = h; /* cannot be separated without format 4 */
            return 0;
        }
        split(p, m, c, 1, ca_f1(a, !a), 1, 1, f4(b), 0);
        return 1;
    }
    if (ca && (h & 0x20)) { /* format 3: W..W E, one atom */
        split(p, m, c, 0, 0, 0, 0, h, p->held_w_q);
        return 1;
    }
    /* format 1 */
    unsigned n = (h >> 6) & 1;
    unsigned e = ca ? (h >> 2) & 7 : (h >> 2) & 15;
    if (n) { /* E..E N: the N is last */
        if (ca)
            split(p, m, c, e > 0, ca_f1(e, 0), e, e, ca_f1(0, 1), 1);
        else
            split(p, m, c, e > 0, nca_f1(e, 0), e, 0, nca_f1(0, 1), 0);
    } else {
        if (ca)
            split(p, m, c, e > 1, ca_f1(e - 1, 0), e - 1, e - 1, ca_f1(1, 0), 1);
        else
            split(p, m, c, e > 1, nca_f1(e - 1, 0), e - 1, 0, nca_f1(1, 0), 0);
    }
    return 1;
}
