import ArgumentParser
import Foundation
import SesameAPI
import SesameClientCore

/// `sesame whoami [--json]`: who the stored session belongs to.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Print the signed-in user's email or phone and user_id.")
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await clientCommand {
            let (client, manager) = try ClientSessionOptions.storedSession()
            let profile: UserInfo
            do {
                profile = try await client.userInfo(accessToken: try await manager.credentials().accessToken)
            } catch let error as SesameClientError where error.status == 401 || error.isNotSignedIn || error.isInvalidCredentials
            {
                throw SesameClientErrorMessage("not signed in")
            }
            if json {
                let body = WhoamiBody(userID: profile.sub, email: profile.email, phoneNumber: profile.phoneNumber)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(body), as: UTF8.self))
            } else {
                print("\(profile.email ?? profile.phoneNumber ?? "-")  \(profile.sub)")
            }
        }
    }
}

/// `sesame whoami --json`.
struct WhoamiBody: Encodable {
    let userID: String
    let email: String?
    let phoneNumber: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", email, phoneNumber = "phone_number"
    }
}

/// `sesame logout`: revoke the session's refresh token and forget the session.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Sign out: revoke the refresh token and forget the session.")

    func run() async throws {
        try await clientCommand {
            try await ClientSessionOptions.storedSession().manager.signOut()
            print("Signed out.")
        }
    }
}
