/* fuzz_vector.c - vector files (etm/vector.h): any bytes read as a vector file,
 * stimulus (text or binary) or expected output, to the end or the first error.
 * An error must say what rule broke and where (the file, and a line, or the byte
 * offset of a binary record, unless the file is empty). */
#include "fuzz.h"

#include "etm/vector.h"

#define MAX_RECORDS 20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_memfile(data, size);
    if (!f)
        return 0;
    etm_diag_t diag;
    etm_vec_reader_t *r = NULL;
    etm_err_t e = etm_vec_open_stream(&r, f, "fuzz.vec", &diag);
    if (e == ETM_OK) {
        for (unsigned i = 0; i < MAX_RECORDS; i++) {
            if (etm_vec_kind(r) == ETM_VEC_STIMULUS) {
                etm_in_t in;
                e = etm_vec_read_in(r, &in, &diag);
            } else {
                etm_out_t out;
                e = etm_vec_read_out(r, &out, &diag);
                if (e == ETM_OK && out.v3_count > ETM_MAX_PORT_BYTES)
                    fuzz_fail("a record holds more port bytes than the port has");
            }
            if (e != ETM_OK)
                break;
        }
        etm_vec_close(r);
    } else if (r) {
        fuzz_fail("a failed open returned a reader");
    }
    if (e != ETM_OK && e != ETM_END) {
        if (!diag.msg[0] || !diag.file)
            fuzz_fail("an error without a message or a file name");
        /* A record of binary stimulus is named by its byte offset, not a line. */
        if (e != ETM_ERR_NOMEM && e != ETM_ERR_IO && size && diag.line == 0 && diag.offset == UINT64_MAX)
            fuzz_fail("an error without a line or a byte offset");
    }
    fclose(f);
    return 0;
}
