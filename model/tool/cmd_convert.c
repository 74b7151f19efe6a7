/* cmd_convert.c - `etm convert`: vector file <-> VCD, and binary stimulus. */
#include <stdio.h>
#include <string.h>

#include "etm/etm.h"
#include "outfile.h"
#include "source.h"
#include "subcommands.h"

static void help(FILE *f)
{
    fprintf(f, "usage: etm convert [options] INPUT OUTPUT\n\n"
               "Converts per-cycle signals between a vector file and a VCD or FST waveform (chosen\n"
               "by the file names: .vcd is VCD, .fst FST, anything else a vector file; OUTPUT '-'\n"
               "is standard output as a vector file). A vector file written from a waveform has\n"
               "the columns found in it. Binary stimulus is read wherever a vector file is (the\n"
               "format: vectors/README.md, installed in share/doc/etm-model/vectors).\n"
               "A waveform does not carry the register image: one that is not the etm-m3 preset\n"
               "(what a waveform is read with by default) is not dropped without --drop-config;\n"
               "read the waveform with --config INPUT instead (a vector file's header serves).\n\n"
               "  --kind stimulus|expected  what INPUT holds when it is a waveform (default stimulus)\n"
               "  --binary                  write stimulus as a binary vector file (fixed-size\n"
               "                            records, read many times faster than text)\n"
               "  --drop-config             write a waveform even though the register image is lost\n\n%s",
            source_opts_help);
}

int cmd_convert(int argc, char **argv)
{
    source_opts_t so;
    source_opts_init(&so);
    etm_veckind_t kind = ETM_VEC_STIMULUS;
    int kind_given = 0, binary = 0, drop_config = 0;
    const char *paths[2] = { NULL, NULL };
    int npaths = 0;
    for (int i = 1; i < argc; i++) {
        int k = source_opts_parse(&so, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--binary")) {
            binary = 1;
        } else if (!strcmp(argv[i], "--drop-config")) {
            drop_config = 1;
        } else if (!strcmp(argv[i], "--kind")) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "stimulus") && strcmp(argv[i + 1], "expected"))) {
                fprintf(stderr, "etm convert: --kind must be stimulus or expected\n");
                return 2;
            }
            kind = strcmp(argv[++i], "stimulus") ? ETM_VEC_EXPECTED : ETM_VEC_STIMULUS;
            kind_given = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "etm convert: unknown option '%s' (try --help)\n", argv[i]);
            return 2;
        } else if (npaths == 2) {
            fprintf(stderr, "etm convert: expected INPUT and OUTPUT only\n");
            return 2;
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (npaths != 2) {
        help(stderr);
        return 2;
    }
    int in_vcd = so.format ? !strcmp(so.format, "vcd") || !strcmp(so.format, "fst") : is_wave_path(paths[0]);
    if (!in_vcd && !kind_given) {
        /* A vector file says its kind in its first line. */
        etm_vec_reader_t *peek;
        etm_diag_t d;
        if (etm_vec_open(&peek, paths[0], &d) != ETM_OK) {
            print_diag(&d);
            return 2;
        }
        kind = etm_vec_kind(peek);
        etm_vec_close(peek);
    }
    int out_vcd = is_wave_path(paths[1]); /* .vcd or .fst */
    if (binary && (out_vcd || kind != ETM_VEC_STIMULUS)) {
        fprintf(stderr, "etm convert: --binary writes stimulus as a vector file, not %s\n",
                out_vcd ? "a VCD" : "expected output");
        return 2;
    }
    const char *inputs[] = { paths[0], so.config_path, NULL };
    if (!so.config_path)
        inputs[1] = NULL;
    outfile_t of;
    if (outfile_refuse("convert", paths[1], inputs)) /* before reading a byte of it */
        return 2;
    source_t src;
    if (source_open(&src, paths[0], &so, kind))
        return 2;
    etm_config_t m3;
    if (out_vcd && !drop_config && etm_config_preset(&m3, "etm-m3") == ETM_OK && !etm_config_equal(&src.cfg, &m3)) {
        fprintf(stderr, "etm convert: %s: a waveform does not carry the register image of %s, which is not the "
                        "etm-m3 preset a waveform is read with by default: read the waveform with --config %s "
                        "(its header serves), or give --drop-config to write it anyway\n",
                paths[1], paths[0], in_vcd && so.config_path ? so.config_path : paths[0]);
        source_close(&src);
        return 2;
    }
    if (outfile_open(&of, "convert", paths[1], inputs)) {
        source_close(&src);
        return 2;
    }
    FILE *f = of.f;
    uint64_t mask = source_signal_mask(&src);
    etm_err_t e = ETM_OK, we = ETM_OK;
    uint64_t n = 0;
    if (out_vcd) {
        etm_vcd_writer_t *w;
        we = etm_vcd_writer_open(&w, f, kind == ETM_VEC_STIMULUS ? mask : 0, kind == ETM_VEC_EXPECTED ? mask : 0,
                                 paths[0]);
        etm_in_t in;
        etm_out_t out;
        memset(&in, 0, sizeof in);
        memset(&out, 0, sizeof out);
        while (we == ETM_OK && (e = kind == ETM_VEC_STIMULUS ? source_read_in(&src, &in) : source_read_out(&src, &out))
                                   == ETM_OK) {
            progress("convert", n++);
            we = etm_vcd_write(w, &in, &out);
        }
        etm_err_t ce = etm_vcd_writer_close(w);
        if (we == ETM_OK)
            we = ce;
    } else {
        etm_vec_writer_t *w;
        char comment[512];
        snprintf(comment, sizeof comment, "converted from %s", paths[0]);
        we = binary ? etm_vec_writer_open_binary(&w, f, &src.cfg, mask, comment)
                    : etm_vec_writer_open(&w, f, kind, &src.cfg, mask, comment);
        etm_in_t in;
        etm_out_t out;
        while (we == ETM_OK && (e = kind == ETM_VEC_STIMULUS ? source_read_in(&src, &in) : source_read_out(&src, &out))
                                   == ETM_OK) {
            progress("convert", n++);
            we = kind == ETM_VEC_STIMULUS ? etm_vec_write_in(w, &in) : etm_vec_write_out(w, &out);
        }
        etm_err_t ce = etm_vec_writer_close(w);
        if (we == ETM_OK)
            we = ce;
    }
    progress_done();
    source_close(&src);
    if (we != ETM_OK) /* the input's error is printed; the output is not left half written */
        fprintf(stderr, "etm convert: %s: %s\n", paths[1], etm_strerror(we));
    int ok = we == ETM_OK && e == ETM_END;
    return outfile_finish(&of, ok, "convert") || !ok ? 2 : 0;
}
