/* vcd_int.h - what the files of the VCD reader share (internal).
 *
 *   vcd.c         tokenizer, followed id codes, opening, value changes, samples
 *   vcd_header.c  the header: $scope and $var, and the variables each signal reads
 * (the writer, vcd_write.c, shares nothing with them).
 */
#ifndef ETM_VCD_INT_H
#define ETM_VCD_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etm/vcd.h"

/* ---- Tokenizer -------------------------------------------------------------- */

#define TOK_MAX 4096
#define BUF_SIZE 65536

typedef struct tokenizer {
    FILE *f;
    unsigned char buf[BUF_SIZE];
    size_t pos, len;
    int eof;
    unsigned long line;     /* line of the last token */
    unsigned long cur_line; /* line at the read position */
    char tok[TOK_MAX + 1];
    size_t toklen;
} tokenizer_t;

/* Next whitespace-separated token into t->tok. Returns 1, 0 at end of file, -1 if too long. */
int vcd_tk_next(tokenizer_t *t);

/* ---- Reader state -------------------------------------------------------------- */

#define MAX_TRACKED 512
#define MAX_PIECES 8 /* pieces per target before falling back to bit-blasted lists */
#define HASH_SIZE 1024
#define MAX_SCOPE 1024

typedef struct var {   /* a $var kept because its name may be wanted */
    char *scope;       /* dot-separated scope path */
    char *leaf;        /* reference without range */
    char *code;        /* id code */
    int width;
    int left, right;   /* declared range; left=-1 when none */
} var_t;

typedef struct tracked { /* an id code whose values are followed */
    char *code;
    int width;
    uint64_t val_c, xz_c; /* committed: in force before the current timestamp */
    uint64_t val_p, xz_p; /* pending: after this timestamp's changes */
    int dirty;
    int next;             /* hash chain */
} tracked_t;

typedef struct piece {
    int tracked;     /* index in tracked[] */
    int left, right; /* declared indices of the variable's left and right bits */
} piece_t;

enum { T_SCALAR, T_V3COUNT, T_V3DATA, T_CLOCK, T_RESET };

typedef struct target {
    int kind;        /* T_* */
    int sig;         /* signal index for T_SCALAR */
    const char *name;
    int npieces;
    piece_t *pieces;
    int found;
} target_t;

struct etm_vcd_reader {
    tokenizer_t tk;
    int owns_file; /* tk.f is closed with the reader */
    int from_fst;  /* tk.f is the VCD text of an FST file: its lines mean nothing to the user */
    const char *path;
    etm_vcd_opts_t opts;
    const etm_signal_t *table;
    size_t table_count;

    var_t *vars;
    size_t nvars, capvars;
    tracked_t tracked[MAX_TRACKED];
    int ntracked;
    int hash[HASH_SIZE];
    int dirty_list[MAX_TRACKED];
    int ndirty;

    target_t targets[ETM_VEC_MAX_COLUMNS + 4];
    int ntargets;
    int clock_t, reset_t; /* target indices or -1 */
    uint64_t signal_mask;

    uint64_t time_block;  /* timestamp of the changes being read */
    int have_time;
    uint64_t next_edge;   /* period mode: time of the next virtual edge */

    /* The sample waiting to be returned. */
    union { etm_in_t in; etm_out_t out; } rec;
    uint64_t rec_time;
    uint64_t repeat;      /* copies of rec still to return */
    etm_err_t pending_err;
    etm_diag_t pending_diag;

    uint64_t edges;       /* edges seen (after reset) */
    uint64_t cycle;       /* cycles returned */
    uint64_t last_time;   /* time of the record last returned */
    int at_eof;
    int final_done;
    char notes[4096];     /* what the reader assumed (etm_vcd_notes): a line per signal at most */
};

/* ---- Shared helpers (vcd.c) ------------------------------------------------------ */

/* Copy of the n bytes at s, NUL-terminated (NULL when out of memory). */
char *vcd_dupstr(const char *s, size_t n);

/* Follow the values of variable v's id code: its index in r->tracked, or -1 when
 * MAX_TRACKED codes are followed already. */
int vcd_add_tracked(etm_vcd_reader_t *r, const var_t *v);

/* Fill diag (file, line of the last token, code, message); returns e. */
etm_err_t vcd_fail_line(etm_vcd_reader_t *r, etm_diag_t *diag, etm_err_t e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- Header (vcd_header.c) -------------------------------------------------------- */

/* Read the header up to $enddefinitions, keeping the variables whose names may be
 * wanted. */
etm_err_t vcd_read_header(etm_vcd_reader_t *r, etm_diag_t *diag);

/* The targets: a column for each signal (V3COUNT and V3DATA for the port bytes),
 * the clock unless sampling by period, the reset if named. Checks --map first. */
etm_err_t vcd_setup_targets(etm_vcd_reader_t *r, etm_diag_t *diag);

/* Find the variables of every target; set r->signal_mask. */
etm_err_t vcd_resolve_all(etm_vcd_reader_t *r, etm_diag_t *diag);

/* A VCD identifier for variable n: printable characters '!' to '~' (vcd_write.c). */
void vcd_make_code(char *buf, unsigned long n);

#endif
