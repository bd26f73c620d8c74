#pragma once
#include <stddef.h>
#include <stdint.h>

// Streaming area-averaging (box) downscaler: feed source rows top to bottom, output rows
// are written as soon as they are complete. Memory: two float rows of the output width,
// whatever the source size. Exact coverage is computed in integers, so every source pixel
// contributes to the output with its true area and weights sum to one.
typedef struct {
    unsigned int in_w, in_h, out_w, out_h, channels;
    int has_alpha;            // last channel is alpha: colour is averaged weighted by alpha
    unsigned int *x_first;    // per output column: first source column
    unsigned int *x_count;    // per output column: number of source columns
    float *x_weight;          // all weights, output column after output column
    float *hrow;              // current source row, resampled horizontally
    float *acc;               // output row being accumulated
    unsigned int in_row;
    unsigned char *out;       // out_w * out_h * channels bytes, owned by the caller
} prefetch_resampler;

/// Returns 0, or -1 when memory ran out (free with prefetch_resampler_free either way).
/// Requires out_w <= in_w and out_h <= in_h, all non-zero.
int prefetch_resampler_init(prefetch_resampler *r, unsigned int in_w, unsigned int in_h,
                            unsigned int out_w, unsigned int out_h, unsigned int channels,
                            int has_alpha, unsigned char *out);

/// Adds the next source row (in_w * channels bytes).
void prefetch_resampler_push(prefetch_resampler *r, const unsigned char *row);

void prefetch_resampler_free(prefetch_resampler *r);
