/* error.c - texts of the error list and formatting of diagnostics. */
#include "etm/error.h"

#include <stdio.h>
#include <string.h>

static const char *const error_texts[ETM_ERR_COUNT] = {
#define ETM_X_TEXT(code, text) text,
    ETM_ERROR_LIST(ETM_X_TEXT)
#undef ETM_X_TEXT
};

static const char *const error_names[ETM_ERR_COUNT] = {
#define ETM_X_NAME(code, text) #code,
    ETM_ERROR_LIST(ETM_X_NAME)
#undef ETM_X_NAME
};

const char *etm_strerror(etm_err_t err)
{
    if ((unsigned)err >= (unsigned)ETM_ERR_COUNT)
        return "unknown error";
    return error_texts[err];
}

const char *etm_errname(etm_err_t err)
{
    if ((unsigned)err >= (unsigned)ETM_ERR_COUNT)
        return "ETM_ERR_UNKNOWN";
    return error_names[err];
}

size_t etm_diag_size(void) { return sizeof(etm_diag_t); }

void etm_diag_clear(etm_diag_t *d)
{
    if (!d)
        return;
    d->file = NULL;
    d->line = 0;
    d->cycle = UINT64_MAX;
    d->offset = UINT64_MAX;
    d->code = ETM_OK;
    d->msg[0] = '\0';
}

char *etm_diag_format(const etm_diag_t *d, char *buf, size_t size)
{
    size_t n = 0;
    if (!buf || size == 0)
        return buf;
    buf[0] = '\0';
    if (!d)
        return buf;
#define ETM_APPEND(...)                                                      \
    do {                                                                     \
        if (n < size) {                                                      \
            int k_ = snprintf(buf + n, size - n, __VA_ARGS__);               \
            if (k_ > 0)                                                      \
                n += (size_t)k_;                                             \
        }                                                                    \
    } while (0)
    if (d->file)
        ETM_APPEND("%s:", d->file);
    if (d->line)
        ETM_APPEND("%lu:", d->line);
    if (d->cycle != UINT64_MAX)
        ETM_APPEND(" cycle %llu:", (unsigned long long)d->cycle);
    if (d->offset != UINT64_MAX)
        ETM_APPEND(" byte offset %llu:", (unsigned long long)d->offset);
    if (n)
        ETM_APPEND(" ");
    ETM_APPEND("%s", d->msg[0] ? d->msg : etm_strerror(d->code));
#undef ETM_APPEND
    return buf;
}
