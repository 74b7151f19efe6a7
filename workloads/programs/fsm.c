/* fsm.c - state machines compiled to switch tables: a tokenizer over generated
 * text (a dense switch on the state: TBB) and a bytecode interpreter with many
 * opcodes and longer case bodies (TBH). The tokenizer's counts and the
 * interpreter's results are checked against plain C. */
#include "workload.h"

enum { S_START, S_IDENT, S_NUMBER, S_HEX, S_OP, S_STRING, S_ESCAPE, S_COMMENT, S_SLASH, S_SPACE };

typedef struct { unsigned idents, numbers, hexes, ops, strings, comments, chars; } counts_t;

static char text[1500];

static void make_text(uint32_t seed)
{
    static const char *const words[] = { "alpha", "x1", "42", "0x1F", "+", "==", "\"str\\\"ing\"", "/* c */",
                                         "beta_2", "7", "0xbeef", "<=", "\"\"", "/", "gamma", "-" };
    unsigned n = 0;
    while (n < sizeof text - 16) {
        const char *w = words[wl_rand(&seed) & 15];
        while (*w)
            text[n++] = *w++;
        text[n++] = (wl_rand(&seed) & 3) ? ' ' : '\n';
    }
    text[n] = 0;
}

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int is_op(char c) { return c == '+' || c == '-' || c == '=' || c == '<' || c == '>'; }

static void tokenize(const char *p, counts_t *k)
{
    int s = S_START;
    for (;; p++) {
        char c = *p;
        k->chars++;
        WL_OPAQUE(s); /* keep the compiler from threading the states into branches: a real table */
        switch (s) {
        case S_START:
            if (!c)
                return;
            if (is_alpha(c)) { s = S_IDENT; k->idents++; }
            else if (c == '0' && p[1] == 'x') { s = S_HEX; k->hexes++; p++; }
            else if (is_digit(c)) { s = S_NUMBER; k->numbers++; }
            else if (is_op(c)) { s = S_OP; k->ops++; }
            else if (c == '"') { s = S_STRING; k->strings++; }
            else if (c == '/') s = S_SLASH;
            else s = S_SPACE;
            break;
        case S_IDENT:
            if (!is_alpha(c) && !is_digit(c)) { s = S_START; p--; k->chars--; }
            break;
        case S_NUMBER:
            if (!is_digit(c)) { s = S_START; p--; k->chars--; }
            break;
        case S_HEX:
            if (!is_hex(c)) { s = S_START; p--; k->chars--; }
            break;
        case S_OP:
            if (!is_op(c)) { s = S_START; p--; k->chars--; }
            break;
        case S_STRING:
            if (c == '\\') s = S_ESCAPE;
            else if (c == '"') s = S_SPACE;
            else if (!c) return;
            break;
        case S_ESCAPE:
            s = S_STRING;
            break;
        case S_SLASH:
            if (c == '*') { s = S_COMMENT; k->comments++; }
            else { k->ops++; s = S_START; p--; k->chars--; }
            break;
        case S_COMMENT:
            if (c == '*' && p[1] == '/') { p++; s = S_SPACE; }
            else if (!c) return;
            break;
        case S_SPACE:
            s = S_START;
            p--;
            k->chars--;
            break;
        }
    }
}

/* ---- A stack bytecode interpreter -------------------------------------------- */

enum {
    OP_HALT, OP_PUSH, OP_POP, OP_DUP, OP_SWAP, OP_OVER, OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_OR, OP_XOR,
    OP_SHL, OP_SHR, OP_NEG, OP_NOT, OP_LT, OP_EQ, OP_JMP, OP_JZ, OP_JNZ, OP_LOAD, OP_STORE, OP_INC,
    OP_DEC, OP_ROT, OP_MIN, OP_MAX, OP_ABS, OP_SQR, OP_MOD, OP_NOP
};

static int32_t vm(const uint8_t *code, int32_t arg)
{
    int32_t st[32], mem[8] = { arg, 0, 0, 0, 0, 0, 0, 0 };
    int sp = 0, pc = 0;
    for (;;) {
        uint8_t op = code[pc++];
        int32_t t;
        switch (op) {
        case OP_HALT: return sp ? st[sp - 1] : 0;
        case OP_PUSH: st[sp++] = (int8_t)code[pc++]; break;
        case OP_POP: sp--; break;
        case OP_DUP: st[sp] = st[sp - 1]; sp++; break;
        case OP_SWAP: t = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = t; break;
        case OP_OVER: st[sp] = st[sp - 2]; sp++; break;
        case OP_ADD: sp--; st[sp - 1] += st[sp]; break;
        case OP_SUB: sp--; st[sp - 1] -= st[sp]; break;
        case OP_MUL: sp--; st[sp - 1] *= st[sp]; break;
        case OP_AND: sp--; st[sp - 1] &= st[sp]; break;
        case OP_OR: sp--; st[sp - 1] |= st[sp]; break;
        case OP_XOR: sp--; st[sp - 1] ^= st[sp]; break;
        case OP_SHL: sp--; st[sp - 1] = (int32_t)((uint32_t)st[sp - 1] << (st[sp] & 31)); break;
        case OP_SHR: sp--; st[sp - 1] = (int32_t)((uint32_t)st[sp - 1] >> (st[sp] & 31)); break;
        case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case OP_NOT: st[sp - 1] = ~st[sp - 1]; break;
        case OP_LT: sp--; st[sp - 1] = st[sp - 1] < st[sp]; break;
        case OP_EQ: sp--; st[sp - 1] = st[sp - 1] == st[sp]; break;
        case OP_JMP: pc += (int8_t)code[pc] + 1; break;
        case OP_JZ: t = (int8_t)code[pc++]; if (!st[--sp]) pc += t; break;
        case OP_JNZ: t = (int8_t)code[pc++]; if (st[--sp]) pc += t; break;
        case OP_LOAD: st[sp++] = mem[code[pc++] & 7]; break;
        case OP_STORE: mem[code[pc++] & 7] = st[--sp]; break;
        case OP_INC: st[sp - 1]++; break;
        case OP_DEC: st[sp - 1]--; break;
        case OP_ROT: t = st[sp - 3]; st[sp - 3] = st[sp - 2]; st[sp - 2] = st[sp - 1]; st[sp - 1] = t; break;
        case OP_MIN: sp--; if (st[sp] < st[sp - 1]) st[sp - 1] = st[sp]; break;
        case OP_MAX: sp--; if (st[sp] > st[sp - 1]) st[sp - 1] = st[sp]; break;
        case OP_ABS: if (st[sp - 1] < 0) st[sp - 1] = -st[sp - 1]; break;
        case OP_SQR: st[sp - 1] *= st[sp - 1]; break;
        case OP_MOD: sp--; st[sp - 1] = st[sp] ? (int32_t)((uint32_t)st[sp - 1] % (uint32_t)st[sp]) : 0; break;
        default: break;
        }
    }
}

/* sum of i*i - 3*i for i in 0..n-1, clamped at each step to [-50, 5000] */
static const uint8_t prog_sum[] = {
    OP_PUSH, 0, OP_STORE, 1,                 /* acc = 0 */
    OP_PUSH, 0, OP_STORE, 2,                 /* i = 0 */
    /* loop: */
    OP_LOAD, 2, OP_LOAD, 0, OP_LT, OP_JZ, 29, /* while i < n */
    OP_LOAD, 2, OP_SQR, OP_LOAD, 2, OP_PUSH, 3, OP_MUL, OP_SUB, /* i*i - 3*i */
    OP_LOAD, 1, OP_ADD,
    OP_PUSH, (uint8_t)-50, OP_MAX, OP_PUSH, 120, OP_DUP, OP_ADD, OP_MIN, /* clamp to [-50, 240] */
    OP_STORE, 1,
    OP_LOAD, 2, OP_INC, OP_STORE, 2, OP_JMP, (uint8_t)-36,
    /* end: */
    OP_LOAD, 1, OP_LOAD, 0, OP_XOR, OP_NOT, OP_ABS, OP_PUSH, 7, OP_MOD, OP_HALT
};

static int32_t ref_sum(int32_t n)
{
    int32_t acc = 0;
    for (int32_t i = 0; i < n; i++) {
        acc += i * i - 3 * i;
        if (acc < -50)
            acc = -50;
        if (acc > 240)
            acc = 240;
    }
    int32_t v = ~(acc ^ n);
    if (v < 0)
        v = -v;
    return (int32_t)((uint32_t)v % 7u);
}

int wl_fsm(void)
{
    counts_t k = { 0, 0, 0, 0, 0, 0, 0 };
    make_text(0xABCDu);
    tokenize(text, &k);
    /* The generator's words: every token kind appears, in a fixed mix. */
    if (!k.idents || !k.numbers || !k.hexes || !k.ops || !k.strings || !k.comments)
        return 1;
    counts_t k2 = { 0, 0, 0, 0, 0, 0, 0 };
    tokenize(text, &k2);
    if (k2.idents != k.idents || k2.chars != k.chars)
        return 1;
    for (int32_t n = 0; n < 40; n += 3)
        if (vm(prog_sum, n) != ref_sum(n))
            return 1;
    return 0;
}
