/* snapshot.c - OpenCSD snapshot folders (etm/snapshot.h); code images are image.c's. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "etm/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/number.h"

#include "etm/config.h"
#include "util.h"

#define PATH_LEN 4096
#define MAX_DEVICES 64

/* ---- .ini files ------------------------------------------------------------------ */

/* Called for each key=value line with its section and line number. */
typedef etm_err_t (*ini_fn)(void *user, const char *section, const char *key, const char *value,
                            const char *path, unsigned long line, etm_diag_t *diag);

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static etm_err_t ini_read(const char *path, ini_fn fn, void *user, etm_diag_t *diag)
{
    char what[PATH_LEN + 64];
    snprintf(what, sizeof what, "%s: cannot open", path);
    FILE *f = etm_open_read(path, what, diag);
    if (!f)
        return ETM_ERR_IO;
    etm_linereader_t lr;
    lr.f = f;
    lr.line = 0;
    char section[128] = "";
    etm_err_t e = ETM_OK;
    while (e == ETM_OK) {
        etm_diag_t why;
        etm_diag_clear(&why);
        e = etm_lr_next(&lr, &why);
        if (e == ETM_END) {
            e = ETM_OK;
            break;
        }
        if (e != ETM_OK) { /* a line too long, a NUL byte, a read error: never a line cut silently */
            e = etm_util_fail(diag, e, "%s:%lu: %s", path, lr.line, why.msg);
            break;
        }
        char *s = trim(lr.buf);
        if (*s == '\0' || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            if (end)
                *end = '\0';
            snprintf(section, sizeof section, "%s", s + 1);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq)
            continue;
        *eq = '\0';
        e = fn(user, section, trim(s), trim(eq + 1), path, lr.line, diag);
    }
    fclose(f);
    return e;
}

/* ---- Snapshot folders ------------------------------------------------------------- */

typedef struct snapshot {
    const char *dir;
    char *devices[MAX_DEVICES]; /* the device files' paths (owned) */
    unsigned ndev;
    char trace_section[64]; /* the first [buffer...] section: the one read */
    char trace_file[PATH_LEN];
    char trace_format[64];
    /* ETMv3 devices seen and their trace IDs */
    unsigned netm;
    unsigned etm_ids[MAX_DEVICES];
    /* the device being read */
    int is_etm, is_core;
    etm_config_t cfg;
    etm_diag_t cfg_error;  /* the first malformed register line of the device */
    char dump_file[PATH_LEN];
    uint64_t dump_addr, dump_len;
    int have_dump;
    etm_image_t *image;
    unsigned flags;        /* ETM_SNAPSHOT_* */
    char *realdir;         /* the folder, resolved (owned) */
} snapshot_t;

/* A file name from an .ini (value, as full: dir/value) stays inside the
 * folder unless the caller allows otherwise: no absolute path, no "..", no
 * symbolic link resolving outside. */
static etm_err_t snap_inside(const snapshot_t *s, const char *value, const char *full, const char *path,
                             unsigned long line, etm_diag_t *diag)
{
    if (s->flags & ETM_SNAPSHOT_ALLOW_OUTSIDE)
        return ETM_OK;
    static const char allow[] = " (a snapshot's files stay inside its folder; etm decode --snapshot-outside reads it)";
    if (value[0] == '/')
        return etm_util_fail(diag, ETM_ERR_IO, "%s:%lu: '%s' is an absolute path%s", path, line, value, allow);
    for (const char *c = value; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return etm_util_fail(diag, ETM_ERR_IO, "%s:%lu: '%s' leads out of the folder ('..')%s", path, line, value,
                                 allow);
        c += n;
        while (*c == '/')
            c++;
    }
    char *real = s->realdir ? realpath(full, NULL) : NULL;
    if (real) {
        size_t k = strlen(s->realdir);
        int inside = !strncmp(real, s->realdir, k) && (real[k] == '/' || (k == 1 && s->realdir[0] == '/'));
        free(real);
        if (!inside)
            return etm_util_fail(diag, ETM_ERR_IO, "%s:%lu: '%s' is a symbolic link out of the folder%s", path, line,
                                 value, allow);
    }
    return ETM_OK;
}

static etm_err_t snap_list(void *user, const char *section, const char *key, const char *value, const char *path,
                           unsigned long line, etm_diag_t *diag)
{
    snapshot_t *s = (snapshot_t *)user;
    (void)key;
    if (strcmp(section, "device_list") != 0)
        return ETM_OK;
    if (s->ndev == MAX_DEVICES)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s:%lu: more than %d devices", path, line, MAX_DEVICES);
    size_t n = strlen(s->dir) + 1 + strlen(value) + 1;
    char *p = (char *)malloc(n);
    if (!p)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "%s:%lu: out of memory", path, line);
    snprintf(p, n, "%s/%s", s->dir, value);
    etm_err_t e = snap_inside(s, value, p, path, line, diag);
    if (e != ETM_OK) {
        free(p);
        return e;
    }
    s->devices[s->ndev++] = p;
    return ETM_OK;
}

/* dir/value into out (PATH_LEN bytes); a path that does not fit is an error, not a cut. */
static etm_err_t snap_path(const snapshot_t *s, char *out, const char *value, const char *path, unsigned long line,
                           etm_diag_t *diag)
{
    if ((size_t)snprintf(out, PATH_LEN, "%s/%s", s->dir, value) >= PATH_LEN)
        return etm_util_fail(diag, ETM_ERR_TOO_LONG, "%s:%lu: the file's path is longer than %d characters", path,
                             line, PATH_LEN - 1);
    return snap_inside(s, value, out, path, line, diag);
}

static etm_err_t snap_trace(void *user, const char *section, const char *key, const char *value, const char *path,
                            unsigned long line, etm_diag_t *diag)
{
    snapshot_t *s = (snapshot_t *)user;
    if (strncmp(section, "buffer", 6) != 0)
        return ETM_OK;
    if (!s->trace_section[0])
        snprintf(s->trace_section, sizeof s->trace_section, "%s", section);
    if (strcmp(section, s->trace_section) != 0) /* a later buffer: only the first is read */
        return ETM_OK;
    if (!strcmp(key, "file"))
        return snap_path(s, s->trace_file, value, path, line, diag);
    if (!strcmp(key, "format"))
        snprintf(s->trace_format, sizeof s->trace_format, "%s", value);
    return ETM_OK;
}

/* The core's memory dump gathered so far goes into the image (once per address:
 * several cores may dump the same memory). */
static etm_err_t snap_flush_dump(snapshot_t *s, etm_diag_t *diag)
{
    etm_err_t e = ETM_OK;
    int known = 0;
    if (s->have_dump && s->dump_file[0]) {
        for (unsigned i = 0; i < s->image->n; i++)
            known |= s->image->r[i].addr == (uint32_t)s->dump_addr;
        if (!known)
            e = etm_image_load(s->image, (uint32_t)s->dump_addr, s->dump_file, s->dump_len, diag);
    }
    s->have_dump = 0;
    s->dump_file[0] = '\0';
    s->dump_addr = s->dump_len = 0;
    return e;
}

static etm_err_t snap_register(snapshot_t *s, const char *key, const char *value, const char *path,
                               unsigned long line)
{
    char text[256];
    etm_diag_t d;
    etm_diag_clear(&d);
    snprintf(text, sizeof text, "%s=%s", key, value);
    /* registers the model does not know (e.g. ETMSR) are not needed to decode */
    etm_err_t e = etm_config_parse_line(&s->cfg, text, NULL, NULL, &d);
    if (e != ETM_OK && e != ETM_ERR_UNKNOWN_NAME && s->cfg_error.code == ETM_OK)
        etm_util_fail(&s->cfg_error, ETM_ERR_SYNTAX, "%s:%lu: %s", path, line, d.msg);
    return ETM_OK;
}

static etm_err_t snap_device(void *user, const char *section, const char *key, const char *value, const char *path,
                             unsigned long line, etm_diag_t *diag)
{
    snapshot_t *s = (snapshot_t *)user;
    if (!strcmp(section, "device")) {
        if (!strcmp(key, "class"))
            s->is_core = !strcmp(value, "core");
        if (!strcmp(key, "type"))
            s->is_etm = !strncmp(value, "ETM3", 4);
    } else if (!strcmp(section, "regs") && s->is_etm) {
        return snap_register(s, key, value, path, line);
    } else if (!strncmp(section, "dump", 4) && s->is_core) {
        if (!strcmp(key, "file")) {
            etm_err_t e = s->have_dump && s->dump_file[0] ? snap_flush_dump(s, diag) : ETM_OK;
            if (e != ETM_OK)
                return e;
            return snap_path(s, s->dump_file, value, path, line, diag);
        } else if (!strcmp(key, "address") || !strcmp(key, "length")) {
            uint64_t v = 0;
            etm_diag_t nd;
            if (etm_number_parse(value, 0, !strcmp(key, "address") ? UINT32_MAX : 1ull << 32, &v, &nd) != ETM_OK)
                return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "%s:%lu: %s %s", path, line, key, nd.msg);
            if (!strcmp(key, "address"))
                s->dump_addr = v;
            else
                s->dump_len = v;
        }
        s->have_dump = 1;
    }
    return ETM_OK;
}

/* The trace IDs of the ETMs found, for a message: "0x10, 0x11". */
static void snap_id_list(const snapshot_t *s, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < s->netm && len + 8 < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s0x%02x", i ? ", " : "", s->etm_ids[i]);
}

/* Every device: the ETM with trace ID `id` (0: the only ETM) into *cfg, all
 * core dumps into the image. */
static etm_err_t snap_devices(snapshot_t *s, unsigned id, etm_config_t *cfg, etm_diag_t *diag)
{
    int found = 0;
    const char *chosen_file = NULL;
    etm_diag_t chosen_error;
    etm_diag_clear(&chosen_error);
    for (unsigned i = 0; i < s->ndev; i++) {
        etm_err_t e;
        s->is_etm = s->is_core = 0;
        etm_diag_clear(&s->cfg_error);
        etm_config_default(&s->cfg);
        if ((e = ini_read(s->devices[i], snap_device, s, diag)) != ETM_OK || (e = snap_flush_dump(s, diag)) != ETM_OK)
            return e;
        if (!s->is_etm)
            continue;
        unsigned this_id = ETM_FIELD_GET(ETM_TRACEIDR_ID, s->cfg.etmtraceidr);
        s->etm_ids[s->netm++] = this_id;
        if (!found && (id == 0 || this_id == id)) {
            chosen_error = s->cfg_error;
            *cfg = s->cfg;
            chosen_file = s->devices[i];
            found = 1;
        }
    }
    char ids[MAX_DEVICES * 6 + 8];
    snap_id_list(s, ids, sizeof ids);
    if (id == 0 && s->netm > 1)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s: %u ETMv3 devices (trace IDs %s): choose one by its trace ID",
                             s->dir, s->netm, ids);
    if (!found && id == 0)
        return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "%s: no ETMv3 device", s->dir);
    if (!found && s->netm)
        return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "%s: no ETMv3 device with ETMTRACEIDR = 0x%02x (there: %s)",
                             s->dir, id, ids);
    if (!found)
        return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "%s: no ETMv3 device with ETMTRACEIDR = 0x%02x", s->dir, id);
    if (chosen_error.code != ETM_OK) {
        if (diag)
            *diag = chosen_error;
        return chosen_error.code;
    }
    /* ETMSCR and the peripheral ID, which snapshots do not list: those of the
     * part the other registers describe (a value that differs from the
     * default's was given, and stays). */
    etm_config_t dflt;
    etm_config_default(&dflt);
    etm_config_imply(cfg, cfg->etmscr != dflt.etmscr, cfg->pidr != dflt.pidr, 1, 0);
    /* The decoders follow the trace the registers describe, whichever part made it. */
    cfg->etmcr_impl = 0xFFFFFFFFu;
    /* The registers as a whole: a version the decoders speak, fields that exist in it. */
    etm_diag_t v;
    etm_diag_clear(&v);
    etm_err_t e = etm_config_validate(cfg, &v, NULL);
    if (e != ETM_OK)
        return etm_util_fail(diag, e, "%s: the ETM's registers are not an image the decoders accept: %s", chosen_file,
                             v.msg);
    return ETM_OK;
}

etm_err_t etm_snapshot_load(const char *dir, unsigned id, etm_config_t *cfg, etm_image_t *image, char *trace_path,
                            size_t trace_path_size, int *formatted, etm_diag_t *diag)
{
    return etm_snapshot_load_flags(dir, id, 0, cfg, image, trace_path, trace_path_size, formatted, diag);
}

etm_err_t etm_snapshot_load_flags(const char *dir, unsigned id, unsigned flags, etm_config_t *cfg, etm_image_t *image,
                                  char *trace_path, size_t trace_path_size, int *formatted, etm_diag_t *diag)
{
    char path[PATH_LEN + 32];
    snapshot_t *s = (snapshot_t *)calloc(1, sizeof *s);
    if (!s)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    s->dir = dir;
    s->image = image;
    s->flags = flags;
    s->realdir = realpath(dir, NULL);
    etm_err_t e;
    if (strlen(dir) >= PATH_LEN) {
        e = etm_util_fail(diag, ETM_ERR_TOO_LONG, "the snapshot folder's path is longer than %d characters",
                          PATH_LEN - 1);
        goto out;
    }
    snprintf(path, sizeof path, "%s/snapshot.ini", dir);
    if ((e = ini_read(path, snap_list, s, diag)) != ETM_OK)
        goto out;
    snprintf(path, sizeof path, "%s/trace.ini", dir);
    if ((e = ini_read(path, snap_trace, s, diag)) != ETM_OK)
        goto out;
    if (!s->trace_file[0]) {
        e = etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "%s: no trace buffer file named", path);
        goto out;
    }
    if ((e = snap_devices(s, id, cfg, diag)) != ETM_OK)
        goto out;
    if ((size_t)snprintf(trace_path, trace_path_size, "%s", s->trace_file) >= trace_path_size) {
        e = etm_util_fail(diag, ETM_ERR_TOO_LONG, "%s: the trace buffer's path is longer than the %zu bytes given",
                          path, trace_path_size);
        goto out;
    }
    *formatted = strcmp(s->trace_format, "source_data") != 0;
out:
    for (unsigned i = 0; i < s->ndev; i++)
        free(s->devices[i]);
    free(s->realdir);
    free(s);
    return e;
}
