#include "resample.h"
#include <stdlib.h>
#include <string.h>

int prefetch_resampler_init(prefetch_resampler *r, unsigned int in_w, unsigned int in_h,
                            unsigned int out_w, unsigned int out_h, unsigned int channels,
                            int has_alpha, unsigned char *out) {
    memset(r, 0, sizeof(*r));
    if (in_w == 0 || in_h == 0 || out_w == 0 || out_h == 0 || out_w > in_w || out_h > in_h ||
        channels == 0 || channels > 4)
        return -1;
    r->in_w = in_w; r->in_h = in_h; r->out_w = out_w; r->out_h = out_h;
    r->channels = channels; r->has_alpha = has_alpha; r->out = out;
    r->x_first = malloc(sizeof(unsigned int) * out_w);
    r->x_count = malloc(sizeof(unsigned int) * out_w);
    // Each output column spans at most in_w/out_w + 2 source columns; in total in_w + out_w.
    r->x_weight = malloc(sizeof(float) * ((size_t)in_w + out_w));
    r->hrow = malloc(sizeof(float) * (size_t)out_w * channels);
    r->acc = calloc((size_t)out_w * channels, sizeof(float));
    if (!r->x_first || !r->x_count || !r->x_weight || !r->hrow || !r->acc) return -1;

    // In units where a source column is out_w wide and an output column in_w wide (both
    // rows then have the same length, in_w*out_w): output column ox covers
    // [ox*in_w, (ox+1)*in_w) and source column x covers [x*out_w, (x+1)*out_w).
    size_t k = 0;
    for (unsigned int ox = 0; ox < out_w; ox++) {
        uint64_t lo = (uint64_t)ox * in_w, hi = lo + in_w;
        unsigned int first = (unsigned int)(lo / out_w);
        unsigned int count = 0;
        for (uint64_t x = first; x < in_w && x * out_w < hi; x++) {
            uint64_t a = x * out_w, b = a + out_w;
            uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;
            r->x_weight[k++] = (float)((double)(e - s) / (double)in_w);
            count++;
        }
        r->x_first[ox] = first;
        r->x_count[ox] = count;
    }
    return 0;
}

static void emit_row(prefetch_resampler *r, unsigned int oy) {
    unsigned int ch = r->channels;
    unsigned char *dst = r->out + (size_t)oy * r->out_w * ch;
    for (unsigned int ox = 0; ox < r->out_w; ox++) {
        float *p = r->acc + (size_t)ox * ch;
        unsigned char *d = dst + (size_t)ox * ch;
        unsigned int colours = r->has_alpha ? ch - 1 : ch;
        float alpha = r->has_alpha ? p[ch - 1] : 255.0f;
        for (unsigned int c = 0; c < colours; c++) {
            float v = r->has_alpha ? (alpha > 0.0f ? p[c] / alpha : 0.0f) : p[c];
            int iv = (int)(v + 0.5f);
            d[c] = (unsigned char)(iv < 0 ? 0 : iv > 255 ? 255 : iv);
        }
        if (r->has_alpha) {
            int ia = (int)(alpha + 0.5f);
            d[ch - 1] = (unsigned char)(ia < 0 ? 0 : ia > 255 ? 255 : ia);
        }
    }
    memset(r->acc, 0, sizeof(float) * (size_t)r->out_w * ch);
}

// Horizontal pass for one source row, specialised by the compiler for each channel count
// (ch and alpha are constants at every call site). With alpha, colour is premultiplied so
// transparent pixels do not bleed into their neighbours.
static inline __attribute__((always_inline)) void horizontal(prefetch_resampler *r, const unsigned char *row,
                                                             const unsigned int ch, const int alpha) {
    const float *w = r->x_weight;
    float *h = r->hrow;
    for (unsigned int ox = 0; ox < r->out_w; ox++, h += ch) {
        float sum[4] = {0, 0, 0, 0};
        const unsigned char *s = row + (size_t)r->x_first[ox] * ch;
        unsigned int n = r->x_count[ox];
        for (unsigned int i = 0; i < n; i++, s += ch) {
            float wa = alpha ? (float)s[ch - 1] * w[i] : w[i];
            for (unsigned int c = 0; c < ch; c++) sum[c] += (float)s[c] * ((alpha && c == ch - 1) ? w[i] : wa);
        }
        w += n;
        for (unsigned int c = 0; c < ch; c++) h[c] = sum[c];
    }
}

void prefetch_resampler_push(prefetch_resampler *r, const unsigned char *row) {
    if (r->in_row >= r->in_h) return;
    unsigned int ch = r->channels;
    if (r->in_w == r->out_w && r->in_h == r->out_h) { // same size: a copy
        memcpy(r->out + (size_t)r->in_row * r->out_w * ch, row, (size_t)r->out_w * ch);
        r->in_row++;
        return;
    }
    switch (ch * 2 + (r->has_alpha ? 1 : 0)) {
    case 2: horizontal(r, row, 1, 0); break;
    case 4: horizontal(r, row, 2, 0); break;
    case 5: horizontal(r, row, 2, 1); break;
    case 6: horizontal(r, row, 3, 0); break;
    case 8: horizontal(r, row, 4, 0); break;
    case 9: horizontal(r, row, 4, 1); break;
    default: horizontal(r, row, ch, r->has_alpha); break;
    }

    // Vertical pass: source row y covers [y*out_h, (y+1)*out_h), output row oy covers
    // [oy*in_h, (oy+1)*in_h). A source row can straddle two output rows.
    uint64_t lo = (uint64_t)r->in_row * r->out_h, hi = lo + r->out_h;
    size_t n = (size_t)r->out_w * ch;
    while (lo < hi) {
        unsigned int oy = (unsigned int)(lo / r->in_h);
        uint64_t row_end = (uint64_t)(oy + 1) * r->in_h;
        uint64_t e = hi < row_end ? hi : row_end;
        float weight = (float)((double)(e - lo) / (double)r->in_h);
        float *restrict acc = r->acc;
        const float *restrict hrow = r->hrow;
        for (size_t i = 0; i < n; i++) acc[i] += hrow[i] * weight;
        if (e == row_end) emit_row(r, oy);
        lo = e;
    }
    r->in_row++;
}

void prefetch_resampler_free(prefetch_resampler *r) {
    free(r->x_first);
    free(r->x_count);
    free(r->x_weight);
    free(r->hrow);
    free(r->acc);
    r->x_first = r->x_count = NULL;
    r->x_weight = r->hrow = r->acc = NULL;
}
