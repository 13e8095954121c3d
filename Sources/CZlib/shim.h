#ifndef HEALTHTRAIL_CZLIB_SHIM_H
#define HEALTHTRAIL_CZLIB_SHIM_H
#include <zlib.h>

// zlib's init macros pass sizeof(z_stream) and the version; Swift cannot call macros.
static inline int healthtrail_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
static inline int healthtrail_deflateInit2(z_streamp strm, int level, int windowBits) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
