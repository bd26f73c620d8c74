#pragma once
// Include through the hiredis/ prefix: its pkg-config would put /usr/include/hiredis
// (read.h, sds.h, alloc.h) on every dependent's include path.
#include <hiredis/hiredis.h>
