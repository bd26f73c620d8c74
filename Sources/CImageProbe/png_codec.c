#include "CImageProbe.h"
#include "resample.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

// libpng's low-level API calls abort() when an error handler returns without a setjmp in
// place. Here its error handler records the reason and longjmps to the setjmp in the
// calling function; warnings are recorded and checked after each phase (any warning is
// corruption). As in jpeg_codec.c, everything touched after setjmp lives in a context owned
// by the caller's frame, and buffers are freed on every path.

typedef struct {
    const unsigned char *data; // reading
    size_t count, pos;
    prefetch_encoded *out;     // writing
    int eof;                   // a read went past the end of the data
    int code;
    char message[200];
} png_io;

static void io_fail(png_io *io, int code, const char *message) {
    if (io->code != PREFETCH_IMAGE_OK) return; // keep the first reason
    io->code = code;
    snprintf(io->message, sizeof(io->message), "%s", message);
}

static void io_error(png_structp png, png_const_charp message) {
    png_io *io = png_get_error_ptr(png);
    io_fail(io, io->eof ? PREFETCH_IMAGE_TRUNCATED : PREFETCH_IMAGE_CORRUPT, message);
    png_longjmp(png, 1);
}

static void io_warning(png_structp png, png_const_charp message) {
    png_io *io = png_get_error_ptr(png);
    io_fail(io, PREFETCH_IMAGE_CORRUPT, message);
}

static void io_read(png_structp png, png_bytep out, size_t length) {
    png_io *io = png_get_io_ptr(png);
    if (length > io->count - io->pos) {
        io->eof = 1;
        png_error(png, "unexpected end of data");
    }
    memcpy(out, io->data + io->pos, length);
    io->pos += length;
}

static void io_write(png_structp png, png_bytep data, size_t length) {
    png_io *io = png_get_io_ptr(png);
    prefetch_encoded *o = io->out;
    if (length > o->capacity - o->size) {
        size_t capacity = o->capacity ? o->capacity : 16384;
        while (capacity - o->size < length) capacity *= 2;
        unsigned char *p = realloc(o->data, capacity);
        if (!p) {
            io_fail(io, PREFETCH_IMAGE_NO_MEMORY, "out of memory");
            png_error(png, "out of memory");
        }
        o->data = p;
        o->capacity = capacity;
    }
    memcpy(o->data + o->size, data, length);
    o->size += length;
}

static void io_flush(png_structp png) { (void)png; }

// MARK: Decoding

typedef struct {
    png_io io;
    png_structp png;
    png_infop info;
    unsigned char *row;   // one row
    unsigned char *image; // whole image (interlaced thumbnails only)
    png_bytep *rows;
    prefetch_resampler resampler;
} decode_ctx;

static int decode_ctx_open(decode_ctx *x, const unsigned char *data, size_t count) {
    memset(x, 0, sizeof(*x));
    x->io.data = data;
    x->io.count = count;
    x->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &x->io, io_error, io_warning);
    if (x->png) x->info = png_create_info_struct(x->png);
    if (!x->png || !x->info) {
        io_fail(&x->io, PREFETCH_IMAGE_NO_MEMORY, "out of memory");
        return 0;
    }
    png_set_read_fn(x->png, &x->io, io_read);
    return 1;
}

static void decode_ctx_finish(decode_ctx *x, prefetch_image_status *status) {
    status->code = x->io.code;
    snprintf(status->message, sizeof(status->message), "%s", x->io.message);
    png_destroy_read_struct(x->png ? &x->png : NULL, x->info ? &x->info : NULL, NULL);
    free(x->row);
    free(x->image);
    free(x->rows);
    prefetch_resampler_free(&x->resampler);
}

// Called after setjmp, from the function that called it. Returns 0 on failure (recorded).
static int read_info(decode_ctx *x, unsigned long long max_pixels, prefetch_image_status *status) {
    png_structp png = x->png;
    // Only IHDR, PLTE, tRNS, IDAT and IEND are processed; every other chunk is skipped,
    // its CRC still checked. Metadata does not make an image unreadable.
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_read_info(png, x->info);
    status->width = png_get_image_width(png, x->info);
    status->height = png_get_image_height(png, x->info);
    status->components = png_get_channels(png, x->info);
    if (x->io.code != PREFETCH_IMAGE_OK) return 0;
    if ((unsigned long long)status->width * status->height > max_pixels) {
        io_fail(&x->io, PREFETCH_IMAGE_TOO_MANY_PIXELS, "image has too many pixels");
        return 0;
    }
    return 1;
}

static void verify_in(decode_ctx *x, unsigned long long max_pixels, prefetch_image_status *status) {
    png_structp png = x->png;
    if (setjmp(png_jmpbuf(png))) return;
    if (!read_info(x, max_pixels, status)) return;
    // With interlace handling, each pass's rows can go through one scratch row: the pixels
    // are wrong, but every byte of the stream is inflated and unfiltered.
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, x->info);
    x->row = malloc(png_get_rowbytes(png, x->info));
    if (!x->row) {
        io_fail(&x->io, PREFETCH_IMAGE_NO_MEMORY, "out of memory for a row");
        return;
    }
    for (int pass = 0; pass < passes; pass++)
        for (png_uint_32 y = 0; y < status->height; y++) png_read_row(png, x->row, NULL);
    png_read_end(png, NULL); // the rest of the zlib stream, then chunks up to IEND
}

void prefetch_png_verify(const unsigned char *data, size_t count, unsigned long long max_pixels,
                         prefetch_image_status *status) {
    memset(status, 0, sizeof(*status));
    decode_ctx x;
    if (decode_ctx_open(&x, data, count)) verify_in(&x, max_pixels, status);
    decode_ctx_finish(&x, status);
}

static void decode_resized_in(decode_ctx *x, unsigned long long max_pixels, unsigned int out_w, unsigned int out_h,
                              unsigned char *out_pixels, prefetch_image_status *status) {
    png_structp png = x->png;
    png_infop info = x->info;
    if (setjmp(png_jmpbuf(png))) return;
    if (!read_info(x, max_pixels, status)) return;
    if (out_w == 0 || out_h == 0 || out_w > status->width || out_h > status->height) {
        io_fail(&x->io, PREFETCH_IMAGE_BAD_ARGUMENT, "output size must be non-zero and not larger than the image");
        return;
    }
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) png_set_scale_16(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    unsigned int channels = png_get_channels(png, info);
    size_t rowbytes = png_get_rowbytes(png, info);
    if (channels < 1 || channels > 4 || rowbytes != (size_t)status->width * channels) {
        io_fail(&x->io, PREFETCH_IMAGE_UNSUPPORTED, "unexpected pixel layout after conversion");
        return;
    }
    if (prefetch_resampler_init(&x->resampler, status->width, status->height, out_w, out_h, channels,
                                channels == 2 || channels == 4, out_pixels) != 0) {
        io_fail(&x->io, PREFETCH_IMAGE_NO_MEMORY, "out of memory for the resampler");
        return;
    }
    if (passes == 1) {
        x->row = malloc(rowbytes);
        if (!x->row) {
            io_fail(&x->io, PREFETCH_IMAGE_NO_MEMORY, "out of memory for a row");
            return;
        }
        for (png_uint_32 y = 0; y < status->height; y++) {
            png_read_row(png, x->row, NULL);
            prefetch_resampler_push(&x->resampler, x->row);
        }
    } else {
        // Interlaced rows arrive in seven passes: the whole image is needed first.
        x->image = malloc(rowbytes * status->height);
        x->rows = malloc(sizeof(png_bytep) * status->height);
        if (!x->image || !x->rows) {
            io_fail(&x->io, PREFETCH_IMAGE_NO_MEMORY, "out of memory for the image");
            return;
        }
        for (png_uint_32 y = 0; y < status->height; y++) x->rows[y] = x->image + rowbytes * y;
        png_read_image(png, x->rows);
        for (png_uint_32 y = 0; y < status->height; y++) prefetch_resampler_push(&x->resampler, x->rows[y]);
    }
    png_read_end(png, NULL);
    status->components = (int)channels;
}

void prefetch_png_decode_resized(const unsigned char *data, size_t count, unsigned long long max_pixels,
                                 unsigned int out_width, unsigned int out_height,
                                 unsigned char *out_pixels, prefetch_image_status *status) {
    memset(status, 0, sizeof(*status));
    decode_ctx x;
    if (decode_ctx_open(&x, data, count)) decode_resized_in(&x, max_pixels, out_width, out_height, out_pixels, status);
    decode_ctx_finish(&x, status);
    if (status->code != PREFETCH_IMAGE_OK) status->components = 0;
}

// MARK: Encoding

typedef struct {
    png_io io;
    png_structp png;
    png_infop info;
} encode_ctx;

static void encode_in(encode_ctx *x, const unsigned char *pixels, unsigned int width, unsigned int height,
                      int channels) {
    png_structp png = x->png;
    if (setjmp(png_jmpbuf(png))) return;
    static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                      PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_write_fn(png, &x->io, io_write, io_flush);
    png_set_IHDR(png, x->info, width, height, 8, color_types[channels - 1], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // zlib level 4 (lazy matching, short chains): on photographic thumbnails about 4x faster
    // than the default 6 for output within a few percent (scripts/bench-image.sh).
    png_set_compression_level(png, 4);
    png_write_info(png, x->info);
    size_t stride = (size_t)width * (size_t)channels;
    for (png_uint_32 y = 0; y < height; y++) png_write_row(png, pixels + stride * y);
    png_write_end(png, x->info);
}

void prefetch_png_encode(const unsigned char *pixels, unsigned int width, unsigned int height,
                         int channels, prefetch_encoded *out, prefetch_image_status *status) {
    memset(status, 0, sizeof(*status));
    memset(out, 0, sizeof(*out));
    encode_ctx x;
    memset(&x, 0, sizeof(x));
    x.io.out = out;
    if (width == 0 || height == 0 || channels < 1 || channels > 4) {
        io_fail(&x.io, PREFETCH_IMAGE_BAD_ARGUMENT, "bad size or channel count");
    } else {
        x.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &x.io, io_error, io_warning);
        if (x.png) x.info = png_create_info_struct(x.png);
        if (!x.png || !x.info)
            io_fail(&x.io, PREFETCH_IMAGE_NO_MEMORY, "out of memory");
        else
            encode_in(&x, pixels, width, height, channels);
    }
    if (x.png) png_destroy_write_struct(&x.png, x.info ? &x.info : NULL);
    status->code = x.io.code;
    snprintf(status->message, sizeof(status->message), "%s", x.io.message);
    if (status->code != PREFETCH_IMAGE_OK) {
        free(out->data);
        memset(out, 0, sizeof(*out));
    }
    status->width = width;
    status->height = height;
    status->components = channels;
}
