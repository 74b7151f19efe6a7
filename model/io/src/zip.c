/* zip.c - the central directory of a zip archive and its entries' bytes,
 * stored or deflated (zip_int.h). Record layouts: PKWARE's APPNOTE.TXT,
 * sections 4.3.7 (local file header), 4.3.12 (central directory header),
 * 4.3.14-4.3.16 (zip64 end record, its locator, the end record), 4.5.3 (the
 * zip64 extra field).
 */
#include "zip_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define LFH_SIG 0x04034b50u     /* local file header */
#define LFH_LEN 30
#define CDH_SIG 0x02014b50u     /* central directory header */
#define CDH_LEN 46
#define EOCD_SIG 0x06054b50u    /* end of central directory record */
#define EOCD_LEN 22
#define EOCD_COMMENT_MAX 65535
#define Z64LOC_SIG 0x07064b50u  /* zip64 end of central directory locator */
#define Z64LOC_LEN 20
#define Z64END_SIG 0x06064b50u  /* zip64 end of central directory record */
#define Z64END_LEN 56
#define Z64_EXTRA_ID 0x0001u
#define FLAG_ENCRYPTED 0x0001u
#define METHOD_STORED 0u
#define METHOD_DEFLATED 8u
#define CD_MAX (64u << 20)      /* the largest central directory read */

static unsigned le16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* The archive's name and a byte offset into diag; returns code. */
static etm_err_t at(const zip_archive_t *z, etm_diag_t *diag, uint64_t off, etm_err_t code)
{
    if (diag) {
        diag->file = z->name;
        diag->offset = off;
    }
    return code;
}

/* n bytes at byte offset off into buf. */
static etm_err_t read_at(const zip_archive_t *z, uint64_t off, void *buf, size_t n, const char *what,
                         etm_diag_t *diag)
{
    if (off > z->size || n > z->size - off)
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_TRUNCATED,
                  "%s (%zu bytes) runs past the end of the file (%llu bytes): the file is cut short", what, n,
                  (unsigned long long)z->size));
    if (off > (uint64_t)LONG_MAX || fseek(z->f, (long)off, SEEK_SET) != 0 || fread(buf, 1, n, z->f) != n)
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_IO, "cannot read %s", what));
    return ETM_OK;
}

/* The end record: where it is and what it says (zip64's in its place when the
 * archive has one): the central directory's entries, size and offset. */
typedef struct zip_end {
    uint64_t at, entries, cd_size, cd_off;
    unsigned disk, cd_disk;
} zip_end_t;

/* The end record within the last EOCD_LEN + EOCD_COMMENT_MAX bytes, the last one
 * whose comment fits in the file. */
static etm_err_t find_end(zip_archive_t *z, zip_end_t *end, uint8_t rec[EOCD_LEN], etm_diag_t *diag)
{
    size_t tail = z->size < EOCD_LEN + EOCD_COMMENT_MAX ? (size_t)z->size : EOCD_LEN + EOCD_COMMENT_MAX;
    if (tail < EOCD_LEN)
        return at(z, diag, 0, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "not a zip file (%zu bytes, fewer than a zip's end record): a sigrok session file is a zip archive",
                  tail));
    uint8_t *buf = (uint8_t *)malloc(tail);
    if (!buf)
        return at(z, diag, 0, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory"));
    etm_err_t e = read_at(z, z->size - tail, buf, tail, "the end of the file", diag);
    if (e != ETM_OK) {
        free(buf);
        return e;
    }
    for (size_t i = tail - EOCD_LEN + 1; i-- > 0;) {
        if (le32(buf + i) == EOCD_SIG && i + EOCD_LEN + le16(buf + i + 20) <= tail) {
            memcpy(rec, buf + i, EOCD_LEN);
            end->at = z->size - tail + i;
            free(buf);
            return ETM_OK;
        }
    }
    free(buf);
    return at(z, diag, z->size, etm_util_fail(diag, ETM_ERR_SYNTAX,
              "no zip end record in the last %zu bytes: not a zip file, or one cut short "
              "(a sigrok session file is a zip archive)", tail));
}

/* The zip64 end record that the locator before the end record points to. */
static etm_err_t read_end64(zip_archive_t *z, zip_end_t *end, etm_diag_t *diag)
{
    uint8_t loc[Z64LOC_LEN], rec[Z64END_LEN];
    if (end->at < Z64LOC_LEN)
        return at(z, diag, end->at, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "the end record's counts call for zip64 records, but no zip64 locator precedes it"));
    etm_err_t e = read_at(z, end->at - Z64LOC_LEN, loc, sizeof loc, "the zip64 locator", diag);
    if (e != ETM_OK)
        return e;
    if (le32(loc) != Z64LOC_SIG)
        return at(z, diag, end->at - Z64LOC_LEN, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "the end record's counts call for zip64 records, but no zip64 locator precedes it"));
    uint64_t off = le64(loc + 8);
    if ((e = read_at(z, off, rec, sizeof rec, "the zip64 end record", diag)) != ETM_OK)
        return e;
    if (le32(rec) != Z64END_SIG)
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "no zip64 end record where its locator points"));
    end->disk = le32(rec + 16) || le32(loc + 4) || le32(loc + 16) > 1; /* another disk than the first */
    end->cd_disk = (unsigned)le32(rec + 20);
    end->entries = le64(rec + 32);
    end->cd_size = le64(rec + 40);
    end->cd_off = le64(rec + 48);
    return ETM_OK;
}

/* Where the central directory is and how many entries it holds. */
static etm_err_t read_end(zip_archive_t *z, zip_end_t *end, etm_diag_t *diag)
{
    uint8_t rec[EOCD_LEN] = { 0 };
    etm_err_t e = find_end(z, end, rec, diag);
    if (e != ETM_OK)
        return e;
    end->disk = le16(rec + 4);
    end->cd_disk = le16(rec + 6);
    end->entries = le16(rec + 10);
    end->cd_size = le32(rec + 12);
    end->cd_off = le32(rec + 16);
    if ((end->entries == 0xFFFFu || end->cd_size == 0xFFFFFFFFu || end->cd_off == 0xFFFFFFFFu) &&
        (e = read_end64(z, end, diag)) != ETM_OK)
        return e;
    if (end->disk || end->cd_disk)
        return at(z, diag, end->at, etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                  "a zip archive split over several disks: only single-file archives are read"));
    if (end->cd_off > end->at || end->cd_size > end->at - end->cd_off)
        return at(z, diag, end->cd_off, etm_util_fail(diag, ETM_ERR_TRUNCATED,
                  "the central directory (%llu bytes from byte offset %llu) runs past its end record at byte "
                  "offset %llu: the file is damaged or cut short", (unsigned long long)end->cd_size,
                  (unsigned long long)end->cd_off, (unsigned long long)end->at));
    if (end->cd_size > CD_MAX || end->entries > end->cd_size / CDH_LEN)
        return at(z, diag, end->at, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "the end record counts %llu entries in a central directory of %llu bytes, which cannot hold them"
                  "%s", (unsigned long long)end->entries, (unsigned long long)end->cd_size,
                  end->cd_size > CD_MAX ? " (or is larger than the 64 MiB this reader takes)" : ""));
    return ETM_OK;
}

/* The zip64 extra field's sizes and offset, for the fields the header left at
 * their largest value. Returns 0, or -1 when the field is too short. */
static int read_zip64_extra(const uint8_t *x, size_t xlen, uint32_t csize32, uint32_t usize32, uint32_t lho32,
                            zip_entry_t *en)
{
    while (xlen >= 4) {
        unsigned id = le16(x), len = le16(x + 2);
        if (len > xlen - 4)
            return -1;
        if (id == Z64_EXTRA_ID) {
            const uint8_t *p = x + 4, *e = x + 4 + len;
            uint64_t *fields[3] = { &en->usize, &en->csize, &en->lho };
            int wide[3] = { usize32 == 0xFFFFFFFFu, csize32 == 0xFFFFFFFFu, lho32 == 0xFFFFFFFFu };
            for (int k = 0; k < 3; k++) {
                if (!wide[k])
                    continue;
                if (e - p < 8)
                    return -1;
                *fields[k] = le64(p);
                p += 8;
            }
            return 0;
        }
        x += 4 + len;
        xlen -= 4 + len;
    }
    return (csize32 == 0xFFFFFFFFu || usize32 == 0xFFFFFFFFu || lho32 == 0xFFFFFFFFu) ? -1 : 0;
}

/* One central directory header at cd[*pos] (byte offset off) into en; *pos
 * moves past it. */
static etm_err_t read_header(zip_archive_t *z, const uint8_t *cd, size_t size, size_t *pos, uint64_t off,
                             zip_entry_t *en, etm_diag_t *diag)
{
    const uint8_t *h = cd + *pos;
    if (size - *pos < CDH_LEN || le32(h) != CDH_SIG)
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "entry %zu of the central directory: no directory header here", z->n + 1));
    size_t nlen = le16(h + 28), xlen = le16(h + 30), clen = le16(h + 32);
    if (size - *pos - CDH_LEN < nlen + xlen + clen)
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_TRUNCATED,
                  "entry %zu of the central directory runs past the directory's end", z->n + 1));
    if (!(en->name = (char *)malloc(nlen + 1)))
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory"));
    memcpy(en->name, h + CDH_LEN, nlen);
    en->name[nlen] = '\0';
    en->method = le16(h + 10);
    en->crc = le32(h + 16);
    en->csize = le32(h + 20);
    en->usize = le32(h + 24);
    en->lho = le32(h + 42);
    if (read_zip64_extra(h + CDH_LEN + nlen, xlen, le32(h + 20), le32(h + 24), le32(h + 42), en) != 0)
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "entry '%s': its sizes call for a zip64 extra field that it lacks or cuts short", en->name));
    if (le16(h + 8) & FLAG_ENCRYPTED)
        return at(z, diag, off, etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                  "entry '%s' is encrypted: only plain entries are read", en->name));
    if (en->lho > z->cd_off || en->csize > z->cd_off - en->lho || z->cd_off - en->lho - en->csize < LFH_LEN)
        return at(z, diag, en->lho, etm_util_fail(diag, ETM_ERR_TRUNCATED,
                  "entry '%s': its %llu bytes from its local header at byte offset %llu run into the central "
                  "directory at byte offset %llu: the file is damaged", en->name, (unsigned long long)en->csize,
                  (unsigned long long)en->lho, (unsigned long long)z->cd_off));
    *pos += CDH_LEN + nlen + xlen + clen;
    return ETM_OK;
}

/* Every header of the central directory into z->ent. */
static etm_err_t read_directory(zip_archive_t *z, const zip_end_t *end, etm_diag_t *diag)
{
    size_t size = (size_t)end->cd_size, pos = 0;
    uint8_t *cd = (uint8_t *)malloc(size ? size : 1);
    z->ent = (zip_entry_t *)calloc(end->entries ? (size_t)end->entries : 1, sizeof *z->ent);
    if (!cd || !z->ent) {
        free(cd);
        return at(z, diag, end->cd_off, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory"));
    }
    z->cd_off = end->cd_off;
    etm_err_t e = read_at(z, end->cd_off, cd, size, "the central directory", diag);
    while (e == ETM_OK && z->n < end->entries) {
        e = read_header(z, cd, size, &pos, end->cd_off + pos, &z->ent[z->n], diag);
        if (e == ETM_OK || z->ent[z->n].name)
            z->n++; /* kept, so that zip_free frees its name */
    }
    free(cd);
    return e;
}

etm_err_t zip_open(zip_archive_t *z, FILE *f, const char *name, etm_diag_t *diag)
{
    memset(z, 0, sizeof *z);
    z->f = f;
    z->name = name;
    long size;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0)
        return at(z, diag, UINT64_MAX, etm_util_fail(diag, ETM_ERR_IO, "cannot seek in the file"));
    z->size = (uint64_t)size;
    zip_end_t end = { 0, 0, 0, 0, 0, 0 };
    etm_err_t e = read_end(z, &end, diag);
    if (e == ETM_OK)
        e = read_directory(z, &end, diag);
    if (e != ETM_OK)
        zip_free(z);
    return e;
}

void zip_free(zip_archive_t *z)
{
    for (size_t i = 0; i < z->n; i++)
        free(z->ent[i].name);
    free(z->ent);
    z->ent = NULL;
    z->n = 0;
}

const zip_entry_t *zip_find(const zip_archive_t *z, const char *name)
{
    for (size_t i = 0; i < z->n; i++)
        if (!strcmp(z->ent[i].name, name))
            return &z->ent[i];
    return NULL;
}

/* ---- An entry's bytes --------------------------------------------------------- */

static const char *method_name(unsigned m)
{
    switch (m) {
    case 1: return "shrunk";
    case 6: return "imploded";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "LZMA";
    case 93: return "Zstandard";
    case 95: return "xz";
    case 98: return "PPMd";
    default: return "unknown";
    }
}

etm_err_t zip_reader_open(zip_reader_t *r, zip_archive_t *z, const zip_entry_t *e, etm_diag_t *diag)
{
    memset(r, 0, offsetof(zip_reader_t, in));
    r->z = z;
    r->e = e;
    uint8_t h[LFH_LEN];
    etm_err_t err = read_at(z, e->lho, h, sizeof h, "a local header", diag);
    if (err != ETM_OK)
        return err;
    if (le32(h) != LFH_SIG)
        return at(z, diag, e->lho, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "entry '%s': no local header where the central directory points", e->name));
    r->data = e->lho + LFH_LEN + le16(h + 26) + le16(h + 28);
    if (r->data > z->cd_off || e->csize > z->cd_off - r->data)
        return at(z, diag, r->data, etm_util_fail(diag, ETM_ERR_TRUNCATED,
                  "entry '%s': its %llu bytes of data run into the central directory at byte offset %llu",
                  e->name, (unsigned long long)e->csize, (unsigned long long)z->cd_off));
    if (e->method == METHOD_STORED && e->csize != e->usize)
        return at(z, diag, e->lho, etm_util_fail(diag, ETM_ERR_SYNTAX,
                  "entry '%s' is stored, but takes %llu bytes in the archive for %llu bytes of its own", e->name,
                  (unsigned long long)e->csize, (unsigned long long)e->usize));
    if (e->method != METHOD_STORED && e->method != METHOD_DEFLATED)
        return at(z, diag, e->lho, etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                  "entry '%s' is compressed with method %u (%s): only stored (0) and deflated (8) entries are read",
                  e->name, e->method, method_name(e->method)));
    if (e->method == METHOD_DEFLATED) {
        if (inflateInit2(&r->zs, -MAX_WBITS) != Z_OK)
            return at(z, diag, r->data, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory (zlib)"));
        r->zlive = 1;
    }
    r->in_left = e->csize;
    r->out_left = e->usize;
    r->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    if (r->data > (uint64_t)LONG_MAX || fseek(z->f, (long)r->data, SEEK_SET) != 0)
        return at(z, diag, r->data, etm_util_fail(diag, ETM_ERR_IO, "cannot seek to entry '%s'", e->name));
    return ETM_OK;
}

/* Up to max bytes of a stored entry. */
static etm_err_t read_stored(zip_reader_t *r, uint8_t *dst, size_t max, size_t *n, etm_diag_t *diag)
{
    size_t k = max < r->out_left ? max : (size_t)r->out_left;
    if (fread(dst, 1, k, r->z->f) != k)
        return at(r->z, diag, r->data + (r->e->csize - r->in_left), etm_util_fail(diag, ETM_ERR_IO,
                  "entry '%s': cannot read its bytes", r->e->name));
    r->in_left -= k;
    *n = k;
    return ETM_OK;
}

/* Up to max bytes of a deflated entry: at least one unless an error. */
static etm_err_t read_deflated(zip_reader_t *r, uint8_t *dst, size_t max, size_t *n, etm_diag_t *diag)
{
    const zip_entry_t *e = r->e;
    uint64_t want = max < r->out_left ? max : r->out_left;
    if (want > (1u << 30))
        want = 1u << 30;
    r->zs.next_out = dst;
    r->zs.avail_out = (uInt)want;
    while (r->zs.avail_out == (uInt)want) {
        if (r->zs.avail_in == 0 && r->in_left) {
            size_t k = r->in_left < ZIP_INBUF ? (size_t)r->in_left : ZIP_INBUF;
            if (fread(r->in, 1, k, r->z->f) != k)
                return at(r->z, diag, r->data + (e->csize - r->in_left), etm_util_fail(diag, ETM_ERR_IO,
                          "entry '%s': cannot read its bytes", e->name));
            r->in_left -= k;
            r->zs.next_in = r->in;
            r->zs.avail_in = (uInt)k;
        }
        uint64_t used = e->csize - r->in_left - r->zs.avail_in;
        int zr = inflate(&r->zs, Z_NO_FLUSH);
        size_t got = (size_t)(r->zs.next_out - dst);
        if (zr == Z_MEM_ERROR)
            return at(r->z, diag, r->data + used, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory (zlib)"));
        if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR)
            return at(r->z, diag, r->data + used, etm_util_fail(diag, ETM_ERR_DECODE,
                      "entry '%s': its deflate data is broken after %llu of its %llu bytes (zlib: %s)", e->name,
                      (unsigned long long)(e->usize - r->out_left + got), (unsigned long long)e->usize,
                      r->zs.msg ? r->zs.msg : "data error"));
        if (got < want && (zr == Z_STREAM_END || (zr == Z_BUF_ERROR && !r->in_left && !r->zs.avail_in)))
            return at(r->z, diag, r->data + e->csize, etm_util_fail(diag, ETM_ERR_TRUNCATED,
                      "entry '%s': its deflate data ends after %llu of its %llu bytes", e->name,
                      (unsigned long long)(e->usize - r->out_left + got), (unsigned long long)e->usize));
    }
    *n = (size_t)(r->zs.next_out - dst);
    return ETM_OK;
}

etm_err_t zip_reader_read(zip_reader_t *r, uint8_t *dst, size_t max, size_t *n, etm_diag_t *diag)
{
    *n = 0;
    if (!r->out_left || !max)
        return r->out_left ? ETM_OK : ETM_END;
    etm_err_t e = r->zlive ? read_deflated(r, dst, max, n, diag) : read_stored(r, dst, max, n, diag);
    if (e != ETM_OK)
        return e;
    r->crc = (uint32_t)crc32(r->crc, dst, (uInt)*n);
    r->out_left -= *n;
    if (!r->out_left && r->crc != r->e->crc)
        return at(r->z, diag, r->e->lho, etm_util_fail(diag, ETM_ERR_DECODE,
                  "entry '%s': the CRC-32 of its %llu bytes is 0x%08lx, the central directory says 0x%08lx: "
                  "the file is damaged", r->e->name, (unsigned long long)r->e->usize, (unsigned long)r->crc,
                  (unsigned long)r->e->crc));
    return ETM_OK;
}

void zip_reader_close(zip_reader_t *r)
{
    if (r->zlive)
        inflateEnd(&r->zs);
    r->zlive = 0;
}
