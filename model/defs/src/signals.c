/* signals.c - the table of interface signals: names, widths, where each lives
 * in etm_in_t / etm_out_t. Vector files, VCD files and the RTL use these names. */
#include "etm/signals.h"

#include <string.h>

#include "util.h"

#define IN(field, name, width, lsb, doc) \
    { name, width, lsb, (uint8_t)sizeof(((etm_in_t *)0)->field), ETM_SIG_SCALAR, (uint16_t)offsetof(etm_in_t, field), doc }
#define OUT(field, name, width, lsb, doc) \
    { name, width, lsb, (uint8_t)sizeof(((etm_out_t *)0)->field), ETM_SIG_SCALAR, (uint16_t)offsetof(etm_out_t, field), doc }

const etm_signal_t etm_in_signals[] = {
    IN(ivalid, "ETMIVALID", 1, 0, "instruction entered its first execute cycle"),
    IN(ibranch, "ETMIBRANCH", 1, 0, "instruction is the target of a PC change"),
    IN(iindbr, "ETMIINDBR", 1, 0, "that PC change was indirect"),
    IN(iccfail, "ETMICCFAIL", 1, 0, "instruction failed its condition code"),
    IN(fold, "ETMFOLD", 1, 0, "an IT instruction was folded with it"),
    IN(ia, "ETMIA", 31, 1, "instruction address [31:1]"),
    IN(dvalid, "ETMDVALID", 1, 0, "DWT data address valid"),
    IN(flush, "ETMFLUSH", 1, 0, "PC-modifying event under way"),
    IN(findbr, "ETMFINDBR", 1, 0, "that event is indirect"),
    IN(cancel, "ETMCANCEL", 1, 0, "instruction in execute cancelled"),
    IN(istall, "ETMISTALL", 1, 0, "last signalled instruction not yet in execute"),
    IN(intstat, "ETMINTSTAT", 3, 0, "interrupt status: 1 entry, 2 exit, 3 return, 4 fetch"),
    IN(intnum, "ETMINTNUM", 9, 0, "exception number"),
    IN(trigger, "ETMTRIGGER", 4, 0, "DWT comparator matches"),
    IN(triginotd, "ETMTRIGINOTD", 4, 0, "per comparator: instruction (1) or data (0) match"),
    IN(ivalid1, "ETMIVALID1", 1, 0, "slot 1: second instruction of the cycle valid"),
    IN(ibranch1, "ETMIBRANCH1", 1, 0, "slot 1: branch target"),
    IN(iindbr1, "ETMIINDBR1", 1, 0, "slot 1: indirect branch target"),
    IN(iccfail1, "ETMICCFAIL1", 1, 0, "slot 1: condition code failed"),
    IN(ia1, "ETMIA1", 31, 1, "slot 1: instruction address [31:1]"),
    IN(dactl, "ETMDACTL", 18, 0, "data address control (DANSeq..DASlot)"),
    IN(da, "ETMDA", 32, 0, "data address"),
    IN(ddctl, "ETMDDCTL", 4, 0, "data value control: [1:0] slot, [2] STREX failed, [3] imprecise abort"),
    IN(dd, "ETMDD", 64, 0, "data value, memory view"),
};
const size_t etm_in_signal_count = sizeof etm_in_signals / sizeof etm_in_signals[0];

const etm_signal_t etm_out_signals[] = {
    OUT(pipestat, "PIPESTAT", 3, 0, "ETMv1 pipeline status"),
    OUT(tracepkt, "TRACEPKT", 16, 0, "ETMv1 trace packet pins"),
    OUT(tracesync, "TRACESYNC", 1, 0, "ETMv1 first byte of a branch address"),
    { "V3BYTES", 8 * ETM_MAX_PORT_BYTES, 0, 1, ETM_SIG_BYTES, (uint16_t)offsetof(etm_out_t, v3_bytes),
      "ETMv3 bytes leaving the port this cycle, oldest first" },
    OUT(fifo_level, "FIFOLEVEL", 16, 0, "bytes in the FIFO after this cycle"),
    OUT(overflow, "OVERFLOW", 1, 0, "trace lost to a full FIFO this cycle"),
    OUT(trigger, "TRIGGER", 1, 0, "trigger event fired this cycle"),
    OUT(fifofull, "FIFOFULL", 1, 0, "stall request: fewer than ETMFFLR bytes free (ETMCR[7])"),
};
const size_t etm_out_signal_count = sizeof etm_out_signals / sizeof etm_out_signals[0];

int etm_signal_find(const etm_signal_t *table, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (etm_util_strcaseeq(table[i].name, name))
            return (int)i;
    return -1;
}

uint64_t etm_signal_mask(const etm_signal_t *s)
{
    uint64_t m = s->width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << s->width) - 1);
    return m << s->lsb;
}

uint64_t etm_signal_get(const etm_signal_t *s, const void *record)
{
    const unsigned char *p = (const unsigned char *)record + s->offset;
    switch (s->size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

void etm_signal_set(const etm_signal_t *s, void *record, uint64_t value)
{
    unsigned char *p = (unsigned char *)record + s->offset;
    switch (s->size) {
    case 1: { uint8_t v = (uint8_t)value; memcpy(p, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)value; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)value; memcpy(p, &v, 4); break; }
    default: memcpy(p, &value, 8); break;
    }
}
