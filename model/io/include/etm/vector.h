/* etm/vector.h - vector files: per-cycle stimulus and expected output as text.
 *
 * The format is specified in vectors/README.md. In short:
 *
 *     etm-vectors 1 stimulus            first line: magic, format version, kind
 *     # comment                         anywhere; also after values on a line
 *     ETMCR=0x00001000                  configuration, NAME=0xVALUE (etm/config.h)
 *     columns CYCLE ETMIVALID ETMIA     ends the header
 *     0 1 00000100                      one line per cycle, values in hex
 *
 * Stimulus also has a binary form for speed (first line 'etm-vectors 1
 * stimulus binary', the same header without a CYCLE column, then fixed-size
 * records: each column's value in its etm_in_t field's size, little-endian).
 * etm_vec_open reads either form.
 *
 * Reading and writing stream: memory does not grow with the number of cycles.
 */
#ifndef ETM_VECTOR_H
#define ETM_VECTOR_H

#include <stdint.h>
#include <stdio.h>

#include "etm/config.h"
#include "etm/error.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_VEC_FORMAT_VERSION 1

typedef enum etm_veckind {
    ETM_VEC_STIMULUS, /* columns are etm_in_signals */
    ETM_VEC_EXPECTED  /* columns are etm_out_signals */
} etm_veckind_t;

/* Column index used for the optional decimal CYCLE column. */
#define ETM_VEC_COL_CYCLE (-1)

/* Most columns a file can have (every signal plus CYCLE). */
#define ETM_VEC_MAX_COLUMNS 40

typedef struct etm_vec_reader etm_vec_reader_t;

/* Open a vector file (path "-" reads standard input) and read its header.
 * Returns ETM_OK, ETM_ERR_IO, ETM_ERR_NOMEM, ETM_ERR_MISSING_HEADER,
 * ETM_ERR_FORMAT_VERSION, ETM_ERR_SYNTAX, ETM_ERR_UNKNOWN_NAME, ETM_ERR_DUPLICATE,
 * ETM_ERR_BAD_NUMBER, ETM_ERR_FIELD_WIDTH, ETM_ERR_RESERVED_BITS, ETM_ERR_UNSUPPORTED,
 * ETM_ERR_TOO_LONG; diag names file and line. On error *out is NULL. */
etm_err_t etm_vec_open(etm_vec_reader_t **out, const char *path, etm_diag_t *diag);

/* The same on an open stream; `name` is used in diagnostics. The stream is not
 * closed by etm_vec_close(). */
etm_err_t etm_vec_open_stream(etm_vec_reader_t **out, FILE *f, const char *name, etm_diag_t *diag);

void etm_vec_close(etm_vec_reader_t *r);

etm_veckind_t etm_vec_kind(const etm_vec_reader_t *r);
/* 1 when the file is binary stimulus (errors then give byte offsets, not lines). */
int etm_vec_is_binary(const etm_vec_reader_t *r);
const etm_config_t *etm_vec_config(const etm_vec_reader_t *r);
const char *etm_vec_name(const etm_vec_reader_t *r);

/* Columns in file order: each is an index into the kind's signal table, or
 * ETM_VEC_COL_CYCLE. */
size_t etm_vec_column_count(const etm_vec_reader_t *r);
int etm_vec_column(const etm_vec_reader_t *r, size_t i);

/* Bit i set when signal i of the kind's table is a column of the file. */
uint64_t etm_vec_signal_mask(const etm_vec_reader_t *r);

/* Read the next cycle. Signals that are not columns are 0.
 * Returns ETM_OK, ETM_END at the end of the file, or ETM_ERR_TRUNCATED,
 * ETM_ERR_SYNTAX, ETM_ERR_BAD_NUMBER, ETM_ERR_FIELD_WIDTH, ETM_ERR_TOO_LONG,
 * ETM_ERR_IO, ETM_ERR_STATE (wrong kind); diag names file, line and cycle. */
etm_err_t etm_vec_read_in(etm_vec_reader_t *r, etm_in_t *in, etm_diag_t *diag);
etm_err_t etm_vec_read_out(etm_vec_reader_t *r, etm_out_t *out, etm_diag_t *diag);
/* The next records of stimulus, as etm_vec_read_in would read them one by one,
 * at most max into in[]: a binary file gives as many as its read-ahead holds,
 * decoded a column at a time (much faster than record by record); a text file
 * gives one, so that etm_vec_line stays the line of each. Returns ETM_OK with
 * *got >= 1 (at most max; 0 only when max is 0), ETM_END with *got 0 at the
 * end, or the error etm_vec_read_in would give at the first bad record, with
 * *got the good records before it (in[0 .. *got-1]). */
etm_err_t etm_vec_read_block(etm_vec_reader_t *r, etm_in_t *in, size_t max, size_t *got, etm_diag_t *diag);

/* Cycle number (0-based) and file line of the record last read. */
uint64_t etm_vec_cycle(const etm_vec_reader_t *r);
unsigned long etm_vec_line(const etm_vec_reader_t *r);

/* ---- Writer ---------------------------------------------------------------- */

typedef struct etm_vec_writer etm_vec_writer_t;

/* Start a vector file on f: magic line, the comment (may be NULL; several lines
 * allowed, each gets '# '), the configuration, the columns line. `signal_mask`
 * selects columns from the kind's signal table (bit i = signal i; 0 = all);
 * a CYCLE column is always written first.
 * Returns ETM_OK, ETM_ERR_NOMEM, ETM_ERR_IO. */
etm_err_t etm_vec_writer_open(etm_vec_writer_t **out, FILE *f, etm_veckind_t kind,
                              const etm_config_t *cfg, uint64_t signal_mask, const char *comment);

/* The same for binary stimulus: the header, then fixed-size records (no CYCLE column). */
etm_err_t etm_vec_writer_open_binary(etm_vec_writer_t **out, FILE *f, const etm_config_t *cfg, uint64_t signal_mask,
                                     const char *comment);

etm_err_t etm_vec_write_in(etm_vec_writer_t *w, const etm_in_t *in);
etm_err_t etm_vec_write_out(etm_vec_writer_t *w, const etm_out_t *out);

/* Flush and free (the stream stays open). Returns ETM_ERR_IO if any write failed. */
etm_err_t etm_vec_writer_close(etm_vec_writer_t *w);

/* ---- Output comparison ----------------------------------------------------- */

/* Bit i set for each signal i of etm_out_signals selected by mask whose values
 * differ between a and b. */
uint64_t etm_out_diff(const etm_out_t *a, const etm_out_t *b, uint64_t mask);

/* Format signal i of an output record as in a vector file ("3", "0880", "-"). */
char *etm_out_format(const etm_out_t *o, size_t i, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
