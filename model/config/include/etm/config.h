/* etm/config.h - the configuration of a model instance: the register image
 * (etm/regmap.h) with its default, named presets, and the architecture's rules
 * about which bits and resources exist in which ETM version.
 *
 * Text form, one setting per line:   NAME=0xVALUE
 * also accepted: OpenCSD snapshot form  NAME(0xADDR)=0xVALUE  (ADDR must match).
 * '#' starts a comment. Names are case-insensitive. Whole files are read and
 * written by etm/config_text.h. docs/registers.md lists every register and
 * field and which ETM versions have it.
 */
#ifndef ETM_CONFIG_H
#define ETM_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "etm/error.h"
#include "etm/regmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default configuration: the ETM of a Cortex-M3 r1 (ETM-M3, ETMv3.4 with the
 * alternative branch encoding; ETMIDR 0x4114F240, ETMCCR 0x8C802000, ETMSCR
 * 0x00020D09), programmed to trace everything: 1 byte per cycle, a 24-byte FIFO,
 * and, as on the part, no cycle-accurate mode and no data trace (ETMCR_IMPL
 * 0x10632FF1). */
void etm_config_default(etm_config_t *cfg);

/* Named starting points: "etm-m3" (the default), "etm-m3-r2" (ETMv3.5, the r2p1
 * part's ETMIDR and ETMCCER), "cm3-ca-whatif" (not a part: the ETM-M3 with
 * cycle-accurate tracing added, a what-if), and generic ETMs "etmv1.0"..
 * "etmv1.3", "etmv3.0".."etmv3.5" with 4 address comparator pairs, 2 counters
 * and FIFOFULL. Configuration text may begin with
 * a line "preset NAME". Returns ETM_OK or ETM_ERR_UNKNOWN_NAME. */
etm_err_t etm_config_preset(etm_config_t *cfg, const char *name);

/* sizeof(etm_config_t), for bindings that hold one as an opaque buffer. */
size_t etm_config_size(void);
extern const char *const etm_config_preset_names[]; /* NULL-terminated */

/* ETMSCR, PIDR, ETMCR_IMPL and PKT_QUEUE for a configuration that does not
 * give them (text written before they were part of the image): the ETM-M3's
 * when ETMCCR and ETMIDR are the ETM-M3's, else a generic part's (ETMSCR:
 * FIFOFULL and the port the version's presets have; PIDR 0: no part number;
 * ETMCR_IMPL: every bit of the version; PKT_QUEUE 0: a cycle's packets made in
 * the cycle). *_given: the text gave that one, which is left alone. */
void etm_config_imply(etm_config_t *cfg, int scr_given, int pidr_given, int cr_impl_given, int queue_given);
/* The same after etm_config_parse_line has filled `seen`. */
void etm_config_imply_seen(etm_config_t *cfg, const uint8_t *seen);

/* Check a whole configuration against the architecture: version known, no bit
 * set that the chosen version lacks, no reserved field value, no resource used
 * that ETMCCR/ETMCCER say is absent, model parameters in range. It does not say
 * whether the model implements every feature selected (etm_model_supports() does).
 * *bad_slot (may be NULL) gets the register slot of the offending register, or -1.
 * Returns ETM_OK, ETM_ERR_UNSUPPORTED, ETM_ERR_RESERVED_BITS or ETM_ERR_FIELD_WIDTH. */
etm_err_t etm_config_validate(const etm_config_t *cfg, etm_diag_t *diag, int *bad_slot);

/* Parse one line of configuration text into cfg. Blank and comment lines are
 * accepted and ignored (*slot = -1). `seen` (may be NULL) is a bitmap of
 * ETM_CONFIG_SLOTS bits used to reject a register given twice; *slot (may be NULL)
 * gets the slot set. diag gets the reason; the caller fills in file and line.
 * Returns ETM_OK, ETM_ERR_SYNTAX, ETM_ERR_BAD_NUMBER, ETM_ERR_UNKNOWN_NAME,
 * ETM_ERR_DUPLICATE, ETM_ERR_FIELD_WIDTH. */
etm_err_t etm_config_parse_line(etm_config_t *cfg, const char *line, uint8_t *seen, int *slot,
                                etm_diag_t *diag);

/* Size in bytes of the `seen` bitmap for etm_config_parse_line(). */
#define ETM_CONFIG_SEEN_BYTES ((ETM_CONFIG_SLOTS + 7) / 8)

/* Equal register images and parameters. */
int etm_config_equal(const etm_config_t *a, const etm_config_t *b);

#ifdef __cplusplus
}
#endif
#endif
