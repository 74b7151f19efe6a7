/* cmd_snapshot.c - `etm snapshot`: an OpenCSD snapshot folder for the model's
 * trace, so that `trc_pkt_lister -ss_dir DIR -decode` decodes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etm/etm.h"
#include "source.h"
#include "subcommands.h"

#define MAX_IMAGES 8

static void help(FILE *f)
{
    fprintf(f, "usage: etm snapshot [options] STIMULUS DIR\n\n"
               "Runs the model on STIMULUS (vector file or VCD) and writes DIR, an OpenCSD\n"
               "snapshot: snapshot.ini, trace.ini, cpu_0.ini (a Cortex-M3 with the code\n"
               "image), etm_0.ini (the ETM registers, as a debugger reads them back through the\n"
               "debug APB at the end of the run), trace.bin (the ETMv3 bytes) and the\n"
               "image files. Decode it with:  trc_pkt_lister -ss_dir DIR -decode\n\n"
               "  --image ADDR:FILE  code image FILE loaded at ADDR (hex), repeatable\n"
               "  --tpiu PINS[:DIV]  the trace goes through a TPIU (docs/tpiu.md): trace.bin holds its pins,\n"
               "                     CoreSight-formatted (format=coresight; decode with trc_pkt_lister\n"
               "                     -tpiu_hsync)\n"
               "  --set NAME=0xV     override a register or parameter\n\n%s",
            source_opts_help);
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
    int ok = a && b;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
        ok = fwrite(buf, 1, n, b) == n;
    if (a && ferror(a))
        ok = 0;
    if (a)
        fclose(a);
    if (b && fclose(b) != 0)
        ok = 0;
    return ok;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, "w");
}

/* The ETM's registers as a debugger reads them at the end of the run, through
 * the programmer's model (the debug APB, PADDRDBG31 set). */
typedef struct readback {
    uint32_t etmcr, etmccr, etmidr, etmccer, etmtraceidr;
} readback_t;

static int read_back(void *user, const etm_ctx_t *etm)
{
    readback_t *r = (readback_t *)user;
    r->etmcr = etm_reg_peek(etm, 4 * 0x000, 1);
    r->etmccr = etm_reg_peek(etm, 4 * 0x001, 1);
    r->etmidr = etm_reg_peek(etm, 4 * 0x079, 1);
    r->etmccer = etm_reg_peek(etm, 4 * 0x07A, 1);
    r->etmtraceidr = etm_reg_peek(etm, 4 * 0x080, 1);
    return 0;
}

int cmd_snapshot(int argc, char **argv)
{
    source_opts_t so;
    source_opts_init(&so);
    const char *paths[2] = { NULL, NULL };
    int npaths = 0, nimg = 0, nsets = 0;
    const char *sets[32];
    struct { unsigned long addr; const char *file; } img[MAX_IMAGES];
    etm_tpiu_params_t tp;
    const etm_tpiu_params_t *tpiu = NULL;
    for (int i = 1; i < argc; i++) {
        int k = source_opts_parse(&so, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(a, "--image") && i + 1 < argc) {
            const char *v = argv[++i], *colon = strchr(v, ':');
            char *end;
            if (!colon || nimg == MAX_IMAGES) {
                fprintf(stderr, "etm snapshot: --image wants ADDR:FILE (at most %d)\n", MAX_IMAGES);
                return 2;
            }
            img[nimg].addr = strtoul(v, &end, 16);
            if (end != colon) {
                fprintf(stderr, "etm snapshot: --image %s: '%.*s' is not a hex address\n", v, (int)(colon - v), v);
                return 2;
            }
            img[nimg++].file = colon + 1;
        } else if (!strcmp(a, "--set") && i + 1 < argc && nsets < 32) {
            sets[nsets++] = argv[++i];
        } else if (!strcmp(a, "--tpiu") && i + 1 < argc) {
            if (tpiu_opt_parse("snapshot", argv[++i], &tp))
                return 2;
            tpiu = &tp;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "etm snapshot: unknown option or missing value '%s' (try --help)\n", a);
            return 2;
        } else if (npaths == 2) {
            fprintf(stderr, "etm snapshot: expected STIMULUS and DIR\n");
            return 2;
        } else {
            paths[npaths++] = a;
        }
    }
    if (npaths != 2) {
        help(stderr);
        return 2;
    }
    const char *dir = paths[1];
    mkdir(dir, 0777);
    char tracepath[1024];
    snprintf(tracepath, sizeof tracepath, "%s/trace.bin", dir);

    run_outputs_t ro;
    memset(&ro, 0, sizeof ro);
    ro.trace = tracepath;
    ro.quiet = 1;
    ro.tpiu = tpiu;
    readback_t rb;
    memset(&rb, 0, sizeof rb);
    ro.at_end = read_back;
    ro.user = &rb;
    etm_config_t cfg;
    int rc = run_stimulus(paths[0], &so, sets, nsets, &ro, &cfg);
    if (rc)
        return rc;
    etm_diag_t d;
    unsigned ver = 0;
    etm_config_version(&cfg, &ver, &d);

    FILE *f = open_in(dir, "snapshot.ini");
    int ok = f != NULL;
    if (f) {
        fprintf(f, "[snapshot]\nversion=1.0\n\n[device_list]\ndevice0=cpu_0.ini\ndevice1=etm_0.ini\n\n"
                   "[trace]\nmetadata=trace.ini\n");
        ok &= fclose(f) == 0;
    }
    f = open_in(dir, "trace.ini");
    ok &= f != NULL;
    if (f) {
        fprintf(f, "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=%s\nfile=trace.bin\nformat=%s\n\n"
                   "[source_buffers]\nETM_0=%s\n\n[core_trace_sources]\ncpu_0=ETM_0\n",
                tpiu ? "TPIU_0" : "ETB_0", tpiu ? "coresight" : "source_data", tpiu ? "TPIU_0" : "ETB_0");
        ok &= fclose(f) == 0;
    }
    f = open_in(dir, "etm_0.ini");
    ok &= f != NULL;
    if (f) {
        fprintf(f, "[device]\nname=ETM_0\nclass=trace_source\ntype=ETM%u.%u\n\n[regs]\n", ETM_V_MAJOR(ver),
                ETM_V_MINOR(ver));
        fprintf(f, "ETMCR(0x000)=0x%08X\nETMCCR(0x001)=0x%08X\nETMIDR(0x079)=0x%08X\nETMCCER(0x07A)=0x%08X\n"
                   "ETMTRACEIDR(0x080)=0x%08X\n",
                (unsigned)rb.etmcr, (unsigned)rb.etmccr, (unsigned)rb.etmidr, (unsigned)rb.etmccer,
                (unsigned)rb.etmtraceidr);
        ok &= fclose(f) == 0;
    }
    f = open_in(dir, "cpu_0.ini");
    ok &= f != NULL;
    if (f) {
        fprintf(f, "[device]\nname=cpu_0\nclass=core\ntype=Cortex-M3\n\n[regs]\nPC=0x0\n");
        for (int i = 0; i < nimg; i++) {
            char name[64], dst[1100];
            snprintf(name, sizeof name, "image%d.bin", i);
            snprintf(dst, sizeof dst, "%s/%s", dir, name);
            long sz = file_size(img[i].file);
            if (sz <= 0 || !copy_file(img[i].file, dst)) {
                fprintf(stderr, "etm snapshot: %s: cannot read the image\n", img[i].file);
                ok = 0;
                break;
            }
            fprintf(f, "\n[dump%d]\nfile=%s\naddress=0x%08lX\nlength=0x%lX\n", i + 1, name, img[i].addr,
                    (unsigned long)sz);
        }
        ok &= fclose(f) == 0;
    }
    if (!ok) {
        fprintf(stderr, "etm snapshot: cannot write %s\n", dir);
        return 2;
    }
    printf("snapshot in %s: decode with  trc_pkt_lister -ss_dir %s -decode%s\n", dir, dir,
           tpiu ? " -tpiu_hsync" : "");
    return 0;
}
