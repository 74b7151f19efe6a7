/* util.h - small text helpers shared by the library's readers (internal). */
#ifndef ETM_UTIL_H
#define ETM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etm/error.h"

/* Case-insensitive equality of two NUL-terminated strings. */
int etm_util_strcaseeq(const char *a, const char *b);

/* Case-insensitive equality of a NUL-terminated string and the n bytes at s. */
int etm_util_strncaseeq(const char *z, const char *s, size_t n);

/* Parse n hex digits at s (no prefix) into *v. Returns 0 on success, -1 when a
 * character is not a hex digit or n is 0, -2 when the value needs more than 64 bits. */
int etm_util_parse_hex(const char *s, size_t n, uint64_t *v);

/* Parse n decimal digits at s into *v; same returns as etm_util_parse_hex. */
int etm_util_parse_dec(const char *s, size_t n, uint64_t *v);

/* Fill diag with a code and a printf-style message; returns code. */
etm_err_t etm_util_fail(etm_diag_t *diag, etm_err_t code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Is c a blank (space, tab, CR)? */
static inline int etm_util_isblank(int c) { return c == ' ' || c == '\t' || c == '\r'; }

/* ---- Line reader ----------------------------------------------------------- */

#define ETM_LINE_MAX 8192

typedef struct etm_linereader {
    FILE *f;
    unsigned long line;      /* number of the line last returned, 1-based */
    char buf[ETM_LINE_MAX];
} etm_linereader_t;

/* Next line without its end-of-line characters, in lr->buf.
 * Returns ETM_OK, ETM_END, ETM_ERR_TOO_LONG or ETM_ERR_IO (diag->msg set). */
etm_err_t etm_lr_next(etm_linereader_t *lr, etm_diag_t *diag);
#endif
