/* source.h - the command-line tool's view of per-cycle input: a vector file or a
 * VCD, chosen by the file name, with the VCD options shared by every subcommand. */
#ifndef ETM_TOOL_SOURCE_H
#define ETM_TOOL_SOURCE_H

#include <stdint.h>

#include "etm/config_text.h"
#include "etm/vcd.h"
#include "etm/vector.h"

typedef struct source {
    const char *path;
    int is_vcd;
    etm_vec_reader_t *vec;
    etm_vcd_reader_t *vcd;
    etm_config_t cfg;      /* from the vector header, or --config / default for a VCD */
    /* Binary stimulus is read a block at a time (etm_vec_read_block). */
    etm_in_t *blk;
    etm_in_t *own_blk;     /* blk when no thread reads ahead */
    struct source_ahead *ahead; /* the thread reading ahead (source.c), or NULL */
    size_t bn, bpos;       /* records in blk, the next to give */
    etm_err_t bend;        /* what stopped the last block early (given once blk is used up) */
    etm_diag_t bdiag;      /*   and its diagnostic */
} source_t;

/* Options common to subcommands that read stimulus. */
typedef struct source_opts {
    etm_vcd_opts_t vcd;
    const char *config_path;  /* --config FILE */
    const char *format;       /* --format vec|vcd, or NULL to go by the file name */
    int no_read_ahead;        /* --no-read-ahead: binary stimulus read on the caller's thread */
    int nmap;
} source_opts_t;

void source_opts_init(source_opts_t *o);

/* If argv[*i] is a source option, consume it (and its value) and return 1;
 * return -1 after printing an error for a bad value; 0 if not a source option. */
int source_opts_parse(source_opts_t *o, int argc, char **argv, int *i);

/* Help text of the source options. */
extern const char source_opts_help[];

/* Open path as stimulus (kind ETM_VEC_STIMULUS) or expected output. Prints the
 * error and returns non-zero on failure. */
int source_open(source_t *s, const char *path, const source_opts_t *o, etm_veckind_t kind);
/* "PATH:LINE" of the record last read, or "PATH" where there is no line (a VCD,
 * binary stimulus, or with_line 0), into buf. */
const char *source_where(const source_t *s, const char *path, int with_line, char *buf, size_t size);
void source_close(source_t *s);

/* Returns ETM_OK, ETM_END or an error (printed). */
etm_err_t source_read_in(source_t *s, etm_in_t *in);
/* Binary stimulus (s->blk set): the records of the current block not yet
 * read, *n of them at *in (valid until the next read), which now count as
 * read; the next block when it is used up. Returns as source_read_in. */
etm_err_t source_read_block(source_t *s, const etm_in_t **in, size_t *n);
etm_err_t source_read_out(source_t *s, etm_out_t *out);

/* Bit mask of the signals present in the source. */
uint64_t source_signal_mask(const source_t *s);

/* Line of the record last read (0 for a VCD), cycle of it. */
unsigned long source_line(const source_t *s);

/* A waveform file's path: .vcd or .fst. */
int is_wave_path(const char *path);

/* Apply the --set NAME=0xV items to cfg; on a bad one print "CMD: --set ITEM:
 * why" and return -1, else 0. */
int config_apply_sets(const char *cmd, etm_config_t *cfg, const char *const *sets, int nsets);

/* Print a diagnostic as "etm: file:line: cycle N: message". */
void print_diag(const etm_diag_t *d);

/* Progress on a terminal: call every cycle; prints at most a few times a second,
 * only when standard error is a terminal. progress_done() clears the line. */
void progress(const char *what, uint64_t cycle);
void progress_done(void);

/* A register image from path: NAME=0xVALUE lines, or a vector file's header.
 * Returns 0, or -1 printed ("etm CMD: file:line: why"; "etm: ..." for a NULL cmd). */
int config_load_file(const char *cmd, const char *path, etm_config_t *cfg);

/* Whether f (at its start; rewound) begins as a zip archive does (PK 03 04). */
int file_is_zip(FILE *f);

/* What the file f (at its start; rewound) recognisably is when it is not
 * trace: a vector file, a VCD, a zip archive (unless zip_ok: an SWO capture
 * is expected), an ELF file; NULL when it may be trace. */
const char *not_trace_kind(FILE *f, int zip_ok);

/* A numeric option's value: a whole number within [min, max] (etm/number.h)
 * into *out. Returns 0, or -1 printed as "etm CMD: OPT 'V' is ..." (cmd NULL:
 * "etm: OPT ..."). */
int opt_number(const char *cmd, const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out);

#endif
