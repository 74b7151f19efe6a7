/* signals.c - the table of interface signals: names, widths, where each lives
 * in etm_in_t / etm_out_t. Vector files, VCD files and the RTL use these names. */
#include "etm/signals.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

#define SCALAR(rec, field, name, width, lsb, flags, doc)                                                 \
    { #name, width, lsb, (uint8_t)sizeof(((rec *)0)->field), ETM_SIG_SCALAR, (uint16_t)offsetof(rec, field), \
      flags, doc },

const etm_signal_t etm_in_signals[] = {
#define ETM_IN(field, name, width, lsb, ctype, part, doc) SCALAR(etm_in_t, field, name, width, lsb, part, doc)
#include "etm/signals.def"
};
const size_t etm_in_signal_count = sizeof etm_in_signals / sizeof etm_in_signals[0];

/* The outputs that are file columns. */
const etm_signal_t etm_out_signals[] = {
#define ETM_OUT(field, name, width, ctype, where, doc) WHERE_##where(SCALAR(etm_out_t, field, name, width, 0, where, doc))
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    { #column, 8 * (n), 0, 1, ETM_SIG_BYTES, (uint16_t)offsetof(etm_out_t, bytes), ETM_SIGF_FILE, doc },
#define WHERE_ETM_SIGF_FILE(x) x
#define WHERE_ETM_SIGF_PORT(x)
#include "etm/signals.def"
};
const size_t etm_out_signal_count = sizeof etm_out_signals / sizeof etm_out_signals[0];

/* ETM_QUALIFIED as a table of input indexes. */
enum {
#define ETM_IN(field, name, width, lsb, ctype, part, doc) SIG_##field,
#include "etm/signals.def"
    SIG_COUNT
};

static const struct qualifier {
    uint8_t sig, by;
    uint32_t mask;
} qualifiers[] = {
#define ETM_QUALIFIED(field, by, mask) { SIG_##field, SIG_##by, mask },
#include "etm/signals.def"
};

uint64_t etm_in_unknown_harmful(const etm_in_t *in, uint64_t unknown, unsigned issue_width)
{
    uint64_t harmless = 0;
    if (issue_width == 1)
        harmless |= etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_SLOT1);
    for (size_t i = 0; i < sizeof qualifiers / sizeof qualifiers[0]; i++) {
        const struct qualifier *q = &qualifiers[i];
        if (!(unknown >> q->by & 1) && !(etm_signal_get(&etm_in_signals[q->by], in) & q->mask))
            harmless |= 1ull << q->sig;
    }
    return unknown & ~harmless;
}

const char *etm_in_qualifiers(size_t i, char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (size_t k = 0; k < sizeof qualifiers / sizeof qualifiers[0] && size; k++) {
        const struct qualifier *q = &qualifiers[k];
        const etm_signal_t *by = &etm_in_signals[q->by];
        if (q->sig != i || len >= size)
            continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " or " : "", by->name);
        if (q->mask != etm_signal_mask(by) >> by->lsb && len < size) { /* a field of it: NAME[hi:lo] */
            unsigned lo = 0, hi;
            while (!(q->mask >> lo & 1))
                lo++;
            for (hi = lo; hi < 31 && (q->mask >> (hi + 1) & 1); hi++) {
            }
            len += (size_t)snprintf(buf + len, size - len, "[%u:%u]", hi, lo);
        }
    }
    return buf;
}

size_t etm_in_size(void) { return sizeof(etm_in_t); }
size_t etm_out_size(void) { return sizeof(etm_out_t); }

int etm_signal_find(const etm_signal_t *table, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (etm_util_strcaseeq(table[i].name, name))
            return (int)i;
    return -1;
}

uint64_t etm_signal_flag_mask(const etm_signal_t *table, size_t count, unsigned flags)
{
    uint64_t m = 0;
    for (size_t i = 0; i < count && i < 64; i++)
        if (table[i].flags & flags)
            m |= 1ull << i;
    return m;
}

uint64_t etm_signal_mask(const etm_signal_t *s)
{
    uint64_t m = s->width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << s->width) - 1);
    return m << s->lsb;
}

/* The port's value of a field (ETM_SIGF_INV: its complement). */
static uint64_t port_xor(const etm_signal_t *s)
{
    return s->kind == ETM_SIG_SCALAR && (s->flags & ETM_SIGF_INV) ? etm_signal_mask(s) : 0;
}

uint64_t etm_signal_get(const etm_signal_t *s, const void *record)
{
    const unsigned char *p = (const unsigned char *)record + s->offset;
    uint64_t x = port_xor(s);
    switch (s->size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v ^ x; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v ^ x; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v ^ x; }
    default: { uint64_t v; memcpy(&v, p, 8); return v ^ x; }
    }
}

void etm_signal_set(const etm_signal_t *s, void *record, uint64_t value)
{
    unsigned char *p = (unsigned char *)record + s->offset;
    value ^= port_xor(s);
    switch (s->size) {
    case 1: { uint8_t v = (uint8_t)value; memcpy(p, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)value; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)value; memcpy(p, &v, 4); break; }
    default: memcpy(p, &value, 8); break;
    }
}
