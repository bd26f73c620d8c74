#pragma once
#include <stddef.h>

/// Result of reading a JPEG header with libjpeg.
/// `status` is 0 on success; otherwise `message` holds libjpeg's reason.
typedef struct {
    int status;
    unsigned int width;
    unsigned int height;
    int components;
    char message[200];
} prefetch_jpeg_header;

/// Reads the JPEG header from memory. libjpeg's fatal errors longjmp back here
/// instead of calling exit(1), so Swift always gets a status.
prefetch_jpeg_header prefetch_jpeg_read_header(const unsigned char *data, size_t count);
