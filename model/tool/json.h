/* json.h - the tool's machine-readable results (--json): one JSON object on
 * stdout per run, after docs/json.md and its schema (docs/schema/).
 *
 *     json_t j;
 *     json_begin(&j, stdout, "verify", exit_status);   {"schema": ..., "command": "verify", ...
 *     json_u64(&j, "cycles", n);
 *     json_object(&j, "first_failure"); ... json_end(&j);
 *     json_finish(&j);                                  ...}\n
 */
#ifndef ETM_TOOL_JSON_H
#define ETM_TOOL_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_SCHEMA_NAME "etm-result"
#define JSON_SCHEMA_VERSION 1
#define JSON_MAX_DEPTH 8

typedef struct json {
    FILE *f;
    int depth;
    int count[JSON_MAX_DEPTH]; /* members written at each level */
    char close[JSON_MAX_DEPTH]; /* '}' or ']' */
} json_t;

/* The object's start with the envelope every result has: schema, its
 * version, the tool's version, the command and its exit status. */
void json_begin(json_t *j, FILE *f, const char *command, int exit_status);
void json_finish(json_t *j);

/* Members of the current object (key) or elements of the current array (key NULL). */
void json_u64(json_t *j, const char *key, uint64_t v);
void json_i64(json_t *j, const char *key, int64_t v);
void json_double(json_t *j, const char *key, double v); /* null when not finite */
void json_bool(json_t *j, const char *key, int v);
void json_str(json_t *j, const char *key, const char *s); /* null when s is NULL */
void json_null(json_t *j, const char *key);
void json_object(json_t *j, const char *key);
void json_array(json_t *j, const char *key);
void json_end(json_t *j); /* closes the innermost object or array */

#endif
