/* regmap.c - the register table and the field tables, from etm/regs.def, and
 * the version a register image selects. */
#include "etm/regmap.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

const etm_regdesc_t etm_registers[] = {
#define ETM_REG(field, name, number, layout, first, doc) \
    { #name, number, 1, ETM_LAYOUT_##layout, first, (uint16_t)offsetof(etm_config_t, field), doc },
#define ETM_REG_ARRAY(field, name, number, count, layout, first, doc) \
    { #name, number, count, ETM_LAYOUT_##layout, first, (uint16_t)offsetof(etm_config_t, field), doc },
#define ETM_PARAM(field, name, doc) \
    { #name, ETM_PARAM_ADDR, 1, ETM_LAYOUT_PARAM, ETM_V(1, 0), (uint16_t)offsetof(etm_config_t, field), doc },
#include "etm/regs.def"
};
const size_t etm_register_count = sizeof etm_registers / sizeof etm_registers[0];

static const etm_regfield_t fields[] = {
#define ETM_FIELD(layout, id, hi, lo, vmin, vmax, name) { ETM_LAYOUT_##layout, hi, lo, vmin, vmax, #id, name },
#include "etm/regs.def"
};

const etm_regfield_t *etm_layout_fields(unsigned layout, size_t *n)
{
    size_t first = 0, count = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].layout != layout)
            continue;
        if (count++ == 0)
            first = i;
    }
    *n = count;
    return count ? &fields[first] : NULL;
}

uint32_t etm_regfield_mask(const etm_regfield_t *f) { return ETM_FIELD_ONES(f->hi - f->lo + 1u) << f->lo; }

uint32_t etm_regfield_get(const etm_regfield_t *f, uint32_t v) { return (v & etm_regfield_mask(f)) >> f->lo; }

const char *etm_regfield_bits(const etm_regfield_t *f, char *buf, size_t size)
{
    if (f->hi == f->lo)
        snprintf(buf, size, "[%u]", f->lo);
    else
        snprintf(buf, size, "[%u:%u]", f->hi, f->lo);
    return buf;
}

const etm_regdesc_t *etm_register_find(const char *name, unsigned *index)
{
    size_t n = strlen(name);
    /* Scalars first: some scalar names end in a digit (ETMTECR1). */
    for (size_t i = 0; i < etm_register_count; i++) {
        if (etm_registers[i].count == 1 && etm_util_strcaseeq(etm_registers[i].name, name)) {
            if (index)
                *index = 0;
            return &etm_registers[i];
        }
    }
    size_t d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == n || d == 0 || n - d > 2 || name[d] == '0')
        return NULL;
    uint64_t k;
    if (etm_util_parse_dec(name + d, n - d, &k) != 0)
        return NULL;
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *r = &etm_registers[i];
        if (r->count > 1 && etm_util_strncaseeq(r->name, name, d) && k >= 1 && k <= r->count) {
            if (index)
                *index = (unsigned)(k - 1);
            return r;
        }
    }
    return NULL;
}

uint32_t *etm_register_ptr(etm_config_t *cfg, const etm_regdesc_t *d, unsigned index)
{
    return (uint32_t *)((unsigned char *)cfg + d->offset) + index;
}

uint32_t etm_register_get(const etm_config_t *cfg, const etm_regdesc_t *d, unsigned index)
{
    return ((const uint32_t *)((const unsigned char *)cfg + d->offset))[index];
}

int etm_register_slot(const etm_regdesc_t *d, unsigned index)
{
    int slot = 0;
    for (size_t i = 0; i < etm_register_count; i++) {
        if (&etm_registers[i] == d)
            return slot + (int)index;
        slot += etm_registers[i].count;
    }
    return -1;
}

static const etm_regdesc_t *slot_reg(int slot, unsigned *index)
{
    for (size_t i = 0; i < etm_register_count && slot >= 0; i++) {
        if (slot < etm_registers[i].count) {
            *index = (unsigned)slot;
            return &etm_registers[i];
        }
        slot -= etm_registers[i].count;
    }
    return NULL;
}

const char *etm_register_slot_name(int slot, char *buf, size_t size)
{
    unsigned idx = 0;
    const etm_regdesc_t *d = slot_reg(slot, &idx);
    if (!d)
        snprintf(buf, size, "?");
    else if (d->count > 1)
        snprintf(buf, size, "%s%u", d->name, idx + 1);
    else
        snprintf(buf, size, "%s", d->name);
    return buf;
}

etm_err_t etm_config_version(const etm_config_t *cfg, unsigned *version, etm_diag_t *diag)
{
    if (!ETM_FIELD_GET(ETM_CCR_ETMIDR, cfg->etmccr)) {
        static const unsigned char v1minor[8] = { 0, 1, 2, 3, 2, 3, 0xff, 3 };
        unsigned p = ETM_FIELD_GET(ETM_CCR_PROTOCOL, cfg->etmccr);
        if (v1minor[p] == 0xff)
            return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                 "ETMCCR[30:28]=6 is not an ETMv1 protocol number (0-5 and 7 are)");
        *version = ETM_V(1, v1minor[p]);
        return ETM_OK;
    }
    unsigned major = ETM_FIELD_GET(ETM_IDR_MAJOR, cfg->etmidr), minor = ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr);
    switch (major) {
    case 2:
        if (minor > 5)
            return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                 "ETMIDR minor version %u: the model knows ETMv3.0 to ETMv3.5", minor);
        *version = ETM_V(3, minor);
        return ETM_OK;
    case 0:
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "ETMIDR major version 0: an ETMv1 has no ETMIDR; clear ETMCCR[31] "
                             "and give the protocol number in ETMCCR[30:28]");
    case 1:
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "ETMIDR says ETMv2, which the model does not speak");
    case 3:
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "ETMIDR major version 3 is PFT (a PTM), which the model does not speak");
    default:
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "ETMIDR major version %u is not an ETM", major);
    }
}
