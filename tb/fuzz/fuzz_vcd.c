/* fuzz_vcd.c - the VCD reader (etm/vcd.h): the first bytes choose the options
 * (stimulus or expected, a clock or virtual edges, a reset and its polarity,
 * missing signals allowed, the issue width), the rest is the VCD text, read to
 * the end or the first error, which must name the file and say what broke. */
#include "fuzz.h"

#include "etm/vcd.h"

#define MAX_CYCLES 20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = { data, size };
    unsigned o1 = fuzz_u8(&in), o2 = fuzz_u8(&in);
    etm_vcd_opts_t opts;
    etm_vcd_opts_init(&opts);
    opts.kind = (o1 & 1) ? ETM_VEC_EXPECTED : ETM_VEC_STIMULUS;
    if (o1 & 2) {
        opts.period = 1 + (o2 & 15);
        opts.offset = (o2 >> 4) & 3;
    }
    if (o1 & 4)
        opts.reset = (o1 & 8) ? "rst_n" : "reset";
    opts.reset_active_low = (o1 & 8) != 0;
    opts.allow_missing = (o1 & 16) != 0;
    opts.issue_width = (o1 >> 5) & 3;
    if (o1 & 0x80)
        opts.scope = "top.u_etm";
    FILE *f = fuzz_memfile(in.p, in.n);
    if (!f)
        return 0;
    etm_diag_t diag;
    etm_vcd_reader_t *r = NULL;
    etm_err_t e = etm_vcd_open_stream(&r, f, "fuzz.vcd", &opts, &diag);
    if (e == ETM_OK) {
        (void)etm_vcd_notes(r);
        for (unsigned i = 0; i < MAX_CYCLES && e == ETM_OK; i++) {
            if (opts.kind == ETM_VEC_STIMULUS) {
                etm_in_t rec;
                e = etm_vcd_read_in(r, &rec, &diag);
            } else {
                etm_out_t rec;
                e = etm_vcd_read_out(r, &rec, &diag);
                if (e == ETM_OK && rec.v3_count > ETM_MAX_PORT_BYTES)
                    fuzz_fail("a record holds more port bytes than the port has");
            }
        }
        etm_vcd_close(r);
    } else if (r) {
        fuzz_fail("a failed open returned a reader");
    }
    if (e != ETM_OK && e != ETM_END && (!diag.msg[0] || !diag.file))
        fuzz_fail("an error without a message or a file name");
    fclose(f);
    return 0;
}
