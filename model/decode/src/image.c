/* image.c - code images (etm/snapshot.h): raw binaries at an address, and ELF
 * files, a 32-bit little-endian ARM executable's loadable segments read by
 * their program headers (ELF specification, "Program header"; e_machine 40). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code_read.h"
#include "etm/snapshot.h"
#include "util.h"

#define EHDR_SIZE 52u   /* Elf32_Ehdr */
#define PHDR_SIZE 32u   /* Elf32_Phdr */
#define PT_LOAD 1u
#define EM_ARM 40u

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static unsigned le16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

int etm_is_elf(const uint8_t *data, size_t size) { return size >= 4 && !memcmp(data, "\177ELF", 4); }

etm_err_t etm_elf_parse(const uint8_t *data, size_t size, const char *name, etm_elf_segment_t *seg, unsigned max,
                        unsigned *nseg, uint32_t *entry, etm_diag_t *diag)
{
    *nseg = 0;
    if (!etm_is_elf(data, size))
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: byte 0: not an ELF file (no 0x7F 'ELF')", name);
    if (size < EHDR_SIZE)
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: byte %zu: the ELF header (52 bytes) is cut short", name, size);
    if (data[4] != 1)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "%s: byte 4: ELF class %u, not 32-bit (1): an ETM's code "
                             "image is a 32-bit ARM executable", name, data[4]);
    if (data[5] != 1)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "%s: byte 5: data encoding %u, not little-endian (1)", name,
                             data[5]);
    if (le16(data + 18) != EM_ARM)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "%s: byte 18: machine %u, not ARM (40)", name,
                             le16(data + 18));
    uint32_t phoff = le32(data + 28);
    unsigned phentsize = le16(data + 42), phnum = le16(data + 44);
    if (entry)
        *entry = le32(data + 24);
    if (phnum && phentsize < PHDR_SIZE)
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: byte 42: program header size %u, less than 32", name,
                             phentsize);
    for (unsigned i = 0; i < phnum; i++) {
        uint64_t o = (uint64_t)phoff + (uint64_t)i * phentsize;
        if (o + PHDR_SIZE > size)
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: byte %llu: program header %u lies past the end of the "
                                 "file (%zu bytes)", name, (unsigned long long)o, i, size);
        const uint8_t *ph = data + o;
        etm_elf_segment_t s;
        s.offset = le32(ph + 4);
        s.vaddr = le32(ph + 8);
        s.paddr = le32(ph + 12);
        s.filesz = le32(ph + 16);
        s.memsz = le32(ph + 20);
        s.flags = le32(ph + 24);
        if (le32(ph) != PT_LOAD || s.filesz == 0)
            continue; /* only loadable segments with contents are code or data */
        if ((uint64_t)s.offset + s.filesz > size)
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: byte %llu: segment %u (%u bytes at file offset %u) runs "
                                 "past the end of the file (%zu bytes)", name, (unsigned long long)o, i,
                                 (unsigned)s.filesz, (unsigned)s.offset, size);
        if (*nseg == max)
            return etm_util_fail(diag, ETM_ERR_ARG, "%s: more than %u loadable segments", name, max);
        seg[(*nseg)++] = s;
    }
    if (!*nseg)
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "%s: no loadable segment with contents (PT_LOAD)", name);
    return ETM_OK;
}

/* The whole file into *out (malloc'ed) and *size. */
static etm_err_t read_file(const char *path, uint8_t **out, size_t *size, etm_diag_t *diag)
{
    *out = NULL;
    char what[600];
    snprintf(what, sizeof what, "%s: cannot open the code image", path);
    FILE *f = etm_open_read(path, what, diag);
    if (!f)
        return ETM_ERR_IO;
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *b = (uint8_t *)malloc(cap);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = (uint8_t *)realloc(b, cap * 2);
            if (!nb)
                free(b);
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "%s: out of memory for the code image", path);
    if (bad) {
        free(b);
        return etm_util_fail(diag, ETM_ERR_IO, "%s: cannot read the code image", path);
    }
    *out = b;
    *size = n;
    return ETM_OK;
}

static etm_err_t add_region(etm_image_t *im, uint32_t addr, const uint8_t *bytes, size_t n, const char *path,
                            etm_diag_t *diag)
{
    if (im->n == ETM_IMAGE_MAX_REGIONS)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s: at most %d code image regions", path, ETM_IMAGE_MAX_REGIONS);
    uint8_t *b = (uint8_t *)malloc(n ? n : 1);
    if (!b)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "%s: out of memory for the code image", path);
    memcpy(b, bytes, n);
    im->r[im->n].addr = addr;
    im->r[im->n].bytes = b;
    im->r[im->n].size = n;
    im->n++;
    return ETM_OK;
}

/* ---- Raw binaries ------------------------------------------------------------------ */

etm_err_t etm_image_load(etm_image_t *im, uint32_t addr, const char *path, uint64_t max_len, etm_diag_t *diag)
{
    if (im->n == ETM_IMAGE_MAX_REGIONS)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s: at most %d code images", path, ETM_IMAGE_MAX_REGIONS);
    uint8_t *data;
    size_t n = 0;
    etm_err_t e = read_file(path, &data, &n, diag);
    if (e != ETM_OK)
        return e;
    if (max_len && n > max_len)
        n = (size_t)max_len;
    e = add_region(im, addr, data, n, path, diag);
    free(data);
    return e;
}

int etm_image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const etm_image_t *im = (const etm_image_t *)user;
    for (unsigned i = 0; i < im->n; i++) {
        const etm_mem_region_t *r = &im->r[i];
        if (addr >= r->addr && (uint64_t)addr - r->addr < r->size)
            return code_read(buf, r->bytes, r->size, addr - r->addr, n);
    }
    return 0;
}

void etm_image_free(etm_image_t *im)
{
    for (unsigned i = 0; i < im->n; i++)
        free(im->r[i].bytes);
    memset(im, 0, sizeof *im);
}

/* ---- ELF files ------------------------------------------------------------------- */

etm_err_t etm_image_load_elf(etm_image_t *im, const char *path, etm_diag_t *diag)
{
    uint8_t *data;
    size_t size = 0;
    etm_err_t e = read_file(path, &data, &size, diag);
    if (e != ETM_OK)
        return e;
    etm_elf_segment_t seg[ETM_IMAGE_MAX_REGIONS];
    unsigned n = 0;
    e = etm_elf_parse(data, size, path, seg, ETM_IMAGE_MAX_REGIONS, &n, NULL, diag);
    if (e == ETM_OK && im->n + n > ETM_IMAGE_MAX_REGIONS)
        e = etm_util_fail(diag, ETM_ERR_ARG, "%s: %u segments, and the image has room for %u more", path, n,
                          ETM_IMAGE_MAX_REGIONS - im->n);
    /* Each at the address the core runs it at (p_vaddr): what the trace gives. */
    for (unsigned i = 0; e == ETM_OK && i < n; i++)
        e = add_region(im, seg[i].vaddr, data + seg[i].offset, seg[i].filesz, path, diag);
    free(data);
    return e;
}

/* Is the file at path an ELF file? */
static etm_err_t file_is_elf(const char *path, int *elf, etm_diag_t *diag)
{
    uint8_t *data;
    size_t size = 0;
    etm_err_t e = read_file(path, &data, &size, diag);
    if (e != ETM_OK)
        return e;
    *elf = etm_is_elf(data, size);
    free(data);
    return ETM_OK;
}

etm_err_t etm_image_load_arg(etm_image_t *im, const char *arg, etm_diag_t *diag)
{
    const char *colon = strchr(arg, ':');
    int elf = 0;
    etm_err_t e;
    if (!colon) {
        if ((e = file_is_elf(arg, &elf, diag)) != ETM_OK)
            return e;
        if (!elf)
            return etm_util_fail(diag, ETM_ERR_ARG, "%s: not an ELF file; a raw binary needs the address it is "
                                 "loaded at: ADDR:%s (ADDR in hex)", arg, arg);
        return etm_image_load_elf(im, arg, diag);
    }
    char *end;
    unsigned long long addr = strtoull(arg, &end, 16);
    if (end != colon || colon == arg || addr > 0xFFFFFFFFull)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s: '%.*s' is not a 32-bit hex address (ADDR:FILE for a raw "
                             "binary, or an ELF file alone)", arg, (int)(colon - arg), arg);
    const char *path = colon + 1;
    if ((e = file_is_elf(path, &elf, diag)) != ETM_OK)
        return e;
    if (elf)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s: an ELF file places itself by its program headers: give it "
                             "without an address (%s)", path, path);
    return etm_image_load(im, (uint32_t)addr, path, 0, diag);
}
