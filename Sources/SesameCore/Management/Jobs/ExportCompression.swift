public import Foundation

/// Compresses export files as they are written: gzip, as Auth0's are. Core depends on no
/// compression library (nor on NIO, which the one here needs), so the server gives it one;
/// without one, files are written as they are.
public protocol ExportCompression: Sendable {
    /// Starts a compressed file.
    /// - Throws: when the compressor cannot start.
    func start() throws -> any CompressedFile
}

/// One compressed file being written, a piece at a time.
public protocol CompressedFile {
    /// Compresses `bytes` onto the file.
    mutating func write(_ bytes: Data) throws
    /// Ends the file and answers it whole.
    mutating func finish() throws -> Data
}
