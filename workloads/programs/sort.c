/* sort.c - quicksort (median of three, recursion on the smaller side) with
 * insertion sort below 12 elements, and a shell sort; each sorts pseudo-random
 * arrays, then the kernel checks order and that no element was lost. */
#include "workload.h"

#define N 240

static uint32_t a[N], b[N];

static void insertion(uint32_t *v, int lo, int hi)
{
    for (int i = lo + 1; i <= hi; i++) {
        uint32_t x = v[i];
        int j = i - 1;
        while (j >= lo && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

static void swap(uint32_t *v, int i, int j)
{
    uint32_t t = v[i];
    v[i] = v[j];
    v[j] = t;
}

static void quick(uint32_t *v, int lo, int hi)
{
    while (hi - lo >= 12) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap(v, mid, lo);
        if (v[hi] < v[lo])
            swap(v, hi, lo);
        if (v[hi] < v[mid])
            swap(v, hi, mid);
        uint32_t p = v[mid];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j)
                swap(v, i++, j--);
        }
        if (j - lo < hi - i) {
            quick(v, lo, j);
            lo = i;
        } else {
            quick(v, i, hi);
            hi = j;
        }
    }
    insertion(v, lo, hi);
}

static void shell(uint32_t *v, int n)
{
    static const int gaps[] = { 57, 23, 10, 4, 1 };
    for (unsigned g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        int gap = gaps[g];
        for (int i = gap; i < n; i++) {
            uint32_t x = v[i];
            int j = i;
            for (; j >= gap && v[j - gap] > x; j -= gap)
                v[j] = v[j - gap];
            v[j] = x;
        }
    }
}

int wl_sort(void)
{
    uint32_t seed = 0x1234567u;
    for (int round = 0; round < 3; round++) {
        uint32_t sum = 0, xsum = 0;
        for (int i = 0; i < N; i++) {
            /* Few distinct values in round 1: many equal keys. */
            uint32_t r = wl_rand(&seed);
            a[i] = round == 1 ? r % 17u : r >> (round * 4);
            b[i] = a[i];
            sum += a[i];
            xsum ^= a[i] * 2654435761u;
        }
        quick(a, 0, N - 1);
        shell(b, N);
        uint32_t sum2 = 0, xsum2 = 0;
        for (int i = 0; i < N; i++) {
            if ((i && a[i - 1] > a[i]) || a[i] != b[i])
                return 1;
            sum2 += a[i];
            xsum2 ^= a[i] * 2654435761u;
        }
        if (sum2 != sum || xsum2 != xsum)
            return 1;
    }
    return 0;
}
