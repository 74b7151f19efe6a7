/* cmd_snapshot.c - `etm snapshot`: an OpenCSD snapshot folder for the model's
 * trace, so that `trc_pkt_lister -ss_dir DIR -decode` decodes it. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etm/etm.h"
#include "json.h"
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
               "  --image FILE       code image: an ELF file (placed by its program headers), or\n"
               "                     ADDR:FILE, a raw binary loaded at ADDR (hex); repeatable\n"
               "  --tpiu PINS[:DIV]  the trace goes through a TPIU (docs/tpiu.md): trace.bin holds its pins,\n"
               "                     CoreSight-formatted (format=coresight; decode with trc_pkt_lister\n"
               "                     -tpiu_hsync)\n"
               "  --set NAME=0xV     override a register or parameter\n"
               "  --json             print what was written as one JSON object (docs/json.md)\n\n%s",
            source_opts_help);
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, "w");
}

/* The ETM's registers as a debugger reads them at the end of the run, through
 * the programmer's model (the debug APB, PADDRDBG31 set). */
typedef struct readback {
    uint32_t etmcr, etmccr, etmidr, etmccer, etmtraceidr;
    etm_stats_t stats;
} readback_t;

static int read_back(void *user, const etm_ctx_t *etm)
{
    readback_t *r = (readback_t *)user;
    r->etmcr = etm_reg_peek(etm, 4 * 0x000, 1);
    r->etmccr = etm_reg_peek(etm, 4 * 0x001, 1);
    r->etmidr = etm_reg_peek(etm, 4 * 0x079, 1);
    r->etmccer = etm_reg_peek(etm, 4 * 0x07A, 1);
    r->etmtraceidr = etm_reg_peek(etm, 4 * 0x080, 1);
    r->stats = *etm_get_stats(etm);
    return 0;
}

/* The command line of etm snapshot. */
typedef struct snapshot_args {
    source_opts_t so;
    const char *paths[2]; /* the stimulus, the folder */
    int npaths, nimg, nsets, json;
    const char *sets[32];
    const char *img[MAX_IMAGES];
    etm_tpiu_params_t tp;
    const etm_tpiu_params_t *tpiu; /* &tp with --tpiu, else NULL */
} snapshot_args_t;

/* The command line into *a. Returns -1 to go on, else the exit status (--help,
 * a bad option: printed). */
static int parse_args(snapshot_args_t *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    source_opts_init(&a->so);
    for (int i = 1; i < argc; i++) {
        int k = source_opts_parse(&a->so, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(o, "--image") && i + 1 < argc) {
            if (a->nimg == MAX_IMAGES) {
                fprintf(stderr, "etm snapshot: at most %d --image options\n", MAX_IMAGES);
                return 2;
            }
            a->img[a->nimg++] = argv[++i];
        } else if (!strcmp(o, "--set") && i + 1 < argc && a->nsets < 32) {
            a->sets[a->nsets++] = argv[++i];
        } else if (!strcmp(o, "--json")) {
            a->json = 1;
        } else if (!strcmp(o, "--tpiu") && i + 1 < argc) {
            if (tpiu_opt_parse("snapshot", argv[++i], &a->tp))
                return 2;
            a->tpiu = &a->tp;
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "etm snapshot: unknown option or missing value '%s' (try --help)\n", o);
            return 2;
        } else if (a->npaths == 2) {
            fprintf(stderr, "etm snapshot: expected STIMULUS and DIR\n");
            return 2;
        } else {
            a->paths[a->npaths++] = o;
        }
    }
    if (a->npaths != 2) {
        help(stderr);
        return 2;
    }
    return -1;
}

/* The model over the stimulus, its trace into tracepath, its registers read
 * back into *rb and its configuration into *cfg. Returns an exit status. */
static int run_model(const snapshot_args_t *a, const char *tracepath, readback_t *rb, etm_config_t *cfg)
{
    run_outputs_t ro;
    memset(&ro, 0, sizeof ro);
    ro.trace = tracepath;
    ro.quiet = 1;
    ro.tpiu = a->tpiu;
    memset(rb, 0, sizeof *rb);
    ro.at_end = read_back;
    ro.user = rb;
    return run_stimulus(a->paths[0], &a->so, a->sets, a->nsets, &ro, cfg);
}

/* snapshot.ini: the devices and the trace metadata. Returns 1 written, else 0. */
static int write_snapshot_ini(const char *dir)
{
    FILE *f = open_in(dir, "snapshot.ini");
    if (!f)
        return 0;
    fprintf(f, "[snapshot]\nversion=1.0\n\n[device_list]\ndevice0=cpu_0.ini\ndevice1=etm_0.ini\n\n"
               "[trace]\nmetadata=trace.ini\n");
    return fclose(f) == 0;
}

/* trace.ini: trace.bin, as the ETM's bytes or a TPIU's frames. Returns 1
 * written, else 0. */
static int write_trace_ini(const char *dir, int tpiu)
{
    FILE *f = open_in(dir, "trace.ini");
    if (!f)
        return 0;
    fprintf(f, "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=%s\nfile=trace.bin\nformat=%s\n\n"
               "[source_buffers]\nETM_0=%s\n\n[core_trace_sources]\ncpu_0=ETM_0\n",
            tpiu ? "TPIU_0" : "ETB_0", tpiu ? "coresight" : "source_data", tpiu ? "TPIU_0" : "ETB_0");
    return fclose(f) == 0;
}

/* etm_0.ini: the ETM's version and the registers read back. Returns 1
 * written, else 0. */
static int write_etm_ini(const char *dir, unsigned ver, const readback_t *rb)
{
    FILE *f = open_in(dir, "etm_0.ini");
    if (!f)
        return 0;
    fprintf(f, "[device]\nname=ETM_0\nclass=trace_source\ntype=ETM%u.%u\n\n[regs]\n", ETM_V_MAJOR(ver),
            ETM_V_MINOR(ver));
    fprintf(f, "ETMCR(0x000)=0x%08X\nETMCCR(0x001)=0x%08X\nETMIDR(0x079)=0x%08X\nETMCCER(0x07A)=0x%08X\n"
               "ETMTRACEIDR(0x080)=0x%08X\n",
            (unsigned)rb->etmcr, (unsigned)rb->etmccr, (unsigned)rb->etmidr, (unsigned)rb->etmccer,
            (unsigned)rb->etmtraceidr);
    return fclose(f) == 0;
}

/* Each region of the image as DIR/imageN.bin and a [dumpN] section of f.
 * Returns 1, or 0 when one cannot be written (printed). */
static int write_dumps(FILE *f, const char *dir, const etm_image_t *im)
{
    for (unsigned i = 0; i < im->n; i++) {
        char name[64], dst[1300];
        snprintf(name, sizeof name, "image%u.bin", i);
        snprintf(dst, sizeof dst, "%s/%s", dir, name);
        FILE *out = fopen(dst, "wb");
        int wrote = out && fwrite(im->r[i].bytes, 1, im->r[i].size, out) == im->r[i].size;
        if (out)
            wrote &= fclose(out) == 0;
        if (!wrote) {
            fprintf(stderr, "etm snapshot: cannot write %s\n", dst);
            return 0;
        }
        fprintf(f, "\n[dump%u]\nfile=%s\naddress=0x%08lX\nlength=0x%lX\n", i + 1, name,
                (unsigned long)im->r[i].addr, (unsigned long)im->r[i].size);
    }
    return 1;
}

/* cpu_0.ini: a Cortex-M3 with each region of the images (an ELF file's
 * segments, a raw binary) as a dump. Returns 1 written, else 0. */
static int write_cpu_ini(const char *dir, const etm_image_t *im)
{
    FILE *f = open_in(dir, "cpu_0.ini");
    if (!f)
        return 0;
    fprintf(f, "[device]\nname=cpu_0\nclass=core\ntype=Cortex-M3\n\n[regs]\nPC=0x0\n");
    int ok = write_dumps(f, dir, im);
    return (fclose(f) == 0) & ok;
}

/* The files of a snapshot folder: the fixed ones, then image0.bin ... one
 * a memory region; k counts them all. */
#define FOLDER_FIXED 5
static const char *folder_file(size_t k, char img[32])
{
    static const char *const names[FOLDER_FIXED] = { "snapshot.ini", "trace.ini", "etm_0.ini", "cpu_0.ini",
                                                     "trace.bin" };
    if (k < FOLDER_FIXED)
        return names[k];
    snprintf(img, 32, "image%u.bin", (unsigned)(k - FOLDER_FIXED));
    return img;
}

/* The folder being written and what it holds: removed on any failure. */
static void remove_folder(const char *dir, unsigned regions)
{
    char p[1300], img[32];
    for (size_t k = 0; k < FOLDER_FIXED + regions; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, folder_file(k, img));
        unlink(p);
    }
    rmdir(dir);
}

/* The finished folder tmp into place as dir: renamed when dir is not there
 * (or empty), else its files moved in one by one (each replaced whole).
 * Returns 1, or 0 (printed). */
static int place_folder(const char *tmp, const char *dir, unsigned regions)
{
    if (rename(tmp, dir) == 0)
        return 1;
    char from[1300], to[1300], img[32];
    for (size_t k = 0; k < FOLDER_FIXED + regions; k++) {
        const char *n = folder_file(k, img);
        snprintf(from, sizeof from, "%s/%s", tmp, n);
        snprintf(to, sizeof to, "%s/%s", dir, n);
        if (rename(from, to) != 0) {
            fprintf(stderr, "etm snapshot: %s: cannot write: %s\n", to, strerror(errno));
            return 0;
        }
    }
    rmdir(tmp);
    return 1;
}

/* What was written, as text or one JSON object. */
static void report(const snapshot_args_t *a, const char *tracepath, unsigned regions, const readback_t *rb)
{
    const char *dir = a->paths[1];
    char lister[1200];
    /* SWO: frames from the first byte, no syncs (OpenCSD's memory-aligned frames). */
    int syncs = a->tpiu && a->tpiu->protocol == ETM_TPIU_PARALLEL;
    snprintf(lister, sizeof lister, "trc_pkt_lister -ss_dir %s -decode%s", dir, syncs ? " -tpiu_hsync" : "");
    if (!a->json) {
        printf("snapshot in %s: decode with  %s\n", dir, lister);
        return;
    }
    json_t j;
    json_begin(&j, stdout, "snapshot", 0);
    json_str(&j, "stimulus", a->paths[0]);
    json_str(&j, "dir", dir);
    json_str(&j, "trace", tracepath);
    json_str(&j, "trace_format", a->tpiu ? "coresight" : "source_data");
    json_u64(&j, "memory_dumps", regions);
    json_str(&j, "decode_with", lister);
    json_run_stats(&j, &rb->stats);
    json_finish(&j);
}

int cmd_snapshot(int argc, char **argv)
{
    snapshot_args_t a;
    int rc = parse_args(&a, argc, argv);
    if (rc >= 0)
        return rc;
    const char *dir = a.paths[1];
    /* What could fail before anything is written is checked first: the
     * folder's place, the images. */
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "etm snapshot: %s: exists and is not a folder\n", dir);
        return 2;
    }
    etm_image_t im;
    memset(&im, 0, sizeof im);
    etm_diag_t dd;
    etm_diag_clear(&dd);
    for (int i = 0; i < a.nimg; i++)
        if (etm_image_load_arg(&im, a.img[i], &dd) != ETM_OK) {
            fprintf(stderr, "etm snapshot: --image %s\n", dd.msg);
            etm_image_free(&im);
            return 2;
        }
    /* The folder is made beside its place and moved there when complete. */
    char tmp[1100];
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    snprintf(tmp, sizeof tmp, "%.*s.etm-XXXXXX", (int)dl, dir);
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "etm snapshot: %s: cannot make a folder beside it: %s\n", dir, strerror(errno));
        etm_image_free(&im);
        return 2;
    }
    char tracepath[1200];
    snprintf(tracepath, sizeof tracepath, "%s/trace.bin", tmp);
    readback_t rb;
    etm_config_t cfg;
    rc = run_model(&a, tracepath, &rb, &cfg);
    if (rc) {
        remove_folder(tmp, 0);
        etm_image_free(&im);
        return rc;
    }
    etm_diag_t d;
    unsigned ver = 0, regions = im.n;
    etm_config_version(&cfg, &ver, &d);
    int ok = write_snapshot_ini(tmp);
    ok = ok && write_trace_ini(tmp, a.tpiu != NULL);
    ok = ok && write_etm_ini(tmp, ver, &rb);
    ok = ok && write_cpu_ini(tmp, &im);
    etm_image_free(&im);
    if (!ok)
        fprintf(stderr, "etm snapshot: cannot write in %s: %s\n", tmp, strerror(errno));
    if (!ok || !place_folder(tmp, dir, regions)) {
        remove_folder(tmp, regions);
        return 2;
    }
    snprintf(tracepath, sizeof tracepath, "%s/trace.bin", dir);
    report(&a, tracepath, regions, &rb);
    return 0;
}
