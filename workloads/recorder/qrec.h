/* qrec.h - the recorder: what a Cortex-M3 program executed under QEMU, as one
 * etm_cm3_insn_t per instruction (etm/cm3.h).
 *
 * QEMU runs the program with the etmtrace plugin (workloads/plugin), which
 * writes a raw stream (qtrace_format.h): each instruction QEMU starts, with the
 * xPSR before it, the operand registers some instructions need, and every memory
 * access. The recorder turns that into instructions that retired:
 *
 *   - condition: IT blocks are followed from the IT opcodes (QEMU does not show
 *     the IT bits to plugins), saved and restored across exceptions; an
 *     instruction's condition is evaluated on the NZCV flags before it; B<c>
 *     on its own condition, CBZ/CBNZ on the register;
 *   - flow: where each instruction sends the PC (direct targets from the
 *     opcode, indirect ones from the register or the loaded value), checked
 *     against the next instruction QEMU ran;
 *   - exceptions: an entry where the IPSR changes or the PC goes elsewhere than
 *     the instruction said (checked: the PC is the vector table's handler), a
 *     return or a tail-chain after an instruction that loads an EXC_RETURN value
 *     into the PC (checked: the PC is the stacked return address, or the new
 *     handler); SVC forces an entry;
 *   - an instruction QEMU abandons before its device access and starts again
 *     (-icount) is dropped: a load or store that passed its condition but made
 *     no access.
 * Any inconsistency stops the conversion with a message naming the raw
 * record, its byte offset and the address.
 */
#ifndef QREC_H
#define QREC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etm/cm3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Program image from an ELF file ----------------------------------------- */

#define QREC_MAX_SEGMENTS 8

typedef struct qrec_segment {
    uint32_t addr;
    uint32_t size;
    uint8_t *bytes;
    int exec;
} qrec_segment_t;

typedef struct qrec_image {
    qrec_segment_t seg[QREC_MAX_SEGMENTS];
    unsigned nseg;
    uint32_t entry;
} qrec_image_t;

/* Load the PT_LOAD segments of a 32-bit little-endian ARM ELF executable at their
 * load addresses. Returns 0, or -1 with a message naming the file and the offset. */
int qrec_image_load(qrec_image_t *img, const char *path, char *err, size_t errlen);
void qrec_image_free(qrec_image_t *img);

/* Bytes of executable segments at addr: returns how many were copied (0 if none). */
int qrec_image_read(const qrec_image_t *img, uint32_t addr, uint8_t *buf, unsigned n);

/* Write an executable segment's bytes to a binary file (for OpenCSD snapshots and
 * `etm decode --image`); which: index among executable segments. Returns its
 * address in *addr, 0 on success, -1 if there is no such segment or on I/O error. */
int qrec_image_write_exec(const qrec_image_t *img, unsigned which, const char *path, uint32_t *addr);

/* ---- The converter --------------------------------------------------------------- */

typedef struct qrec_stats {
    uint64_t raw_insns, raw_mems;     /* records read */
    uint64_t insns;                   /* instructions that retired */
    uint64_t failed;                  /* ... that failed their condition */
    uint64_t in_it;                   /* ... inside IT blocks */
    uint64_t taken;                   /* PC changes */
    uint64_t restarts;                /* starts QEMU abandoned (device access under -icount) */
    uint64_t entries, sync_entries, returns, tail_chains;
    uint64_t preemptions;             /* entries while a handler was running (nesting) */
    unsigned max_depth;               /* deepest nesting */
    uint64_t mems, io_mems;           /* memory accesses, of which to devices */
    uint64_t exc_count[512];          /* entries and tail-chains per exception number */
} qrec_stats_t;

typedef struct qrec qrec_t;

/* Instructions after which a program that has not exited is taken to hang. */
#define QREC_DEFAULT_MAX_INSNS 100000000ull
/* Seconds a run of QEMU may take in all, and without executing anything. */
#define QREC_DEFAULT_TIMEOUT_S 900u
#define QREC_DEFAULT_IDLE_S 20u

/* A converter reading the raw stream f (not closed by qrec_free). name is used in
 * messages. img: the program (for the vector table and opcode checks). */
qrec_t *qrec_create(FILE *f, const char *name, const qrec_image_t *img);

/* Stop with an error after max instructions (default QREC_DEFAULT_MAX_INSNS). */
void qrec_set_max_insns(qrec_t *q, uint64_t max);

/* Time limits of a live stream, as errors that say what the program was doing:
 * timeout_s of wall-clock time in all, idle_s without a byte (a core asleep in
 * WFI with nothing to wake it executes nothing); 0 turns a limit off.
 * stop_after: qrec_next ends (returns 0) after that many instructions, whether
 * or not the program has exited, or earlier when the core sleeps for idle_s
 * (firmware asleep for good: qrec_asleep); 0 reads to the program's end. */
void qrec_set_limits(qrec_t *q, unsigned timeout_s, unsigned idle_s, uint64_t stop_after);

/* 1 when qrec_next ended because of stop_after. */
int qrec_stopped(const qrec_t *q);
/* With stop_after: whether the recording ended because the core slept (nothing
 * executed for the idle limit) before stop_after instructions; *pc the last
 * instruction's address (its WFI or WFE). */
int qrec_asleep(const qrec_t *q, uint32_t *pc);
void qrec_free(qrec_t *q);

/* The next instruction: 1 with *out filled, 0 at the end of the program, -1 on
 * error (qrec_error says what and where). */
int qrec_next(qrec_t *q, etm_cm3_insn_t *out);

const char *qrec_error(const qrec_t *q);
const qrec_stats_t *qrec_get_stats(const qrec_t *q);

/* ---- Running QEMU ---------------------------------------------------------------- */

typedef struct qrec_run {
    int pid;
    FILE *f;          /* the plugin's stream */
    char log[512];    /* QEMU's standard error goes here */
} qrec_run_t;

typedef struct qrec_qemu_opts {
    const char *qemu;     /* executable; NULL: "qemu-system-arm" on PATH */
    const char *plugin;   /* path of libetmtrace.so */
    const char *machine;  /* NULL: lm3s6965evb */
    unsigned icount_shift; /* -icount shift=N,sleep=off */
    const char *log_path; /* QEMU's standard error (NULL: /dev/null) */
    int stock_log;        /* no plugin: QEMU's own log (-d exec,nochain,int) goes into the pipe */
} qrec_qemu_opts_t;

/* Start QEMU on elf with the plugin writing into a pipe (or, with stock_log, its
 * own -d exec,nochain,int log); r->f reads it. Returns 0 or -1 with a message. */
int qrec_qemu_start(qrec_run_t *r, const qrec_qemu_opts_t *o, const char *elf, char *err, size_t errlen);

/* Wait for QEMU; returns its exit status (0-255), or -1 if it did not exit
 * normally (message in err). Closes r->f. */
int qrec_qemu_wait(qrec_run_t *r, char *err, size_t errlen);

/* ---- A program's instructions, from QEMU or from a saved stream ------------------ */

typedef struct qrec_source_opts {
    const char *workload_dir; /* where NAME.elf of a program given by name is */
    const char *raw;          /* read this saved stream instead of running QEMU */
    uint64_t max_insns;       /* 0: QREC_DEFAULT_MAX_INSNS */
    unsigned timeout_s;       /* 0: QREC_DEFAULT_TIMEOUT_S (qrec_set_limits) */
    unsigned idle_s;          /* 0: QREC_DEFAULT_IDLE_S */
    uint64_t stop_after;      /* 0: to the program's end */
    qrec_qemu_opts_t qemu;
} qrec_source_opts_t;

typedef struct qrec_source {
    char elf[1024];
    qrec_image_t img;
    qrec_run_t run;
    FILE *raw;
    qrec_t *q;
} qrec_source_t;

/* Open a program (a name of the workload folder, or the path of an ELF file):
 * load its image and start QEMU (or open the saved stream). Returns 0 or -1. */
int qrec_source_open(qrec_source_t *s, const qrec_source_opts_t *o, const char *program, char *err, size_t errlen);

/* Close it: returns QEMU's exit status (the program's verdict: 0 passed), or -1
 * with a message. After a conversion error QEMU is stopped rather than waited for;
 * after stop_after too, and that returns 0. */
int qrec_source_close(qrec_source_t *s, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
