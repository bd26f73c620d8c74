#include "CImageProbe.h"
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} probe_error_mgr;

static void probe_error_exit(j_common_ptr cinfo) {
    probe_error_mgr *err = (probe_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

// libjpeg prints warnings to stderr by default; a service must stay quiet.
static void probe_output_message(j_common_ptr cinfo) { (void)cinfo; }

prefetch_jpeg_header prefetch_jpeg_read_header(const unsigned char *data, size_t count) {
    prefetch_jpeg_header result;
    memset(&result, 0, sizeof(result));
    struct jpeg_decompress_struct cinfo;
    probe_error_mgr err;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = probe_error_exit;
    err.base.output_message = probe_output_message;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        result.status = 1;
        snprintf(result.message, sizeof(result.message), "%s", err.message);
        jpeg_destroy_decompress(&cinfo);
        return result;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)count);
    jpeg_read_header(&cinfo, TRUE);
    result.width = cinfo.image_width;
    result.height = cinfo.image_height;
    result.components = cinfo.num_components;
    jpeg_destroy_decompress(&cinfo);
    return result;
}
