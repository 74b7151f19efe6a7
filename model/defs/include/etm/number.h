/* etm/number.h - whole numbers as a user types them: on the command line of
 * the tool and the benches, in the bindings. One parser, so that no option
 * clips, wraps or takes a sign: decimal digits, or 0x and hex digits; no sign,
 * no blanks, no suffix; the value within [min, max] or refused, the message
 * saying why and giving the range.
 */
#ifndef ETM_NUMBER_H
#define ETM_NUMBER_H

#include <stdint.h>

#include "etm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* s as a whole number within [min, max] into *out. Returns ETM_OK, or
 * ETM_ERR_BAD_NUMBER (not a number: empty, a sign, another character; or
 * above 2^64 - 1) or ETM_ERR_ARG (a number out of the range), *out untouched
 * and diag saying "'S' is ..." with the range; the caller puts the option's
 * name in front. */
etm_err_t etm_number_parse(const char *s, uint64_t min, uint64_t max, uint64_t *out, etm_diag_t *diag);

/* The same for an unsigned int field: max at most UINT32_MAX. */
etm_err_t etm_number_parse_u32(const char *s, uint32_t min, uint32_t max, unsigned *out, etm_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
