/* sigrok.c - sigrok session files: the metadata, the probes, one probe's
 * samples streamed chunk by chunk (etm/sigrok.h). The zip container is zip.c.
 *
 * The format is libsigrok's (src/output/srzip.c writes it, src/input/ and
 * session_file.c read it): metadata keys of [device 1] as listed in
 * etm/sigrok.h, sample chunks named after capturefile.
 */
#include "etm/sigrok.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "zip_int.h"

#define META_MAX (1u << 20)   /* the largest metadata entry read */
#define VERSION_MAX 16
#define RAW_BYTES 65536       /* raw samples inflated at a time */
#define META_SECTION "device 1"

struct etm_sigrok {
    zip_archive_t zip;
    FILE *own;                   /* opened by etm_sigrok_open, closed by etm_sigrok_close */
    etm_sigrok_info_t info;
    const zip_entry_t **chunk;   /* info.chunks of them, in order */
    /* Reading one probe's samples. */
    int started;
    unsigned bit;
    unsigned next;               /* the chunk to open when rd is used up */
    int reading;                 /* rd holds a chunk */
    uint64_t pos;                /* samples given */
    size_t raw_n, raw_pos;       /* bytes in raw, the next sample's first byte */
    uint8_t raw[RAW_BYTES];
    zip_reader_t rd;
};

/* The file's name (no offset: the message names the entry) into diag; returns code. */
static etm_err_t in_file(const etm_sigrok_t *s, etm_diag_t *diag, etm_err_t code)
{
    if (diag)
        diag->file = s->zip.name;
    return code;
}

/* ---- Rates ------------------------------------------------------------------ */

/* The unit after a rate's number: its factor, and where the text goes on. */
static uint64_t rate_unit(const char *p, const char **rest)
{
    uint64_t mul = 1;
    switch (*p) {
    case 'k': case 'K': mul = 1000u; p++; break;
    case 'M': mul = 1000000u; p++; break;
    case 'G': mul = 1000000000u; p++; break;
    default: break;
    }
    if ((p[0] == 'H' || p[0] == 'h') && (p[1] == 'z' || p[1] == 'Z'))
        p += 2;
    *rest = p;
    return mul;
}

int etm_sigrok_parse_rate(const char *s, uint64_t *hz)
{
    uint64_t whole = 0, frac = 0, scale = 1;
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return -1;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            if (scale < 1000000000u) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                scale *= 10;
            }
    while (etm_util_isblank(*p))
        p++;
    uint64_t mul = rate_unit(p, &p);
    while (etm_util_isblank(*p))
        p++;
    if (*p || whole > UINT64_MAX / mul / 2)
        return -1;
    uint64_t v = whole * mul + frac * mul / scale;
    if (frac * mul % scale || !v)
        return -1; /* not a whole number of Hz, or 0 */
    *hz = v;
    return 0;
}

/* ---- Metadata --------------------------------------------------------------------- */

/* An entry's bytes, all of them (at most max), NUL-terminated, into a new buffer. */
static etm_err_t read_whole(etm_sigrok_t *s, const zip_entry_t *e, size_t max, char **out, etm_diag_t *diag)
{
    *out = NULL;
    if (e->usize > max)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                       "entry '%s' holds %llu bytes: more than the %zu a sigrok session file's %s has", e->name,
                       (unsigned long long)e->usize, max, e->name));
    char *buf = (char *)malloc((size_t)e->usize + 1);
    if (!buf)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory"));
    size_t have = 0, n;
    etm_err_t err = zip_reader_open(&s->rd, &s->zip, e, diag);
    while (err == ETM_OK && (err = zip_reader_read(&s->rd, (uint8_t *)buf + have, (size_t)e->usize - have, &n,
                                                   diag)) == ETM_OK)
        have += n;
    zip_reader_close(&s->rd);
    if (err != ETM_END) {
        free(buf);
        return err;
    }
    buf[have] = '\0';
    *out = buf;
    return ETM_OK;
}

/* The "version" entry, when there is one: 1 or 2. */
static etm_err_t read_version(etm_sigrok_t *s, etm_diag_t *diag)
{
    const zip_entry_t *e = zip_find(&s->zip, "version");
    if (!e)
        return ETM_OK;
    char *text;
    etm_err_t err = read_whole(s, e, VERSION_MAX, &text, diag);
    if (err != ETM_OK)
        return err;
    char *end = text + strlen(text);
    while (end > text && (etm_util_isblank(end[-1]) || end[-1] == '\n'))
        *--end = '\0';
    if (strcmp(text, "1") && strcmp(text, "2"))
        err = in_file(s, diag, etm_util_fail(diag, ETM_ERR_FORMAT_VERSION,
                      "entry 'version' says '%.8s': sigrok session files of versions 1 and 2 are read", text));
    else
        s->info.version = (unsigned)(text[0] - '0');
    free(text);
    return err;
}

/* A whole number for the metadata key at line ln. */
static etm_err_t meta_number(etm_sigrok_t *s, const char *key, const char *v, unsigned ln, unsigned *out,
                             etm_diag_t *diag)
{
    uint64_t x;
    if (etm_util_parse_dec(v, strlen(v), &x) != 0 || x > 0xFFFFu)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                       "entry 'metadata', line %u: %s '%s' is not a whole number", ln, key, v));
    *out = (unsigned)x;
    return ETM_OK;
}

/* A probe's name: probeN=NAME. */
static etm_err_t meta_probe(etm_sigrok_t *s, const char *key, const char *v, unsigned ln, etm_diag_t *diag)
{
    uint64_t n;
    if (etm_util_parse_dec(key + 5, strlen(key + 5), &n) != 0 || n < 1 || n > ETM_SIGROK_MAX_PROBES)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                       "entry 'metadata', line %u: '%s' names no probe 1 to %d", ln, key, ETM_SIGROK_MAX_PROBES));
    if (strlen(v) >= ETM_SIGROK_NAME_MAX)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                       "entry 'metadata', line %u: the name of probe %u is longer than %d characters", ln,
                       (unsigned)n, ETM_SIGROK_NAME_MAX - 1));
    strcpy(s->info.probe_name[n - 1], v);
    return ETM_OK;
}

/* One key=value line of [device 1]. */
static etm_err_t meta_key(etm_sigrok_t *s, const char *key, const char *v, unsigned ln, etm_diag_t *diag)
{
    etm_sigrok_info_t *in = &s->info;
    if (!strcmp(key, "samplerate")) {
        if (etm_sigrok_parse_rate(v, &in->samplerate) != 0)
            return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                           "entry 'metadata', line %u: samplerate '%s' is not a rate (24 MHz, 500 kHz, 1000 Hz)", ln,
                           v));
    } else if (!strcmp(key, "total probes")) {
        return meta_number(s, key, v, ln, &in->probes, diag);
    } else if (!strcmp(key, "unitsize")) {
        return meta_number(s, key, v, ln, &in->unitsize, diag);
    } else if (!strcmp(key, "capturefile")) {
        if (!*v || strlen(v) >= sizeof in->capturefile)
            return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                           "entry 'metadata', line %u: capturefile '%.80s' is empty or too long", ln, v));
        strcpy(in->capturefile, v);
    } else if (!strncmp(key, "probe", 5) && isdigit((unsigned char)key[5])) {
        return meta_probe(s, key, v, ln, diag);
    }
    return ETM_OK; /* other keys (total analog, analogN, ...) are not needed */
}

/* The text with blanks at both ends cut off, in place. */
static char *trim(char *p)
{
    while (etm_util_isblank(*p))
        p++;
    char *end = p + strlen(p);
    while (end > p && etm_util_isblank(end[-1]))
        *--end = '\0';
    return p;
}

/* The lines of the metadata: the keys of [device 1]. */
static etm_err_t parse_meta(etm_sigrok_t *s, char *text, etm_diag_t *diag)
{
    int in_device = 0;
    unsigned ln = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        ln++;
        char *p = trim(line);
        if (!*p || *p == '#' || *p == ';')
            continue;
        if (*p == '[') {
            char *close = strchr(p, ']');
            if (!close)
                return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                               "entry 'metadata', line %u: a section header without ']'", ln));
            *close = '\0';
            in_device = !strcmp(trim(p + 1), META_SECTION);
            continue;
        }
        char *eq = strchr(p, '=');
        if (!eq)
            return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                           "entry 'metadata', line %u: neither a [section] nor a key=value line", ln));
        *eq = '\0';
        etm_err_t err = in_device ? meta_key(s, trim(p), trim(eq + 1), ln, diag) : ETM_OK;
        if (err != ETM_OK)
            return err;
    }
    return ETM_OK;
}

/* What the metadata must say, and the sizes agreeing with each other. */
static etm_err_t check_meta(etm_sigrok_t *s, etm_diag_t *diag)
{
    etm_sigrok_info_t *in = &s->info;
    const char *missing = !in->samplerate ? "samplerate" : !in->capturefile[0] ? "capturefile"
                        : !in->probes && !in->unitsize ? "total probes or unitsize" : NULL;
    if (missing)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_MISSING_HEADER,
                       "entry 'metadata': [%s] has no %s%s", META_SECTION, missing,
                       strcmp(missing, "capturefile") ? "" : " (a capture without logic samples?)"));
    if (!in->unitsize)
        in->unitsize = (in->probes + 7) / 8;
    if (in->unitsize > ETM_SIGROK_MAX_UNIT)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                       "entry 'metadata': unitsize %u: samples of at most %d bytes (%d probes) are read", in->unitsize,
                       ETM_SIGROK_MAX_UNIT, ETM_SIGROK_MAX_PROBES));
    if (!in->probes)
        in->probes = 8 * in->unitsize;
    if (in->probes > 8 * in->unitsize)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                       "entry 'metadata': total probes %u do not fit in samples of unitsize %u (%u bits)",
                       in->probes, in->unitsize, 8 * in->unitsize));
    for (unsigned k = in->probes; k < ETM_SIGROK_MAX_PROBES; k++)
        if (in->probe_name[k][0])
            return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                           "entry 'metadata': probe%u is named, but total probes is %u", k + 1, in->probes));
    return ETM_OK;
}

static etm_err_t read_meta(etm_sigrok_t *s, etm_diag_t *diag)
{
    const zip_entry_t *e = zip_find(&s->zip, "metadata");
    if (!e)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_MISSING_HEADER,
                       "a zip file without a 'metadata' entry: not a sigrok session file"));
    char *text;
    etm_err_t err = read_whole(s, e, META_MAX, &text, diag);
    if (err != ETM_OK)
        return err;
    if (strlen(text) != e->usize)
        err = in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX, "entry 'metadata' holds a NUL byte: not text"));
    else
        err = parse_meta(s, text, diag);
    free(text);
    return err == ETM_OK ? check_meta(s, diag) : err;
}

/* ---- Chunks ------------------------------------------------------------------------- */

/* The number N of an entry named CAPTUREFILE-N, or 0. */
static unsigned long chunk_number(const char *name, const char *capture)
{
    size_t k = strlen(capture);
    uint64_t n;
    if (strncmp(name, capture, k) || name[k] != '-' || etm_util_parse_dec(name + k + 1, strlen(name + k + 1), &n) ||
        n > 0xFFFFFFFFu)
        return 0;
    return (unsigned long)n;
}

/* A chunk's bytes must be whole samples. */
static etm_err_t check_chunk(etm_sigrok_t *s, const zip_entry_t *e, etm_diag_t *diag)
{
    if (e->usize % s->info.unitsize)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                       "entry '%s' holds %llu bytes: not a whole number of samples of %u bytes", e->name,
                       (unsigned long long)e->usize, s->info.unitsize));
    s->info.samples += e->usize / s->info.unitsize;
    return ETM_OK;
}

/* The chunks CAPTUREFILE-1 .. -N in order (or the one entry CAPTUREFILE). */
static etm_err_t find_chunks(etm_sigrok_t *s, etm_diag_t *diag)
{
    const char *cap = s->info.capturefile;
    size_t count = 0;
    for (size_t i = 0; i < s->zip.n; i++)
        count += chunk_number(s->zip.ent[i].name, cap) != 0;
    const zip_entry_t *single = count ? NULL : zip_find(&s->zip, cap);
    if (!count && !single)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_MISSING_HEADER,
                       "no samples: the zip holds neither '%s-1' nor '%s'", cap, cap));
    s->chunk = (const zip_entry_t **)calloc(count ? count : 1, sizeof *s->chunk);
    if (!s->chunk)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory"));
    s->info.chunks = count ? (unsigned)count : 1;
    s->chunk[0] = single;
    for (size_t i = 0; i < s->zip.n; i++) {
        unsigned long n = chunk_number(s->zip.ent[i].name, cap);
        if (!n)
            continue;
        if (n > count)
            return in_file(s, diag, etm_util_fail(diag, ETM_ERR_MISSING_HEADER,
                           "entry '%s': %zu chunks of samples, but this one is number %lu (a chunk is missing)",
                           s->zip.ent[i].name, count, n));
        if (s->chunk[n - 1])
            return in_file(s, diag, etm_util_fail(diag, ETM_ERR_DUPLICATE,
                           "entry '%s' is in the zip twice", s->zip.ent[i].name));
        s->chunk[n - 1] = &s->zip.ent[i];
    }
    for (unsigned k = 0; k < s->info.chunks; k++) {
        etm_err_t err = check_chunk(s, s->chunk[k], diag);
        if (err != ETM_OK)
            return err;
    }
    return ETM_OK;
}

/* ---- Opening ------------------------------------------------------------------------ */

etm_err_t etm_sigrok_open_stream(etm_sigrok_t **out, FILE *f, const char *name, etm_diag_t *diag)
{
    etm_diag_clear(diag);
    *out = NULL;
    etm_sigrok_t *s = (etm_sigrok_t *)calloc(1, sizeof *s);
    if (!s) {
        if (diag)
            diag->file = name;
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    }
    etm_err_t err = zip_open(&s->zip, f, name, diag);
    if (err == ETM_OK)
        err = read_version(s, diag);
    if (err == ETM_OK)
        err = read_meta(s, diag);
    if (err == ETM_OK)
        err = find_chunks(s, diag);
    if (err != ETM_OK) {
        etm_sigrok_close(s);
        return err;
    }
    *out = s;
    return ETM_OK;
}

etm_err_t etm_sigrok_open(etm_sigrok_t **out, const char *path, etm_diag_t *diag)
{
    *out = NULL;
    etm_diag_clear(diag);
    FILE *f = etm_open_read(path, "cannot open the capture", diag);
    if (!f) {
        if (diag)
            diag->file = path;
        return ETM_ERR_IO;
    }
    etm_err_t err = etm_sigrok_open_stream(out, f, path, diag);
    if (err != ETM_OK)
        fclose(f);
    else
        (*out)->own = f;
    return err;
}

void etm_sigrok_close(etm_sigrok_t *s)
{
    if (!s)
        return;
    if (s->reading)
        zip_reader_close(&s->rd);
    zip_free(&s->zip);
    if (s->own)
        fclose(s->own);
    free(s->chunk);
    free(s);
}

const etm_sigrok_info_t *etm_sigrok_get_info(const etm_sigrok_t *s) { return &s->info; }

/* ---- Probes and samples --------------------------------------------------------------- */

/* "3 PC9, 5 SWO, ..." (the named probes) into buf. */
static void probe_list(const etm_sigrok_info_t *in, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < in->probes && n < size; k++)
        if (in->probe_name[k][0]) {
            int w = snprintf(buf + n, size - n, "%s%u %s", n ? ", " : "", k + 1, in->probe_name[k]);
            n += w > 0 ? (size_t)w : 0;
        }
}

etm_err_t etm_sigrok_find_probe(const etm_sigrok_t *s, const char *name, unsigned *bit, etm_diag_t *diag)
{
    etm_diag_clear(diag);
    const etm_sigrok_info_t *in = &s->info;
    unsigned folded = 0, nfolded = 0;
    for (unsigned k = 0; k < in->probes; k++) {
        if (!strcmp(in->probe_name[k], name)) {
            *bit = k;
            return ETM_OK;
        }
        if (in->probe_name[k][0] && etm_util_strcaseeq(in->probe_name[k], name)) {
            folded = k;
            nfolded++;
        }
    }
    uint64_t n;
    if (nfolded == 1 || (etm_util_parse_dec(name, strlen(name), &n) == 0 && n >= 1 && n <= in->probes)) {
        *bit = nfolded == 1 ? folded : (unsigned)n - 1;
        return ETM_OK;
    }
    char list[512];
    probe_list(in, list, sizeof list);
    return in_file(s, diag, etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME,
                   "no probe '%s': the probes are named %s%s, or numbered 1 to %u", name, list[0] ? "" : "none",
                   list, in->probes));
}

etm_err_t etm_sigrok_start(etm_sigrok_t *s, unsigned bit, etm_diag_t *diag)
{
    etm_diag_clear(diag);
    if (bit >= s->info.probes)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_ARG, "no probe at bit %u: the capture has %u", bit,
                                              s->info.probes));
    if (s->reading)
        zip_reader_close(&s->rd);
    s->reading = 0;
    s->started = 1;
    s->bit = bit;
    s->next = 0;
    s->pos = 0;
    s->raw_n = s->raw_pos = 0;
    return ETM_OK;
}

/* More raw bytes into s->raw, after the part of a sample left there: from the
 * chunk being read, or the next. Returns ETM_OK, ETM_END (no chunk left) or an error. */
static etm_err_t fill_raw(etm_sigrok_t *s, etm_diag_t *diag)
{
    size_t left = s->raw_n - s->raw_pos;
    memmove(s->raw, s->raw + s->raw_pos, left);
    s->raw_n = left;
    s->raw_pos = 0;
    for (;;) {
        if (!s->reading) {
            if (s->next == s->info.chunks)
                return ETM_END;
            etm_err_t e = zip_reader_open(&s->rd, &s->zip, s->chunk[s->next++], diag);
            if (e != ETM_OK)
                return e;
            s->reading = 1;
        }
        size_t n;
        etm_err_t e = zip_reader_read(&s->rd, s->raw + s->raw_n, sizeof s->raw - s->raw_n, &n, diag);
        if (e == ETM_OK) {
            s->raw_n += n;
            return ETM_OK;
        }
        zip_reader_close(&s->rd);
        s->reading = 0;
        if (e != ETM_END)
            return e;
    }
}

etm_err_t etm_sigrok_read(etm_sigrok_t *s, uint8_t *levels, size_t max, size_t *n, etm_diag_t *diag)
{
    etm_diag_clear(diag);
    *n = 0;
    if (!s->started)
        return in_file(s, diag, etm_util_fail(diag, ETM_ERR_STATE, "samples read before etm_sigrok_start"));
    const size_t unit = s->info.unitsize;
    const unsigned shift = s->bit % 8;
    size_t whole;
    while (!(whole = (s->raw_n - s->raw_pos) / unit)) {
        etm_err_t e = fill_raw(s, diag);
        if (e != ETM_OK)
            return e;
    }
    if (whole > max)
        whole = max;
    const uint8_t *p = s->raw + s->raw_pos + s->bit / 8;
    for (size_t k = 0; k < whole; k++, p += unit)
        levels[k] = (uint8_t)((*p >> shift) & 1u);
    s->raw_pos += whole * unit;
    s->pos += whole;
    *n = whole;
    return ETM_OK;
}

uint64_t etm_sigrok_position(const etm_sigrok_t *s) { return s->pos; }
