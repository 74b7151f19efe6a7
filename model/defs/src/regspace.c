/* regspace.c - the programmer's model's address map: which register sits at
 * each offset of an ETM, which bits a write sets, and the management registers
 * (regs.def ETM_MGMT). model/core/src/regs.c gives the registers their
 * behaviour; docs/registers.md describes both. */
#include <stdio.h>
#include <string.h>

#include "etm/regmap.h"

const etm_mgmtdesc_t etm_mgmt_registers[ETM_MGMT_COUNT] = {
#define ETM_MGMT(id, name, number, count, access, first, doc) { #name, number, count, ETM_ACCESS_##access, first, doc },
#include "etm/regs.def"
};

static const char *const impl_names[] = {
#define ETM_IMPL(field, name) #name,
#include "etm/regs.def"
};

/* IHI 0014 3.4 (ETMCR): the bits whose function the model leaves out. */
const etm_cr_unmodelled_bits_t etm_cr_unmodelled[] = {
    { 1u << 1, 0, 0, "ETMCR[1] CPRT monitoring" },
    { 1u << 9, 0, 0, "ETMCR[9] debug request" },
    { 1u << 13, 0, 1, "ETMCR[13] half-rate clocking (the model gives one record per core cycle)" },
    { 3u << 14, 0, 0, "ETMCR[15:14] context ID tracing (the Cortex-M3 interface has no context ID)" },
    { 3u << 16, 0, 1, "ETMCR[17:16] multiplexed or demultiplexed port modes" },
    { 1u << 18, 0, 0, "ETMCR[18] data suppression" },
    { 1u << 20, 0, 0, "ETMCR[20] data-only mode" },
    { 3u << 22, 0, 0, "ETMCR[23:22] disabling debugger or software writes" },
    { 1u << 24, 0, 0, "ETMCR[24] instrumentation resource access control" },
    { 7u << 25, 0, 0, "ETMCR[27:25] processor select" },
    { 1u << 28, 0, 0, "ETMCR[28] timestamps" },
    { 1u << 30, 0, 0, "ETMCR[30] VMID trace" },
};
const size_t etm_cr_unmodelled_count = sizeof etm_cr_unmodelled / sizeof etm_cr_unmodelled[0];

uint32_t etm_cr_unmodelled_mask(unsigned version)
{
    int v1 = ETM_V_MAJOR(version) == 1;
    uint32_t m = 0;
    for (size_t i = 0; i < etm_cr_unmodelled_count; i++)
        if (!(v1 ? etm_cr_unmodelled[i].v1_ok : etm_cr_unmodelled[i].v3_ok))
            m |= etm_cr_unmodelled[i].mask;
    return m;
}

uint32_t etm_layout_mask(unsigned layout, unsigned version)
{
    size_t n = 0;
    const etm_regfield_t *f = etm_layout_fields(layout, &n);
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (version >= f[i].vmin && version <= f[i].vmax)
            m |= etm_regfield_mask(&f[i]);
    return m;
}

static int is_impl(const etm_regdesc_t *d)
{
    for (size_t i = 0; i < sizeof impl_names / sizeof impl_names[0]; i++)
        if (strcmp(impl_names[i], d->name) == 0)
            return 1;
    return 0;
}

int etm_register_is_impl(const etm_regdesc_t *d) { return d->addr == ETM_PARAM_ADDR || is_impl(d); }

/* Is element `index` of image register d present in this implementation? */
static int config_present(const etm_config_t *impl, unsigned version, const etm_regdesc_t *d, unsigned index)
{
    if (version < d->first)
        return 0;
    unsigned pairs = ETM_FIELD_GET(ETM_CCR_PAIRS, impl->etmccr);
    unsigned ncnt = ETM_FIELD_GET(ETM_CCR_COUNTERS, impl->etmccr);
    if (d->offset == offsetof(etm_config_t, etmacvr) || d->offset == offsetof(etm_config_t, etmactr))
        return index < 2 * pairs;
    if (d->offset == offsetof(etm_config_t, etmcntrldvr) || d->offset == offsetof(etm_config_t, etmcntenr) ||
        d->offset == offsetof(etm_config_t, etmcntrldevr) || d->offset == offsetof(etm_config_t, etmcntvr))
        return index < ncnt;
    if (d->offset == offsetof(etm_config_t, etmtsscr)) /* ETMCCR[26] says so from ETMv2.0 */
        return version < ETM_V(2, 0) || ETM_FIELD_GET(ETM_CCR_START_STOP, impl->etmccr) != 0;
    if (d->offset == offsetof(etm_config_t, etmfflr) || d->offset == offsetof(etm_config_t, etmffrr))
        return ETM_FIELD_GET(ETM_CCR_FIFOFULL, impl->etmccr) != 0;
    if (d->offset == offsetof(etm_config_t, etmtesseicr))
        return ETM_FIELD_GET(ETM_CCER_EICE_START_STOP, impl->etmccer) != 0;
    return 1;
}

int etm_reg_locate(const etm_config_t *impl, unsigned number, etm_regloc_t *loc)
{
    memset(loc, 0, sizeof *loc);
    loc->mgmt = -1;
    unsigned version = 0;
    if (etm_config_version(impl, &version, NULL) != ETM_OK)
        return 0;
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        if (d->addr == ETM_PARAM_ADDR || number < d->addr || number >= (unsigned)d->addr + d->count)
            continue;
        unsigned index = number - d->addr;
        if (!config_present(impl, version, d, index))
            return 0;
        loc->reg = d;
        loc->index = index;
        if (is_impl(d)) {
            loc->access = ETM_ACCESS_R;
        } else {
            loc->access = ETM_ACCESS_RW;
            loc->write_mask = etm_layout_mask(d->layout, version);
            if (d->offset == offsetof(etm_config_t, etmcr))
                loc->write_mask &= ~etm_cr_unmodelled_mask(version) & impl->etmcr_impl;
        }
        return 1;
    }
    for (int m = 0; m < ETM_MGMT_COUNT; m++) {
        const etm_mgmtdesc_t *g = &etm_mgmt_registers[m];
        if (number < g->number || number >= (unsigned)g->number + g->count || version < g->first)
            continue;
        loc->mgmt = m;
        loc->index = number - g->number;
        loc->access = g->access;
        loc->write_mask = m == ETM_MGMT_LAR ? 0xFFFFFFFFu
                        : (m == ETM_MGMT_CLAIMSET || m == ETM_MGMT_CLAIMCLR) ? (1u << ETM_CLAIM_TAGS) - 1 : 0;
        return 1;
    }
    return 0;
}

const char *etm_reg_name_at(const etm_config_t *impl, unsigned number, char *buf, size_t size)
{
    etm_regloc_t loc;
    if (!etm_reg_locate(impl, number, &loc))
        snprintf(buf, size, "0x%03X", 4 * number);
    else if (loc.reg && loc.reg->count > 1)
        snprintf(buf, size, "%s%u", loc.reg->name, loc.index + 1);
    else if (loc.reg)
        snprintf(buf, size, "%s", loc.reg->name);
    else if (etm_mgmt_registers[loc.mgmt].count > 1) {
        /* ETMPIDR0..3 and ETMPIDR5..7: the name's own digit is the first number */
        const char *nm = etm_mgmt_registers[loc.mgmt].name;
        size_t l = strlen(nm);
        snprintf(buf, size, "%.*s%u", (int)(l - 1), nm, (unsigned)(nm[l - 1] - '0') + loc.index);
    } else
        snprintf(buf, size, "%s", etm_mgmt_registers[loc.mgmt].name);
    return buf;
}

void etm_config_at_reset(etm_config_t *cfg)
{
    unsigned version = 0;
    etm_config_version(cfg, &version, NULL);
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        if (d->addr == ETM_PARAM_ADDR || is_impl(d))
            continue;
        for (unsigned k = 0; k < d->count; k++)
            *etm_register_ptr(cfg, d, k) = 0;
    }
    cfg->etmcr = ETM_CR_RESET & etm_layout_mask(ETM_LAYOUT_CR, version);
    if (version >= ETM_V(3, 1))
        cfg->etmsyncfr = ETM_SYNCFR_RESET;
    /* The part's choice (EVENT_RESET): the ETM-M3 traces and triggers unprogrammed. */
    cfg->etmteevr = cfg->event_reset;
    cfg->etmtrigger = cfg->event_reset;
}
