/* cmd_config.c - `etm config`: validate, explain or print a register image. */
#include <stdio.h>
#include <string.h>

#include "etm/etm.h"
#include "source.h"
#include "subcommands.h"

static void help(FILE *f)
{
    fprintf(f, "usage: etm config [--explain | --sv-params] [--preset NAME | FILE]\n"
               "       etm config --presets\n\n"
               "Reads a register image (NAME=0xVALUE lines; docs/registers.md), checks it against\n"
               "the architecture of the ETM version it selects, and prints it in full. With\n"
               "neither FILE nor --preset, the default (etm-m3) is printed.\n\n"
               "  --explain      print every register with its fields decoded\n"
               "  --sv-params    print the implementation (the read-only registers and the model\n"
               "                 parameters) as rtl/etm_top.sv's parameter overrides; the other\n"
               "                 registers are programmed through the debug APB\n"
               "  --preset NAME  start from a named configuration\n"
               "  --presets      list the named configurations\n");
}

/* The implementation as rtl/etm_top.sv's parameter overrides: ETMCCR gives
 * .Etmccr(32'h...), FIFO_DEPTH gives .FifoDepth(64). */
static int write_sv_params(const etm_config_t *cfg, FILE *f)
{
    int first = 1;
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        if (!etm_register_is_impl(d))
            continue;
        char name[40];
        size_t n = 0;
        int up = 1;
        for (const char *c = d->name; *c && n + 1 < sizeof name; c++) {
            if (*c == '_') {
                up = 1;
                continue;
            }
            char ch = *c;
            if (!up && ch >= 'A' && ch <= 'Z')
                ch = (char)(ch - 'A' + 'a');
            name[n++] = ch;
            up = 0;
        }
        name[n] = '\0';
        uint32_t v = etm_register_get(cfg, d, 0);
        if (d->addr == ETM_PARAM_ADDR)
            fprintf(f, "%s.%s(%u)", first ? "" : ", ", name, (unsigned)v);
        else
            fprintf(f, "%s.%s(32'h%08X)", first ? "" : ", ", name, (unsigned)v);
        first = 0;
    }
    fprintf(f, "\n");
    return ferror(f) ? 2 : 0;
}

int cmd_config(int argc, char **argv)
{
    int explain = 0, sv = 0;
    const char *path = NULL, *preset = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--explain")) {
            explain = 1;
        } else if (!strcmp(argv[i], "--sv-params")) {
            sv = 1;
        } else if (!strcmp(argv[i], "--presets")) {
            for (const char *const *p = etm_config_preset_names; *p; p++)
                printf("%s\n", *p);
            return 0;
        } else if (!strcmp(argv[i], "--preset")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "etm config: --preset needs a name\n");
                return 2;
            }
            preset = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "etm config: unknown option '%s' (try --help)\n", argv[i]);
            return 2;
        } else if (path) {
            fprintf(stderr, "etm config: one file only\n");
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (path && preset) {
        fprintf(stderr, "etm config: give a FILE or --preset, not both (a file may start with 'preset NAME')\n");
        return 2;
    }
    etm_config_t cfg;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (path) {
        if (etm_config_read_file(&cfg, path, &d) != ETM_OK) {
            print_diag(&d);
            return 2;
        }
    } else if (preset) {
        if (etm_config_preset(&cfg, preset) != ETM_OK) {
            fprintf(stderr, "etm config: unknown preset '%s' (--presets lists them)\n", preset);
            return 2;
        }
        if (etm_config_validate(&cfg, &d, NULL) != ETM_OK) {
            print_diag(&d);
            return 2;
        }
    } else {
        etm_config_default(&cfg);
    }
    if (sv)
        return write_sv_params(&cfg, stdout);
    etm_err_t e = explain ? etm_config_explain(&cfg, stdout) : etm_config_write(&cfg, stdout, "");
    return e == ETM_OK ? 0 : 2;
}
