#pragma once
#include <png.h>

// Composite format macros are not imported by Swift.
static const unsigned int prefetch_png_format_rgba = PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA;
static const unsigned int prefetch_png_format_rgb = PNG_FORMAT_FLAG_COLOR;
