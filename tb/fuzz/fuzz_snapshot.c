/* fuzz_snapshot.c - OpenCSD snapshot folders (etm/snapshot.h). The input is a
 * folder packed as text: each file starts with a line "=== NAME" (NAME of
 * letters, digits, '.', '_' and '-'), its content follows up to the next such
 * line. The harness writes the folder to a scratch directory, loads it as
 * `etm decode --snapshot` does, for the folder's only ETM and for trace ID 0x10,
 * and decodes the first bytes of a trace buffer it names through the deformatter
 * where the buffer says it is formatted. */
#include "fuzz.h"

#include <dirent.h>
#include <unistd.h>

#include "etm/coresight.h"
#include "etm/decode_v3.h"
#include "etm/snapshot.h"
#include "readfile.h"

#define MAX_FILES 12
#define MAX_TRACE 2048

static char scratch[64];

static void clear_scratch(void)
{
    DIR *d = opendir(scratch);
    if (!d)
        return;
    struct dirent *e;
    char path[sizeof scratch + 260];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static int make_scratch(void)
{
    if (scratch[0])
        return 1;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/etm-fuzz-snapshot-XXXXXX", base);
    if (!mkdtemp(scratch)) {
        scratch[0] = '\0';
        return 0;
    }
    return 1;
}

/* Write the packed files; returns how many. */
static unsigned unpack(const uint8_t *data, size_t size)
{
    unsigned files = 0;
    size_t i = 0;
    while (i < size && files < MAX_FILES) {
        /* at a line "=== NAME" */
        if (size - i < 5 || memcmp(data + i, "=== ", 4) != 0) {
            const uint8_t *nl = memchr(data + i, '\n', size - i);
            if (!nl)
                break;
            i = (size_t)(nl - data) + 1;
            continue;
        }
        i += 4;
        char name[40];
        size_t k = 0;
        while (i < size && data[i] != '\n') {
            char c = (char)data[i++];
            int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                     c == '_' || c == '-';
            if (ok && k < sizeof name - 1)
                name[k++] = c;
        }
        name[k] = '\0';
        if (i < size)
            i++;
        size_t start = i, end = i;
        for (;;) { /* the content runs to the next "\n=== " or the end */
            const uint8_t *nl = memchr(data + end, '\n', size - end);
            if (!nl) {
                end = size;
                break;
            }
            end = (size_t)(nl - data) + 1;
            if (size - end >= 4 && memcmp(data + end, "=== ", 4) == 0)
                break;
        }
        i = end;
        if (!k || name[0] == '.')
            continue;
        char path[sizeof scratch + sizeof name + 2];
        snprintf(path, sizeof path, "%s/%s", scratch, name);
        FILE *f = fopen(path, "wb");
        if (!f)
            continue;
        fwrite(data + start, 1, end - start, f);
        fclose(f);
        files++;
    }
    return files;
}

typedef struct sink {
    etm_v3dec_t *dec;
    unsigned id;
} sink_t;

static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    sink_t *s = (sink_t *)user;
    (void)offset;
    etm_diag_t diag;
    if (id == s->id && s->dec)
        etm_v3dec_feed(s->dec, data, n, NULL, &diag);
}

static void decode(const etm_config_t *cfg, etm_image_t *im, const char *trace, int formatted)
{
    uint8_t *buf;
    size_t n;
    char err[600];
    if (readfile(trace, &buf, &n, err, sizeof err) != 0)
        return; /* the folder names a trace it does not hold */
    if (n > MAX_TRACE)
        n = MAX_TRACE;
    etm_diag_t diag;
    sink_t s = { NULL, cfg->etmtraceidr & 0x7f };
    if (etm_v3dec_create(&s.dec, cfg, ETM_V3DEC_V7M, &diag) != ETM_OK) {
        free(buf);
        return;
    }
    etm_v3dec_set_image(s.dec, etm_image_read, im);
    if (formatted) {
        etm_cs_deformatter_t *cs;
        if (etm_cs_create(&cs, 0, on_data, &s) == ETM_OK) {
            etm_cs_feed(cs, buf, n, &diag);
            etm_cs_end(cs, &diag);
            etm_cs_destroy(cs);
        }
    } else {
        etm_v3dec_feed(s.dec, buf, n, NULL, &diag);
    }
    etm_v3dec_end(s.dec, &diag);
    etm_v3dec_destroy(s.dec);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!make_scratch())
        return 0;
    clear_scratch();
    unpack(data, size);
    /* the folder's only ETM, or (when it holds several) the one with trace ID 0x10 */
    static const unsigned ids[] = { 0, 0x10 };
    for (unsigned k = 0; k < 2; k++) {
        etm_config_t cfg;
        etm_image_t im;
        memset(&im, 0, sizeof im);
        char trace[512];
        int formatted = 0;
        etm_diag_t diag;
        etm_err_t e = etm_snapshot_load(scratch, ids[k], &cfg, &im, trace, sizeof trace, &formatted, &diag);
        if (e == ETM_OK) {
            if (etm_config_validate(&cfg, &diag, NULL) != ETM_OK) {
                fprintf(stderr, "fuzz: %s\n", diag.msg);
                fuzz_fail("a loaded snapshot's configuration does not validate");
            }
            decode(&cfg, &im, trace, formatted);
        } else if (!diag.msg[0]) {
            fuzz_fail("an error without a message");
        }
        etm_image_free(&im);
        if (e != ETM_ERR_ARG) /* ETM_ERR_ARG: several ETMs, choose one */
            break;
    }
    clear_scratch();
    return 0;
}
