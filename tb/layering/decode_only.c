/* decode_only.c - built from the decoder library alone (etm_decode, which
 * brings the definitions, the register image and the Thumb-2 decoder, nothing
 * of the ETM core): if a decoder reached for an encoder symbol, this program
 * would not link and the build would fail. It decodes the loop example of
 * tb/data/decode (OpenCSD's ETMv3 Thumb test: a loop that runs three times, an
 * indirect branch, a branch to itself) and checks the instruction flow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/config.h"
#include "etm/decode_v3.h"
#include "readfile.h"
#include "test.h"

typedef struct flow {
    uint32_t addr[32];
    uint8_t exec[32];
    unsigned n;
} flow_t;

static void on_element(void *user, const etm_v3el_t *e)
{
    flow_t *f = (flow_t *)user;
    if (e->kind == ETM_V3EL_INSN && f->n < 32) {
        f->addr[f->n] = e->addr;
        f->exec[f->n] = (uint8_t)e->executed;
        f->n++;
    }
}

typedef struct image {
    uint8_t *b;
    size_t n;
} image_t;

static int read_image(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const image_t *im = (const image_t *)user;
    unsigned k = 0;
    for (; k < n && addr >= 0x100 && addr - 0x100 + k < im->n; k++)
        buf[k] = im->b[addr - 0x100 + k];
    return (int)k;
}

/* The file DIR/name into *b (NULL when it cannot be read, which is reported). */
static size_t load(const char *dir, const char *name, uint8_t **b)
{
    char path[1024], err[1200];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (readfile(path, b, &n, err, sizeof err) != 0)
        fprintf(stderr, "decode_only: %s\n", err);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: decode_only DIR   (DIR: tb/data/decode)\n");
        return 2;
    }
    image_t im;
    uint8_t *trace;
    size_t nt = load(argv[1], "loop.bin", &trace);
    im.n = load(argv[1], "loop_code.bin", &im.b);
    CHECK(trace && im.b && nt > 0 && im.n > 0);
    if (!trace || !im.b) {
        free(trace);
        free(im.b);
        return test_report("decode_only");
    }

    etm_config_t cfg;
    CHECK_EQ(etm_config_preset(&cfg, "etmv3.4"), ETM_OK);
    etm_diag_t diag;
    etm_v3dec_t *d = NULL;
    CHECK_EQ(etm_v3dec_create(&d, &cfg, 0, &diag), ETM_OK);
    if (!d) {
        free(trace);
        free(im.b);
        return test_report("decode_only");
    }
    flow_t flow = { { 0 }, { 0 }, 0 };
    etm_v3dec_on_element(d, on_element, &flow);
    etm_v3dec_set_image(d, read_image, &im);
    CHECK_EQ(etm_v3dec_feed(d, trace, nt, NULL, &diag), ETM_OK);
    CHECK_EQ(etm_v3dec_end(d, &diag), ETM_OK);
    etm_v3dec_destroy(d);
    free(trace);
    free(im.b);

    /* The loop body 0x102-0x106 runs three times, its branch is not taken the
     * third time; BX LR goes to 0x200, which branches to itself. */
    static const uint32_t want[] = { 0x100, 0x102, 0x104, 0x106, 0x102, 0x104, 0x106, 0x102, 0x104, 0x106,
                                     0x108, 0x200, 0x200, 0x200, 0x202, 0x204 };
    static const uint8_t want_exec[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1 };
    CHECK_EQ(flow.n, sizeof want / sizeof want[0]);
    for (unsigned i = 0; i < flow.n && i < sizeof want / sizeof want[0]; i++) {
        CHECK_EQ(flow.addr[i], want[i]);
        CHECK_EQ(flow.exec[i], want_exec[i]);
    }
    return test_report("decode_only");
}
