/* zip_int.h - the zip archives that sigrok session files are (internal to io).
 *
 * Enough of the zip format (PKWARE's APPNOTE) for a reader of archives written
 * by libzip and the like: the central directory, found from its end record
 * (zip64 records when the archive needs them), one disk, entries stored or
 * deflated (raw deflate, through zlib), not encrypted. An entry's bytes are
 * streamed through a fixed buffer and its CRC-32 checked at its end.
 *
 * Errors name the archive (diag->file), the byte offset where that helps
 * (diag->offset) and the entry.
 */
#ifndef ETM_IO_ZIP_INT_H
#define ETM_IO_ZIP_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

#include "etm/error.h"

typedef struct zip_entry {
    char *name;        /* NUL-terminated copy of its name */
    unsigned method;   /* 0 stored, 8 deflated (others refused when read) */
    uint32_t crc;      /* CRC-32 of its bytes */
    uint64_t csize;    /* bytes in the archive */
    uint64_t usize;    /* bytes it holds */
    uint64_t lho;      /* byte offset of its local header */
} zip_entry_t;

typedef struct zip_archive {
    FILE *f;
    const char *name;  /* for messages */
    uint64_t size;     /* of the file */
    uint64_t cd_off;   /* where the central directory begins */
    zip_entry_t *ent;
    size_t n;
} zip_archive_t;

/* Read the central directory of the archive in f (which must seek). Returns
 * ETM_OK, ETM_ERR_IO, ETM_ERR_SYNTAX (not a zip), ETM_ERR_TRUNCATED,
 * ETM_ERR_UNSUPPORTED (several disks, encryption), ETM_ERR_NOMEM. */
etm_err_t zip_open(zip_archive_t *z, FILE *f, const char *name, etm_diag_t *diag);
void zip_free(zip_archive_t *z);

/* The entry called name, or NULL. */
const zip_entry_t *zip_find(const zip_archive_t *z, const char *name);

#define ZIP_INBUF 65536

/* One entry's bytes, read in order. */
typedef struct zip_reader {
    zip_archive_t *z;
    const zip_entry_t *e;
    uint64_t data;     /* byte offset of its data in the archive */
    uint64_t in_left;  /* of its data, bytes not yet read from the file */
    uint64_t out_left; /* of its bytes, not yet given */
    uint32_t crc;      /* of the bytes given */
    int zlive;         /* zs holds an inflater */
    z_stream zs;
    uint8_t in[ZIP_INBUF];
} zip_reader_t;

/* Start reading entry e. Returns ETM_OK, ETM_ERR_IO, ETM_ERR_SYNTAX (no local
 * header), ETM_ERR_TRUNCATED, ETM_ERR_UNSUPPORTED (compression), ETM_ERR_NOMEM. */
etm_err_t zip_reader_open(zip_reader_t *r, zip_archive_t *z, const zip_entry_t *e, etm_diag_t *diag);
/* Its next bytes: *n of them (1 to max), or ETM_END with *n 0 once all were
 * given. Returns ETM_OK, ETM_END, ETM_ERR_IO, ETM_ERR_TRUNCATED, ETM_ERR_DECODE
 * (deflate data broken; the CRC-32 not the directory's), ETM_ERR_NOMEM. */
etm_err_t zip_reader_read(zip_reader_t *r, uint8_t *dst, size_t max, size_t *n, etm_diag_t *diag);
void zip_reader_close(zip_reader_t *r);

#endif
