/* decode_v1_insn.c - the ETMv1 decoder's Thumb-2 (ARMv7-M) classifier, on the
 * project's Thumb-2 decoder (etm/thumb.h), its fetch of an instruction, and its
 * reader of code image windows (etm/decode_v1.h).
 *
 * The statuses (decode_v1_status.c) follow the code with it: where a branch
 * goes, and how many data bytes a load or store moves (its data packets).
 */
#include "etm/decode_v1.h"

#include <string.h>

#include "code_read.h"
#include "decode_v1_int.h"
#include "etm/thumb.h"

/* ---- Thumb-2 (ARMv7-M) classifier ------------------------------------------------- */

/* etm_v1_insn_classify, here and in dv1_fetch (which follows the code: one call
 * an instruction). */
static inline int classify(uint32_t addr, const uint8_t *b, unsigned n, etm_v1_insn_t *out)
{
    static const etm_v1_flow_t flow[3] = { ETM_V1_FLOW_NEXT, ETM_V1_FLOW_DIRECT, ETM_V1_FLOW_INDIRECT };
    etm_thumb_insn_t t;
    if (!etm_thumb_decode_bytes(addr, b, n, &t)) {
        memset(out, 0, sizeof *out);
        return 1;
    }
    out->size = t.size;
    out->opcode = t.opcode;
    if (t.op == ETM_THUMB_UNDEF || t.ar_only) { /* BLX imm, ERET, RFE, ...: not ARMv7-M */
        out->flow = ETM_V1_FLOW_NEXT;
        out->target = 0;
        out->data_bytes = 0;
        out->is_store = 0;
        out->undefined = 1;
        return 0;
    }
    out->flow = flow[t.branch];
    out->target = t.target; /* 0 unless direct */
    out->data_bytes = t.data_bytes;
    out->is_store = t.ls == ETM_THUMB_LS_STORE && t.op != ETM_THUMB_COPROC;
    out->undefined = t.op >= ETM_THUMB_LDM && t.op <= ETM_THUMB_PUSH && t.nregs == 0; /* an empty register list */
    return 0;
}

int etm_v1_insn_classify(uint32_t addr, const uint8_t *b, unsigned n, etm_v1_insn_t *out)
{
    return classify(addr, b, n, out);
}

int dv1_fetch(etm_v1dec_t *d, uint32_t addr, etm_v1_insn_t *in)
{
    uint8_t b[4];
    if (d->cls) {
        memset(in, 0, sizeof *in);
        return d->cls(d->cls_user, addr, in) == 1;
    }
    if (!d->rd)
        return 0;
    int n = d->rd(d->rd_user, addr, b, 4);
    if (n < 2)
        return 0;
    return classify(addr, b, (unsigned)n, in) == 0;
}

/* ---- Code image windows ---------------------------------------------------------- */

int etm_v1_image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const etm_v1_image_t *im = (const etm_v1_image_t *)user;
    for (size_t i = 0; i < im->n; i++) {
        const etm_v1_window_t *w = &im->w[i];
        if (addr >= w->base && (uint64_t)addr - w->base < w->size)
            return code_read(buf, w->bytes, w->size, (size_t)(addr - w->base), n);
    }
    return 0;
}
