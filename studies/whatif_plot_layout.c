/* whatif_plot_layout.c - room for the text of etm-whatif's plots, so that no
 * label runs into another: the x tic labels turned only as far as they must be
 * and the bottom margin as tall as they reach; the right margin as wide as the
 * key (one column or more) or the labels beside the graph (the key then goes
 * above the graph), and as the last tic label reaches; the canvas larger only
 * when the labels cannot fit in it; and labels beside lines spread a line
 * apart.
 *
 * Sizes are in gnuplot's character cells of the plots' 10-point sans font:
 * 8 pixels wide and 16 high on the PNG (the SVG's are smaller, so what fits on
 * the PNG fits there too).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "whatif.h"

enum {
    kCharW = 8,       /* a character cell, pixels */
    kCharH = 16,
    kWidth = 1100,    /* the canvas unless its text needs more */
    kHeight = 560,
    kLeft = 10,       /* the left margin gnuplot takes for the y tics and label, cells */
    kTitle = 3,       /* lines above the graph for the title */
    kGraph = 360,     /* the least height of the graph, pixels */
    kKeyExtra = 10,   /* a key column: its longest entry and this many cells (sample, gaps) */
    kTicGap = 20      /* pixels between two turned tic labels, baseline to baseline */
};

static double radians(int degrees) { return degrees * acos(-1.0) / 180; }

/* The characters of s (UTF-8), as gnuplot counts them to size the key. */
static size_t text_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* How many cells s takes as drawn: narrow letters and punctuation take less
 * than a cell, m, w, M, W and % more, the rest a little more than one. */
static double text_cells(const char *s)
{
    double w = 0;
    for (; *s; s++) {
        if (((unsigned char)*s & 0xC0) == 0x80)
            continue;
        if (strchr(" ,.:;'!|()[]-/ilIjtfr", *s))
            w += 0.65;
        else if (strchr("mwMW%@", *s))
            w += 1.6;
        else
            w += 1.1;
    }
    return w;
}

void layout_x(layout_t *l, const char *label)
{
    double w = text_cells(label);
    /* Level labels stand centred on their tics: two neighbours reach half their widths toward each other. */
    l->x_pair = fmax(l->x_pair, l->nx ? (l->x_last + w) / 2 : w);
    l->x_last = w;
    l->x_cells = fmax(l->x_cells, w);
    l->nx++;
}

void layout_key(layout_t *l, const char *entry)
{
    l->nkey++;
    size_t n = text_len(entry);
    if (n > l->key_len)
        l->key_len = n;
}

/* Labels beside the graph take the right margin, so the key goes above the
 * graph, where they cannot meet. */
void layout_side(layout_t *l, const char *label)
{
    l->side_cells = fmax(l->side_cells, text_cells(label));
    l->key_on_top = 1;
}

/* The right margin for the key or the side labels, cells. */
static double right_cells(const layout_t *l)
{
    double side = l->side_cells > 0 ? l->side_cells + 3 : 0;
    if (!l->nkey || l->key_on_top)
        return fmax(side, 2);
    /* A column holds as many entries as lines fit beside the graph. */
    size_t rows = kGraph / kCharH, cols = (l->nkey + rows - 1) / rows;
    return fmax(side, (double)(cols * (l->key_len + kKeyExtra)));
}

/* Lines the key takes above the graph: as many entries a line as fit across. */
static int key_rows(const layout_t *l, double across)
{
    if (!l->nkey || !l->key_on_top)
        return 0;
    size_t per = (size_t)(across / (double)(l->key_len + kKeyExtra));
    per = per ? per : 1;
    return (int)((l->nkey + per - 1) / per) + 1;
}

/* The least turn (degrees) that keeps tic labels PITCH cells apart from
 * running into each other, or 0 if they fit level; -1 if even upright
 * they do not. */
static int tic_angle(const layout_t *l, double pitch)
{
    static const int angles[] = { 30, 45, 60, 90 };
    if (l->x_pair + 1 <= pitch)
        return 0;
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; i++)
        if (pitch * kCharW * sin(radians(angles[i])) >= kTicGap)
            return angles[i];
    return -1;
}

/* The turn of the x tic labels and the canvas's width, the right margin being
 * RIGHT cells; the room between two tics, cells. */
static double fit_tics(layout_t *l, double right)
{
    l->width = kWidth;
    /* The categories of a histogram stand a slot apart, with half a slot more at each end. */
    double pitch = ((double)l->width / kCharW - kLeft - right) / (double)(l->nx + 1);
    l->angle = l->nx ? tic_angle(l, pitch) : 0;
    if (l->angle < 0) {
        /* Upright and still too close: a wider canvas. */
        pitch = (double)kTicGap / kCharW;
        l->width = (int)ceil((kLeft + right + pitch * (double)(l->nx + 1)) * kCharW);
        l->angle = 90;
    }
    return pitch;
}

void layout_fit(layout_t *l)
{
    double right = right_cells(l), pitch = fit_tics(l, right), a = radians(l->angle), bottom = 0;
    if (l->angle) {
        bottom = ceil(l->x_cells * kCharW * sin(a) / kCharH + cos(a) + 1);
        /* The last label, hanging right from its tic, must end on the canvas. */
        right = fmax(right, ceil(l->x_cells * cos(a) + 1 - pitch));
    }
    int top = kTitle + key_rows(l, (double)l->width / kCharW - kLeft - right);
    double margins = (top + (bottom ? bottom : 3)) * kCharH;
    l->height = (int)fmax(kHeight, margins + kGraph);
    l->graph_h = l->height - margins;
    size_t n = (size_t)snprintf(l->settings, sizeof l->settings, "set rmargin %.0f\n%s", ceil(right),
                                l->key_on_top ? "set key outside top center horizontal\n" : "");
    if (l->angle)
        snprintf(l->settings + n, sizeof l->settings - n, "set bmargin %.0f\nset xtics rotate by -%d left\n",
                 bottom, l->angle);
}

/* Labels at heights y[0..n) (ascending) of a graph showing 0 to ymax, moved
 * apart until each is a line from the next, staying below ymax if they can. */
void layout_spread(const layout_t *l, double ymax, double *y, size_t n)
{
    if (!n)
        return;
    double gap = ymax * kCharH / l->graph_h;
    for (size_t i = 1; i < n; i++)
        y[i] = fmax(y[i], y[i - 1] + gap);
    if (y[n - 1] > ymax)
        y[n - 1] = ymax;
    for (size_t i = n - 1; i-- > 0;)
        y[i] = fmin(y[i], y[i + 1] - gap);
}
