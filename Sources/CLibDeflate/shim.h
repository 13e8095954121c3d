#ifndef HEALTHTRAIL_CLIBDEFLATE_SHIM_H
#define HEALTHTRAIL_CLIBDEFLATE_SHIM_H
// libdeflate for its CRC-32 (carry-less multiplication: ~5x zlib's crc32 on 708 MB) and to inflate
// small zip entries in one call (ZipArchive.inflateWhole), and to gzip Parquet pages in one call
// (GzipCompressor); zlib streams everything else.
#include <libdeflate.h>
#endif
