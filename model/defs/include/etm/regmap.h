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

/* The version a register image selects, as ETM_V(). ETM_ERR_UNSUPPORTED (with a
 * sentence in diag, if given) for ETMv2, PFT or an unknown encoding. */
etm_err_t etm_config_version(const etm_config_t *cfg, unsigned *version, etm_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
