/* etm/sigrok.h - a logic analyzer's capture from a sigrok session file (.sr),
 * one probe's samples at a time.
 *
 * A session file (libsigrok's "srzip", format versions 1 and 2) is a zip
 * archive holding:
 *   version      "1" or "2"
 *   metadata     INI text; its section [device 1] says
 *                  samplerate=24 MHz     (Hz, kHz, MHz or GHz)
 *                  total probes=8
 *                  probe5=SWO            (probeN: the name of probe N, 1-based)
 *                  unitsize=1            (bytes a sample)
 *                  capturefile=logic-1
 *   logic-1-1, logic-1-2, ...  the samples in chunks (one entry "logic-1" in
 *                old files), unitsize bytes each, little-endian: probe N is
 *                bit N-1 of the sample.
 * Entries may be stored or deflated. The reader parses the zip's central
 * directory itself and inflates with zlib; it streams: its memory is a few
 * buffers of fixed size (and one small record per chunk), whatever the
 * length of the capture.
 *
 * Errors name the file (diag->file), where in it (diag->offset: the byte
 * offset in the zip, where that helps), the entry and the rule broken; a
 * capture that is not a zip, is cut short, uses another compression, lacks
 * its metadata, its sample rate or its chunks, or names more probes than it
 * can hold is refused, never read wrongly.
 *
 *     etm_sigrok_t *s;  unsigned probe;  uint8_t lv[4096];  size_t n;
 *     etm_sigrok_open(&s, "capture.sr", &d);
 *     etm_sigrok_find_probe(s, "SWO", &probe, &d);
 *     etm_sigrok_start(s, probe, &d);
 *     while ((e = etm_sigrok_read(s, lv, sizeof lv, &n, &d)) == ETM_OK) ... n levels, 0 or 1
 *     etm_sigrok_close(s);
 */
#ifndef ETM_SIGROK_H
#define ETM_SIGROK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_SIGROK_MAX_UNIT 8                        /* bytes a sample: up to 64 probes */
#define ETM_SIGROK_MAX_PROBES (8 * ETM_SIGROK_MAX_UNIT)
#define ETM_SIGROK_NAME_MAX 64                       /* a probe's name, with its NUL */

/* What the metadata and the zip's directory say about the capture. */
typedef struct etm_sigrok_info {
    unsigned version;       /* the "version" entry: 1 or 2 (0 when the file has none) */
    uint64_t samplerate;    /* samples a second */
    unsigned probes;        /* "total probes" */
    unsigned unitsize;      /* bytes a sample, 1 to ETM_SIGROK_MAX_UNIT */
    unsigned chunks;        /* entries holding samples */
    uint64_t samples;       /* samples in all of them */
    char capturefile[ETM_SIGROK_NAME_MAX];
    char probe_name[ETM_SIGROK_MAX_PROBES][ETM_SIGROK_NAME_MAX]; /* [N-1]: probe N's name, "" if none */
} etm_sigrok_info_t;

typedef struct etm_sigrok etm_sigrok_t;

/* Open a session file and read its directory and metadata. path is kept (not
 * copied) for messages. Returns ETM_OK, ETM_ERR_IO (cannot open or read),
 * ETM_ERR_SYNTAX (not a zip; metadata that cannot be read), ETM_ERR_TRUNCATED
 * (the zip or an entry cut short), ETM_ERR_UNSUPPORTED (compression other
 * than stored or deflated, encryption, a zip on several disks, unitsize
 * above ETM_SIGROK_MAX_UNIT), ETM_ERR_MISSING_HEADER (no metadata, no sample
 * rate, no unitsize, no capture file, no chunks), ETM_ERR_FORMAT_VERSION
 * (version other than 1 or 2), ETM_ERR_DUPLICATE (a chunk twice),
 * ETM_ERR_NOMEM; *out is NULL after an error. */
etm_err_t etm_sigrok_open(etm_sigrok_t **out, const char *path, etm_diag_t *diag);
/* The same on an open stream that can seek (a file, fmemopen), named name in
 * messages; the stream stays open after etm_sigrok_close. */
etm_err_t etm_sigrok_open_stream(etm_sigrok_t **out, FILE *f, const char *name, etm_diag_t *diag);
void etm_sigrok_close(etm_sigrok_t *s);

const etm_sigrok_info_t *etm_sigrok_get_info(const etm_sigrok_t *s);

/* The probe called name: a probe's name in the metadata (as sigrok-cli's
 * decoders take it: "SWO"; exact, else the only one equal but for case),
 * else a probe number as the metadata numbers them (1 to total probes).
 * *bit is the probe's bit in a sample (probe N: N-1). Returns ETM_OK or
 * ETM_ERR_UNKNOWN_NAME (the message lists the named probes). */
etm_err_t etm_sigrok_find_probe(const etm_sigrok_t *s, const char *name, unsigned *bit, etm_diag_t *diag);

/* Read the samples of the probe at bit from the first sample (again, if
 * reading had begun). Returns ETM_OK, ETM_ERR_ARG (no such bit), or an error
 * of the first chunk as etm_sigrok_read. */
etm_err_t etm_sigrok_start(etm_sigrok_t *s, unsigned bit, etm_diag_t *diag);

/* The next samples of the chosen probe: levels[i] is 0 or 1, *n of them (1 to
 * max, which is at least 1; fewer where a chunk's buffer ends). Returns
 * ETM_OK, ETM_END (every sample given; *n is 0), ETM_ERR_STATE (no
 * etm_sigrok_start), ETM_ERR_IO, ETM_ERR_TRUNCATED, ETM_ERR_DECODE (a deflate
 * stream broken, or a chunk's CRC-32 not the directory's: diag names the
 * entry and the offset). */
etm_err_t etm_sigrok_read(etm_sigrok_t *s, uint8_t *levels, size_t max, size_t *n, etm_diag_t *diag);

/* Samples given since etm_sigrok_start: the index of the next one. */
uint64_t etm_sigrok_position(const etm_sigrok_t *s);

/* "24 MHz", "8.051M", "500 kHz", "115200" into *hz (a whole number above 0):
 * a decimal number, optionally a fraction, optionally blanks, optionally
 * k, M or G, optionally "Hz" (any case). Returns 0, or -1 when s is not such
 * a rate. */
int etm_sigrok_parse_rate(const char *s, uint64_t *hz);

#ifdef __cplusplus
}
#endif
#endif
