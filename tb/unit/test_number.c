/* test_number.c - the one parser of whole numbers (etm/number.h) that the
 * tool, the benches and the bindings use: every edge of 2^64, decimal and
 * hex, the range's ends, and what is no number (a sign, blanks, a suffix, an
 * empty string, a bare 0x), each refused with the range in the message and
 * the output left alone. */
#include <string.h>

#include "etm/number.h"
#include "test.h"

static void ok(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
    uint64_t v = 12345;
    etm_diag_t d;
    CHECK_EQ(etm_number_parse(s, min, max, &v, &d), ETM_OK);
    CHECK_EQ(v, want);
}

static void bad(const char *s, uint64_t min, uint64_t max, etm_err_t code, const char *says)
{
    uint64_t v = 12345;
    etm_diag_t d;
    memset(&d, 0, sizeof d);
    CHECK_EQ(etm_number_parse(s, min, max, &v, &d), code);
    CHECK_EQ(v, 12345);
    if (!strstr(d.msg, says))
        fprintf(stderr, "'%s': message '%s' lacks '%s'\n", s, d.msg, says);
    CHECK(strstr(d.msg, says) != NULL);
}

int main(void)
{
    ok("0", 0, UINT64_MAX, 0);
    ok("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
    ok("0xFFFFFFFFFFFFFFFF", 0, UINT64_MAX, UINT64_MAX);
    ok("0x10", 0, 100, 16);
    ok("007", 0, 100, 7);
    ok("16", 16, 511, 16);
    ok("511", 16, 511, 511);
    bad("18446744073709551616", 0, UINT64_MAX, ETM_ERR_BAD_NUMBER, "above 2^64-1");
    bad("18446744073709551617", 0, UINT64_MAX, ETM_ERR_BAD_NUMBER, "above 2^64-1");
    bad("0x10000000000000000", 0, UINT64_MAX, ETM_ERR_BAD_NUMBER, "above 2^64-1");
    bad("99999999999999999999999", 0, UINT64_MAX, ETM_ERR_BAD_NUMBER, "above 2^64-1");
    bad("-5", 0, UINT64_MAX, ETM_ERR_BAD_NUMBER, "has a sign");
    bad("-0", 0, UINT64_MAX, ETM_ERR_BAD_NUMBER, "has a sign");
    bad("+1", 0, UINT64_MAX, ETM_ERR_BAD_NUMBER, "has a sign");
    bad("", 0, 10, ETM_ERR_BAD_NUMBER, "from 0 to 10");
    bad(NULL, 0, 10, ETM_ERR_BAD_NUMBER, "from 0 to 10");
    bad("0x", 0, 10, ETM_ERR_BAD_NUMBER, "no number");
    bad(" 1", 0, 10, ETM_ERR_BAD_NUMBER, "no number");
    bad("1 ", 0, 10, ETM_ERR_BAD_NUMBER, "no number");
    bad("1e3", 0, 10000, ETM_ERR_BAD_NUMBER, "no number");
    bad("12k", 0, 100000, ETM_ERR_BAD_NUMBER, "no number");
    bad("0x1g", 0, 100, ETM_ERR_BAD_NUMBER, "no number");
    bad("15", 16, 511, ETM_ERR_ARG, "out of range: 16 to 511");
    bad("512", 16, 511, ETM_ERR_ARG, "out of range: 16 to 511");
    bad("4294967296", 0, UINT32_MAX, ETM_ERR_ARG, "out of range: 0 to 4294967295");
    bad("0", 1, UINT64_MAX, ETM_ERR_ARG, "1 to 2^64-1");
    unsigned u = 7;
    etm_diag_t d;
    CHECK_EQ(etm_number_parse_u32("4294967298", 1, 2, &u, &d), ETM_ERR_ARG);
    CHECK_EQ(u, 7);
    CHECK_EQ(etm_number_parse_u32("2", 1, 2, &u, &d), ETM_OK);
    CHECK_EQ(u, 2);
    return test_report("test_number");
}
