import ArgumentParser
import Foundation
import SesameAPI
import SesameClientCore
import SesameCore

/// Where `sesame login` keeps its session, and which server and application it talks to.
struct ClientSessionOptions: ParsableArguments {
    @Option(help: "The Sesame server (http:// or https://); default SESAME_DOMAIN, then the last login's.")
    var domain: String?
    @Option(name: .customLong("client-id"), help: "The application; default SESAME_CLIENT_ID, then the last login's.")
    var clientID: String?

    /// `$XDG_CONFIG_HOME/sesame`, else `~/.config/sesame`.
    static var configDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/sesame" }
        return NSHomeDirectory() + "/.config/sesame"
    }

    /// The session file (0600).
    static var store: FileCredentialsStore { FileCredentialsStore(path: configDirectory + "/session.json") }

    /// The server and application of the last login, kept after logout (`last-login.json`).
    struct LastLogin: Codable {
        var domain: String
        var clientID: String
    }

    static var lastLoginPath: String { configDirectory + "/last-login.json" }

    /// Remembers `client`'s server and application for the next command.
    static func remember(_ client: SesameClient) {
        let last = LastLogin(domain: client.domain.absoluteString, clientID: client.clientID)
        guard let data = try? JSONEncoder().encode(last) else { return }
        // Through PrivateFile like the session: the first file written must not leave the
        // directory that will hold the session open to others.
        try? PrivateFile.write(data, to: lastLoginPath)
    }

    /// The stored session's client and manager.
    /// - Throws: `not signed in` when there is no session.
    static func storedSession() throws -> (client: SesameClient, manager: CredentialsManager) {
        guard let stored = try store.load() else { throw SesameClientErrorMessage("not signed in") }
        let client = SesameClient(commandLineDomain: stored.domain, clientID: stored.clientID)
        return (client, CredentialsManager(client: client, store: store))
    }

    /// The client: flags, then the environment, then the last login's server and application.
    func client() throws -> SesameClient {
        let environment = ProcessInfo.processInfo.environment
        let stored = FileManager.default.contents(atPath: Self.lastLoginPath)
            .flatMap { try? JSONDecoder().decode(LastLogin.self, from: $0) }
        guard let domainText = domain ?? environment["SESAME_DOMAIN"] ?? stored?.domain else {
            throw ValidationError("--domain is required (or SESAME_DOMAIN): the Sesame server's URL")
        }
        guard let url = URL(string: domainText), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
        else {
            throw ValidationError("--domain must be an http:// or https:// URL, not '\(domainText)'")
        }
        if let problem = Self.cleartextProblem(url) { throw ValidationError(problem) }
        guard let clientID = clientID ?? environment["SESAME_CLIENT_ID"] ?? stored?.clientID else {
            throw ValidationError("--client-id is required (or SESAME_CLIENT_ID)")
        }
        return SesameClient(commandLineDomain: url, clientID: clientID)
    }
}

extension ClientSessionOptions {
    /// Why `url` may not be used: `http://` anywhere but this machine would send codes, links
    /// and tokens in clear to whoever is on the path. Nil for https and for http on loopback.
    static func cleartextProblem(_ url: URL) -> String? {
        guard url.scheme?.lowercased() == "http", let host = url.host, !isLoopback(host: host) else { return nil }
        return "--domain \(url.absoluteString): http:// is allowed only on this machine (localhost, 127.0.0.0/8, [::1]); "
            + "use https:// so codes and tokens are not sent in clear"
    }

    /// Whether `host` (as a URL spells it) is this machine: `localhost` exactly, or a literal
    /// loopback address. A name that merely starts with one (`localhost.example.com`,
    /// `127.0.0.1.example.com`) is another host.
    static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" { return true }
        guard let address = IPAddress(bare) else { return false }
        return IPRange.loopback.contains { $0.contains(address) }
    }
}

/// Runs a client command; a refusal or a network failure becomes one readable line on
/// standard error and exit status 1, never a stack trace.
func clientCommand(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as SesameClientError {
        printError(error.message)
        throw ExitCode(1)
    } catch let error as SesameClientErrorMessage {
        printError(error.description)
        throw ExitCode(1)
    }
}

/// The end of every `sesame login`: keep the session, remember the server and application,
/// and say who is signed in.
func completeLogin(_ client: SesameClient, _ credentials: Credentials) async throws {
    try await CredentialsManager(client: client, store: ClientSessionOptions.store).signedIn(credentials)
    ClientSessionOptions.remember(client)
    let profile = try await client.userInfo(accessToken: credentials.accessToken)
    print("Signed in as \(profile.email ?? profile.phoneNumber ?? profile.sub).")
}
