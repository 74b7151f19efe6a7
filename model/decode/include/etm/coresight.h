/* etm/coresight.h - CoreSight trace formatter frames (TPIU, ETB, ETR): take them
 * apart into one byte stream per trace ID.
 *
 * The formatter packs the streams of several trace sources into 16-byte frames.
 * In each frame, bytes 0, 2, .., 14 are either data (bit 0 = 0; the real bit 0 is
 * in the auxiliary byte 15) or a new trace ID (bit 0 = 1, ID in [7:1]); bytes
 * 1, 3, .., 13 are always data. For an ID in byte 2k, bit k of byte 15 says
 * whether data byte 2k+1 still belongs to the previous ID (1) or to the new one (0).
 * Between frames a full frame synchronisation 0xFFFFFF7F (bytes FF FF FF 7F) may
 * appear, and a half-word synchronisation 0x7FFF (bytes FF 7F) at any even
 * position; neither can be a real frame byte (an ID byte 0xFF would be the
 * reserved ID 0x7F), so both are always removed.
 *
 * Streaming: memory is fixed (one frame).
 */
#ifndef ETM_CORESIGHT_H
#define ETM_CORESIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "etm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_CS_FRAME_BYTES 16
#define ETM_CS_ID_NULL 0x00u   /* data of this ID is padding and is dropped */
#define ETM_CS_ID_TRIGGER 0x7Du /* a formatter's trigger marker (a TPIU with FFCR.TrigIn, the
                                   Cortex-M3's on its SWO pin): its data byte is counted
                                   (etm_cs_triggers), not a stream */

/* Options for etm_cs_create(). */
#define ETM_CS_WAIT_FSYNC (1u << 0) /* skip bytes until the first full frame sync (a TPIU
                                       capture that may start mid-frame); without it the
                                       first byte starts a frame (ETB/ETR memory dump) */

/* Called with runs of data bytes of one trace ID. offset is the byte offset in the
 * formatted input of data[0]; the n bytes are contiguous in the input. */
typedef void (*etm_cs_data_fn)(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset);

typedef struct etm_cs_deformatter etm_cs_deformatter_t;

/* Returns ETM_OK, ETM_ERR_ARG (fn is NULL), ETM_ERR_NOMEM. */
etm_err_t etm_cs_create(etm_cs_deformatter_t **out, unsigned flags, etm_cs_data_fn fn, void *user);
void etm_cs_destroy(etm_cs_deformatter_t *f);

/* Take n more bytes. Returns ETM_OK, or ETM_ERR_DECODE when a frame names a
 * reserved trace ID (0x70-0x7F but the trigger's 0x7D), a frame sync is broken
 * off, or one is found inside a frame (bytes were lost: the deformatter takes
 * the sync's alignment and forgets the ID; etm_cs_realigns) (diag->offset is
 * the offending byte). After an error the deformatter goes on. */
etm_err_t etm_cs_feed(etm_cs_deformatter_t *f, const uint8_t *data, size_t n, etm_diag_t *diag);

/* End of input. Returns ETM_OK, or ETM_ERR_DECODE if the input ended inside a
 * frame (diag->offset is where that frame started). */
etm_err_t etm_cs_end(etm_cs_deformatter_t *f, etm_diag_t *diag);

/* Frames taken apart so far. */
uint64_t etm_cs_frames(const etm_cs_deformatter_t *f);
/* Frame syncs found out of place (bytes lost): each realigned the frames and
 * made the trace ID unknown until a frame named one (reported as an error). */
uint64_t etm_cs_realigns(const etm_cs_deformatter_t *f);
/* Trigger markers (data bytes of ID 0x7D) so far, and the input offset of the last. */
uint64_t etm_cs_triggers(const etm_cs_deformatter_t *f, uint64_t *last_offset);

#ifdef __cplusplus
}
#endif
#endif
