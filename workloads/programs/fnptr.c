/* fnptr.c - calls through function pointers: a table of operations walked by an
 * interpreter loop, "objects" with a table of methods, and a sort that calls
 * its comparison function through a pointer. All indirect calls are BLX rN and
 * the returns BX LR or POP {..., pc}. */
#include "workload.h"

typedef uint32_t (*op_fn)(uint32_t, uint32_t);

static __attribute__((noinline)) uint32_t op_add(uint32_t a, uint32_t b) { return a + b; }
static __attribute__((noinline)) uint32_t op_sub(uint32_t a, uint32_t b) { return a - b; }
static __attribute__((noinline)) uint32_t op_mul(uint32_t a, uint32_t b) { return a * b + 1; }
static __attribute__((noinline)) uint32_t op_rot(uint32_t a, uint32_t b) { return (a << (b & 31)) | (a >> ((32 - b) & 31)); }
static __attribute__((noinline)) uint32_t op_mix(uint32_t a, uint32_t b)
{
    a ^= b;
    a *= 0x9E3779B1u;
    return a ^ (a >> 15);
}

static op_fn const ops[5] = { op_add, op_sub, op_mul, op_rot, op_mix };

typedef struct shape shape_t;
typedef struct {
    uint32_t (*area)(const shape_t *);
    uint32_t (*perimeter)(const shape_t *);
    void (*scale)(shape_t *, uint32_t);
} shape_ops_t;
struct shape {
    const shape_ops_t *ops;
    uint32_t w, h;
};

static uint32_t rect_area(const shape_t *s) { return s->w * s->h; }
static uint32_t rect_perim(const shape_t *s) { return 2 * (s->w + s->h); }
static void rect_scale(shape_t *s, uint32_t k) { s->w *= k; s->h *= k; }
static uint32_t tri_area(const shape_t *s) { return s->w * s->h / 2; }
static uint32_t tri_perim(const shape_t *s) { return s->w + s->h + (s->w > s->h ? s->w : s->h); }
static void tri_scale(shape_t *s, uint32_t k) { s->w += k; s->h += k; }

static const shape_ops_t rect_ops = { rect_area, rect_perim, rect_scale };
static const shape_ops_t tri_ops = { tri_area, tri_perim, tri_scale };

static int cmp_up(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }
static int cmp_down(uint32_t a, uint32_t b) { return cmp_up(b, a); }

static void isort(uint32_t *v, int n, int (*cmp)(uint32_t, uint32_t))
{
    for (int i = 1; i < n; i++) {
        uint32_t x = v[i];
        int j = i - 1;
        while (j >= 0 && cmp(v[j], x) > 0) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

static uint32_t direct(unsigned which, uint32_t a, uint32_t b)
{
    switch (which) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b + 1;
    case 3: return (a << (b & 31)) | (a >> ((32 - b) & 31));
    default: a ^= b; a *= 0x9E3779B1u; return a ^ (a >> 15);
    }
}

int wl_fnptr(void)
{
    uint32_t seed = 0xF00Du, acc1 = 1, acc2 = 1;
    for (int i = 0; i < 1500; i++) {
        uint32_t r = wl_rand(&seed);
        unsigned w = r % 5u;
        acc1 = ops[w](acc1, r >> 8);
        acc2 = direct(w, acc2, r >> 8);
    }
    if (acc1 != acc2)
        return 1;

    shape_t shapes[8];
    for (int i = 0; i < 8; i++) {
        shapes[i].ops = (i & 1) ? &tri_ops : &rect_ops;
        shapes[i].w = (uint32_t)i + 3;
        shapes[i].h = (uint32_t)(2 * i) + 1;
    }
    uint32_t total = 0;
    for (int round = 0; round < 20; round++)
        for (int i = 0; i < 8; i++) {
            shape_t *s = &shapes[i];
            total += s->ops->area(s) + s->ops->perimeter(s);
            s->ops->scale(s, (uint32_t)(round & 1) + 1);
            s->w &= 0xFF;
            s->h &= 0xFF;
        }
    WL_OPAQUE(total);

    uint32_t v[60];
    for (int i = 0; i < 60; i++)
        v[i] = wl_rand(&seed) % 1000u;
    isort(v, 60, cmp_up);
    for (int i = 1; i < 60; i++)
        if (v[i - 1] > v[i])
            return 1;
    isort(v, 60, cmp_down);
    for (int i = 1; i < 60; i++)
        if (v[i - 1] < v[i])
            return 1;
    return 0;
}
