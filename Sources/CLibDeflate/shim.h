#ifndef HEALTHTRAIL_CLIBDEFLATE_SHIM_H
#define HEALTHTRAIL_CLIBDEFLATE_SHIM_H
// libdeflate for its CRC-32 only (carry-less multiplication: ~5x zlib's crc32 on 708 MB);
// zip entries are still inflated by zlib, whose streaming libdeflate does not offer.
#include <libdeflate.h>
#endif
