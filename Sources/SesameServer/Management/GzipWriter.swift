import CompressNIO
public import Foundation
import NIOCore
public import SesameCore

/// Writes a gzip file (RFC 1952) a piece at a time, as Auth0's export files are: each piece is
/// compressed as it is written, so only the compressed file and one piece are ever held.
public struct GzipWriter: CompressedFile {
    /// The room made for the compressor's output at each step.
    static let step = 64 * 1024

    private let compressor: any NIOCompressor
    private var output = ByteBuffer()

    /// Starts a file.
    /// - Throws: when zlib cannot start a stream (out of memory).
    public init() throws {
        compressor = CompressionAlgorithm.gzip().compressor
        try compressor.startStream()
    }

    /// Compresses `bytes` onto the file.
    /// - Throws: when zlib fails.
    public mutating func write(_ bytes: Data) throws {
        var input = ByteBuffer(bytes: bytes)
        while input.readableBytes > 0 {
            output.reserveCapacity(minimumWritableBytes: Self.step)
            try compressor.streamDeflate(from: &input, to: &output, flush: .no)
        }
    }

    /// Ends the stream and answers the whole compressed file.
    /// - Throws: when zlib fails.
    public mutating func finish() throws -> Data {
        while true {
            output.reserveCapacity(minimumWritableBytes: Self.step)
            do {
                // Z_OK (more to write) comes back as an overflow: make room and go on.
                try compressor.finishDeflate(to: &output)
                break
            } catch let error as CompressNIOError where error == .bufferOverflow {
                continue
            }
        }
        try compressor.finishStream()
        return Data(output.readableBytesView)
    }

    /// The bytes of a gzip file, decompressed (`sesame admin users export` and tests).
    /// - Throws: for bytes that are not a whole gzip stream.
    public static func decompress(_ data: Data) throws -> Data {
        var input = ByteBuffer(bytes: data)
        return Data(try input.decompress(with: .gzip()).readableBytesView)
    }
}

/// gzip for export files (``ExportCompression``), by ``GzipWriter``.
public struct GzipCompression: ExportCompression {
    /// Creates the compression.
    public init() {}

    public func start() throws -> any CompressedFile { try GzipWriter() }
}
