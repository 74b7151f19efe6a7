/* util.c - small text helpers shared by the library's readers. */
#include "util.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

int etm_util_strcaseeq(const char *a, const char *b)
{
    while (*a && *b && lower((unsigned char)*a) == lower((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

int etm_util_strncaseeq(const char *z, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (z[i] == '\0' || lower((unsigned char)z[i]) != lower((unsigned char)s[i]))
            return 0;
    }
    return z[n] == '\0';
}

int etm_util_parse_hex(const char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    int overflow = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        if (x >> 60)
            overflow = 1;
        x = (x << 4) | (uint64_t)d;
    }
    *v = x;
    return overflow ? -2 : 0;
}

int etm_util_parse_dec(const char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    int overflow = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c < '0' || c > '9')
            return -1;
        if (x > (UINT64_MAX - (uint64_t)(c - '0')) / 10)
            overflow = 1;
        x = x * 10 + (uint64_t)(c - '0');
    }
    *v = x;
    return overflow ? -2 : 0;
}

etm_err_t etm_util_fail(etm_diag_t *diag, etm_err_t code, const char *fmt, ...)
{
    if (diag) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
        va_end(ap);
        diag->code = code;
    }
    return code;
}

#include <string.h>

etm_err_t etm_lr_next(etm_linereader_t *lr, etm_diag_t *diag)
{
    if (!fgets(lr->buf, sizeof lr->buf, lr->f)) {
        if (ferror(lr->f))
            return etm_util_fail(diag, ETM_ERR_IO, "read error after line %lu: %s", lr->line, strerror(errno));
        return ETM_END;
    }
    lr->line++;
    if (lr->line == 1 && (unsigned char)lr->buf[0] == 0xEF && (unsigned char)lr->buf[1] == 0xBB &&
        (unsigned char)lr->buf[2] == 0xBF)
        return etm_util_fail(diag, ETM_ERR_SYNTAX,
                             "the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which no text read "
                             "here has: save it without one");
    size_t n = strlen(lr->buf);
    if (n == sizeof lr->buf - 1 && lr->buf[n - 1] != '\n' && !feof(lr->f))
        return etm_util_fail(diag, ETM_ERR_TOO_LONG, "line longer than %d characters", ETM_LINE_MAX - 2);
    /* fgets stops only at a newline, a full buffer or the end of the file; a
     * shorter string without its newline was cut by a NUL byte (not text). */
    if ((n == 0 || (lr->buf[n - 1] != '\n' && n < sizeof lr->buf - 1)) && !feof(lr->f))
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "a NUL byte in the line (not a text file?)");
    while (n > 0 && (lr->buf[n - 1] == '\n' || lr->buf[n - 1] == '\r'))
        lr->buf[--n] = '\0';
    return ETM_OK;
}

FILE *etm_open_read(const char *path, const char *what, etm_diag_t *diag)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        etm_util_fail(diag, ETM_ERR_IO, "%s: is a directory, not a file", what);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        etm_util_fail(diag, ETM_ERR_IO, "%s: %s", what, strerror(errno));
    return f;
}
