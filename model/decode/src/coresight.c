/* coresight.c - CoreSight formatter frames into per-ID byte streams (etm/coresight.h).
 *
 * Frame layout (CoreSight Architecture, trace formatter): 16 bytes; even bytes
 * 0..14 are an ID (bit 0 = 1) or data whose bit 0 is in the auxiliary byte 15;
 * odd bytes 1..13 are data. Syncs: FF FF FF 7F between frames, FF 7F at any
 * half-word position.
 *
 * FF FF FF 7F cannot occur inside frames at any alignment (an even byte FF
 * would name the reserved ID 0x7F), so a frame sync found where the frames
 * do not expect one means bytes were lost (or the capture began inside a
 * frame without ETM_CS_WAIT_FSYNC): the deformatter drops the frame it was
 * building, takes the alignment the sync gives, and forgets the trace ID
 * until a frame names one (a TPIU names it again at least every 8 frames,
 * the CoreSight TPIU's rule).
 */
#include "etm/coresight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define CS_SYNC_BYTE 0xFFu
#define CS_SYNC_LAST 0x7Fu
#define CS_ID_NONE 0x80u            /* no ID seen yet: data is dropped */
#define CS_ID_RESERVED_FIRST 0x70u  /* 0x70-0x7F are reserved trace IDs ... */
#define CS_AUX_BYTE 15

struct etm_cs_deformatter {
    unsigned flags;
    etm_cs_data_fn fn;
    void *user;

    uint64_t pos;          /* offset of the next input byte */
    int searching;         /* ETM_CS_WAIT_FSYNC and no frame sync seen yet */
    unsigned ffs;          /* 0xFF bytes in a row while searching */

    int have_half;         /* first byte of a half-word pair */
    uint8_t half;
    uint64_t half_off;
    int in_fsync;          /* FF FF seen at a frame boundary */

    uint8_t frame[ETM_CS_FRAME_BYTES];
    uint64_t foff[ETM_CS_FRAME_BYTES];
    unsigned flen;
    unsigned cur_id;
    uint64_t frames;
    uint64_t triggers;     /* data bytes of ID 0x7D: trigger markers */
    uint64_t trigger_off;  /* ... the offset of the last */

    /* run of data bytes of one ID, contiguous in the input */
    uint8_t run[ETM_CS_FRAME_BYTES];
    unsigned run_len;
    unsigned run_id;
    uint64_t run_off;

    uint32_t last4;        /* the last four input bytes, the newest in bits 7:0 */
    uint64_t realigns;     /* frame syncs that moved the alignment */

    int err;               /* first error of the current etm_cs_feed() */
};

etm_err_t etm_cs_create(etm_cs_deformatter_t **out, unsigned flags, etm_cs_data_fn fn, void *user)
{
    if (!out || !fn)
        return ETM_ERR_ARG;
    etm_cs_deformatter_t *f = (etm_cs_deformatter_t *)calloc(1, sizeof *f);
    *out = f;
    if (!f)
        return ETM_ERR_NOMEM;
    f->flags = flags;
    f->fn = fn;
    f->user = user;
    f->searching = (flags & ETM_CS_WAIT_FSYNC) != 0;
    f->cur_id = CS_ID_NONE;
    return ETM_OK;
}

void etm_cs_destroy(etm_cs_deformatter_t *f) { free(f); }

uint64_t etm_cs_frames(const etm_cs_deformatter_t *f) { return f->frames; }

uint64_t etm_cs_realigns(const etm_cs_deformatter_t *f) { return f->realigns; }

uint64_t etm_cs_triggers(const etm_cs_deformatter_t *f, uint64_t *last_offset)
{
    if (last_offset)
        *last_offset = f->trigger_off;
    return f->triggers;
}

static void flush_run(etm_cs_deformatter_t *f)
{
    if (f->run_len)
        f->fn(f->user, f->run_id, f->run, f->run_len, f->run_off);
    f->run_len = 0;
}

static void put(etm_cs_deformatter_t *f, uint8_t byte, uint64_t off)
{
    if (f->cur_id == ETM_CS_ID_TRIGGER) {
        f->triggers++;
        f->trigger_off = off;
    }
    if (f->cur_id == CS_ID_NONE || f->cur_id == ETM_CS_ID_NULL || f->cur_id >= CS_ID_RESERVED_FIRST) {
        flush_run(f);
        return;
    }
    if (f->run_len && (f->run_id != f->cur_id || f->run_off + f->run_len != off))
        flush_run(f);
    if (f->run_len == 0) {
        f->run_id = f->cur_id;
        f->run_off = off;
    }
    f->run[f->run_len++] = byte;
}

static void fail(etm_cs_deformatter_t *f, etm_diag_t *diag, uint64_t off, const char *msg)
{
    if (f->err)
        return;
    f->err = 1;
    if (diag) {
        etm_util_fail(diag, ETM_ERR_DECODE, "%s", msg);
        diag->offset = off;
    }
}

static void set_id(etm_cs_deformatter_t *f, unsigned id, uint64_t off, etm_diag_t *diag)
{
    if (id >= CS_ID_RESERVED_FIRST && id != ETM_CS_ID_TRIGGER) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "formatter frame names trace ID 0x%02x; IDs 0x70-0x7F are reserved (but 0x7D, the trigger)", id);
        fail(f, diag, off, msg);
    }
    f->cur_id = id;
}

static void take_frame(etm_cs_deformatter_t *f, etm_diag_t *diag)
{
    uint8_t aux = f->frame[CS_AUX_BYTE];
    for (unsigned k = 0; k < 8; k++) {
        uint8_t a = f->frame[2 * k];
        int has_second = k < 7; /* byte 15 is the auxiliary byte, not data */
        if (a & 1u) {
            unsigned id = a >> 1;
            if (has_second && ((aux >> k) & 1u)) {
                put(f, f->frame[2 * k + 1], f->foff[2 * k + 1]); /* still the old ID */
                set_id(f, id, f->foff[2 * k], diag);
            } else {
                set_id(f, id, f->foff[2 * k], diag);
                if (has_second)
                    put(f, f->frame[2 * k + 1], f->foff[2 * k + 1]);
            }
        } else {
            put(f, (uint8_t)(a | ((aux >> k) & 1u)), f->foff[2 * k]);
            if (has_second)
                put(f, f->frame[2 * k + 1], f->foff[2 * k + 1]);
        }
    }
    flush_run(f);
    f->frames++;
}

static void take_pair(etm_cs_deformatter_t *f, uint8_t a, uint8_t b, uint64_t off, etm_diag_t *diag)
{
    if (f->in_fsync) {
        if (a == CS_SYNC_BYTE && b == CS_SYNC_LAST) {
            f->in_fsync = 0;
        } else if (!(a == CS_SYNC_BYTE && b == CS_SYNC_BYTE)) {
            char msg[160];
            snprintf(msg, sizeof msg, "frame synchronisation FF FF FF 7F broken off: FF FF followed by %02x %02x",
                     a, b);
            fail(f, diag, off, msg);
            f->in_fsync = 0;
        }
        return;
    }
    if (f->flen == 0 && a == CS_SYNC_BYTE && b == CS_SYNC_BYTE) {
        f->in_fsync = 1;
        return;
    }
    if (a == CS_SYNC_BYTE && b == CS_SYNC_LAST)
        return; /* half-word sync */
    f->frame[f->flen] = a;
    f->foff[f->flen] = off;
    f->frame[f->flen + 1] = b;
    f->foff[f->flen + 1] = off + 1;
    f->flen += 2;
    if (f->flen == ETM_CS_FRAME_BYTES) {
        take_frame(f, diag);
        f->flen = 0;
    }
}

etm_err_t etm_cs_feed(etm_cs_deformatter_t *f, const uint8_t *data, size_t n, etm_diag_t *diag)
{
    f->err = 0;
    for (size_t k = 0; k < n; k++, f->pos++) {
        uint8_t c = data[k];
        f->last4 = f->last4 << 8 | c;
        if (f->last4 == 0xFFFFFF7Fu && f->pos >= 3 && !f->searching &&
            !(f->have_half && f->in_fsync && f->half == CS_SYNC_BYTE)) {
            /* A frame sync out of place: bytes were lost. */
            char msg[200];
            snprintf(msg, sizeof msg, "a frame synchronisation FF FF FF 7F ends here, inside a frame: bytes were "
                     "lost; the frame being built (%u bytes) is dropped, the trace ID is unknown until a frame "
                     "names one", f->flen + (unsigned)f->have_half);
            fail(f, diag, f->pos, msg);
            flush_run(f);
            f->realigns++;
            f->have_half = 0;
            f->flen = 0;
            f->in_fsync = 0;
            f->cur_id = CS_ID_NONE;
            continue;
        }
        if (f->searching) {
            if (c == CS_SYNC_BYTE) {
                f->ffs++;
            } else if (c == CS_SYNC_LAST && f->ffs >= 3) {
                f->searching = 0;
                f->have_half = 0;
                f->flen = 0;
            } else {
                f->ffs = 0;
            }
            continue;
        }
        if (!f->have_half) {
            f->have_half = 1;
            f->half = c;
            f->half_off = f->pos;
            continue;
        }
        f->have_half = 0;
        take_pair(f, f->half, c, f->half_off, diag);
    }
    return f->err ? ETM_ERR_DECODE : ETM_OK;
}

etm_err_t etm_cs_end(etm_cs_deformatter_t *f, etm_diag_t *diag)
{
    if (f->searching || (f->flen == 0 && !f->have_half))
        return ETM_OK;
    uint64_t start = f->flen ? f->foff[0] : f->half_off;
    unsigned got = f->flen + (unsigned)f->have_half;
    f->flen = 0;
    f->have_half = 0;
    if (diag) {
        etm_util_fail(diag, ETM_ERR_DECODE, "the input ends inside a formatter frame: %u of %u bytes", got,
                      ETM_CS_FRAME_BYTES);
        diag->offset = start;
    }
    return ETM_ERR_DECODE;
}
