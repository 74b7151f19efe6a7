/* number.c - whole numbers as a user types them (etm/number.h). */
#include "etm/number.h"

#include <stdio.h>

#include "util.h"

/* "0 to 100", "1 to 2^64-1", "0x10 to 0xFFFF" is not attempted: decimal. */
static void range_text(uint64_t min, uint64_t max, char *buf, size_t size)
{
    if (max == UINT64_MAX)
        snprintf(buf, size, "%llu to 2^64-1", (unsigned long long)min);
    else if (min == max)
        snprintf(buf, size, "%llu", (unsigned long long)min);
    else
        snprintf(buf, size, "%llu to %llu", (unsigned long long)min, (unsigned long long)max);
}

etm_err_t etm_number_parse(const char *s, uint64_t min, uint64_t max, uint64_t *out, etm_diag_t *diag)
{
    char range[64];
    range_text(min, max, range, sizeof range);
    if (!s || !*s)
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "'' is no number: a whole number from %s is needed", range);
    const char *p = s;
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (s[0] == '-' || s[0] == '+')
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "'%.40s' has a sign: a whole number from %s is needed", s,
                             range);
    if (!*p)
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "'%.40s' is no number: a whole number from %s is needed", s,
                             range);
    uint64_t v = 0;
    int over = 0;
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return etm_util_fail(diag, ETM_ERR_BAD_NUMBER,
                                 "'%.40s' is no number (at '%c'): a whole number from %s is needed, decimal or 0x "
                                 "hex", s, *p, range);
        if (v > (UINT64_MAX - d) / base)
            over = 1;
        else
            v = v * base + d;
    }
    if (over)
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "'%.40s' is above 2^64-1: a whole number from %s is needed", s,
                             range);
    if (v < min || v > max)
        return etm_util_fail(diag, ETM_ERR_ARG, "'%.40s' is out of range: %s", s, range);
    *out = v;
    return ETM_OK;
}

etm_err_t etm_number_parse_u32(const char *s, uint32_t min, uint32_t max, unsigned *out, etm_diag_t *diag)
{
    uint64_t v = 0;
    etm_err_t e = etm_number_parse(s, min, max, &v, diag);
    if (e == ETM_OK)
        *out = (unsigned)v;
    return e;
}
