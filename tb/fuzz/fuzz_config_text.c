/* fuzz_config_text.c - register-image text (etm/config_text.h): any bytes read
 * as a register image. What it accepts must validate, write back as text and
 * read back to the same registers; what it refuses must be named with a line. */
#include "fuzz.h"

#include "etm/config_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_memfile(data, size);
    if (!f)
        return 0;
    etm_config_t cfg;
    etm_diag_t diag;
    etm_err_t e = etm_config_read_stream(&cfg, f, "fuzz.cfg", &diag);
    fclose(f);
    if (e != ETM_OK) {
        if (!diag.msg[0] || !diag.file)
            fuzz_fail("an error without a message or a file name");
        return 0;
    }
    if (etm_config_validate(&cfg, NULL, NULL) != ETM_OK)
        fuzz_fail("an accepted image does not validate");
    char *text = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&text, &len);
    if (!w)
        return 0;
    if (etm_config_write(&cfg, w, NULL) != ETM_OK)
        fuzz_fail("an accepted image cannot be written");
    fclose(w);
    FILE *back = fuzz_memfile((const uint8_t *)text, len);
    etm_config_t again;
    if (!back) {
        free(text);
        return 0;
    }
    e = etm_config_read_stream(&again, back, "written", &diag);
    fclose(back);
    free(text);
    if (e != ETM_OK) {
        char m[400];
        fprintf(stderr, "fuzz: %s\n", etm_diag_format(&diag, m, sizeof m));
        fuzz_fail("the written image does not read back");
    }
    if (!etm_config_equal(&cfg, &again))
        fuzz_fail("the written image reads back to other registers");
    return 0;
}
