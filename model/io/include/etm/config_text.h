/* etm/config_text.h - register images as files: read (NAME=0xVALUE lines,
 * etm/config.h), write, and explain field by field for people. */
#ifndef ETM_CONFIG_TEXT_H
#define ETM_CONFIG_TEXT_H

#include <stdio.h>

#include "etm/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Print every register with its fields decoded, one register per block, for
 * people ("ETMCR=0x00001000  cycle-accurate=1 ..."). Returns ETM_OK or ETM_ERR_IO. */
etm_err_t etm_config_explain(const etm_config_t *cfg, FILE *f);

/* Read a whole configuration file: starts from etm_config_default(), applies every
 * line, then validates. diag names file and line of the first problem. */
etm_err_t etm_config_read_file(etm_config_t *cfg, const char *path, etm_diag_t *diag);
/* The same from an open stream, named name in messages (the stream stays open). */
etm_err_t etm_config_read_stream(etm_config_t *cfg, FILE *f, const char *name, etm_diag_t *diag);

/* Write the configuration as NAME=0xVALUE lines, each prefixed with `prefix`
 * (may be "" or NULL): every scalar register and parameter, and the elements of register
 * arrays that are not zero or that etm_config_default() does not leave zero. Reading the text back with
 * etm_config_parse_line() on top of etm_config_default() gives the same image.
 * Returns ETM_OK or ETM_ERR_IO. */
etm_err_t etm_config_write(const etm_config_t *cfg, FILE *f, const char *prefix);

#ifdef __cplusplus
}
#endif
#endif
