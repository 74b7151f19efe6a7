/* etm/vcd.h - interface signals from and to Value Change Dump files.
 *
 * Reading: a VCD written by any simulator becomes one etm_in_t (or etm_out_t) per
 * clock cycle. How signals are found and sampled is specified in vectors/README.md
 * ("VCD files"); in short:
 *   - a column (ETMIVALID) matches a VCD variable whose name is the column name,
 *     case-insensitive, optionally with the suffix _i or _o; --map COLUMN=name
 *     overrides; --scope limits the search to one scope;
 *   - buses may be declared with their range ("ETMIA [31:1]") or bit by bit;
 *   - inputs are sampled at each rising edge of the clock, with the values in force
 *     just before the edge; outputs of cycle n are the values in force just
 *     before edge n+1 (after the last edge: at the end of the dump);
 *   - without a clock, --period P gives virtual edges at OFFSET + k*P.
 *
 * Writing: signals of the scope "etm" with a clock "clk" of period 10 time units:
 * inputs of cycle n change at 10n, the rising edge is at 10n+5 and outputs of
 * cycle n change at 10n+5. Files stream in both directions.
 */
#ifndef ETM_VCD_H
#define ETM_VCD_H

#include <stdint.h>
#include <stdio.h>

#include "etm/error.h"
#include "etm/signals.h"
#include "etm/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_VCD_MAX_MAP 48

typedef struct etm_vcd_opts {
    etm_veckind_t kind;     /* read input signals (stimulus) or output signals (expected) */
    const char *clock;      /* clock name; NULL tries CLK, HCLK, FCLK, clk_i, clock */
    uint64_t period;        /* non-zero: no clock, virtual edges every period time units */
    uint64_t offset;        /* time of the first virtual edge; 0 means `period` */
    const char *reset;      /* optional: cycles in which this signal is active are skipped */
    int reset_active_low;   /* reset is active at 0 (rst_n style) */
    const char *scope;      /* optional: dot-separated scope that holds the signals */
    const char *map[ETM_VCD_MAX_MAP]; /* "COLUMN=vcdname" overrides, NULL-terminated */
    int allow_missing;      /* absent required signals read as 0 instead of an error */
    unsigned issue_width;   /* the configuration's: 1 makes X on slot 1 harmless; 0 (not known) does not */
} etm_vcd_opts_t;

void etm_vcd_opts_init(etm_vcd_opts_t *o);

typedef struct etm_vcd_reader etm_vcd_reader_t;

/* Open a VCD file and resolve signals. Required signals: for stimulus those of
 * table 16.1 (slot 1 and data slot signals are optional); for expected output all
 * of them. X or Z where a signal is sampled is an error (ETM_ERR_VCD_VALUE from
 * the read, naming the signal, time and cycle) unless it cannot matter: an
 * input whose qualifier is known to be 0 in that cycle (etm_in_unknown_harmful),
 * V3DATA bytes past V3COUNT, anything while the reset is active. Returns ETM_OK, ETM_ERR_IO, ETM_ERR_NOMEM, ETM_ERR_SYNTAX,
 * ETM_ERR_VCD_SIGNAL; diag names the file and line. */
etm_err_t etm_vcd_open(etm_vcd_reader_t **out, const char *path, const etm_vcd_opts_t *opts, etm_diag_t *diag);

/* FST (the format of GTKWave and Verilator's --trace-fst), through the FST
 * library of Debian's Verilator package. etm_vcd_open reads a path ending in
 * .fst as the VCD text of its contents (messages then give the cycle and time,
 * no line). */
int etm_is_fst_path(const char *path);
/* The FST file at path as VCD text into out: scopes, variables (real-valued
 * ones left out), every change. Returns ETM_OK, ETM_ERR_IO, ETM_ERR_SYNTAX (not
 * FST), ETM_ERR_NOMEM; diag->file is path. */
etm_err_t etm_fst_to_vcd(const char *path, FILE *out, etm_diag_t *diag);
/* VCD text from vcd (the VCD writer's, or any simulator's: scopes, wires and
 * registers, scalar and vector changes; reals left out) into an FST file at
 * path. Returns ETM_OK, ETM_ERR_IO, ETM_ERR_NOMEM. */
etm_err_t etm_vcd_to_fst(FILE *vcd, const char *path, etm_diag_t *diag);
/* The same on an open stream (a pipe, standard input, memory), named name in
 * messages; the stream stays open after etm_vcd_close. */
etm_err_t etm_vcd_open_stream(etm_vcd_reader_t **out, FILE *f, const char *name, const etm_vcd_opts_t *opts,
                              etm_diag_t *diag);
void etm_vcd_close(etm_vcd_reader_t *r);

/* Bit i set when signal i of the kind's table was found in the file. */
uint64_t etm_vcd_signal_mask(const etm_vcd_reader_t *r);

/* What the reader assumed because of allow_missing: one line per signal read
 * as 0 in whole or in part ("ETMIA: bits 31 to 31 are not in the VCD: read
 * as 0 (--allow-missing)"); "" when nothing. A caller shows them. A bus
 * declared from bit 0 with the signal's width (ETMIA [30:0], as SystemC and
 * many RTL tops write the 31-bit ETMIA[31:1]) is the signal, no note needed. */
const char *etm_vcd_notes(const etm_vcd_reader_t *r);

/* Next cycle. Returns ETM_OK, ETM_END, ETM_ERR_SYNTAX, ETM_ERR_VCD_VALUE (x or z
 * in a sampled signal), ETM_ERR_FIELD_WIDTH (bit 0 of an address set), ETM_ERR_IO;
 * diag names file, line and cycle. */
etm_err_t etm_vcd_read_in(etm_vcd_reader_t *r, etm_in_t *in, etm_diag_t *diag);
etm_err_t etm_vcd_read_out(etm_vcd_reader_t *r, etm_out_t *out, etm_diag_t *diag);

/* Time (in the file's units) of the edge of the record last read. */
uint64_t etm_vcd_time(const etm_vcd_reader_t *r);

/* ---- Writer ------------------------------------------------------------------ */

typedef struct etm_vcd_writer etm_vcd_writer_t;

/* Start a VCD on f with the selected input and output signals (bit i = signal i of
 * etm_in_signals / etm_out_signals; the output V3BYTES becomes V3COUNT[3:0] and
 * V3DATA[63:0]). Returns ETM_OK, ETM_ERR_NOMEM or ETM_ERR_IO. */
etm_err_t etm_vcd_writer_open(etm_vcd_writer_t **out, FILE *f, uint64_t in_mask, uint64_t out_mask,
                              const char *comment);

/* One cycle; in or out may be NULL when their mask is 0. */
etm_err_t etm_vcd_write(etm_vcd_writer_t *w, const etm_in_t *in, const etm_out_t *out);

/* Finish the dump (final timestamp), flush and free. */
etm_err_t etm_vcd_writer_close(etm_vcd_writer_t *w);

#ifdef __cplusplus
}
#endif
#endif
