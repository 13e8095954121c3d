import CLibDeflate
import HealthTrailBase

/// One libdeflate compressor reused for many gzip (RFC 1952) members, for formats that compress
/// blocks of bytes held in memory (Parquet's GZIP pages): libdeflate compresses a whole buffer in
/// one call, and any gzip reader reads the result. The C calls live here, in the layer whose
/// pointer code is checked; the writers above hand over and get back plain arrays.
///
/// It keeps the state libdeflate allocates once, which a writer compressing one page after
/// another would otherwise allocate and free for every page.
///
/// Invariant: `compressor` is the non-null result of `libdeflate_alloc_compressor`, used by one
/// thread at a time (the owner's), and freed in `deinit` only.
@safe
package final class GzipCompressor {
    private let compressor: OpaquePointer

    /// A compressor at libdeflate's `level`, 1–12 (1 is fastest).
    package init(level: Int32) throws {
        guard (1...12).contains(level), let made = unsafe libdeflate_alloc_compressor(level) else {
            throw InputError(file: "gzip", "libdeflate cannot compress at level \(level)")
        }
        unsafe compressor = made
    }

    deinit {
        // SAFETY: allocated by init, freed once, here.
        unsafe libdeflate_free_compressor(compressor)
    }

    /// The gzip member of `bytes`: header, deflate data, CRC-32 and size.
    package func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        // The bound covers the worst case, gzip header and trailer included, so one call does.
        let bound = unsafe libdeflate_gzip_compress_bound(compressor, bytes.count)
        return try unsafe [UInt8](unsafeUninitializedCapacity: bound) { out, initialised in
            // SAFETY: libdeflate reads `bytes`' storage and writes at most `bound` bytes of `out`
            // during this closure only; `initialised` counts only the bytes it wrote (0 on
            // failure). An empty input has no base address: libdeflate reads nothing.
            let written = unsafe bytes.withUnsafeBytes { source in
                unsafe libdeflate_gzip_compress(compressor, source.baseAddress, source.count, out.baseAddress, bound)
            }
            initialised = written
            guard written > 0 else { throw InputError(file: "gzip", "libdeflate could not compress a block") }
        }
    }
}
