public import Foundation

/// One HTTP request and its answer, whatever sends it.
///
/// The client builds requests and reads answers here; a transport only carries them. Apps get
/// `URLSession` (the `SesameClient` module); the `sesame` command sends through the server's
/// own HTTP client, so the server's executable does not load `URLSession`'s libcurl and the
/// dozens of libraries behind it (5.5 MB of every idle server's memory).
@_spi(Sesame) public enum HTTPExchange {
    /// What the client sends.
    public struct Request: Sendable {
        public var method: String
        public var url: URL
        /// Header names as written; values as sent.
        public var headers: [(name: String, value: String)]
        public var body: Data?

        public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
            (self.method, self.url, self.headers, self.body) = (method, url, headers, body)
        }
    }

    /// What came back.
    public struct Response: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: Data
        /// The status's reason phrase, for an error without a JSON body.
        public var reason: String

        /// An answer whose `headers` are named as the transport got them; they are kept in
        /// lower case, the last of a repeated name winning.
        public init(status: Int, headers: some Sequence<(String, String)>, body: Data, reason: String) {
            var lowered: [String: String] = [:]
            for (name, value) in headers { lowered[name.lowercased()] = value }
            (self.status, self.headers, self.body, self.reason) = (status, lowered, body, reason)
        }
    }

    /// Sends a request; throws when no answer came (the client reports it as a network error).
    public typealias Send = @Sendable (Request) async throws -> Response
}
