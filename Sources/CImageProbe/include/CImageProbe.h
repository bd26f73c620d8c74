#pragma once
#include <stddef.h>
#include <stdint.h>

// The C side of PrefetchImage. libjpeg and libpng report fatal errors with longjmp, which
// Swift cannot catch, so every call that can fail lives here: setjmp and the library calls
// sit in the same C function, and Swift only ever sees a status. Nothing here exits,
// aborts or prints.

/// Status codes (`prefetch_image_status.code`). Swift turns them into `ImageError` in one
/// place per library (ImageError.swift).
#define PREFETCH_IMAGE_OK 0
#define PREFETCH_IMAGE_CORRUPT 1
#define PREFETCH_IMAGE_TRUNCATED 2
#define PREFETCH_IMAGE_TOO_MANY_PIXELS 3
#define PREFETCH_IMAGE_NO_MEMORY 4
#define PREFETCH_IMAGE_UNSUPPORTED 5
#define PREFETCH_IMAGE_BAD_ARGUMENT 6

/// A progressive JPEG with more scans than this is refused (each scan re-walks the whole
/// image: a few kilobytes could otherwise cost minutes of CPU).
#define PREFETCH_JPEG_MAX_SCANS 500

/// The outcome of a C call. `message` holds the library's reason when `code` is not OK.
typedef struct {
    int code;
    /// Source dimensions, once the header has been read.
    unsigned int width;
    unsigned int height;
    /// JPEG header: components in the file. Decodes: channels delivered (1 to 4).
    int components;
    char message[200];
} prefetch_image_status;

/// An encoded image in a malloc'd buffer. The caller owns `data` (release it with free()).
typedef struct {
    unsigned char *data;
    size_t size;
    size_t capacity;
} prefetch_encoded;

// MARK: JPEG (libjpeg-turbo)

/// Reads the JPEG header: dimensions and components. Any libjpeg warning (a header cut
/// short, for example) is an error.
prefetch_image_status prefetch_jpeg_read_header(const unsigned char *data, size_t count);

/// Decodes the whole JPEG to check it; keeps no pixels. Every entropy-coded block is decoded
/// (that is where libjpeg finds corruption); `scale_denom` (1, 2, 4 or 8) shrinks only the
/// inverse DCT and what follows, which cannot fail. Any libjpeg warning is an error.
void prefetch_jpeg_verify(const unsigned char *data, size_t count, unsigned long long max_pixels,
                          int scale_denom, prefetch_image_status *status);

/// Decodes the JPEG at the smallest DCT scale whose size is at least `out_width` x
/// `out_height`, then area-averages to exactly that size into `out_pixels`, which holds
/// `out_width * out_height * 3` bytes. Greyscale gives 1 channel, anything else RGB (3);
/// `status->components` says which. Any libjpeg warning is an error.
void prefetch_jpeg_decode_resized(const unsigned char *data, size_t count, unsigned long long max_pixels,
                                  unsigned int out_width, unsigned int out_height,
                                  unsigned char *out_pixels, prefetch_image_status *status);

/// Encodes 8-bit greyscale (1 channel) or RGB (3) pixels as a baseline JPEG.
void prefetch_jpeg_encode(const unsigned char *pixels, unsigned int width, unsigned int height,
                          int channels, int quality, prefetch_encoded *out, prefetch_image_status *status);

// MARK: PNG (libpng)

/// Decodes the whole PNG to check it, up to IEND; keeps one row of pixels. Ancillary chunks
/// are skipped (their CRCs are still checked). Any libpng warning is an error.
void prefetch_png_verify(const unsigned char *data, size_t count, unsigned long long max_pixels,
                         prefetch_image_status *status);

/// Decodes the PNG to 8 bits per channel (palette and tRNS expanded to RGB(A), greyscale
/// kept), then area-averages to `out_width` x `out_height` into `out_pixels`, which holds
/// `out_width * out_height * 4` bytes. `status->components` is the channel count: 1 grey,
/// 2 grey+alpha, 3 RGB, 4 RGBA. Colour is averaged weighted by alpha.
void prefetch_png_decode_resized(const unsigned char *data, size_t count, unsigned long long max_pixels,
                                 unsigned int out_width, unsigned int out_height,
                                 unsigned char *out_pixels, prefetch_image_status *status);

/// Encodes 8-bit pixels with 1 to 4 channels (grey, grey+alpha, RGB, RGBA) as a PNG.
void prefetch_png_encode(const unsigned char *pixels, unsigned int width, unsigned int height,
                         int channels, prefetch_encoded *out, prefetch_image_status *status);

// MARK: Checksums

/// CRC-32 as used by PNG and zlib: pass 0 to start, the previous result to continue.
uint32_t prefetch_crc32(uint32_t crc, const unsigned char *data, size_t count);
