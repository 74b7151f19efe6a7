/* decode_v1_fifo.c - the ETMv1 decoder's window of cycles and its packet cursor.
 *
 * Packets on TRACEPKT are read in FIFO order by one cursor (decode_v1.c says
 * why); a cycle that drains the FIFO carries the next packet slot. Once the
 * statuses before a cycle are decoded, the cursor says exactly which slots
 * carried packets, and each cycle is checked against it (WT, TD, TRACESYNC,
 * idle bits).
 */
#include "etm/decode_v1.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decode_v1_int.h"

/* ---- The window of cycles ------------------------------------------------------------ */

/* The later of p and the first slot of cycle t: a status's packets enter the FIFO
 * in its own cycle and can leave in it, never earlier. */
pos_t dv1_from_cycle(pos_t p, uint64_t t)
{
    if (p.cyc < t) {
        p.cyc = t;
        p.lane = 0;
    }
    return p;
}

/* Move p to the next slot that can carry a packet, past TR cycles. It is only
 * called while a packet is owed (it entered the FIFO at or before p), so a TD
 * cycle on the way is an error: RD_TD, with the cycle in d->td_cycle. */
int dv1_norm(etm_v1dec_t *d, pos_t *p)
{
    for (;;) {
        int h = dv1_have(d, p->cyc);
        if (h != RD_OK)
            return h;
        const cyc_t *c = dv1_at(d, p->cyc);
        if (dv1_drains(c))
            return RD_OK;
        if (c->ps == ETM_V1_PS_TD) {
            d->td_cycle = p->cyc;
            return RD_TD;
        }
        p->cyc++;
        p->lane = 0;
    }
}

/* Read one packet at p (moving p past it). With mark, record the slots as used.
 * *first gets the cycle of its first slot. */
int dv1_read_packet(etm_v1dec_t *d, pos_t *p, int mark, uint8_t *byte, uint64_t *first)
{
    int h = dv1_norm(d, p);
    if (h != RD_OK)
        return h;
    cyc_t *c = dv1_at(d, p->cyc);
    if (first)
        *first = p->cyc;
    if (d->port == 8) {
        *byte = (uint8_t)(c->pkt & 0xFFu);
        if (mark)
            c->flags |= F_USED0;
        p->cyc++;
    } else if (d->port == 16) {
        if (p->lane == 0) {
            *byte = (uint8_t)(c->pkt & 0xFFu);
            if (mark)
                c->flags |= F_USED0;
            p->lane = 1;
        } else {
            *byte = (uint8_t)(c->pkt >> 8);
            if (mark)
                c->flags |= F_USED1;
            p->cyc++;
            p->lane = 0;
        }
    } else { /* 4-bit: low nibble, then the high nibble in the next draining cycle */
        unsigned lo = c->pkt & 0xFu;
        p->cyc++;
        h = dv1_norm(d, p);
        if (h != RD_OK)
            return h;
        cyc_t *c2 = dv1_at(d, p->cyc);
        *byte = (uint8_t)(lo | ((c2->pkt & 0xFu) << 4));
        if (mark) {
            c->flags |= F_USED0;
            c2->flags |= F_USED0;
        }
        p->cyc++;
    }
    if (mark)
        d->stats.packets++;
    return RD_OK;
}

/* Read an address of 1-5 packets (bit 7 = another follows; the fifth is the last). */
int dv1_read_address(etm_v1dec_t *d, pos_t *p, int mark, uint8_t pk[5], unsigned *n)
{
    *n = 0;
    for (;;) {
        int h = dv1_read_packet(d, p, mark, &pk[*n], NULL);
        if (h != RD_OK)
            return h;
        (*n)++;
        if (*n == 5 || !(pk[*n - 1] & 0x80u))
            return RD_OK;
    }
}

/* Replace the bits of ref that n packets carry. */
uint32_t dv1_merge_address(uint32_t ref, const uint8_t *pk, unsigned n)
{
    uint32_t v = 0, mask = 0;
    for (unsigned i = 0; i < n && i < 4; i++) {
        v |= (uint32_t)(pk[i] & 0x7Fu) << (7 * i);
        mask |= 0x7Fu << (7 * i);
    }
    if (n == 5) {
        v |= (uint32_t)(pk[4] & 0xFu) << 28;
        mask = 0xFFFFFFFFu;
    }
    return (ref & ~mask) | v;
}

/* Fewest packets that cover every bit in which a and b differ (1 if none). */
unsigned dv1_packets_needed(uint32_t a, uint32_t b)
{
    uint32_t x = a ^ b;
    unsigned hi = 0;
    while (x >> hi > 1)
        hi++;
    if (!x || hi < 7)
        return 1;
    return hi < 14 ? 2 : hi < 21 ? 3 : hi < 28 ? 4 : 5;
}

/* ---- Data packets -------------------------------------------------------------------- */

/* Read the data packets of one ID/BD instruction at p. */
int dv1_read_data(etm_v1dec_t *d, pos_t *p, int mark, const etm_v1_insn_t *in, dplan_t *dp)
{
    int h;
    memset(dp, 0, sizeof *dp);
    if (d->data_mode & 2u) {
        h = dv1_read_address(d, p, mark, dp->apk, &dp->an);
        if (h != RD_OK)
            return h;
    }
    if (d->data_mode & 1u) {
        unsigned n = in->data_bytes > ETM_V1_MAX_DATA_BYTES ? ETM_V1_MAX_DATA_BYTES : in->data_bytes;
        for (unsigned i = 0; i < n; i++) {
            h = dv1_read_packet(d, p, mark, &dp->bytes[i], NULL);
            if (h != RD_OK)
                return h;
        }
        dp->nbytes = n;
    }
    return RD_OK;
}

/* ---- Checks of each cycle against the cursor ---------------------------------------- */

/* Run the checks of the cycles [chk, next): all statuses up to next-1 are decoded,
 * so the cursor says exactly which slots carried packets and whether the FIFO
 * held anything. */
etm_err_t dv1_run_checks(etm_v1dec_t *d, etm_diag_t *diag)
{
    for (; d->chk < d->next; d->chk++) {
        uint64_t c = d->chk;
        if (!d->synced)
            continue;
        cyc_t *r = dv1_at(d, c);
        const char *bad = NULL;
        char buf[200];
        if (c >= d->td_from && r->ps == ETM_V1_PS_TD && d->cur.cyc > c) {
            snprintf(buf, sizeof buf,
                     "TD in cycle %" PRIu64 ", but the FIFO still held packets (the last one read so far "
                     "left in cycle %" PRIu64 "): a cycle with something to drain is WT, not TD",
                     c, d->cur.lane ? d->cur.cyc : d->cur.cyc - 1);
            bad = buf;
        } else if (c < d->idle_from) {
            /* before synchronisation: packets of unknown owners */
        } else if (r->ps == ETM_V1_PS_WT && !(r->flags & F_APO) && !(r->flags & F_USED0)) {
            /* Table 5.1 makes such a cycle TD, but 5.9 turns the status of the cycle
             * that overflows into WT: accepted if the overflow restart comes next. */
            if (!d->empty_wt)
                d->empty_wt = c + 1;
        } else if ((r->flags & F_SYNC) && !(r->flags & F_ADDR)) {
            snprintf(buf, sizeof buf,
                     "TRACESYNC in cycle %" PRIu64 ", where no branch address starts (FIFO order puts %s there)",
                     c, (r->flags & F_USED0) ? "a data packet or a later address packet" : "no packet");
            bad = buf;
        } else if (d->flags & ETM_V1DEC_STRICT) {
            unsigned pkt = r->pkt;
            if (r->ps == ETM_V1_PS_TR) {
                if (pkt >> 3) {
                    snprintf(buf, sizeof buf, "TR in cycle %" PRIu64 " with TRACEPKT[15:3] = 0x%x, not 0", c, pkt >> 3);
                    bad = buf;
                }
            } else if (r->ps == ETM_V1_PS_TD) {
                if (pkt & ~(d->cycle_acc ? 1u : 0u)) {
                    snprintf(buf, sizeof buf,
                             "TD in cycle %" PRIu64 " with TRACEPKT = 0x%04x: only TRACEPKT[0], and only in "
                             "cycle-accurate mode, may be 1",
                             c, pkt);
                    bad = buf;
                }
            } else {
                unsigned lane0 = d->port == 4 ? 0xFu : 0xFFu;
                unsigned idle = 0;
                if (!(r->flags & F_USED0))
                    idle |= lane0;
                if (d->port != 16 || !(r->flags & F_USED1))
                    idle |= 0xFFFFu & ~lane0;
                if (pkt & idle) {
                    snprintf(buf, sizeof buf,
                             "TRACEPKT = 0x%04x in cycle %" PRIu64 ": bits 0x%04x carry no packet and must be 0",
                             pkt, c, pkt & idle);
                    bad = buf;
                }
            }
        }
        if (bad) {
            if (diag) {
                etm_diag_clear(diag);
                diag->code = ETM_ERR_DECODE;
                diag->cycle = c;
                snprintf(diag->msg, sizeof diag->msg, "%s", bad);
            }
            d->stats.errors++;
            dv1_lose_sync(d);
            d->chk = c + 1;
            return ETM_ERR_DECODE;
        }
    }
    return ETM_OK;
}
