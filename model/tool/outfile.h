/* outfile.h - how the tool writes a file it is asked to write: never over one
 * of its inputs (the same file by device and inode: the same path, ./path, a
 * symbolic link, a hard link), and never half of one: the bytes go to a
 * temporary file beside the destination, renamed over it only when complete,
 * so an error or a kill leaves the old file or none (and, after a kill, the
 * temporary, named .NAME.etm-XXXXXX). "-" is standard output, written as it
 * comes, and so is a destination that is not a regular file (a device such
 * as /dev/null, a FIFO: renaming over it would replace the node). A
 * destination that is a symbolic link is replaced where it points.
 * An FST destination is written as VCD text into an unnamed temporary file
 * and converted at the end (etm/vcd.h), into the temporary beside it. */
#ifndef ETM_TOOL_OUTFILE_H
#define ETM_TOOL_OUTFILE_H

#include <limits.h>
#include <stdio.h>

typedef struct outfile {
    FILE *f;                /* where the caller writes */
    char dest[4096];        /* the destination, a link resolved */
    char tmp[4096 + 32];    /* the temporary beside it ("" for standard output) */
    int fst;                /* f holds VCD text for an FST destination */
    int special;            /* a device or FIFO, written in place */
    const char *shown;      /* the destination as the user named it, for messages */
} outfile_t;

/* Open path for writing by `etm cmd`, refusing it when it is one of inputs
 * (NULL-terminated, NULLs inside skipped). Returns 0, or 2 printed ("etm
 * CMD: PATH: why"); o->f NULL then. */
int outfile_open(outfile_t *o, const char *cmd, const char *path, const char *const *inputs);

/* The bytes are complete: the file is closed and renamed into place. Returns
 * 0, or 2 printed (the temporary removed, the old file left). */
int outfile_commit(outfile_t *o, const char *cmd);

/* Something failed: the temporary removed, the old file left. */
void outfile_discard(outfile_t *o);

/* Finish o as the command came out: ok, committed (0, or 2 printed); else
 * discarded (0). A file never opened is left alone (0). */
int outfile_finish(outfile_t *o, int ok, const char *cmd);

/* Refuse path, before any input is read, when it names the same file as one
 * of inputs (NULL-terminated): 2 printed as outfile_open prints it, else 0. */
int outfile_refuse(const char *cmd, const char *path, const char *const *inputs);

#endif
