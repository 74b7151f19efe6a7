/* test.h - the few assertion helpers the C test programs share. Each failed
 * check prints file:line and what differed; main returns test_report(). */
#ifndef ETM_TB_TEST_H
#define ETM_TB_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        test_checks++;                                                                 \
        if (!(cond)) {                                                                 \
            test_failures++;                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)

#define CHECK_EQ(a, b)                                                                 \
    do {                                                                               \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                               \
        test_checks++;                                                                 \
        if (a_ != b_) {                                                                \
            test_failures++;                                                           \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = 0x%" PRIx64 ", %s = 0x%" PRIx64 "\n", \
                    __FILE__, __LINE__, #a, a_, #b, b_);                               \
        }                                                                              \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                \
    do {                                                                               \
        const char *h_ = (hay), *n_ = (needle);                                        \
        test_checks++;                                                                 \
        if (!h_ || !strstr(h_, n_)) {                                                  \
            test_failures++;                                                           \
            fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, \
                    h_ ? h_ : "(null)", n_);                                           \
        }                                                                              \
    } while (0)

static inline int test_report(const char *name)
{
    if (test_failures)
        fprintf(stderr, "%s: %d of %d checks failed\n", name, test_failures, test_checks);
    else
        printf("%s: all %d checks passed\n", name, test_checks);
    return test_failures ? 1 : 0;
}

/* xorshift64*: reproducible pseudo-random numbers for tests. */
typedef struct test_rng { uint64_t s; } test_rng_t;
static inline uint64_t test_rand(test_rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

#endif
