public import Hummingbird
public import NIOCore

/// The per-request context: Hummingbird's core plus the client's socket address.
public struct SesameRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies above 64 KB are refused with 413: no endpoint needs more.
    public var maxUploadSize: Int { 64 * 1024 }
}
