/* etm/regmap.h - the ETM register map: the register image (etm_config_t), the
 * register table, and the position of every field, all from etm/regs.def.
 *
 * Fields are named ETM_<LAYOUT>_<FIELD> after regs.def; each has _LSB and
 * _WIDTH constants and is read and written with
 *
 *     ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cfg->etmcr)     the field's value
 *     ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE)                its bits in place
 *     ETM_FIELD_PUT(ETM_CR_PORTSIZE, 1)                    a value in place
 *
 * The register image holds raw register values with the architecture's bit
 * positions (IHI 0014 chapter 3), plus the parameters a real ETM fixes in
 * silicon (FIFO_DEPTH, PORT_BYTES, ISSUE_WIDTH). etm/config.h has its default,
 * presets and validation.
 */
#ifndef ETM_REGMAP_H
#define ETM_REGMAP_H

#include <stddef.h>
#include <stdint.h>

#include "etm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ETM architecture versions, as major*16 + minor: ETM_V(3,4) is ETMv3.4. The model
 * speaks ETMv1.0-1.3 (PIPESTAT/TRACEPKT) and ETMv3.0-3.5 (packet stream).
 *
 * Where the version comes from, as in a real ETM: ETMCCR[31] says whether ETMIDR
 * exists. When it is 0 the ETM is an ETMv1.x and ETMCCR[30:28] is its protocol
 * number (0: v1.0, 1: v1.1, 2 or 4: v1.2, 3, 5 or 7: v1.3), and ETMIDR must be 0.
 * When it is 1, ETMIDR[11:8] (2 for ETMv3) and [7:4] give the version. */
#define ETM_V(major, minor) ((unsigned)((major) * 16 + (minor)))
#define ETM_V_MAJOR(v) ((v) >> 4)
#define ETM_V_MINOR(v) ((v) & 0xfu)
#define ETM_VMAX 0xFFu /* in a field's version range: every later version */

/* ---- Fields ---------------------------------------------------------------------------- */

enum etm_field_position {
#define ETM_FIELD(layout, id, hi, lo, vmin, vmax, name) \
    ETM_##layout##_##id##_LSB = (lo), ETM_##layout##_##id##_WIDTH = (hi) - (lo) + 1,
#include "etm/regs.def"
    ETM_FIELD_POSITION_END
};

#define ETM_FIELD_ONES(width) (0xFFFFFFFFu >> (32 - (width)))
#define ETM_FIELD_MASK(F) (ETM_FIELD_ONES(F##_WIDTH) << F##_LSB)
#define ETM_FIELD_GET(F, v) (((uint32_t)(v) >> F##_LSB) & ETM_FIELD_ONES(F##_WIDTH))
#define ETM_FIELD_PUT(F, x) (((uint32_t)(x) & ETM_FIELD_ONES(F##_WIDTH)) << F##_LSB)

/* Values of ETMCR[3:2] data access: which parts of a data transfer are traced. */
#define ETM_DATA_ACCESS_VALUE 1u
#define ETM_DATA_ACCESS_ADDR 2u

/* Register formats (regs.def ETM_LAYOUT), and their fields. */
typedef enum etm_layout {
#define ETM_LAYOUT(layout, doc) ETM_LAYOUT_##layout,
#include "etm/regs.def"
    ETM_LAYOUT_COUNT
} etm_layout_t;

typedef struct etm_regfield {
    uint8_t layout;    /* etm_layout_t */
    uint8_t hi, lo;    /* bits [hi:lo] */
    uint8_t vmin, vmax;/* versions that have the field (ETM_V(), ETM_VMAX) */
    const char *id;    /* "CYCLE_ACCURATE" */
    const char *name;  /* "cycle accurate" */
} etm_regfield_t;

/* The fields of a layout, lowest first: *n of them from the returned entry. */
const etm_regfield_t *etm_layout_fields(unsigned layout, size_t *n);

/* A field's bits in place, and its value in v. */
uint32_t etm_regfield_mask(const etm_regfield_t *f);
uint32_t etm_regfield_get(const etm_regfield_t *f, uint32_t v);

/* "[12]" or "[6:4]", written into buf. */
const char *etm_regfield_bits(const etm_regfield_t *f, char *buf, size_t size);

/* ---- The register image ---------------------------------------------------------------- */

/* Lengths of the register arrays: ETM_COUNT_ETMACVR etc. */
enum etm_register_counts {
#define ETM_REG_ARRAY(field, name, number, count, layout, first, doc) ETM_COUNT_##name = (count),
#include "etm/regs.def"
    ETM_REGISTER_COUNTS_END
};
#define ETM_NUM_ADDR_COMP ETM_COUNT_ETMACVR /* ETMACVR1..16 / ETMACTR1..16 */
#define ETM_NUM_COUNTERS ETM_COUNT_ETMCNTVR /* ETMCNT*1..4 */

/* One field per register (an array for numbered registers) and per parameter, in
 * the order of regs.def. */
typedef struct etm_config {
#define ETM_REG(field, name, number, layout, first, doc) uint32_t field;
#define ETM_REG_ARRAY(field, name, number, count, layout, first, doc) uint32_t field[count];
#define ETM_PARAM(field, name, doc) uint32_t field;
#include "etm/regs.def"
} etm_config_t;

/* ---- The register table ------------------------------------------------------------------- */

#define ETM_PARAM_ADDR 0xFFFFu /* etm_regdesc_t.addr of a model parameter */

typedef struct etm_regdesc {
    const char *name;  /* "ETMCR"; arrays: "ETMACVR" numbered 1..count */
    uint16_t addr;     /* register number of element 1; ETM_PARAM_ADDR for model parameters */
    uint8_t count;     /* 1, or the array length */
    uint8_t layout;    /* etm_layout_t */
    uint8_t first;     /* first ETM version that has the register (ETM_V()) */
    uint16_t offset;   /* offsetof(etm_config_t, field) */
    const char *doc;
} etm_regdesc_t;

extern const etm_regdesc_t etm_registers[];
extern const size_t etm_register_count;

/* Find a register by name ("ETMACVR3" gives the ETMACVR entry with index 2).
 * Returns the table entry or NULL. */
const etm_regdesc_t *etm_register_find(const char *name, unsigned *index);

/* Pointer to the value of register `d`, element `index`, in cfg. */
uint32_t *etm_register_ptr(etm_config_t *cfg, const etm_regdesc_t *d, unsigned index);
uint32_t etm_register_get(const etm_config_t *cfg, const etm_regdesc_t *d, unsigned index);

/* Registers are numbered 0..ETM_CONFIG_SLOTS-1 over all array elements ("slots"). */
enum etm_config_slots {
    ETM_CONFIG_SLOTS = 0
#define ETM_REG(field, name, number, layout, first, doc) +1
#define ETM_REG_ARRAY(field, name, number, count, layout, first, doc) +(count)
#define ETM_PARAM(field, name, doc) +1
#include "etm/regs.def"
};
int etm_register_slot(const etm_regdesc_t *d, unsigned index);
/* Name of a slot ("ETMACVR3"), written into buf. */
const char *etm_register_slot_name(int slot, char *buf, size_t size);

/* ---- The programmer's model: what sits at each offset ------------------------------------ */

/* Access through the APB (regs.def ETM_MGMT, and ETM_IMPL for read-only image registers). */
#define ETM_ACCESS_R 1u
#define ETM_ACCESS_W 2u
#define ETM_ACCESS_RW 3u

/* The registers of regs.def ETM_MGMT: ETM_MGMT_SR, ETM_MGMT_LAR, ... */
typedef enum etm_mgmt {
#define ETM_MGMT(id, name, number, count, access, first, doc) ETM_MGMT_##id,
#include "etm/regs.def"
    ETM_MGMT_COUNT
} etm_mgmt_t;

typedef struct etm_mgmtdesc {
    const char *name;  /* "ETMLAR"; a run of count: "ETMPIDR0" numbered on from its digit */
    uint16_t number;   /* register number of the first (byte offset 4 * number) */
    uint8_t count;
    uint8_t access;    /* ETM_ACCESS_* */
    uint8_t first;     /* first ETM version that has it */
    const char *doc;
} etm_mgmtdesc_t;
extern const etm_mgmtdesc_t etm_mgmt_registers[ETM_MGMT_COUNT];

/* The CoreSight lock key (ETMLAR) and the fixed identification values. */
#define ETM_LAR_KEY 0xC5ACCE55u
#define ETM_DEVTYPE_VALUE 0x13u      /* trace source (3), processor (1) */
#define ETM_AUTHSTATUS_VALUE 0xC0u   /* as the ETM-M3 reports it */
#define ETM_CIDR_VALUE 0xB105900Du   /* CIDR3..CIDR0: a CoreSight component (class 9) */
#define ETM_CLAIM_TAGS 4u            /* claim tags implemented */
#define ETM_CR_RESET 0x00000411u     /* ETMCR after reset: programming, port size 001, power down */
#define ETM_SYNCFR_RESET 0x00000400u /* ETMSYNCFR after reset (ETMv3.1 and later: every 1024 bytes) */

/* The ETMCR bits the model does not implement in a version: they read as zero
 * and ignore writes through the programmer's model; a register image that sets
 * one is refused (etm_model_supports names it from etm_cr_unmodelled). */
typedef struct etm_cr_unmodelled_bits {
    uint32_t mask;
    uint8_t v1_ok, v3_ok; /* modelled in ETMv1 / ETMv3 after all */
    const char *what;
} etm_cr_unmodelled_bits_t;
extern const etm_cr_unmodelled_bits_t etm_cr_unmodelled[];
extern const size_t etm_cr_unmodelled_count;
uint32_t etm_cr_unmodelled_mask(unsigned version);

/* Register d is read-only and describes the implementation (regs.def ETM_IMPL), or
 * is a model parameter: what etm_top fixes by parameters and etm_core takes on
 * its impl_*_i ports. */
int etm_register_is_impl(const etm_regdesc_t *d);

/* The bits of a layout that exist in a version (regs.def ETM_FIELD ranges). */
uint32_t etm_layout_mask(unsigned layout, unsigned version);

/* What sits at register number `number` (byte offset 4 * number, 0..0x3FF) of the
 * ETM that the implementation registers of `impl` describe (ETMCCR, ETMIDR,
 * ETMCCER and the model parameters, ETMCR_IMPL among them: ETMCR's write mask;
 * the rest of impl is not read). */
typedef struct etm_regloc {
    const etm_regdesc_t *reg; /* a register of the image (element index), or NULL */
    unsigned index;
    int mgmt;                 /* else an etm_mgmt_t (element index), or -1: no register */
    unsigned access;          /* ETM_ACCESS_*; 0 when there is no register */
    uint32_t write_mask;      /* the bits a write sets (0 for read-only registers) */
} etm_regloc_t;

/* Returns 1 and fills *loc when a register is there, else 0 (*loc says none). */
int etm_reg_locate(const etm_config_t *impl, unsigned number, etm_regloc_t *loc);

/* The registers after reset, in place: the implementation registers (ETMCCR,
 * ETMSCR, ETMIDR, ETMCCER) and model parameters keep their values; ETMCR is
 * ETM_CR_RESET (the bits the version has), ETMSYNCFR ETM_SYNCFR_RESET (ETMv3.1
 * and later; the ETMv3.0 period counts cycles), every other register 0. */
void etm_config_at_reset(etm_config_t *cfg);

/* Name of the register at `number` ("ETMACVR3", "ETMLAR"), or "0xNNN" (byte offset). */
const char *etm_reg_name_at(const etm_config_t *impl, unsigned number, char *buf, size_t size);

/* The version a register image selects, as ETM_V(). ETM_ERR_UNSUPPORTED (with a
 * sentence in diag, if given) for ETMv2, PFT or an unknown encoding. */
etm_err_t etm_config_version(const etm_config_t *cfg, unsigned *version, etm_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
