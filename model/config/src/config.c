/* config.c - the register image: its default and presets, one line of its text
 * form, and the architecture's rules about which bits and resources exist in
 * which ETM version (docs/registers.md). The fields come from etm/regs.def. */
#include "etm/config.h"

#include <stdio.h>
#include <string.h>

#include "etm/consts.h"
#include "util.h"

#define GET(F, v) ETM_FIELD_GET(F, v)

/* ---- Defaults ----------------------------------------------------------- */

/* The ETMCR bits the ETM-M3 implements: [0], [7:4], [11:8], [13], [17:16],
 * [22:21], [28] (docs/registers.md 3.3: no cycle-accurate mode [12], no data
 * trace [3:2], no CPRT, no context ID). */
#define ETM_M3_CR_IMPL 0x10632FF1u

#define EVENT_ALWAYS 0x6Fu   /* resource 0b110 index 15: hard-wired TRUE, function A */
#define EVENT_NEVER 0x406Fu  /* function NOT A on TRUE */

static void set_counter_events(etm_config_t *cfg)
{
    for (unsigned i = 0; i < ETM_NUM_COUNTERS; i++) {
        int present = i < GET(ETM_CCR_COUNTERS, cfg->etmccr);
        cfg->etmcntenr[i] = present ? EVENT_NEVER : 0;
        cfg->etmcntrldevr[i] = present ? EVENT_NEVER : 0;
    }
}

/* The implementation choices the architecture leaves open (regs.def, "choice:"):
 * the ETM-M3's as measured on silicon (m3, docs/silicon.md), or those of a
 * generic part and of the what-ifs (the model's before silicon decided). A
 * cycle-accurate image cannot have the ETM-M3's packing, which is format 1
 * without cycle accuracy: it keeps the fewest headers. */
static void choices_of(etm_config_t *cfg, int m3)
{
    int ca = GET(ETM_CR_CYCLE_ACCURATE, cfg->etmcr) != 0;
    cfg->ph_packing = (uint32_t)(m3 && !ca);
    cfg->trace_start = (uint32_t)m3;
    cfg->isync_info = (uint32_t)m3;
    cfg->sync_placement = (uint32_t)m3;
    cfg->tailchain_return = (uint32_t)m3;
    cfg->cancel_form = (uint32_t)m3;
    cfg->apb_unpred = (uint32_t)m3;
    cfg->apb_strict = (uint32_t)!m3; /* the ETM-M3 takes them without complaint; the others report them */
    cfg->event_reset = m3 ? EVENT_ALWAYS : 0;
}

size_t etm_config_size(void) { return sizeof(etm_config_t); }

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
    cfg->etmscr = 0x00020D09;       /* ETM-M3: 8-bit port, FIFOFULL, no fetch comparisons */
    cfg->fifo_depth = 24;           /* the one public figure (docs/registers.md 15) */
    cfg->fifo_write = 4;            /* a 32-bit store write (docs/etmv3-encoder.md, "The FIFO") */
    cfg->ph_eager = 0;              /* the fewest P-headers (docs/etmv3-encoder.md, "P-header packing") */
    cfg->branch_full = 0;           /* branch addresses compressed (docs/etmv3-encoder.md, "Branch packets") */
    cfg->port_bytes = 1;
    cfg->issue_width = 1;
    cfg->pidr = 0x003BB924;         /* ETM-M3: part 0x924, ARM (JEP106 0x3B), revision 3 */
    cfg->etmcr_impl = ETM_M3_CR_IMPL; /* ETM-M3: no cycle-accurate mode, no data trace */
    cfg->pkt_queue = 8;             /* records: a packet generator writing a packet at a time
                                       (docs/etmv3-encoder.md, "Records") */
    cfg->etmffrr = 0x01000000;      /* exclude nothing: FIFOFULL may stall anywhere */
    choices_of(cfg, 1);             /* the part's implementation choices (docs/silicon.md) */
}

/* The parameters a text may leave out, implied from the part's identity
 * (etm_config_imply): their names, in the order of `given` below. */
static const char *const implied_names[] = {
    "ETMSCR", "PIDR", "ETMCR_IMPL", "PKT_QUEUE", "PH_PACKING", "TRACE_START", "ISYNC_INFO", "SYNC_PLACEMENT",
    "TAILCHAIN_RETURN", "CANCEL_FORM", "APB_UNPRED", "APB_STRICT", "EVENT_RESET",
};
#define N_IMPLIED (sizeof implied_names / sizeof implied_names[0])
enum { IMP_SCR, IMP_PIDR, IMP_CR_IMPL, IMP_QUEUE, IMP_CHOICES };

/* given[i]: the text gave implied_names[i]. */
static void imply(etm_config_t *cfg, const int *given)
{
    etm_config_t m3;
    etm_config_default(&m3);
    int is_m3 = cfg->etmccr == m3.etmccr && (cfg->etmidr & ~0x1Fu) == (m3.etmidr & ~0x1Fu);
    unsigned v = 0;
    if (etm_config_version(cfg, &v, NULL) != ETM_OK)
        return;
    if (!given[IMP_SCR])
        cfg->etmscr = is_m3 ? m3.etmscr
                    : v >= ETM_V(3, 0) ? 0x00000D01u | (v >= ETM_V(3, 4) ? 1u << 17 : 0)
                    : v >= ETM_V(1, 2) ? 0x00000102u : 0;
    if (!given[IMP_PIDR])
        cfg->pidr = is_m3 ? m3.pidr : 0;
    if (!given[IMP_CR_IMPL])
        cfg->etmcr_impl = is_m3 ? m3.etmcr_impl : 0xFFFFFFFFu;
    if (!given[IMP_QUEUE])
        cfg->pkt_queue = is_m3 ? m3.pkt_queue : 0;
    etm_config_t ch = *cfg;
    choices_of(&ch, is_m3);
    for (size_t i = IMP_CHOICES; i < N_IMPLIED; i++) {
        unsigned idx = 0;
        const etm_regdesc_t *d = etm_register_find(implied_names[i], &idx);
        if (d && !given[i])
            *etm_register_ptr(cfg, d, 0) = etm_register_get(&ch, d, 0);
    }
}

void etm_config_imply(etm_config_t *cfg, int scr_given, int pidr_given, int cr_impl_given, int queue_given)
{
    int given[N_IMPLIED] = { scr_given, pidr_given, cr_impl_given, queue_given };
    imply(cfg, given);
}

static int slot_seen(const uint8_t *seen, const char *name)
{
    unsigned idx = 0;
    const etm_regdesc_t *d = etm_register_find(name, &idx);
    int slot = d ? etm_register_slot(d, idx) : -1;
    return slot >= 0 && (seen[slot / 8] >> (slot % 8) & 1);
}

void etm_config_imply_seen(etm_config_t *cfg, const uint8_t *seen)
{
    int given[N_IMPLIED];
    for (size_t i = 0; i < N_IMPLIED; i++)
        given[i] = slot_seen(seen, implied_names[i]);
    imply(cfg, given);
}

/* A "preset NAME" line gives every implied parameter: the preset's values. */
static void preset_seen(uint8_t *seen)
{
    for (size_t i = 0; i < N_IMPLIED; i++) {
        unsigned idx = 0;
        const etm_regdesc_t *d = etm_register_find(implied_names[i], &idx);
        int slot = d ? etm_register_slot(d, idx) : -1;
        if (slot >= 0)
            seen[slot / 8] = (uint8_t)(seen[slot / 8] | 1u << (slot % 8));
    }
}

const char *const etm_config_preset_names[] = {
    "etm-m3", "etm-m3-r2", "etm-m3-ideal", "cm3-ca-whatif", "etmv1.0", "etmv1.1", "etmv1.2", "etmv1.3",
    "etmv3.0", "etmv3.1", "etmv3.2", "etmv3.3", "etmv3.4", "etmv3.5", NULL,
};

etm_err_t etm_config_preset(etm_config_t *cfg, const char *name)
{
    etm_config_default(cfg);
    if (etm_util_strcaseeq(name, "etm-m3"))
        return ETM_OK;
    if (etm_util_strcaseeq(name, "etm-m3-r2")) { /* Cortex-M3 r2p1: ETMv3.5 */
        cfg->etmidr = 0x4114F253;
        cfg->etmccer = 0x18541800;
        return ETM_OK;
    }
    if (etm_util_strcaseeq(name, "etm-m3-ideal")) {
        /* Not a part: the ETM-M3 with the choices the architecture allows in
         * its place (the fewest P-headers, A-sync and I-sync together, ...):
         * what an ideal encoder would send (a what-if). */
        choices_of(cfg, 0);
        cfg->apb_unpred = 1; /* the part's programmer's model */
        cfg->apb_strict = 0;
        cfg->event_reset = EVENT_ALWAYS;
        return ETM_OK;
    }
    if (etm_util_strcaseeq(name, "cm3-ca-whatif")) {
        /* Not a part: the ETM-M3 with cycle-accurate tracing, which it lacks (a
         * what-if; it reads as the ETM-M3, ETMCR_IMPL says what is extra). Its
         * P-headers are the fewest: the part's packing has no cycle accuracy. */
        cfg->etmcr_impl |= ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
        cfg->ph_packing = 0;
        return ETM_OK;
    }
    /* Generic parts: 4 address comparator pairs, 2 counters, FIFOFULL; ViewData
     * programmed "throughout memory" (IHI 0014 3.5.15: ETMVDCR3[16] exclude-only
     * with nothing excluded, ETMVDEVR always). */
    cfg->etmvdevr = EVENT_ALWAYS;
    cfg->etmvdcr3 = 1u << 16;
    choices_of(cfg, 0);
    if (etm_util_strncaseeq("etmv1.", name, 6) && name[6] >= '0' && name[6] <= '3' && name[7] == '\0') {
        unsigned minor = (unsigned)(name[6] - '0');
        cfg->etmccr = (minor << 28) | (1u << 23) | (2u << 13) | 4u;
        cfg->etmidr = 0;
        cfg->etmccer = 0;
        cfg->etmsyncfr = 0;
        cfg->etmtraceidr = 0;
        set_counter_events(cfg);
        etm_config_imply(cfg, 0, 0, 0, 0); /* ETMSCR: FIFOFULL, 16-bit port (ETMv1.2 on); no part
                                              number; every ETMCR bit of the version; no records */
        return ETM_OK;
    }
    if (etm_util_strncaseeq("etmv3.", name, 6) && name[6] >= '0' && name[6] <= '5' && name[7] == '\0') {
        unsigned minor = (unsigned)(name[6] - '0');
        cfg->etmccr = (1u << 31) | (1u << 26) | (1u << 23) | (2u << 13) | 4u | (minor >= 1 ? 1u << 27 : 0);
        cfg->etmidr = 0x4100F200u | (minor << 4) | (minor >= 2 ? 1u << 18 : 0);
        cfg->etmccer = minor >= 1 ? 0x00000800u : 0;
        set_counter_events(cfg);
        etm_config_imply(cfg, 0, 0, 0, 0); /* ETMSCR: FIFOFULL, 8-bit port; no part number; every ETMCR
                                              bit; no records */
        return ETM_OK;
    }
    return ETM_ERR_UNKNOWN_NAME;
}

/* ---- Which bits exist in which version ------------------------------------ */

static void version_text(unsigned v, char *buf, size_t size)
{
    if (v == ETM_VMAX)
        snprintf(buf, size, "none");
    else
        snprintf(buf, size, "ETMv%u.%u", ETM_V_MAJOR(v), ETM_V_MINOR(v));
}

/* The version ranges of the fields of register `d`, applied to one value. */
static etm_err_t check_fields(const char *regname, const etm_regdesc_t *d, uint32_t value, unsigned ver,
                              etm_diag_t *diag)
{
    uint32_t known = 0;
    char vb[24], wb[24], rb[16];
    size_t n;
    const etm_regfield_t *fields = etm_layout_fields(d->layout, &n);
    for (size_t i = 0; i < n; i++) {
        const etm_regfield_t *f = &fields[i];
        uint32_t m = etm_regfield_mask(f);
        known |= m;
        if ((value & m) && (ver < f->vmin || ver > f->vmax)) {
            version_text(ver, vb, sizeof vb);
            etm_regfield_bits(f, rb, sizeof rb);
            if (f->vmax != ETM_VMAX) {
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

/* ---- Resources ------------------------------------------------------------ */

/* Is the 7-bit resource identifier r present in this ETM? */
static int resource_present(const etm_config_t *c, unsigned ver, unsigned r, char *why, size_t size)
{
    unsigned type = r >> 4, idx = r & 0xf;
    unsigned pairs = GET(ETM_CCR_PAIRS, c->etmccr);
    switch (type) {
    case 0:
        if (idx < 2 * pairs)
            return 1;
        snprintf(why, size, "single address comparator %u, but ETMCCR has %u", idx + 1, 2 * pairs);
        return 0;
    case 1:
        if (idx < 8 && idx < pairs)
            return 1;
        if (idx >= 8 && idx < 12 && ver >= 0x33 && idx - 8 < GET(ETM_CCER_INSTR_RESOURCES, c->etmccer))
            return 1;
        snprintf(why, size, "%s %u, which this ETM does not have", idx < 8 ? "address range comparator"
                                                                           : "instrumentation resource",
                 idx < 8 ? idx + 1 : idx - 7);
        return 0;
    case 2: {
        unsigned n = ver >= 0x34 ? GET(ETM_CCER_EICE_INPUTS, c->etmccer) : 2;
        if (idx < n)
            return 1;
        snprintf(why, size, "EmbeddedICE watchpoint input %u, but there are %u", idx + 1, n);
        return 0;
    }
    case 3:
        if (idx < GET(ETM_CCR_DECODERS, c->etmccr))
            return 1;
        snprintf(why, size, "memory map decoder %u, which this ETM does not have", idx + 1);
        return 0;
    case 4:
        if (idx < GET(ETM_CCR_COUNTERS, c->etmccr))
            return 1;
        snprintf(why, size, "counter %u, but ETMCCR has %u", idx + 1, GET(ETM_CCR_COUNTERS, c->etmccr));
        return 0;
    case 5:
        if (idx <= 2 && GET(ETM_CCR_SEQUENCER, c->etmccr))
            return 1;
        if (idx >= 8 && idx <= 10 && idx - 8 < GET(ETM_CCR_CTXID_COMPARATORS, c->etmccr))
            return 1;
        /* The block exists from ETMv1.2; as a resource only from ETMv2.0. */
        if (idx == 15 && ver >= 0x20 && GET(ETM_CCR_START_STOP, c->etmccr))
            return 1;
        snprintf(why, size, "resource 0x%02X (%s), which this ETM does not have", r,
                 idx <= 2 ? "sequencer state" : idx >= 8 && idx <= 10 ? "context ID comparator"
                                              : idx == 15 ? "trace start/stop" : "reserved");
        return 0;
    case 6:
        if (idx == 15)
            return 1;
        if (idx < 4 && idx < GET(ETM_CCR_EXT_INPUTS, c->etmccr))
            return 1;
        if (idx >= 8 && idx < 12 && ver >= 0x31 && idx - 8 < GET(ETM_CCER_EXT_SELECTORS, c->etmccer))
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
    unsigned fn = GET(ETM_EVENT_FUNCTION, ev);
    unsigned a = GET(ETM_EVENT_RESOURCE_A, ev), b = GET(ETM_EVENT_RESOURCE_B, ev);
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

/* Every register's bits against its fields and the versions that have them. */
static etm_err_t validate_fields(const etm_config_t *c, unsigned ver, etm_diag_t *diag, int *bad_slot)
{
    char name[24], vb[24];
    version_text(ver, vb, sizeof vb);
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        if (d->addr == ETM_PARAM_ADDR)
            continue;
        for (unsigned k = 0; k < d->count; k++) {
            uint32_t v = etm_register_get(c, d, k);
            etm_err_t e;
            if (d->count > 1)
                snprintf(name, sizeof name, "%s%u", d->name, k + 1);
            else
                snprintf(name, sizeof name, "%s", d->name);
            if (v && ver < d->first) {
                etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "%s exists from ETMv%u.%u; this ETM is %s, so it must be 0",
                              name, ETM_V_MAJOR(d->first), ETM_V_MINOR(d->first), vb);
                return fail_at(bad_slot, d->name, k, ETM_ERR_RESERVED_BITS);
            }
            if ((e = check_fields(name, d, v, ver, diag)) != ETM_OK)
                return fail_at(bad_slot, d->name, k, e);
        }
    }
    return ETM_OK;
}

/* ETMACTRn of a comparator that exists: reserved encodings and absent resources. */
static const char *actr_problem(const etm_config_t *c, unsigned k)
{
    uint32_t actr = c->etmactr[k];
    unsigned at = GET(ETM_ACTR_TYPE, actr), size = GET(ETM_ACTR_SIZE, actr), dv = GET(ETM_ACTR_DATA_VALUE, actr);
    unsigned sec = GET(ETM_ACTR_SECURITY, actr);
    return at == 7 ? "access type 0b111 is reserved"
           : size == 2 ? "size 0b10 is reserved"
           : dv == 2 ? "data value comparison 0b10 is reserved"
           : dv != 0 && GET(ETM_CCR_DATA_COMPARATORS, c->etmccr) == 0 ? "data value comparison needs data comparators"
           : sec == 3 ? "security level 0b11 is reserved"
           : GET(ETM_ACTR_CTXID, actr) > GET(ETM_CCR_CTXID_COMPARATORS, c->etmccr) ? "context ID comparator absent"
           : (c->etmacvr[k] & (size == 3 ? 3u : size == 1 ? 1u : 0u))
               ? "the address in ETMACVR must be aligned to the comparison size"
               : NULL;
}

/* ETMCCR's counts, and comparators and counters that ETMCCR says exist. */
static etm_err_t validate_comparators(const etm_config_t *c, etm_diag_t *diag, int *bad_slot)
{
    unsigned pairs = GET(ETM_CCR_PAIRS, c->etmccr);
    if (pairs > 8)
        return fail_at(bad_slot, "ETMCCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCCR[3:0]=%u: at most 8 address comparator pairs",
                                     pairs));
    if (GET(ETM_CCR_DATA_COMPARATORS, c->etmccr) > 8 || GET(ETM_CCR_DECODERS, c->etmccr) > 16 ||
        GET(ETM_CCR_COUNTERS, c->etmccr) > 4 || GET(ETM_CCR_EXT_INPUTS, c->etmccr) > 4 ||
        GET(ETM_CCR_EXT_OUTPUTS, c->etmccr) > 4)
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
        const char *bad = actr_problem(c, k);
        if (bad) {
            etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMACTR%u: %s", k + 1, bad);
            return fail_at(bad_slot, "ETMACTR", k, ETM_ERR_RESERVED_BITS);
        }
    }
    unsigned ncnt = GET(ETM_CCR_COUNTERS, c->etmccr);
    for (unsigned k = ncnt; k < ETM_NUM_COUNTERS; k++) {
        const char *which = c->etmcntrldvr[k] ? "ETMCNTRLDVR" : c->etmcntenr[k] ? "ETMCNTENR"
                            : c->etmcntrldevr[k] ? "ETMCNTRLDEVR" : c->etmcntvr[k] ? "ETMCNTVR" : NULL;
        if (which) {
            etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "%s%u is set, but ETMCCR[15:13]=%u counters", which, k + 1,
                          ncnt);
            return fail_at(bad_slot, which, k, ETM_ERR_RESERVED_BITS);
        }
    }
    return ETM_OK;
}

/* Events name resources that must exist. */
static etm_err_t validate_events(const etm_config_t *c, unsigned ver, etm_diag_t *diag, int *bad_slot)
{
    struct { const char *name; uint32_t v; unsigned idx; } ev[3 + 2 * ETM_NUM_COUNTERS];
    size_t nev = 0;
    ev[nev].name = "ETMTRIGGER"; ev[nev].v = c->etmtrigger; ev[nev++].idx = 0;
    ev[nev].name = "ETMTEEVR"; ev[nev].v = c->etmteevr; ev[nev++].idx = 0;
    ev[nev].name = "ETMVDEVR"; ev[nev].v = c->etmvdevr; ev[nev++].idx = 0;
    for (unsigned k = 0; k < GET(ETM_CCR_COUNTERS, c->etmccr); k++) {
        ev[nev].name = "ETMCNTENR"; ev[nev].v = c->etmcntenr[k]; ev[nev++].idx = k;
        ev[nev].name = "ETMCNTRLDEVR"; ev[nev].v = c->etmcntrldevr[k]; ev[nev++].idx = k;
    }
    for (size_t i = 0; i < nev; i++) {
        char full[24];
        etm_err_t e;
        if (!strcmp(ev[i].name, "ETMCNTENR") || !strcmp(ev[i].name, "ETMCNTRLDEVR"))
            snprintf(full, sizeof full, "%s%u", ev[i].name, ev[i].idx + 1);
        else
            snprintf(full, sizeof full, "%s", ev[i].name);
        if ((e = check_event(c, ver, full, ev[i].v & 0x1ffff, diag)) != ETM_OK)
            return fail_at(bad_slot, ev[i].name, ev[i].idx, e);
    }
    return ETM_OK;
}

/* Include/exclude, start/stop and ViewData selections name comparators that must exist. */
static etm_err_t validate_selections(const etm_config_t *c, unsigned ver, etm_diag_t *diag, int *bad_slot)
{
    unsigned pairs = GET(ETM_CCR_PAIRS, c->etmccr);
    uint32_t range_mask = (1u << pairs) - 1u;
    uint32_t single_mask = pairs ? (uint32_t)((1ull << (2 * pairs)) - 1u) : 0;
    uint32_t mmd_mask = (1u << GET(ETM_CCR_DECODERS, c->etmccr)) - 1u;
    if (GET(ETM_TECR1_RANGE, c->etmtecr1) & ~range_mask)
        return fail_at(bad_slot, "ETMTECR1", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTECR1[7:0] selects address range comparators this ETM does not have "
                                     "(ETMCCR[3:0]=%u)", pairs));
    if (GET(ETM_TECR1_DECODERS, c->etmtecr1) & ~mmd_mask)
        return fail_at(bad_slot, "ETMTECR1", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTECR1[23:8] selects memory map decoders this ETM does not have"));
    if (GET(ETM_TECR1_START_STOP, c->etmtecr1)) {
        int have = (ver >= ETM_V(1, 2) && ver < ETM_V(2, 0)) ||
                   (ver >= ETM_V(2, 0) && GET(ETM_CCR_START_STOP, c->etmccr));
        if (!have)
            return fail_at(bad_slot, "ETMTECR1", 0,
                           etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                         "ETMTECR1[25] enables the start/stop block, which this ETM does not have "
                                         "(ETMCCR[26])"));
    }
    if ((GET(ETM_TSSCR_START, c->etmtsscr) | GET(ETM_TSSCR_STOP, c->etmtsscr)) & ~single_mask)
        return fail_at(bad_slot, "ETMTSSCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTSSCR selects single address comparators this ETM does not have "
                                     "(ETMCCR[3:0]=%u pairs)", pairs));
    if (GET(ETM_TECR2_SINGLE, c->etmtecr2) & ~single_mask)
        return fail_at(bad_slot, "ETMTECR2", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMTECR2 selects single address comparators this ETM does not have"));
    if (c->etmtesseicr) {
        unsigned n = GET(ETM_CCER_EICE_INPUTS, c->etmccer);
        uint32_t m = (1u << n) - 1u;
        if (!GET(ETM_CCER_EICE_START_STOP, c->etmccer) ||
            (GET(ETM_TESSEICR_START, c->etmtesseicr) | GET(ETM_TESSEICR_STOP, c->etmtesseicr)) & ~m)
            return fail_at(bad_slot, "ETMTESSEICR", 0,
                           etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                         "ETMTESSEICR selects EmbeddedICE inputs for start/stop, but ETMCCER[20]=%u "
                                         "and ETMCCER[19:16]=%u inputs",
                                         (unsigned)GET(ETM_CCER_EICE_START_STOP, c->etmccer), n));
    }
    if ((GET(ETM_VDCR1_INCLUDE, c->etmvdcr1) | GET(ETM_VDCR1_EXCLUDE, c->etmvdcr1)) & ~single_mask)
        return fail_at(bad_slot, "ETMVDCR1", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMVDCR1 selects single address comparators this ETM does not have"));
    if ((GET(ETM_VDCR3_INCLUDE, c->etmvdcr3) | GET(ETM_VDCR3_EXCLUDE, c->etmvdcr3)) & ~range_mask)
        return fail_at(bad_slot, "ETMVDCR3", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMVDCR3 selects address range comparators this ETM does not have"));
    return ETM_OK;
}

/* ETMCR's values, and ETMIDR's implementer. */
static etm_err_t validate_control(const etm_config_t *c, unsigned ver, etm_diag_t *diag, int *bad_slot)
{
    char vb[24];
    version_text(ver, vb, sizeof vb);
    unsigned psize = GET(ETM_CR_PORTSIZE, c->etmcr) | GET(ETM_CR_PORTSIZE3, c->etmcr) << 3;
    if (ver < ETM_V(3, 0) ? psize > 2 : (psize > 6 && psize != 8 && psize != 9))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCR port size %u%u%u%u is reserved in %s",
                                     (psize >> 3) & 1, (psize >> 2) & 1, (psize >> 1) & 1, psize & 1, vb));
    if (ver < ETM_V(3, 0) && GET(ETM_CR_PORT_MODE, c->etmcr) == 3)
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCR[17:16] port mode 0b11 is reserved in %s",
                                     vb));
    if (ver >= ETM_V(3, 0) && (GET(ETM_CR_HALF_RATE, c->etmcr) << 2 | GET(ETM_CR_PORT_MODE, c->etmcr)) == 2)
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMCR port mode {[13],[17:16]}=0b010 is reserved"));
    if (GET(ETM_CR_STALL, c->etmcr) && !GET(ETM_CCR_FIFOFULL, c->etmccr))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMCR[7] stalls the processor, but ETMCCR[23] says there is no FIFOFULL logic"));
    if (GET(ETM_CR_TIMESTAMP, c->etmcr) && !GET(ETM_CCER_TIMESTAMPS, c->etmccer))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMCR[28] enables timestamps, but ETMCCER[22] says they are not implemented"));
    if (GET(ETM_CR_VMID, c->etmcr) && !GET(ETM_CCER_VIRTUALIZATION, c->etmccer))
        return fail_at(bad_slot, "ETMCR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMCR[30] enables VMID trace, but ETMCCER[26] says there is no virtualization"));
    uint32_t absent = c->etmcr & ~c->etmcr_impl;
    if (absent) {
        size_t n;
        const etm_regfield_t *f = etm_layout_fields(ETM_LAYOUT_CR, &n);
        char rb[16];
        for (size_t i = 0; i < n; i++)
            if (absent & etm_regfield_mask(&f[i]))
                return fail_at(bad_slot, "ETMCR", 0,
                               etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                             "ETMCR%s (%s) is set, but this part does not implement it "
                                             "(ETMCR_IMPL=0x%08X)%s",
                                             etm_regfield_bits(&f[i], rb, sizeof rb), f[i].name,
                                             (unsigned)c->etmcr_impl,
                                             absent & ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE)
                                                 ? "; the what-if preset cm3-ca-whatif adds cycle-accurate "
                                                   "tracing to the ETM-M3"
                                                 : ""));
    }
    if (ver >= ETM_V(2, 0) && GET(ETM_IDR_IMPLEMENTER, c->etmidr) == 0)
        return fail_at(bad_slot, "ETMIDR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMIDR[31:24] implementer is 0; ARM parts read 0x41"));
    return ETM_OK;
}

/* Synchronisation period, trace ID and FIFOFULL level. */
static etm_err_t validate_sync(const etm_config_t *c, unsigned ver, etm_diag_t *diag, int *bad_slot)
{
    if (ver >= ETM_V(3, 0)) {
        if (c->etmsyncfr == 0 && ver < ETM_V(3, 5))
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
    if (GET(ETM_CR_STALL, c->etmcr) && c->etmfflr == 0)
        return fail_at(bad_slot, "ETMFFLR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS,
                                     "ETMFFLR=0 with ETMCR[7] (stall on FIFOFULL) set is UNPREDICTABLE; give the "
                                     "number of free bytes below which to stall"));
    if (c->etmfflr > c->fifo_depth)
        return fail_at(bad_slot, "ETMFFLR", 0,
                       etm_util_fail(diag, ETM_ERR_RESERVED_BITS, "ETMFFLR=%u is above the FIFO size (FIFO_DEPTH=%u)",
                                     (unsigned)c->etmfflr, (unsigned)c->fifo_depth));
    return ETM_OK;
}

/* A what-if choice of the ETMv3 encoder (etm/regs.def): 0 or 1, and 0 for ETMv1. */
static etm_err_t encoder_choice(int *bad_slot, const char *name, uint32_t v, unsigned ver, const char *zero,
                                const char *one, const char *why_not_v1, etm_diag_t *diag)
{
    if (v > 1)
        return fail_at(bad_slot, name, 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "%s=%u: 0 (%s) or 1 (%s)", name, (unsigned)v, zero, one));
    if (ver < ETM_V(3, 0) && v)
        return fail_at(bad_slot, name, 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "%s applies to ETMv3 only (%s); leave it at 0", name,
                                     why_not_v1));
    return ETM_OK;
}

/* The implementation choices (regs.def, "choice:"). */
static etm_err_t validate_choices(const etm_config_t *c, unsigned ver, etm_diag_t *diag, int *bad_slot)
{
    static const struct {
        const char *name, *zero, *one, *why_not_v1;
    } ch[] = {
        { "PH_PACKING", "the fewest P-headers", "the ETM-M3's format 1 headers", "ETMv1 has no P-headers" },
        { "TRACE_START", "a trigger before the syncs", "the first atom alone, a trigger after it",
          "ETMv1 restarts with TRACESYNC" },
        { "ISYNC_INFO", "the reason alone", "bit 0 set too", "ETMv1 has no I-sync" },
        { "SYNC_PLACEMENT", "A-sync and I-sync together", "the ETM-M3's placement",
          "ETMv1 synchronises with full branch addresses" },
        { "TAILCHAIN_RETURN", "no packet before a tail-chained entry", "an exception return before it",
          "ETMv1 has no exception-return packet" },
        { "CANCEL_FORM", "the cancelled atom isolated", "the Cancel bit withdrawing the last atom",
          "ETMv1 cancels with its status" },
    };
    for (size_t i = 0; i < sizeof ch / sizeof ch[0]; i++) {
        unsigned idx = 0;
        const etm_regdesc_t *d = etm_register_find(ch[i].name, &idx);
        etm_err_t e = encoder_choice(bad_slot, ch[i].name, etm_register_get(c, d, 0), ver, ch[i].zero, ch[i].one,
                                     ch[i].why_not_v1, diag);
        if (e != ETM_OK)
            return e;
    }
    if (c->tailchain_return && ver < ETM_V(3, 4))
        return fail_at(bad_slot, "TAILCHAIN_RETURN", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "TAILCHAIN_RETURN=1 needs the exception-return packet of ETMv3.4 and later"));
    if (c->apb_unpred > 1 || c->apb_strict > 1)
        return fail_at(bad_slot, c->apb_unpred > 1 ? "APB_UNPRED" : "APB_STRICT", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "%s=%u: 0 or 1",
                                     c->apb_unpred > 1 ? "APB_UNPRED" : "APB_STRICT",
                                     (unsigned)(c->apb_unpred > 1 ? c->apb_unpred : c->apb_strict)));
    if (c->event_reset > 0x1FFFFu)
        return fail_at(bad_slot, "EVENT_RESET", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "EVENT_RESET=0x%X: an event is 17 bits (0x6F: always, 0x406F: never)",
                                     (unsigned)c->event_reset));
    return ETM_OK;
}

/* The model parameters' ranges. */
static etm_err_t validate_params(const etm_config_t *c, unsigned ver, etm_diag_t *diag, int *bad_slot)
{
    if (c->fifo_depth < 24 || c->fifo_depth > 65535)
        return fail_at(bad_slot, "FIFO_DEPTH", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "FIFO_DEPTH=%u: the model needs 24 to 65535 bytes (at least the most one cycle "
                                     "can produce when trace starts)", (unsigned)c->fifo_depth));
    if (c->fifo_write < 1 || c->fifo_write > ETM_MAX_FIFO_WRITE)
        return fail_at(bad_slot, "FIFO_WRITE", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "FIFO_WRITE=%u: the FIFO's write port takes 1 to %u bytes per core cycle",
                                     (unsigned)c->fifo_write, (unsigned)ETM_MAX_FIFO_WRITE));
    if (c->port_bytes != 0 && c->port_bytes != 1 && c->port_bytes != 2 && c->port_bytes != 4 && c->port_bytes != 8)
        return fail_at(bad_slot, "PORT_BYTES", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "PORT_BYTES=%u: must be 1, 2, 4 or 8 (bytes per core cycle), or 0 (an external "
                                     "port takes the bytes at its own clock)",
                                     (unsigned)c->port_bytes));
    if (ver < ETM_V(3, 0) && c->port_bytes != 1)
        return fail_at(bad_slot, "PORT_BYTES", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "PORT_BYTES applies to ETMv3 only; an ETMv1 port's width is ETMCR's port size"));
    if (c->pkt_queue > ETM_MAX_PKT_QUEUE)
        return fail_at(bad_slot, "PKT_QUEUE", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "PKT_QUEUE=%u: the packet generator's queue holds 0 to %u cycle records",
                                     (unsigned)c->pkt_queue, (unsigned)ETM_MAX_PKT_QUEUE));
    if (ver < ETM_V(3, 0) && c->pkt_queue != 0)
        return fail_at(bad_slot, "PKT_QUEUE", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "PKT_QUEUE applies to ETMv3 only (an ETMv1 status is made in its cycle); "
                                     "leave it at 0"));
    if (ver < ETM_V(3, 0) && c->fifo_write != 4)
        return fail_at(bad_slot, "FIFO_WRITE", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                     "FIFO_WRITE applies to ETMv3 only (an ETMv1 status enters its FIFO whole); "
                                     "leave it at 4"));
    etm_err_t e = encoder_choice(bad_slot, "BRANCH_FULL", c->branch_full, ver, "branch addresses compressed",
                                 "always whole", "an ETMv1 branch address is always compressed", diag);
    if (e == ETM_OK)
        e = encoder_choice(bad_slot, "PH_EAGER", c->ph_eager, ver, "P-headers as full as the flush points allow",
                           "also closed at every ETMFLUSH", "ETMv1 has no P-headers", diag);
    if (e != ETM_OK)
        return e;
    if ((e = validate_choices(c, ver, diag, bad_slot)) != ETM_OK)
        return e;
    if (c->issue_width != 1 && c->issue_width != 2)
        return fail_at(bad_slot, "ISSUE_WIDTH", 0,
                       etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "ISSUE_WIDTH=%u: must be 1 or 2",
                                     (unsigned)c->issue_width));
    return ETM_OK;
}

etm_err_t etm_config_validate(const etm_config_t *c, etm_diag_t *diag, int *bad_slot)
{
    unsigned ver;
    etm_err_t e;
    if (bad_slot)
        *bad_slot = -1;
    if ((e = etm_config_version(c, &ver, diag)) != ETM_OK)
        return fail_at(bad_slot, GET(ETM_CCR_ETMIDR, c->etmccr) ? "ETMIDR" : "ETMCCR", 0, e);
    if ((e = validate_fields(c, ver, diag, bad_slot)) != ETM_OK ||
        (e = validate_comparators(c, diag, bad_slot)) != ETM_OK ||
        (e = validate_events(c, ver, diag, bad_slot)) != ETM_OK ||
        (e = validate_selections(c, ver, diag, bad_slot)) != ETM_OK ||
        (e = validate_control(c, ver, diag, bad_slot)) != ETM_OK ||
        (e = validate_sync(c, ver, diag, bad_slot)) != ETM_OK)
        return e;
    return validate_params(c, ver, diag, bad_slot);
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
        if ((size_t)(q - q0) >= sizeof pname || (*skip_blank(q) != '\0' && *skip_blank(q) != '#'))
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "expected 'preset NAME'");
        memcpy(pname, q0, (size_t)(q - q0));
        pname[q - q0] = '\0';
        etm_config_t pc;
        if (etm_config_preset(&pc, pname) != ETM_OK)
            return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "unknown preset '%s' (etm config --presets lists them)",
                                 pname);
        if (seen) {
            for (size_t i = 0; i < ETM_CONFIG_SEEN_BYTES; i++)
                if (seen[i])
                    return etm_util_fail(diag, ETM_ERR_SYNTAX, "'preset' must come before any register");
            preset_seen(seen); /* the preset gives every implied parameter */
        }
        *cfg = pc;
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
        if (d->addr == ETM_PARAM_ADDR)
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

int etm_config_equal(const etm_config_t *a, const etm_config_t *b)
{
    for (size_t i = 0; i < etm_register_count; i++)
        for (unsigned k = 0; k < etm_registers[i].count; k++)
            if (etm_register_get(a, &etm_registers[i], k) != etm_register_get(b, &etm_registers[i], k))
                return 0;
    return 1;
}
