/* json.c - the tool's JSON writer (json.h): RFC 8259 text, strings escaped,
 * numbers as integers or with 17 significant digits. */
#include "json.h"

#include <math.h>

#include "etm/version.h"

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f); /* UTF-8 passes through */
            break;
        }
    }
    fputc('"', f);
}

/* Before a member or element: the comma, and the key with its colon. */
static void sep(json_t *j, const char *key)
{
    if (j->count[j->depth]++)
        fputc(',', j->f);
    if (key) {
        put_string(j->f, key);
        fputc(':', j->f);
    }
}

void json_begin(json_t *j, FILE *f, const char *command, int exit_status)
{
    j->f = f;
    j->depth = 0;
    j->count[0] = 0;
    fputc('{', f);
    json_str(j, "schema", JSON_SCHEMA_NAME);
    json_u64(j, "schema_version", JSON_SCHEMA_VERSION);
    json_str(j, "tool_version", etm_version_string());
    json_str(j, "command", command);
    json_i64(j, "exit_status", exit_status);
}

void json_finish(json_t *j)
{
    while (j->depth > 0)
        json_end(j);
    fputs("}\n", j->f);
}

void json_u64(json_t *j, const char *key, uint64_t v)
{
    sep(j, key);
    fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(json_t *j, const char *key, int64_t v)
{
    sep(j, key);
    fprintf(j->f, "%lld", (long long)v);
}

void json_double(json_t *j, const char *key, double v)
{
    sep(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}

void json_bool(json_t *j, const char *key, int v)
{
    sep(j, key);
    fputs(v ? "true" : "false", j->f);
}

void json_null(json_t *j, const char *key)
{
    sep(j, key);
    fputs("null", j->f);
}

void json_str(json_t *j, const char *key, const char *s)
{
    sep(j, key);
    if (s)
        put_string(j->f, s);
    else
        fputs("null", j->f);
}

static void open_nested(json_t *j, const char *key, char open, char close)
{
    sep(j, key);
    fputc(open, j->f);
    if (j->depth + 1 < JSON_MAX_DEPTH) {
        j->depth++;
        j->count[j->depth] = 0;
        j->close[j->depth] = close;
    }
}

void json_object(json_t *j, const char *key) { open_nested(j, key, '{', '}'); }
void json_array(json_t *j, const char *key) { open_nested(j, key, '[', ']'); }

void json_end(json_t *j)
{
    if (j->depth > 0)
        fputc(j->close[j->depth--], j->f);
}
