/* etm/error.h - the one list of error codes of libetm, and where an error happened.
 *
 * Every library call that can fail returns an etm_err_t. The list below is the
 * only place codes are defined; the enum and etm_strerror() are generated from it.
 * The library never prints and never aborts: details of an error (file, line,
 * cycle, byte offset and a sentence saying which rule was broken) go into an
 * etm_diag_t supplied by the caller.
 */
#ifndef ETM_ERROR_H
#define ETM_ERROR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(code, text) */
#define ETM_ERROR_LIST(X)                                                                \
    X(ETM_OK, "success")                                                                 \
    X(ETM_END, "end of input")                                                           \
    X(ETM_ERR_ARG, "invalid argument")                                                   \
    X(ETM_ERR_NOMEM, "out of memory")                                                    \
    X(ETM_ERR_IO, "cannot read or write file")                                           \
    X(ETM_ERR_SYNTAX, "syntax error")                                                    \
    X(ETM_ERR_BAD_NUMBER, "malformed number")                                            \
    X(ETM_ERR_FIELD_WIDTH, "value wider than its field")                                 \
    X(ETM_ERR_UNKNOWN_NAME, "unknown name")                                              \
    X(ETM_ERR_DUPLICATE, "name given twice")                                             \
    X(ETM_ERR_RESERVED_BITS, "bits set that the chosen ETM version does not have")       \
    X(ETM_ERR_UNSUPPORTED, "configuration not supported by the model")                   \
    X(ETM_ERR_MISSING_HEADER, "missing header")                                          \
    X(ETM_ERR_FORMAT_VERSION, "unsupported file format version")                         \
    X(ETM_ERR_TRUNCATED, "truncated line")                                               \
    X(ETM_ERR_TOO_LONG, "line too long")                                                 \
    X(ETM_ERR_VCD_SIGNAL, "VCD signal missing or unusable")                              \
    X(ETM_ERR_VCD_VALUE, "VCD value unknown (x or z) where it is sampled")               \
    X(ETM_ERR_MISMATCH, "headers of related files disagree")                             \
    X(ETM_ERR_RULE, "interface rule violated")                                           \
    X(ETM_ERR_STATE, "call not allowed in this state")                                   \
    X(ETM_ERR_DECODE, "trace stream malformed")                                          \
    X(ETM_ERR_INTERNAL, "a model invariant was broken (an internal error: please report it)")

typedef enum etm_err {
#define ETM_X_ENUM(code, text) code,
    ETM_ERROR_LIST(ETM_X_ENUM)
#undef ETM_X_ENUM
    ETM_ERR_COUNT /* sentinel: number of codes */
} etm_err_t;

/* Short fixed text of an error code; never NULL (unknown codes give "unknown error"). */
const char *etm_strerror(etm_err_t err);

/* Symbolic name of an error code ("ETM_ERR_SYNTAX"); never NULL. */
const char *etm_errname(etm_err_t err);

/* Where and why. Fields that do not apply are left at their "unknown" values:
 * file NULL, line 0, cycle and offset UINT64_MAX. */
typedef struct etm_diag {
    const char *file;   /* file name as given by the caller (not copied) */
    unsigned long line; /* 1-based line number in that file, 0 if none */
    uint64_t cycle;     /* 0-based cycle number, UINT64_MAX if none */
    uint64_t offset;    /* byte offset in a binary stream, UINT64_MAX if none */
    etm_err_t code;
    char msg[256];      /* one sentence naming the rule that was broken */
} etm_diag_t;

/* Reset a diagnostic to "no error, location unknown". */
void etm_diag_clear(etm_diag_t *d);

/* sizeof(etm_diag_t), for bindings that mirror it. */
size_t etm_diag_size(void);

/* Formats "file:line: message" (or "cycle N: message", or "offset N: message",
 * whichever location fields are known) into buf; returns buf. */
char *etm_diag_format(const etm_diag_t *d, char *buf, size_t size);

/* path opened for reading (binary), or NULL with the reason in diag: "WHAT:
 * SYSTEM ERROR TEXT" (No such file or directory, Permission denied, ...), or
 * "WHAT: is a directory, not a file" (which fopen opens and no read can use). */
FILE *etm_open_read(const char *path, const char *what, etm_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
