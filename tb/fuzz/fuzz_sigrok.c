/* fuzz_sigrok.c - the sigrok session file reader (etm/sigrok.h) and the UART
 * decoder (etm/uart.h) behind it, as etm swo uses them: the first byte picks
 * the probe (bit 7 set: by the name "SWO", else the number 1 + byte % 8) and,
 * bit 6, a Manchester line rather than NRZ; the second the samples a bit (2
 * to 33, Manchester 4 to 35), the rest is the capture, a zip. The
 * capture is read to its end, an error or 2^18 samples, in pieces of a size the
 * second byte also picks. An error must name the file and say what broke; no
 * read gives more samples than the directory counts, a level other than 0 or
 * 1, or fewer than one sample before the end; no byte decoded starts before
 * an earlier one or ends its frame past the samples read. */
#include "fuzz.h"

#include "etm/sigrok.h"
#include "etm/uart.h"

#define MAX_SAMPLES (1u << 18)
#define PIECE_MAX 4096

/* The samples through the decoder, checking the reader and the decoder. */
static etm_err_t read_all(etm_sigrok_t *s, unsigned spb, int manchester, size_t piece, etm_diag_t *diag)
{
    static uint8_t lv[PIECE_MAX];
    etm_uart_byte_t out[64];
    etm_uart_t u;
    if ((manchester ? etm_uart_init_manchester(&u, 1000000u * spb, 1000000u, NULL)
                    : etm_uart_init(&u, 1000000u * spb, 1000000u, NULL)) != ETM_OK)
        fuzz_fail("a line decoder refused a rate it takes");
    uint64_t total = 0, last = 0;
    size_t n, got;
    etm_err_t e;
    while (total < MAX_SAMPLES && (e = etm_sigrok_read(s, lv, piece, &n, diag)) == ETM_OK) {
        if (n == 0 || n > piece)
            fuzz_fail("a read gave no sample, or more than asked for, without an end");
        for (size_t i = 0; i < n; i++)
            if (lv[i] > 1)
                fuzz_fail("a level other than 0 or 1");
        total += n;
        if (total > etm_sigrok_get_info(s)->samples || etm_sigrok_position(s) != total)
            fuzz_fail("more samples than the directory counts, or the position not the samples given");
        for (size_t i = 0; i < n;) {
            i += etm_uart_feed(&u, lv + i, n - i, out, 64, &got);
            for (size_t k = 0; k < got; k++) {
                if (out[k].start < last || out[k].stop >= total || out[k].stop <= out[k].start)
                    fuzz_fail("a byte out of order, or its stop bit past the samples read");
                last = out[k].start;
            }
        }
    }
    etm_uart_end(&u);
    return total < MAX_SAMPLES ? e : ETM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = { data, size };
    unsigned o1 = fuzz_u8(&in), o2 = fuzz_u8(&in);
    FILE *f = fuzz_memfile(in.p, in.n);
    if (!f)
        return 0;
    etm_diag_t diag;
    etm_sigrok_t *s = NULL;
    etm_err_t e = etm_sigrok_open_stream(&s, f, "fuzz.sr", &diag);
    if (e == ETM_OK) {
        char name[8];
        snprintf(name, sizeof name, "%u", 1 + o1 % 8);
        unsigned bit;
        e = etm_sigrok_find_probe(s, (o1 & 0x80) ? "SWO" : name, &bit, &diag);
        if (e == ETM_OK)
            e = etm_sigrok_start(s, bit, &diag);
        if (e == ETM_OK)
            e = read_all(s, ((o1 & 0x40) ? 4 : 2) + o2 % 32, (o1 & 0x40) != 0, 1 + (o2 * 61u) % PIECE_MAX, &diag);
        etm_sigrok_close(s);
    } else if (s) {
        fuzz_fail("a failed open returned a reader");
    }
    if (e != ETM_OK && e != ETM_END && (!diag.msg[0] || !diag.file))
        fuzz_fail("an error without a message or a file name");
    fclose(f);
    return 0;
}
