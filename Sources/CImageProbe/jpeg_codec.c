#include "CImageProbe.h"
#include "resample.h"
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// libjpeg's default error manager calls exit(1) on errors and only prints warnings; a
// truncated file then decodes "successfully" with grey at the bottom. Here errors and
// warnings both longjmp back to the setjmp in the calling function (the same thing
// TurboJPEG's stop-on-warning mode does).
//
// Everything the library touches after setjmp (the decompress struct, the error manager,
// buffers) lives in a context owned by the caller's frame, so nothing local to the function
// that calls setjmp changes between setjmp and longjmp.

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int code; // PREFETCH_IMAGE_* reason for the jump
    char message[JMSG_LENGTH_MAX];
} probe_error_mgr;

static void fail_with_message(j_common_ptr cinfo, int code) {
    probe_error_mgr *err = (probe_error_mgr *)cinfo->err;
    err->code = code;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void probe_error_exit(j_common_ptr cinfo) {
    int code = PREFETCH_IMAGE_CORRUPT;
    if (cinfo->err->msg_code == JERR_OUT_OF_MEMORY) code = PREFETCH_IMAGE_NO_MEMORY;
    else if (cinfo->err->msg_code == JERR_INPUT_EMPTY) code = PREFETCH_IMAGE_TRUNCATED;
    fail_with_message(cinfo, code);
}

// msg_level -1 is a warning ("Premature end of JPEG file", "Corrupt JPEG data: ..."):
// corruption, stop at the first. Levels >= 0 are trace messages.
static void probe_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) return;
    cinfo->err->num_warnings++;
    fail_with_message(cinfo, cinfo->err->msg_code == JWRN_JPEG_EOF ? PREFETCH_IMAGE_TRUNCATED
                                                                   : PREFETCH_IMAGE_CORRUPT);
}

// libjpeg prints to stderr by default; a service must stay quiet.
static void probe_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void probe_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    if (((j_decompress_ptr)cinfo)->input_scan_number > PREFETCH_JPEG_MAX_SCANS) {
        probe_error_mgr *err = (probe_error_mgr *)cinfo->err;
        err->code = PREFETCH_IMAGE_CORRUPT;
        snprintf(err->message, sizeof(err->message), "more than %d progressive scans", PREFETCH_JPEG_MAX_SCANS);
        longjmp(err->jump, 1);
    }
}

static void init_error(probe_error_mgr *err) {
    jpeg_std_error(&err->base);
    err->base.error_exit = probe_error_exit;
    err->base.emit_message = probe_emit_message;
    err->base.output_message = probe_output_message;
    err->code = PREFETCH_IMAGE_OK;
    err->message[0] = 0;
}

static void copy_result(prefetch_image_status *status, const probe_error_mgr *err) {
    status->code = err->code;
    snprintf(status->message, sizeof(status->message), "%s", err->message);
}

// Sets a failure without jumping (for checks made by this file, not by libjpeg).
static void set_failure(probe_error_mgr *err, int code, const char *message) {
    err->code = code;
    snprintf(err->message, sizeof(err->message), "%s", message);
}

// MARK: Decoding

typedef struct {
    struct jpeg_decompress_struct cinfo;
    probe_error_mgr err;
    struct jpeg_progress_mgr progress;
    prefetch_resampler resampler;
} decode_ctx;

static void decode_ctx_init(decode_ctx *x) {
    memset(x, 0, sizeof(*x));
    init_error(&x->err);
    x->cinfo.err = &x->err.base;
}

static void decode_ctx_finish(decode_ctx *x, prefetch_image_status *status) {
    copy_result(status, &x->err);
    jpeg_destroy_decompress(&x->cinfo); // safe before jpeg_CreateDecompress: mem is NULL
    prefetch_resampler_free(&x->resampler);
}

// Called after setjmp, from the function that called it. Returns 0 when the pixel count is
// over the limit (the failure is recorded in the context).
static int open_and_read_header(decode_ctx *x, const unsigned char *data, size_t count,
                                unsigned long long max_pixels, prefetch_image_status *status) {
    jpeg_CreateDecompress(&x->cinfo, JPEG_LIB_VERSION, sizeof(x->cinfo));
    x->progress.progress_monitor = probe_progress;
    x->cinfo.progress = &x->progress;
    jpeg_mem_src(&x->cinfo, data, (unsigned long)count);
    jpeg_read_header(&x->cinfo, TRUE);
    status->width = x->cinfo.image_width;
    status->height = x->cinfo.image_height;
    status->components = x->cinfo.num_components;
    if ((unsigned long long)x->cinfo.image_width * x->cinfo.image_height > max_pixels) {
        set_failure(&x->err, PREFETCH_IMAGE_TOO_MANY_PIXELS, "image has too many pixels");
        return 0;
    }
    return 1;
}

static void read_header_in(decode_ctx *x, const unsigned char *data, size_t count, prefetch_image_status *status) {
    if (setjmp(x->err.jump)) return;
    open_and_read_header(x, data, count, ~0ULL, status);
}

prefetch_image_status prefetch_jpeg_read_header(const unsigned char *data, size_t count) {
    prefetch_image_status status;
    memset(&status, 0, sizeof(status));
    decode_ctx x;
    decode_ctx_init(&x);
    read_header_in(&x, data, count, &status);
    decode_ctx_finish(&x, &status);
    return status;
}

static void verify_in(decode_ctx *x, const unsigned char *data, size_t count, unsigned long long max_pixels,
                      int scale_denom, prefetch_image_status *status) {
    if (setjmp(x->err.jump)) return;
    if (!open_and_read_header(x, data, count, max_pixels, status)) return;
    j_decompress_ptr c = &x->cinfo;
    c->scale_num = 1;
    c->scale_denom = (unsigned int)scale_denom;
    c->dct_method = JDCT_ISLOW;
    c->do_fancy_upsampling = FALSE;
    c->do_block_smoothing = FALSE;
    c->out_color_space = c->jpeg_color_space; // no colour conversion: pixels are thrown away
    jpeg_start_decompress(c);
    JSAMPARRAY rows = (*c->mem->alloc_sarray)((j_common_ptr)c, JPOOL_IMAGE,
                                              c->output_width * (JDIMENSION)c->output_components,
                                              (JDIMENSION)c->rec_outbuf_height);
    while (c->output_scanline < c->output_height) {
        if (jpeg_read_scanlines(c, rows, (JDIMENSION)c->rec_outbuf_height) == 0) {
            set_failure(&x->err, PREFETCH_IMAGE_CORRUPT, "decoder stalled");
            return;
        }
    }
    jpeg_finish_decompress(c); // reads on to EOI: a missing end is a warning, so an error
}

void prefetch_jpeg_verify(const unsigned char *data, size_t count, unsigned long long max_pixels,
                          int scale_denom, prefetch_image_status *status) {
    memset(status, 0, sizeof(*status));
    decode_ctx x;
    decode_ctx_init(&x);
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8)
        set_failure(&x.err, PREFETCH_IMAGE_BAD_ARGUMENT, "scale_denom must be 1, 2, 4 or 8");
    else
        verify_in(&x, data, count, max_pixels, scale_denom, status);
    decode_ctx_finish(&x, status);
}

// Adobe CMYK JPEGs store inverted values; others store plain CMYK.
static void cmyk_to_rgb(const JSAMPLE *in, JSAMPLE *out, JDIMENSION width, int inverted) {
    for (JDIMENSION i = 0; i < width; i++, in += 4, out += 3) {
        unsigned int c = in[0], m = in[1], y = in[2], k = in[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        out[0] = (JSAMPLE)((c * k + 127) / 255);
        out[1] = (JSAMPLE)((m * k + 127) / 255);
        out[2] = (JSAMPLE)((y * k + 127) / 255);
    }
}

static void decode_resized_in(decode_ctx *x, const unsigned char *data, size_t count, unsigned long long max_pixels,
                              unsigned int out_w, unsigned int out_h, unsigned char *out_pixels,
                              prefetch_image_status *status) {
    if (setjmp(x->err.jump)) return;
    if (!open_and_read_header(x, data, count, max_pixels, status)) return;
    j_decompress_ptr c = &x->cinfo;
    if (out_w == 0 || out_h == 0 || out_w > c->image_width || out_h > c->image_height) {
        set_failure(&x->err, PREFETCH_IMAGE_BAD_ARGUMENT, "output size must be non-zero and not larger than the image");
        return;
    }
    int channels, cmyk = 0;
    if (c->jpeg_color_space == JCS_GRAYSCALE) {
        c->out_color_space = JCS_GRAYSCALE;
        channels = 1;
    } else if (c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK) {
        c->out_color_space = JCS_CMYK;
        channels = 3;
        cmyk = 1;
    } else if (c->num_components == 3) {
        c->out_color_space = JCS_RGB;
        channels = 3;
    } else {
        set_failure(&x->err, PREFETCH_IMAGE_UNSUPPORTED, "unsupported JPEG colour space");
        return;
    }
    // The smallest DCT scale M/8 whose output is at least the requested size.
    for (unsigned int m = 1; m <= 8; m++) {
        c->scale_num = m;
        c->scale_denom = 8;
        jpeg_calc_output_dimensions(c);
        if (c->output_width >= out_w && c->output_height >= out_h) break;
    }
    c->dct_method = JDCT_ISLOW;
    c->do_fancy_upsampling = TRUE;
    jpeg_start_decompress(c);
    if (c->output_width < out_w || c->output_height < out_h) {
        set_failure(&x->err, PREFETCH_IMAGE_BAD_ARGUMENT, "no DCT scale gives the requested size");
        return;
    }
    if (prefetch_resampler_init(&x->resampler, c->output_width, c->output_height, out_w, out_h,
                                (unsigned int)channels, 0, out_pixels) != 0) {
        set_failure(&x->err, PREFETCH_IMAGE_NO_MEMORY, "out of memory for the resampler");
        return;
    }
    JSAMPARRAY rows = (*c->mem->alloc_sarray)((j_common_ptr)c, JPOOL_IMAGE,
                                              c->output_width * (JDIMENSION)c->output_components,
                                              (JDIMENSION)c->rec_outbuf_height);
    JSAMPROW rgb = cmyk ? (*c->mem->alloc_sarray)((j_common_ptr)c, JPOOL_IMAGE, c->output_width * 3, 1)[0] : NULL;
    while (c->output_scanline < c->output_height) {
        JDIMENSION n = jpeg_read_scanlines(c, rows, (JDIMENSION)c->rec_outbuf_height);
        if (n == 0) {
            set_failure(&x->err, PREFETCH_IMAGE_CORRUPT, "decoder stalled");
            return;
        }
        for (JDIMENSION i = 0; i < n; i++) {
            if (cmyk) {
                cmyk_to_rgb(rows[i], rgb, c->output_width, c->saw_Adobe_marker);
                prefetch_resampler_push(&x->resampler, rgb);
            } else {
                prefetch_resampler_push(&x->resampler, rows[i]);
            }
        }
    }
    jpeg_finish_decompress(c);
    status->components = channels;
}

void prefetch_jpeg_decode_resized(const unsigned char *data, size_t count, unsigned long long max_pixels,
                                  unsigned int out_width, unsigned int out_height,
                                  unsigned char *out_pixels, prefetch_image_status *status) {
    memset(status, 0, sizeof(*status));
    decode_ctx x;
    decode_ctx_init(&x);
    decode_resized_in(&x, data, count, max_pixels, out_width, out_height, out_pixels, status);
    decode_ctx_finish(&x, status);
}

// MARK: Encoding

// A destination that grows a malloc'd buffer owned by the caller (jpeg_mem_dest would lose
// its buffer on the error path: the live one is private to the library).
typedef struct {
    struct jpeg_destination_mgr pub;
    prefetch_encoded *out;
} grow_dest;

static void grow_dest_grow(j_compress_ptr cinfo) {
    grow_dest *d = (grow_dest *)cinfo->dest;
    prefetch_encoded *o = d->out;
    size_t capacity = o->capacity ? o->capacity * 2 : 16384;
    unsigned char *p = realloc(o->data, capacity);
    if (!p) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 100);
    o->data = p;
    o->capacity = capacity;
    d->pub.next_output_byte = p + o->size;
    d->pub.free_in_buffer = capacity - o->size;
}

static void grow_dest_init(j_compress_ptr cinfo) {
    ((grow_dest *)cinfo->dest)->out->size = 0;
    grow_dest_grow(cinfo);
}

static boolean grow_dest_empty(j_compress_ptr cinfo) {
    grow_dest *d = (grow_dest *)cinfo->dest;
    d->out->size = d->out->capacity; // called only when the whole buffer is full
    grow_dest_grow(cinfo);
    return TRUE;
}

static void grow_dest_term(j_compress_ptr cinfo) {
    grow_dest *d = (grow_dest *)cinfo->dest;
    d->out->size = d->out->capacity - d->pub.free_in_buffer;
}

typedef struct {
    struct jpeg_compress_struct cinfo;
    probe_error_mgr err;
    grow_dest dest;
} encode_ctx;

static void encode_in(encode_ctx *x, const unsigned char *pixels, unsigned int width, unsigned int height,
                      int channels, int quality) {
    if (setjmp(x->err.jump)) return;
    j_compress_ptr c = &x->cinfo;
    jpeg_CreateCompress(c, JPEG_LIB_VERSION, sizeof(*c));
    x->dest.pub.init_destination = grow_dest_init;
    x->dest.pub.empty_output_buffer = grow_dest_empty;
    x->dest.pub.term_destination = grow_dest_term;
    c->dest = &x->dest.pub;
    c->image_width = width;
    c->image_height = height;
    c->input_components = channels;
    c->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(c);
    jpeg_set_quality(c, quality, TRUE);
    c->optimize_coding = TRUE; // smaller files; cheap at thumbnail sizes
    jpeg_start_compress(c, TRUE);
    size_t stride = (size_t)width * (size_t)channels;
    while (c->next_scanline < c->image_height) {
        JSAMPROW row = (JSAMPROW)(uintptr_t)(pixels + (size_t)c->next_scanline * stride);
        jpeg_write_scanlines(c, &row, 1);
    }
    jpeg_finish_compress(c);
}

void prefetch_jpeg_encode(const unsigned char *pixels, unsigned int width, unsigned int height,
                          int channels, int quality, prefetch_encoded *out, prefetch_image_status *status) {
    memset(status, 0, sizeof(*status));
    memset(out, 0, sizeof(*out));
    encode_ctx x;
    memset(&x, 0, sizeof(x));
    init_error(&x.err);
    x.cinfo.err = &x.err.base;
    x.dest.out = out;
    if (width == 0 || height == 0 || (channels != 1 && channels != 3) || quality < 1 || quality > 100)
        set_failure(&x.err, PREFETCH_IMAGE_BAD_ARGUMENT, "bad size, channel count or quality");
    else
        encode_in(&x, pixels, width, height, channels, quality);
    copy_result(status, &x.err);
    jpeg_destroy_compress(&x.cinfo);
    if (status->code != PREFETCH_IMAGE_OK) {
        free(out->data);
        memset(out, 0, sizeof(*out));
    }
    status->width = width;
    status->height = height;
    status->components = channels;
}
