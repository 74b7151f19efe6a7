/* config.c - the register image: names, text form, and the architecture's rules
 * about which bits exist in which ETM version (docs/registers.md). */
#include "etm/config.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

#define PARAM_ADDR 0xFFFFu

#define REG(field, name, addr, doc) { name, addr, 1, (uint16_t)offsetof(etm_config_t, field), doc }
#define ARR(field, name, addr, n, doc) { name, addr, n, (uint16_t)offsetof(etm_config_t, field), doc }
#define PARAM(field, name, doc) { name, PARAM_ADDR, 1, (uint16_t)offsetof(etm_config_t, field), doc }

const etm_regdesc_t etm_registers[] = {
    REG(etmcr, "ETMCR", 0x000, "main control"),
    REG(etmccr, "ETMCCR", 0x001, "configuration code: resources of this ETM"),
    REG(etmtrigger, "ETMTRIGGER", 0x002, "trigger event"),
    REG(etmtsscr, "ETMTSSCR", 0x006, "trace start/stop by address comparators"),
    REG(etmtecr2, "ETMTECR2", 0x007, "TraceEnable control 2"),
    REG(etmteevr, "ETMTEEVR", 0x008, "TraceEnable event"),
    REG(etmtecr1, "ETMTECR1", 0x009, "TraceEnable control 1: include/exclude regions"),
    REG(etmfflr, "ETMFFLR", 0x00B, "FIFOFULL level"),
    REG(etmvdevr, "ETMVDEVR", 0x00C, "ViewData event"),
    REG(etmvdcr1, "ETMVDCR1", 0x00D, "ViewData control 1: single address comparators"),
    REG(etmvdcr3, "ETMVDCR3", 0x00F, "ViewData control 3: address range comparators"),
    ARR(etmacvr, "ETMACVR", 0x010, ETM_NUM_ADDR_COMP, "address comparator value"),
    ARR(etmactr, "ETMACTR", 0x020, ETM_NUM_ADDR_COMP, "address comparator access type"),
    ARR(etmcntrldvr, "ETMCNTRLDVR", 0x050, ETM_NUM_COUNTERS, "counter reload value"),
    ARR(etmcntenr, "ETMCNTENR", 0x054, ETM_NUM_COUNTERS, "counter enable event"),
    ARR(etmcntrldevr, "ETMCNTRLDEVR", 0x058, ETM_NUM_COUNTERS, "counter reload event"),
    ARR(etmcntvr, "ETMCNTVR", 0x05C, ETM_NUM_COUNTERS, "counter value"),
    REG(etmsyncfr, "ETMSYNCFR", 0x078, "synchronisation frequency"),
    REG(etmidr, "ETMIDR", 0x079, "ID: architecture version"),
    REG(etmccer, "ETMCCER", 0x07A, "configuration code extension"),
    REG(etmtesseicr, "ETMTESSEICR", 0x07C, "trace start/stop by EmbeddedICE (DWT) inputs"),
    REG(etmtraceidr, "ETMTRACEIDR", 0x080, "CoreSight trace ID"),
    PARAM(fifo_depth, "FIFO_DEPTH", "model: bytes of trace FIFO"),
    PARAM(port_bytes, "PORT_BYTES", "model: ETMv3 bytes leaving the port per core cycle (0: external port)"),
    PARAM(issue_width, "ISSUE_WIDTH", "model: instructions per cycle (1 or 2)"),
};
const size_t etm_register_count = sizeof etm_registers / sizeof etm_registers[0];

/* ---- Register table helpers ---------------------------------------------- */

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

/* ---- Defaults ----------------------------------------------------------- */

#define EVENT_ALWAYS 0x6Fu   /* resource 0b110 index 15: hard-wired TRUE, function A */
#define EVENT_NEVER 0x406Fu  /* function NOT A on TRUE */

static void set_counter_events(etm_config_t *cfg)
{
    for (unsigned i = 0; i < ETM_NUM_COUNTERS; i++) {
        int present = i < ETM_CCR_COUNTERS(cfg->etmccr);
        cfg->etmcntenr[i] = present ? EVENT_NEVER : 0;
        cfg->etmcntrldevr[i] = present ? EVENT_NEVER : 0;
    }
}

void etm_config_default(etm_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->etmcr = 0x00000810;        /* port select, 8-bit port; not programming, powered */
    cfg->etmccr = 0x8C802000;       /* ETMIDR present, software access, start/stop block,
                                       FIFOFULL, 1 counter, no comparators */
    cfg->etmidr = 0x4114F240;       /* ARM, Cortex family, 32-bit Thumb, alternative
                                       branch encoding, ETMv3.4 rev 0 */
    cfg->etmccer = 0x00141800;      /* 4 EmbeddedICE (DWT) inputs, start/stop by them,
                                       all registers readable, no data address compare */
    cfg->etmtrigger = EVENT_NEVER;
    cfg->etmteevr = EVENT_ALWAYS;
    cfg->etmtecr1 = 0x01000000;     /* exclude nothing: trace everywhere */
    cfg->etmvdevr = EVENT_NEVER;
    set_counter_events(cfg);
    cfg->etmsyncfr = 0x400;
    cfg->etmtraceidr = 0x10;
    cfg->fifo_depth = 64;
    cfg->port_bytes = 1;
    cfg->issue_width = 1;
}

const char *const etm_config_preset_names[] = {
    "etm-m3", "etm-m3-r2", "etmv1.0", "etmv1.1", "etmv1.2", "etmv1.3",
    "etmv3.0", "etmv3.1", "etmv3.2", "etmv3.3", "etmv3.4", "etmv3.5", NULL,
};

etm_err_t etm_config_preset(etm_config_t *cfg, const char *name)
{
    etm_config_default(cfg);
    if (etm_util_strcaseeq(name, "etm-m3"))
        return ETM_OK;
    if (etm_util_strcaseeq(name, "etm-m3-r2")) { /* Cortex-M3 r2: ETMv3.5, timestamps */
        cfg->etmidr = 0x4114F250;
        cfg->etmccer = 0x18541800;
        return ETM_OK;
    }
    /* Generic parts: 4 address comparator pairs, 2 counters, FIFOFULL; ViewData
     * programmed "throughout memory" (IHI 0014 3.5.15: ETMVDCR3[16] exclude-only
     * with nothing excluded, ETMVDEVR always). */
    cfg->etmvdevr = EVENT_ALWAYS;
    cfg->etmvdcr3 = 1u << 16;
    if (etm_util_strncaseeq("etmv1.", name, 6) && name[6] >= '0' && name[6] <= '3' && name[7] == '\0') {
        unsigned minor = (unsigned)(name[6] - '0');
        cfg->etmccr = (minor << 28) | (1u << 23) | (2u << 13) | 4u;
        cfg->etmidr = 0;
        cfg->etmccer = 0;
        cfg->etmsyncfr = 0;
        cfg->etmtraceidr = 0;
        set_counter_events(cfg);
        return ETM_OK;
    }
    if (etm_util_strncaseeq("etmv3.", name, 6) && name[6] >= '0' && name[6] <= '5' && name[7] == '\0') {
        unsigned minor = (unsigned)(name[6] - '0');
        cfg->etmccr = (1u << 31) | (1u << 26) | (1u << 23) | (2u << 13) | 4u | (minor >= 1 ? 1u << 27 : 0);
        cfg->etmidr = 0x4100F200u | (minor << 4) | (minor >= 2 ? 1u << 18 : 0);
        cfg->etmccer = minor >= 1 ? 0x00000800u : 0;
        set_counter_events(cfg);
        return ETM_OK;
    }
    return ETM_ERR_UNKNOWN_NAME;
}

/* ---- Version ------------------------------------------------------------- */

etm_err_t etm_config_version(const etm_config_t *cfg, unsigned *version, etm_diag_t *diag)
{
    if (!(cfg->etmccr & ETM_CCR_ETMIDR)) {
        static const unsigned char v1minor[8] = { 0, 1, 2, 3, 2, 3, 0xff, 3 };
        unsigned p = ETM_CCR_PROTOCOL(cfg->etmccr);
        if (v1minor[p] == 0xff)
            return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                 "ETMCCR[30:28]=6 is not an ETMv1 protocol number (0-5 and 7 are)");
        *version = ETM_V(1, v1minor[p]);
        return ETM_OK;
    }
    unsigned major = ETM_IDR_MAJOR(cfg->etmidr), minor = ETM_IDR_MINOR(cfg->etmidr);
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

/* ---- Which bits exist in which version ------------------------------------ */

#define VMAX 0xFFu

typedef struct bitfield {
    uint8_t lo, hi;     /* bit range */
    uint8_t vmin, vmax; /* versions that have it, as ETM_V() */
    const char *name;
} bitfield_t;

#define F(lo, hi, vmin, vmax, name) { lo, hi, vmin, vmax, name }

static const bitfield_t f_etmcr[] = {
    F(0, 0, 0x10, VMAX, "power down"),
    F(1, 1, 0x10, VMAX, "monitor CPRT"),
    F(2, 3, 0x10, VMAX, "data access"),
    F(4, 6, 0x10, VMAX, "port size[2:0]"),
    F(7, 7, 0x10, VMAX, "stall processor"),
    F(8, 8, 0x10, VMAX, "branch output"),
    F(9, 9, 0x10, VMAX, "debug request control"),
    F(10, 10, 0x10, VMAX, "programming"),
    F(11, 11, 0x10, VMAX, "port selection"),
    F(12, 12, 0x10, VMAX, "cycle accurate"),
    F(13, 13, 0x12, VMAX, "half-rate clocking / port mode[2]"),
    F(14, 15, 0x12, VMAX, "context ID size"),
    F(16, 17, 0x12, VMAX, "port mode[1:0]"),
    F(18, 18, 0x30, VMAX, "suppress data"),
    F(19, 19, 0x30, VMAX, "filter CPRT"),
    F(20, 20, 0x30, VMAX, "data-only mode"),
    F(21, 21, 0x30, VMAX, "port size[3]"),
    F(22, 22, 0x32, VMAX, "disable debugger writes"),
    F(23, 23, 0x32, VMAX, "disable software writes"),
    F(24, 24, 0x33, VMAX, "instrumentation resource access control"),
    F(25, 27, 0x32, VMAX, "processor select"),
    F(28, 28, 0x35, VMAX, "timestamp enable"),
    F(30, 30, 0x35, VMAX, "VMID trace enable"),
};

static const bitfield_t f_etmccr[] = {
    F(0, 3, 0x10, VMAX, "address comparator pairs"),
    F(4, 7, 0x10, VMAX, "data value comparators"),
    F(8, 12, 0x10, VMAX, "memory map decoders"),
    F(13, 15, 0x10, VMAX, "counters"),
    F(16, 16, 0x10, VMAX, "sequencer present"),
    F(17, 19, 0x10, VMAX, "external inputs"),
    F(20, 22, 0x10, VMAX, "external outputs"),
    F(23, 23, 0x10, VMAX, "FIFOFULL logic present"),
    F(24, 25, 0x20, VMAX, "context ID comparators"),
    F(26, 26, 0x20, VMAX, "trace start/stop block present"),
    F(27, 27, 0x31, VMAX, "software access"),
    F(28, 30, 0x10, 0x1F, "ETMv1 protocol number"),
    F(31, 31, 0x10, VMAX, "ETMIDR present"),
};

static const bitfield_t f_etmidr[] = {
    F(0, 3, 0x20, VMAX, "implementation revision"),
    F(4, 7, 0x20, VMAX, "minor architecture version"),
    F(8, 11, 0x20, VMAX, "major architecture version"),
    F(12, 15, 0x20, VMAX, "processor family"),
    F(16, 16, 0x20, VMAX, "load PC first"),
    F(18, 18, 0x32, VMAX, "32-bit Thumb instruction tracing"),
    F(19, 19, 0x32, VMAX, "security extensions"),
    F(20, 20, 0x34, VMAX, "alternative branch packet encoding"),
    F(24, 31, 0x20, VMAX, "implementer"),
};

static const bitfield_t f_etmccer[] = {
    F(0, 2, 0x31, VMAX, "extended external input selectors"),
    F(3, 10, 0x31, VMAX, "extended external input bus size"),
    F(11, 11, 0x31, VMAX, "all registers readable"),
    F(12, 12, 0x33, VMAX, "data address comparisons not supported"),
    F(13, 15, 0x33, VMAX, "instrumentation resources"),
    F(16, 19, 0x34, VMAX, "EmbeddedICE watchpoint inputs"),
    F(20, 20, 0x34, VMAX, "start/stop by EmbeddedICE inputs"),
    F(21, 21, 0x34, VMAX, "ETMEIBCR implemented"),
    F(22, 22, 0x35, VMAX, "timestamping implemented"),
    F(26, 26, 0x35, VMAX, "virtualization extensions"),
    F(27, 27, 0x35, VMAX, "reduced function counter"),
    F(28, 28, 0x35, VMAX, "timestamp encoding"),
    F(29, 29, 0x35, VMAX, "timestamp size"),
};

static const bitfield_t f_event[] = {
    F(0, 6, 0x10, VMAX, "resource A"),
    F(7, 13, 0x10, VMAX, "resource B"),
    F(14, 16, 0x10, VMAX, "function"),
};

static const bitfield_t f_cntenr[] = {
    F(0, 6, 0x10, VMAX, "resource A"),
    F(7, 13, 0x10, VMAX, "resource B"),
    F(14, 16, 0x10, VMAX, "function"),
    F(17, 17, 0x10, 0x1F, "count enable source"),
};

static const bitfield_t f_etmtecr1[] = {
    F(0, 7, 0x10, VMAX, "address range comparator select"),
    F(8, 23, 0x10, VMAX, "memory map decoder select"),
    F(24, 24, 0x10, VMAX, "exclude"),
    F(25, 25, 0x12, VMAX, "trace start/stop enable"),
};

static const bitfield_t f_etmtecr2[] = { F(0, 15, 0x12, VMAX, "single address comparator select") };
static const bitfield_t f_etmtsscr[] = {
    F(0, 15, 0x12, VMAX, "start address comparators"),
    F(16, 31, 0x12, VMAX, "stop address comparators"),
};
static const bitfield_t f_etmtesseicr[] = {
    F(0, 7, 0x34, VMAX, "start EmbeddedICE inputs"),
    F(16, 23, 0x34, VMAX, "stop EmbeddedICE inputs"),
};
static const bitfield_t f_etmfflr[] = { F(0, 7, 0x10, VMAX, "FIFOFULL level") };
static const bitfield_t f_etmvdcr1[] = {
    F(0, 15, 0x10, VMAX, "include single address comparators"),
    F(16, 31, 0x10, VMAX, "exclude single address comparators"),
};
static const bitfield_t f_etmvdcr3[] = {
    F(0, 7, 0x10, VMAX, "include address range comparators"),
    F(8, 15, 0x10, VMAX, "exclude address range comparators"),
    F(16, 16, 0x10, VMAX, "exclude only"),
};
static const bitfield_t f_etmacvr[] = { F(0, 31, 0x10, VMAX, "address") };
static const bitfield_t f_etmactr[] = {
    F(0, 2, 0x10, VMAX, "access type"),
    F(3, 4, 0x10, VMAX, "size"),
    F(5, 6, 0x10, VMAX, "data value comparison"),
    F(7, 7, 0x10, VMAX, "exact match"),
    F(8, 9, 0x20, VMAX, "context ID comparator"),
    F(10, 11, 0x32, VMAX, "security level"),
};
static const bitfield_t f_counter16[] = { F(0, 15, 0x10, VMAX, "value") };
static const bitfield_t f_etmsyncfr[] = { F(0, 11, 0x20, VMAX, "synchronisation period") };
static const bitfield_t f_etmtraceidr[] = { F(0, 6, 0x30, VMAX, "trace ID") };
static const bitfield_t f_param[] = { F(0, 31, 0x10, VMAX, "value") };

typedef struct regrule {
    const char *name;
    const bitfield_t *fields;
    size_t nfields;
} regrule_t;

#define RULE(name, arr) { name, arr, sizeof arr / sizeof arr[0] }

static const regrule_t rules[] = {
    RULE("ETMCR", f_etmcr),          RULE("ETMCCR", f_etmccr),       RULE("ETMTRIGGER", f_event),
    RULE("ETMTSSCR", f_etmtsscr),    RULE("ETMTECR2", f_etmtecr2),   RULE("ETMTEEVR", f_event),
    RULE("ETMTECR1", f_etmtecr1),    RULE("ETMFFLR", f_etmfflr),     RULE("ETMVDEVR", f_event),
    RULE("ETMVDCR1", f_etmvdcr1),    RULE("ETMVDCR3", f_etmvdcr3),   RULE("ETMACVR", f_etmacvr),
    RULE("ETMACTR", f_etmactr),      RULE("ETMCNTRLDVR", f_counter16), RULE("ETMCNTENR", f_cntenr),
    RULE("ETMCNTRLDEVR", f_event),   RULE("ETMCNTVR", f_counter16),  RULE("ETMSYNCFR", f_etmsyncfr),
    RULE("ETMIDR", f_etmidr),        RULE("ETMCCER", f_etmccer),     RULE("ETMTESSEICR", f_etmtesseicr),
    RULE("ETMTRACEIDR", f_etmtraceidr), RULE("FIFO_DEPTH", f_param), RULE("PORT_BYTES", f_param),
    RULE("ISSUE_WIDTH", f_param),
};

static const regrule_t *rule_for(const etm_regdesc_t *d)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].name, d->name) == 0)
            return &rules[i];
    return NULL;
}

static uint32_t field_mask(const bitfield_t *f)
{
    unsigned w = (unsigned)(f->hi - f->lo + 1u);
    uint32_t m = w >= 32 ? 0xFFFFFFFFu : ((1u << w) - 1u);
    return m << f->lo;
}

static uint32_t field_get(uint32_t v, unsigned lo, unsigned hi)
{
    unsigned w = hi - lo + 1u;
    return w >= 32 ? v : (v >> lo) & ((1u << w) - 1u);
}

static void version_text(unsigned v, char *buf, size_t size)
{
    if (v == VMAX)
        snprintf(buf, size, "none");
    else
        snprintf(buf, size, "ETMv%u.%u", ETM_V_MAJOR(v), ETM_V_MINOR(v));
}

/* The version ranges of the fields, applied to one register value. */
static void range_text(const bitfield_t *f, char *buf, size_t size)
{
    if (f->hi == f->lo)
        snprintf(buf, size, "[%u]", f->lo);
    else
        snprintf(buf, size, "[%u:%u]", f->hi, f->lo);
}

/* The version ranges of the fields, applied to one register value. */
static etm_err_t check_fields(const char *regname, const regrule_t *rule, uint32_t value, unsigned ver,
                              etm_diag_t *diag)
{
    uint32_t known = 0;
    char vb[24], wb[24], rb[16];
    for (size_t i = 0; i < rule->nfields; i++) {
        const bitfield_t *f = &rule->fields[i];
        uint32_t m = field_mask(f);
        known |= m;
        if ((value & m) && (ver < f->vmin || ver > f->vmax)) {
            version_text(ver, vb, sizeof vb);
            range_text(f, rb, sizeof rb);
            if (f->vmax != VMAX) {
                version_text(f->vmax, wb, sizeof wb);
                return etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "%s%s (%s) is set, but that field exists only up to %s; this ETM is %s",
                                     regname, rb, f->name, wb, vb);
            }
            version_text(f->vmin, wb, sizeof wb);
            return etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                 "%s%s (%s) is set, but that field exists from %s; this ETM is %s", regname, rb,
                                 f->name, wb, vb);
        }
    }
    if (value & ~known) {
        uint32_t bad = value & ~known;
        unsigned bit = 0;
        while (!(bad & (1u << bit)))
            bit++;
        return etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "%s bit %u is reserved (value 0x%08X)", regname, bit,
                             (unsigned)value);
    }
    return ETM_OK;
}

/* Registers that do not exist at all in some versions. */
static unsigned reg_first_version(const char *name)
{
    if (!strcmp(name, "ETMTSSCR") || !strcmp(name, "ETMTECR2"))
        return 0x12;
    if (!strcmp(name, "ETMSYNCFR") || !strcmp(name, "ETMIDR"))
        return 0x20;
    if (!strcmp(name, "ETMTRACEIDR"))
        return 0x30;
    if (!strcmp(name, "ETMCCER"))
        return 0x31;
    if (!strcmp(name, "ETMTESSEICR"))
        return 0x34;
    return 0x10;
}

/* ---- Resources ------------------------------------------------------------ */

/* Is the 7-bit resource identifier r present in this ETM? */
static int resource_present(const etm_config_t *c, unsigned ver, unsigned r, char *why, size_t size)
{
    unsigned type = r >> 4, idx = r & 0xf;
    unsigned pairs = ETM_CCR_PAIRS(c->etmccr);
    switch (type) {
    case 0:
        if (idx < 2 * pairs)
            return 1;
        snprintf(why, size, "single address comparator %u, but ETMCCR has %u", idx + 1, 2 * pairs);
        return 0;
    case 1:
        if (idx < 8 && idx < pairs)
            return 1;
        if (idx >= 8 && idx < 12 && ver >= 0x33 && idx - 8 < ((c->etmccer >> 13) & 7))
            return 1;
        snprintf(why, size, "%s %u, which this ETM does not have", idx < 8 ? "address range comparator"
                                                                           : "instrumentation resource",
                 idx < 8 ? idx + 1 : idx - 7);
        return 0;
    case 2: {
        unsigned n = ver >= 0x34 ? (c->etmccer >> 16) & 0xf : 2;
        if (idx < n)
            return 1;
        snprintf(why, size, "EmbeddedICE watchpoint input %u, but there are %u", idx + 1, n);
        return 0;
    }
    case 3:
        if (idx < ((c->etmccr >> 8) & 0x1f))
            return 1;
        snprintf(why, size, "memory map decoder %u, which this ETM does not have", idx + 1);
        return 0;
    case 4:
        if (idx < ETM_CCR_COUNTERS(c->etmccr))
            return 1;
        snprintf(why, size, "counter %u, but ETMCCR has %u", idx + 1, ETM_CCR_COUNTERS(c->etmccr));
        return 0;
    case 5:
        if (idx <= 2 && ((c->etmccr >> 16) & 1))
            return 1;
        if (idx >= 8 && idx <= 10 && idx - 8 < ((c->etmccr >> 24) & 3))
            return 1;
        /* The block exists from ETMv1.2; as a resource only from ETMv2.0. */
        if (idx == 15 && ver >= 0x20 && ((c->etmccr >> 26) & 1))
            return 1;
        snprintf(why, size, "resource 0x%02X (%s), which this ETM does not have", r,
                 idx <= 2 ? "sequencer state" : idx >= 8 && idx <= 10 ? "context ID comparator"
                                              : idx == 15 ? "trace start/stop" : "reserved");
        return 0;
    case 6:
        if (idx == 15)
            return 1;
        if (idx < 4 && idx < ((c->etmccr >> 17) & 7))
            return 1;
        if (idx >= 8 && idx < 12 && ver >= 0x31 && idx - 8 < (c->etmccer & 7))
            return 1;
        snprintf(why, size, "resource 0x%02X (%s), which this ETM does not have", r,
                 idx < 4 ? "external input" : idx >= 8 && idx < 12 ? "extended external input" : "reserved");
        return 0;
    default:
        snprintf(why, size, "resource type 0b111, which is reserved");
        return 0;
    }
}

static etm_err_t check_event(const etm_config_t *c, unsigned ver, const char *regname, uint32_t ev,
                             etm_diag_t *diag)
{
    char why[96];
    unsigned fn = (ev >> 14) & 7;
    unsigned a = ev & 0x7f, b = (ev >> 7) & 0x7f;
    if (!resource_present(c, ver, a, why, sizeof why))
        return etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "%s resource A is %s", regname, why);
    if (fn >= 2 && !resource_present(c, ver, b, why, sizeof why))
        return etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "%s resource B is %s", regname, why);
    return ETM_OK;
}

/* ---- Validation ----------------------------------------------------------- */

static etm_err_t fail_at(int *bad_slot, const char *regname, unsigned index, etm_err_t e)
{
    if (bad_slot) {
        *bad_slot = -1;
        for (size_t i = 0; i < etm_register_count; i++)
            if (strcmp(etm_registers[i].name, regname) == 0)
                *bad_slot = etm_register_slot(&etm_registers[i], index);
    }
    return e;
}

etm_err_t etm_config_validate(const etm_config_t *c, etm_diag_t *diag, int *bad_slot)
{
    unsigned ver;
    etm_err_t e;
    char name[24], vb[24];
    if (bad_slot)
        *bad_slot = -1;
    if ((e = etm_config_version(c, &ver, diag)) != ETM_OK)
        return fail_at(bad_slot, (c->etmccr & ETM_CCR_ETMIDR) ? "ETMIDR" : "ETMCCR", 0, e);
    version_text(ver, vb, sizeof vb);

    /* Field existence, register by register. */
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        const regrule_t *rule = rule_for(d);
        if (!rule || d->addr == PARAM_ADDR)
            continue;
        for (unsigned k = 0; k < d->count; k++) {
            uint32_t v = etm_register_get(c, d, k);
            if (d->count > 1)
                snprintf(name, sizeof name, "%s%u", d->name, k + 1);
            else
                snprintf(name, sizeof name, "%s", d->name);
            if (v && ver < reg_first_version(d->name)) {
                unsigned f = reg_first_version(d->name);
                etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "%s exists from ETMv%u.%u; this ETM is %s, so it must be 0",
                              name, ETM_V_MAJOR(f), ETM_V_MINOR(f), vb);
                return fail_at(bad_slot, d->name, k, ETM_ERR_RESERVED_BITS);
            }
            if ((e = check_fields(name, rule, v, ver, diag)) != ETM_OK)
                return fail_at(bad_slot, d->name, k, e);
        }
    }

    /* Values and resources. */
    unsigned pairs = ETM_CCR_PAIRS(c->etmccr);
    if (pairs > 8)
        return fail_at(bad_slot, "ETMCCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCCR[3:0]=%u: at most 8 address comparator pairs",
                                     pairs));
    if (((c->etmccr >> 4) & 0xf) > 8 || ((c->etmccr >> 8) & 0x1f) > 16 || ETM_CCR_COUNTERS(c->etmccr) > 4 ||
        ((c->etmccr >> 17) & 7) > 4 || ((c->etmccr >> 20) & 7) > 4)
        return fail_at(bad_slot, "ETMCCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMCCR 0x%08X: a resource count is above its architectural maximum "
                                     "(8 data comparators, 16 decoders, 4 counters, 4 inputs, 4 outputs)",
                                     (unsigned)c->etmccr));
    for (unsigned k = 2 * pairs; k < ETM_NUM_ADDR_COMP; k++) {
        if (c->etmacvr[k] || c->etmactr[k]) {
            etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                          "%s%u is set, but ETMCCR[3:0]=%u gives only %u address comparators",
                          c->etmacvr[k] ? "ETMACVR" : "ETMACTR", k + 1, pairs, 2 * pairs);
            return fail_at(bad_slot, c->etmacvr[k] ? "ETMACVR" : "ETMACTR", k, ETM_ERR_RESERVED_BITS);
        }
    }
    for (unsigned k = 0; k < 2 * pairs; k++) {
        unsigned at = c->etmactr[k] & 7, size = (c->etmactr[k] >> 3) & 3, dv = (c->etmactr[k] >> 5) & 3;
        unsigned sec = (c->etmactr[k] >> 10) & 3;
        const char *bad = at == 7 ? "access type 0b111 is reserved"
                          : size == 2 ? "size 0b10 is reserved"
                          : dv == 2 ? "data value comparison 0b10 is reserved"
                          : dv != 0 && ((c->etmccr >> 4) & 0xf) == 0 ? "data value comparison needs data comparators"
                          : sec == 3 ? "security level 0b11 is reserved"
                          : ((c->etmactr[k] >> 8) & 3) > ((c->etmccr >> 24) & 3) ? "context ID comparator absent"
                          : (c->etmacvr[k] & (size == 3 ? 3u : size == 1 ? 1u : 0u))
                              ? "the address in ETMACVR must be aligned to the comparison size"
                              : NULL;
        if (bad) {
            etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMACTR%u: %s", k + 1, bad);
            return fail_at(bad_slot, "ETMACTR", k, ETM_ERR_RESERVED_BITS);
        }
    }
    unsigned ncnt = ETM_CCR_COUNTERS(c->etmccr);
    for (unsigned k = ncnt; k < ETM_NUM_COUNTERS; k++) {
        const char *which = c->etmcntrldvr[k] ? "ETMCNTRLDVR" : c->etmcntenr[k] ? "ETMCNTENR"
                            : c->etmcntrldevr[k] ? "ETMCNTRLDEVR" : c->etmcntvr[k] ? "ETMCNTVR" : NULL;
        if (which) {
            etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "%s%u is set, but ETMCCR[15:13]=%u counters", which, k + 1,
                          ncnt);
            return fail_at(bad_slot, which, k, ETM_ERR_RESERVED_BITS);
        }
    }
    /* Events name resources that must exist. */
    struct { const char *name; uint32_t v; unsigned idx; } ev[3 + 2 * ETM_NUM_COUNTERS];
    size_t nev = 0;
    ev[nev].name = "ETMTRIGGER"; ev[nev].v = c->etmtrigger; ev[nev++].idx = 0;
    ev[nev].name = "ETMTEEVR"; ev[nev].v = c->etmteevr; ev[nev++].idx = 0;
    ev[nev].name = "ETMVDEVR"; ev[nev].v = c->etmvdevr; ev[nev++].idx = 0;
    for (unsigned k = 0; k < ncnt; k++) {
        ev[nev].name = "ETMCNTENR"; ev[nev].v = c->etmcntenr[k]; ev[nev++].idx = k;
        ev[nev].name = "ETMCNTRLDEVR"; ev[nev].v = c->etmcntrldevr[k]; ev[nev++].idx = k;
    }
    for (size_t i = 0; i < nev; i++) {
        char full[24];
        if (!strcmp(ev[i].name, "ETMCNTENR") || !strcmp(ev[i].name, "ETMCNTRLDEVR"))
            snprintf(full, sizeof full, "%s%u", ev[i].name, ev[i].idx + 1);
        else
            snprintf(full, sizeof full, "%s", ev[i].name);
        if ((e = check_event(c, ver, full, ev[i].v & 0x1ffff, diag)) != ETM_OK)
            return fail_at(bad_slot, ev[i].name, ev[i].idx, e);
    }
    /* Include/exclude and start/stop selections name comparators that must exist. */
    uint32_t range_mask = (1u << pairs) - 1u;
    uint32_t single_mask = pairs ? (uint32_t)((1ull << (2 * pairs)) - 1u) : 0;
    uint32_t mmd_mask = (1u << ((c->etmccr >> 8) & 0x1f)) - 1u;
    if ((c->etmtecr1 & 0xff) & ~range_mask)
        return fail_at(bad_slot, "ETMTECR1", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTECR1[7:0] selects address range comparators this ETM does not have "
                                     "(ETMCCR[3:0]=%u)", pairs));
    if (((c->etmtecr1 >> 8) & 0xffff) & ~mmd_mask)
        return fail_at(bad_slot, "ETMTECR1", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTECR1[23:8] selects memory map decoders this ETM does not have"));
    if ((c->etmtecr1 >> 25) & 1) {
        int have = (ver >= 0x12 && ver < 0x20) || (ver >= 0x20 && ((c->etmccr >> 26) & 1));
        if (!have)
            return fail_at(bad_slot, "ETMTECR1", 0,
                           etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                         "ETMTECR1[25] enables the start/stop block, which this ETM does not have "
                                         "(ETMCCR[26])"));
    }
    if (((c->etmtsscr & 0xffff) | (c->etmtsscr >> 16)) & ~single_mask)
        return fail_at(bad_slot, "ETMTSSCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTSSCR selects single address comparators this ETM does not have "
                                     "(ETMCCR[3:0]=%u pairs)", pairs));
    if ((c->etmtecr2 & 0xffff) & ~single_mask)
        return fail_at(bad_slot, "ETMTECR2", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTECR2 selects single address comparators this ETM does not have"));
    if (c->etmtesseicr) {
        unsigned n = (c->etmccer >> 16) & 0xf;
        uint32_t m = (1u << n) - 1u;
        if (!((c->etmccer >> 20) & 1) || ((c->etmtesseicr & 0xff) | (c->etmtesseicr >> 16)) & ~m)
            return fail_at(bad_slot, "ETMTESSEICR", 0,
                           etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                         "ETMTESSEICR selects EmbeddedICE inputs for start/stop, but ETMCCER[20]=%u "
                                         "and ETMCCER[19:16]=%u inputs",
                                         (unsigned)((c->etmccer >> 20) & 1), n));
    }
    if (((c->etmvdcr1 & 0xffff) | (c->etmvdcr1 >> 16)) & ~single_mask)
        return fail_at(bad_slot, "ETMVDCR1", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMVDCR1 selects single address comparators this ETM does not have"));
    if (((c->etmvdcr3 & 0xff) | ((c->etmvdcr3 >> 8) & 0xff)) & ~range_mask)
        return fail_at(bad_slot, "ETMVDCR3", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMVDCR3 selects address range comparators this ETM does not have"));

    /* ETMCR values. */
    unsigned psize = ((c->etmcr >> 4) & 7) | ((c->etmcr >> 21) & 1) << 3;
    if (ver < 0x30 ? psize > 2 : (psize > 6 && psize != 8 && psize != 9))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCR port size %u%u%u%u is reserved in %s",
                                     (psize >> 3) & 1, (psize >> 2) & 1, (psize >> 1) & 1, psize & 1, vb));
    if (ver < 0x30 && ((c->etmcr >> 16) & 3) == 3)
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCR[17:16] port mode 0b11 is reserved in %s",
                                     vb));
    if (ver >= 0x30 && (((c->etmcr >> 13) & 1) << 2 | ((c->etmcr >> 16) & 3)) == 2)
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCR port mode {[13],[17:16]}=0b010 is reserved"));
    if ((c->etmcr & ETM_CR_STALL) && !((c->etmccr >> 23) & 1))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMCR[7] stalls the processor, but ETMCCR[23] says there is no FIFOFULL logic"));
    if (((c->etmcr >> 28) & 1) && !((c->etmccer >> 22) & 1))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMCR[28] enables timestamps, but ETMCCER[22] says they are not implemented"));
    if (((c->etmcr >> 30) & 1) && !((c->etmccer >> 26) & 1))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMCR[30] enables VMID trace, but ETMCCER[26] says there is no virtualization"));
    if (ver >= 0x20 && (c->etmidr & 0xff000000u) == 0)
        return fail_at(bad_slot, "ETMIDR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMIDR[31:24] implementer is 0; ARM parts read 0x41"));

    /* Synchronisation and trace ID. */
    if (ver >= 0x30) {
        if (c->etmsyncfr == 0 && ver < 0x35)
            return fail_at(bad_slot, "ETMSYNCFR", 0,
                           etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                         "ETMSYNCFR=0 (periodic synchronisation off) is allowed only from ETMv3.5"));
        if (c->etmsyncfr != 0 && c->etmsyncfr <= c->fifo_depth)
            return fail_at(bad_slot, "ETMSYNCFR", 0,
                           etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                         "ETMSYNCFR=%u must be greater than the FIFO size (FIFO_DEPTH=%u)",
                                         (unsigned)c->etmsyncfr, (unsigned)c->fifo_depth));
        if (c->etmtraceidr >= 0x70)
            return fail_at(bad_slot, "ETMTRACEIDR", 0,
                           etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                         "ETMTRACEIDR=0x%02X: trace IDs 0x70 to 0x7F are reserved",
                                         (unsigned)c->etmtraceidr));
    }
    if ((c->etmcr & ETM_CR_STALL) && c->etmfflr == 0)
        return fail_at(bad_slot, "ETMFFLR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMFFLR=0 with ETMCR[7] (stall on FIFOFULL) set is UNPREDICTABLE; give the "
                                     "number of free bytes below which to stall"));
    if (c->etmfflr > c->fifo_depth)
        return fail_at(bad_slot, "ETMFFLR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMFFLR=%u is above the FIFO size (FIFO_DEPTH=%u)",
                                     (unsigned)c->etmfflr, (unsigned)c->fifo_depth));

    /* Model parameters. */
    if (c->fifo_depth < 16 || c->fifo_depth > 65535)
        return fail_at(bad_slot, "FIFO_DEPTH", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "FIFO_DEPTH=%u: the model needs 16 to 65535 bytes (a FIFO must hold the "
                                     "largest packet)", (unsigned)c->fifo_depth));
    if (c->port_bytes != 0 && c->port_bytes != 1 && c->port_bytes != 2 && c->port_bytes != 4 && c->port_bytes != 8)
        return fail_at(bad_slot, "PORT_BYTES", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "PORT_BYTES=%u: must be 1, 2, 4 or 8 (bytes per core cycle), or 0 (an external "
                                     "port takes the bytes at its own clock)",
                                     (unsigned)c->port_bytes));
    if (ver < 0x30 && c->port_bytes != 1)
        return fail_at(bad_slot, "PORT_BYTES", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "PORT_BYTES applies to ETMv3 only; an ETMv1 port's width is ETMCR's port size"));
    if (c->issue_width != 1 && c->issue_width != 2)
        return fail_at(bad_slot, "ISSUE_WIDTH", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "ISSUE_WIDTH=%u: must be 1 or 2",
                                     (unsigned)c->issue_width));
    return ETM_OK;
}

/* ---- Text form -------------------------------------------------------------- */

static const char *skip_blank(const char *p)
{
    while (etm_util_isblank((unsigned char)*p))
        p++;
    return p;
}

static int is_name_char(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Parse "0x" + 1..8 hex digits at p; returns the end or NULL. */
static const char *parse_hex32(const char *p, uint32_t *out, etm_diag_t *diag, const char *what, etm_err_t *err)
{
    if (!(p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
        *err = etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "%s: value must be written 0x followed by hex digits", what);
        return NULL;
    }
    const char *s = p + 2, *e = s;
    while (*e && !etm_util_isblank((unsigned char)*e) && *e != '#' && *e != ')')
        e++;
    uint64_t v;
    int r = etm_util_parse_hex(s, (size_t)(e - s), &v);
    if (r == -1) {
        *err = etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "%s: '%.*s' is not a hex number", what, (int)(e - p), p);
        return NULL;
    }
    if (r == -2 || v > 0xFFFFFFFFu) {
        *err = etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "%s: '%.*s' does not fit in 32 bits", what, (int)(e - p), p);
        return NULL;
    }
    *out = (uint32_t)v;
    return e;
}

etm_err_t etm_config_parse_line(etm_config_t *cfg, const char *line, uint8_t *seen, int *slot_out,
                                etm_diag_t *diag)
{
    etm_err_t err = ETM_OK;
    const char *p = skip_blank(line);
    if (slot_out)
        *slot_out = -1;
    if (*p == '\0' || *p == '#')
        return ETM_OK;
    const char *n0 = p;
    while (is_name_char((unsigned char)*p))
        p++;
    size_t nlen = (size_t)(p - n0);
    if (nlen == 6 && etm_util_strncaseeq("preset", n0, 6) && etm_util_isblank((unsigned char)*p)) {
        char pname[24];
        const char *q = skip_blank(p), *q0 = q;
        while (*q && !etm_util_isblank((unsigned char)*q) && *q != '#')
            q++;
        if (seen) {
            for (size_t i = 0; i < ETM_CONFIG_SEEN_BYTES; i++)
                if (seen[i])
                    return etm_util_fail(diag, ETM_ERR_SYNTAX, "'preset' must come before any register");
        }
        if ((size_t)(q - q0) >= sizeof pname || (*skip_blank(q) != '\0' && *skip_blank(q) != '#'))
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "expected 'preset NAME'");
        memcpy(pname, q0, (size_t)(q - q0));
        pname[q - q0] = '\0';
        if (etm_config_preset(cfg, pname) != ETM_OK)
            return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "unknown preset '%s' (etm config --presets lists them)",
                                 pname);
        return ETM_OK;
    }
    if (nlen == 0 || nlen >= 32)
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "expected NAME=0xVALUE, found '%.40s'", n0);
    char name[32];
    memcpy(name, n0, nlen);
    name[nlen] = '\0';
    unsigned index = 0;
    const etm_regdesc_t *d = etm_register_find(name, &index);
    if (!d)
        return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "unknown register or parameter '%s'", name);
    char full[40];
    if (d->count > 1)
        snprintf(full, sizeof full, "%s%u", d->name, index + 1);
    else
        snprintf(full, sizeof full, "%s", d->name);
    if (*p == '(') { /* OpenCSD snapshot form: NAME(0xADDR) */
        uint32_t addr;
        p = parse_hex32(p + 1, &addr, diag, full, &err);
        if (!p)
            return err;
        if (*p != ')')
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: missing ')' after the register number", full);
        p++;
        if (d->addr == PARAM_ADDR)
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s is a model parameter and has no register number", full);
        if (addr != (uint32_t)(d->addr + index))
            return etm_util_fail(diag, ETM_ERR_MISMATCH, "%s is register 0x%03X, not 0x%03X", full,
                                 (unsigned)(d->addr + index), (unsigned)addr);
    }
    p = skip_blank(p);
    if (*p != '=')
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: expected '=' after the name", full);
    p = skip_blank(p + 1);
    uint32_t value;
    p = parse_hex32(p, &value, diag, full, &err);
    if (!p)
        return err;
    p = skip_blank(p);
    if (*p != '\0' && *p != '#')
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: unexpected text after the value: '%.20s'", full, p);
    int slot = etm_register_slot(d, index);
    if (seen && slot >= 0) {
        if (seen[slot / 8] & (1u << (slot % 8)))
            return etm_util_fail(diag, ETM_ERR_DUPLICATE, "%s is given twice", full);
        seen[slot / 8] = (uint8_t)(seen[slot / 8] | (1u << (slot % 8)));
    }
    *etm_register_ptr(cfg, d, index) = value;
    if (slot_out)
        *slot_out = slot;
    return ETM_OK;
}

etm_err_t etm_config_read_file(etm_config_t *cfg, const char *path, etm_diag_t *diag)
{
    etm_linereader_t lr;
    uint8_t seen[ETM_CONFIG_SEEN_BYTES] = { 0 };
    unsigned long slot_line[ETM_CONFIG_SLOTS] = { 0 };
    etm_err_t e;
    etm_diag_clear(diag);
    if (diag)
        diag->file = path;
    etm_config_default(cfg);
    lr.line = 0;
    lr.f = fopen(path, "r");
    if (!lr.f)
        return etm_util_fail(diag, ETM_ERR_IO, "cannot open the file");
    for (;;) {
        int slot;
        e = etm_lr_next(&lr, diag);
        if (e == ETM_END)
            break;
        if (e == ETM_OK)
            e = etm_config_parse_line(cfg, lr.buf, seen, &slot, diag);
        if (e != ETM_OK) {
            if (diag)
                diag->line = lr.line;
            fclose(lr.f);
            return e;
        }
        if (slot >= 0)
            slot_line[slot] = lr.line;
    }
    fclose(lr.f);
    int bad = -1;
    e = etm_config_validate(cfg, diag, &bad);
    if (e != ETM_OK && diag && bad >= 0)
        diag->line = slot_line[bad];
    return e;
}

etm_err_t etm_config_write(const etm_config_t *cfg, FILE *f, const char *prefix)
{
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        for (unsigned k = 0; k < d->count; k++) {
            uint32_t v = etm_register_get(cfg, d, k);
            if (d->count > 1 && v == 0)
                continue;
            if (d->count > 1)
                fprintf(f, "%s%s%u=0x%08X\n", prefix, d->name, k + 1, (unsigned)v);
            else
                fprintf(f, "%s%s=0x%08X\n", prefix, d->name, (unsigned)v);
        }
    }
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}

int etm_config_equal(const etm_config_t *a, const etm_config_t *b)
{
    for (size_t i = 0; i < etm_register_count; i++)
        for (unsigned k = 0; k < etm_registers[i].count; k++)
            if (etm_register_get(a, &etm_registers[i], k) != etm_register_get(b, &etm_registers[i], k))
                return 0;
    return 1;
}

etm_err_t etm_config_explain(const etm_config_t *cfg, FILE *f)
{
    unsigned ver = 0;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_config_version(cfg, &ver, &d) == ETM_OK)
        fprintf(f, "# ETMv%u.%u\n", ETM_V_MAJOR(ver), ETM_V_MINOR(ver));
    else
        fprintf(f, "# version: %s\n", d.msg);
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *r = &etm_registers[i];
        const regrule_t *rule = rule_for(r);
        for (unsigned k = 0; k < r->count; k++) {
            uint32_t v = etm_register_get(cfg, r, k);
            if (r->count > 1 && v == 0)
                continue;
            char name[24];
            if (r->count > 1)
                snprintf(name, sizeof name, "%s%u", r->name, k + 1);
            else
                snprintf(name, sizeof name, "%s", r->name);
            fprintf(f, "%-14s = 0x%08X  %s\n", name, (unsigned)v, r->doc);
            if (!rule || rule->nfields < 2)
                continue;
            for (size_t j = 0; j < rule->nfields; j++) {
                const bitfield_t *fl = &rule->fields[j];
                uint32_t fv = field_get(v, fl->lo, fl->hi);
                if (fv == 0)
                    continue;
                char rb[16];
                range_text(fl, rb, sizeof rb);
                fprintf(f, "    %-8s %s = 0x%X\n", rb, fl->name, (unsigned)fv);
            }
        }
    }
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}
