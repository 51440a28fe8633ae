import Crypto
import Foundation

extension Connection {
    /// Auth0's connection id (`con_` and 16 letters or digits), derived from the name, so every
    /// instance and every restart gives a connection the same id without storing one.
    public var id: String {
        let digest = Hex.encode(Array(SHA256.hash(data: Data("sesame connection \(name)".utf8))))
        return "con_" + digest.prefix(16)
    }
}
