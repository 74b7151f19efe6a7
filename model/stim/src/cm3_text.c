/* cm3_text.c - the text form of the Cortex-M3 timing model's instruction records
 * (etm/cm3.h, docs/cm3-timing.md): one line per executed instruction.
 */
#include "etm/cm3.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* ---- Text form of a record ------------------------------------------------------ */

static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;


static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

char *etm_cm3_insn_format(const etm_cm3_insn_t *r, char *buf, size_t size)
{
    size_t n = 0;
    if (!size)
        return buf;
    buf[0] = 0;
    appendf(buf, size, &n, "%08x %u %0*x %c", (unsigned)r->addr, (unsigned)r->size, r->size == 4 ? 8 : 4,
            (unsigned)r->opcode, r->executed ? 'E' : 'N');
    if (r->branch)
        appendf(buf, size, &n, " br=%s", r->branch == ETM_CM3_BR_DIRECT ? "dir" : "ind");
    if (r->in_it)
        appendf(buf, size, &n, " it=%x", (unsigned)r->cond);
    else if (r->cond != 14)
        appendf(buf, size, &n, " c=%x", (unsigned)r->cond);
    if (r->taken)
        appendf(buf, size, &n, " tk=%08x", (unsigned)r->next);
    if (r->ipsr)
        appendf(buf, size, &n, " ipsr=%u", (unsigned)r->ipsr);
    if (r->ctx == ETM_CM3_CTX_ENTRY)
        appendf(buf, size, &n, " entry=%u%s", (unsigned)r->excnum, r->async ? "" : " sync");
    else if (r->ctx == ETM_CM3_CTX_RETURN)
        appendf(buf, size, &n, " return=%u", (unsigned)r->excnum);
    else if (r->ctx == ETM_CM3_CTX_TAILCHAIN)
        appendf(buf, size, &n, " tail=%u", (unsigned)r->excnum);
    if (r->ret_valid)
        appendf(buf, size, &n, " ret=%08x:%u:%x%s", (unsigned)r->ret_addr, (unsigned)r->ret_size,
                (unsigned)r->ret_opcode, r->ret_in_it ? ":it" : "");
    if (r->nval)
        appendf(buf, size, &n, " v=%x", (unsigned)r->val[0]);
    if (r->nval > 1)
        appendf(buf, size, &n, ",%x", (unsigned)r->val[1]);
    for (unsigned i = 0; i < r->nmem && i < ETM_CM3_MAX_MEM; i++) {
        const etm_cm3_mem_t *m = &r->mem[i];
        if (m->io)
            appendf(buf, size, &n, " %c=%08x:%u:io", m->write ? 'w' : 'r', (unsigned)m->addr, (unsigned)m->size);
        else
            appendf(buf, size, &n, " %c=%08x:%u:%llx", m->write ? 'w' : 'r', (unsigned)m->addr, (unsigned)m->size,
                    (unsigned long long)m->value);
    }
    return buf;
}

/* Hex number at *p up to a delimiter; advances *p. */
static int take_hex(const char **p, const char *delims, uint64_t *v)
{
    const char *s = *p;
    size_t n = 0;
    while (s[n] && !strchr(delims, s[n]))
        n++;
    if (etm_util_parse_hex(s, n, v) != 0)
        return -1;
    *p = s + n;
    return 0;
}

static int take_dec(const char **p, const char *delims, uint64_t *v)
{
    const char *s = *p;
    size_t n = 0;
    while (s[n] && !strchr(delims, s[n]))
        n++;
    if (etm_util_parse_dec(s, n, v) != 0)
        return -1;
    *p = s + n;
    return 0;
}

etm_err_t etm_cm3_insn_parse(const char *line, etm_cm3_insn_t *r, etm_diag_t *diag)
{
    memset(r, 0, sizeof *r);
    r->cond = 14;
    const char *p = line;
    uint64_t v;
    static const char ws[] = " \t\r\n";
    while (*p && strchr(ws, *p))
        p++;
    if (take_hex(&p, ws, &v) || v > 0xFFFFFFFFu || (v & 1))
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "the instruction address is not an even 32-bit hex number");
    r->addr = (uint32_t)v;
    while (*p && strchr(ws, *p))
        p++;
    if (take_dec(&p, ws, &v) || (v != 2 && v != 4))
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "the instruction size must be 2 or 4");
    r->size = (uint8_t)v;
    while (*p && strchr(ws, *p))
        p++;
    if (take_hex(&p, ws, &v) || v > 0xFFFFFFFFu)
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "the opcode is not a 32-bit hex number");
    r->opcode = (uint32_t)v;
    while (*p && strchr(ws, *p))
        p++;
    if ((*p != 'E' && *p != 'N') || (p[1] && !strchr(ws, p[1])))
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "the fourth field must be E (executed) or N (condition failed)");
    r->executed = *p == 'E';
    p++;
    r->next = r->addr + r->size;
    for (;;) {
        while (*p && strchr(ws, *p))
            p++;
        if (!*p || *p == '#')
            break;
        const char *key = p;
        size_t klen = 0;
        while (key[klen] && key[klen] != '=' && !strchr(ws, key[klen]))
            klen++;
        p = key + klen;
        if (*p != '=') {
            if (klen == 4 && !strncmp(key, "sync", 4) && r->ctx == ETM_CM3_CTX_ENTRY) {
                r->async = 0;
                continue;
            }
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "'%.*s': expected key=value", (int)klen, key);
        }
        p++;
#define KEY(s) (klen == sizeof(s) - 1 && !strncmp(key, s, klen))
        int bad = 0;
        if (KEY("br")) {
            bad = !(strncmp(p, "dir", 3) == 0 || strncmp(p, "ind", 3) == 0) || (p[3] && !strchr(ws, p[3]));
            r->branch = (uint8_t)(*p == 'd' ? ETM_CM3_BR_DIRECT : ETM_CM3_BR_INDIRECT);
            p += bad ? 0 : 3;
        } else if (KEY("it") || KEY("c")) {
            bad = take_hex(&p, ws, &v) || v > 15;
            r->cond = (uint8_t)v;
            r->in_it = (uint8_t)KEY("it");
        } else if (KEY("tk")) {
            bad = take_hex(&p, ws, &v) || v > 0xFFFFFFFFu;
            r->taken = 1;
            r->next = (uint32_t)v;
        } else if (KEY("ipsr")) {
            bad = take_dec(&p, ws, &v) || v > 511;
            r->ipsr = (uint16_t)v;
        } else if (KEY("entry") || KEY("return") || KEY("tail")) {
            bad = take_dec(&p, ws, &v) || v > 511;
            r->excnum = (uint16_t)v;
            r->ctx = (uint8_t)(KEY("entry") ? ETM_CM3_CTX_ENTRY : KEY("return") ? ETM_CM3_CTX_RETURN
                                                                                : ETM_CM3_CTX_TAILCHAIN);
            r->async = KEY("entry");
        } else if (KEY("ret")) {
            uint64_t a = 0, s = 0, o = 0;
            bad = take_hex(&p, ":", &a) || *p++ != ':' || take_dec(&p, ":", &s) || *p++ != ':' ||
                  take_hex(&p, ": \t\r\n", &o) || (s != 2 && s != 4) || a > 0xFFFFFFFFu || o > 0xFFFFFFFFu;
            if (!bad && *p == ':') {
                bad = strncmp(p, ":it", 3) != 0;
                p += 3;
                r->ret_in_it = 1;
            }
            r->ret_valid = 1;
            r->ret_addr = (uint32_t)a;
            r->ret_size = (uint8_t)s;
            r->ret_opcode = (uint32_t)o;
        } else if (KEY("v")) {
            bad = take_hex(&p, ", \t\r\n", &v) || v > 0xFFFFFFFFu;
            r->val[0] = (uint32_t)v;
            r->nval = 1;
            if (!bad && *p == ',') {
                p++;
                bad = take_hex(&p, ws, &v) || v > 0xFFFFFFFFu;
                r->val[1] = (uint32_t)v;
                r->nval = 2;
            }
        } else if (KEY("r") || KEY("w")) {
            uint64_t a = 0, s = 0;
            if (r->nmem >= ETM_CM3_MAX_MEM)
                return etm_util_fail(diag, ETM_ERR_SYNTAX, "more than %d memory accesses", ETM_CM3_MAX_MEM);
            etm_cm3_mem_t *m = &r->mem[r->nmem++];
            m->write = (uint8_t)KEY("w");
            bad = take_hex(&p, ":", &a) || *p++ != ':' || take_dec(&p, ":", &s) || *p++ != ':' || a > 0xFFFFFFFFu ||
                  (s != 1 && s != 2 && s != 4 && s != 8);
            if (!bad) {
                m->addr = (uint32_t)a;
                m->size = (uint8_t)s;
                if (!strncmp(p, "io", 2) && (!p[2] || strchr(ws, p[2]))) {
                    m->io = 1;
                    p += 2;
                } else {
                    bad = take_hex(&p, ws, &m->value);
                }
            }
        } else {
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "unknown key '%.*s'", (int)klen, key);
        }
#undef KEY
        if (bad)
            return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "malformed value of '%.*s'", (int)klen, key);
    }
    return ETM_OK;
}
