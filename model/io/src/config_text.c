/* config_text.c - register images as files: read, write, explain. */
#include "etm/config_text.h"

#include <stdio.h>
#include <string.h>

#include "util.h"


etm_err_t etm_config_read_file(etm_config_t *cfg, const char *path, etm_diag_t *diag)
{
    etm_diag_clear(diag);
    if (diag)
        diag->file = path;
    FILE *f = etm_open_read(path, "cannot open the file", diag);
    if (!f) {
        etm_config_default(cfg);
        return ETM_ERR_IO;
    }
    etm_err_t e = etm_config_read_stream(cfg, f, path, diag);
    fclose(f);
    return e;
}

etm_err_t etm_config_read_stream(etm_config_t *cfg, FILE *f, const char *name, etm_diag_t *diag)
{
    etm_linereader_t lr;
    uint8_t seen[ETM_CONFIG_SEEN_BYTES] = { 0 };
    unsigned long slot_line[ETM_CONFIG_SLOTS] = { 0 };
    etm_err_t e;
    etm_diag_clear(diag);
    if (diag)
        diag->file = name;
    etm_config_default(cfg);
    lr.line = 0;
    lr.f = f;
    for (;;) {
        int slot;
        e = etm_lr_next(&lr, diag);
        if (e == ETM_END)
            break;
        if (e == ETM_OK)
            e = etm_config_parse_line(cfg, lr.buf, seen, &slot, diag);
        if (e != ETM_OK) {
            if (diag)
                diag->line = lr.line;
            return e;
        }
        if (slot >= 0)
            slot_line[slot] = lr.line;
    }
    etm_config_imply_seen(cfg, seen);
    int bad = -1;
    e = etm_config_validate(cfg, diag, &bad);
    if (e != ETM_OK && diag && bad >= 0)
        diag->line = slot_line[bad];
    return e;
}

etm_err_t etm_config_write(const etm_config_t *cfg, FILE *f, const char *prefix)
{
    if (!prefix)
        prefix = "";
    etm_config_t def;
    etm_config_default(&def);
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        for (unsigned k = 0; k < d->count; k++) {
            uint32_t v = etm_register_get(cfg, d, k);
            if (d->count > 1 && v == 0 && etm_register_get(&def, d, k) == 0)
                continue; /* zero, as the default has it */
            if (d->count > 1)
                fprintf(f, "%s%s%u=0x%08X\n", prefix, d->name, k + 1, (unsigned)v);
            else
                fprintf(f, "%s%s=0x%08X\n", prefix, d->name, (unsigned)v);
        }
    }
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}

/* One register's value and, when its layout has several fields, each field
 * that is not zero. */
static void explain_register(const etm_regdesc_t *r, unsigned k, uint32_t v, FILE *f)
{
    char name[24];
    if (r->count > 1)
        snprintf(name, sizeof name, "%s%u", r->name, k + 1);
    else
        snprintf(name, sizeof name, "%s", r->name);
    fprintf(f, "%-14s = 0x%08X  %s\n", name, (unsigned)v, r->doc);
    size_t n;
    const etm_regfield_t *fields = etm_layout_fields(r->layout, &n);
    if (n < 2)
        return;
    for (size_t j = 0; j < n; j++) {
        uint32_t fv = etm_regfield_get(&fields[j], v);
        if (fv == 0)
            continue;
        char rb[16];
        fprintf(f, "    %-8s %s = 0x%X\n", etm_regfield_bits(&fields[j], rb, sizeof rb), fields[j].name, (unsigned)fv);
    }
}

etm_err_t etm_config_explain(const etm_config_t *cfg, FILE *f)
{
    unsigned ver = 0;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_config_version(cfg, &ver, &d) == ETM_OK)
        fprintf(f, "# ETMv%u.%u\n", ETM_V_MAJOR(ver), ETM_V_MINOR(ver));
    else
        fprintf(f, "# version: %s\n", d.msg);
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *r = &etm_registers[i];
        for (unsigned k = 0; k < r->count; k++) {
            uint32_t v = etm_register_get(cfg, r, k);
            if (r->count > 1 && v == 0)
                continue;
            explain_register(r, k, v, f);
        }
    }
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}
