// iOS and macOS only (AuthenticationServices; visionOS has no security-key provider): not
// compiled on Linux. The mapping to the server's JSON, its checks and the error mapping are
// PasskeyPlatformResults.swift's, tested on Linux; this file only builds the platform's
// requests and runs the controller.
#if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
    public import AuthenticationServices
    public import Foundation

    /// Passkeys through `ASAuthorizationController`: the platform authenticator (iCloud
    /// Keychain, and phones nearby by QR code) and security keys, with AutoFill in the
    /// username field on iOS 16. Give it to `SesameClient.loginWithPasskey(authenticator:)`,
    /// `signUpWithPasskey(email:authenticator:)` or the login flow.
    public final class AuthenticationServicesPasskeys: PasskeyAuthenticator, @unchecked Sendable {
        /// Which authenticators the sheet offers.
        public struct Kinds: OptionSet, Sendable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// The platform authenticator (iCloud Keychain, or a phone by QR code).
            public static let platform = Kinds(rawValue: 1)
            /// A USB, NFC or Bluetooth security key.
            public static let securityKey = Kinds(rawValue: 2)
        }

        // UIWindow / NSWindow: used on the main actor only (the controller asks there).
        private let anchor: ASPresentationAnchor
        private let kinds: Kinds
        private let autoFill: Bool

        /// Ceremonies shown over `anchor` (the window of the sign-in screen), offering `kinds`.
        public init(anchor: ASPresentationAnchor, kinds: Kinds = [.platform, .securityKey]) {
            self.init(anchor: anchor, kinds: kinds, autoFill: false)
        }

        private init(anchor: ASPresentationAnchor, kinds: Kinds, autoFill: Bool) {
            self.anchor = anchor
            self.kinds = kinds
            self.autoFill = autoFill
        }

        /// Sign-ins offered in the keyboard's QuickType bar of a field with
        /// `.textContentType(.username)`, instead of a sheet: start
        /// `loginWithPasskey(authenticator:)` with it when the sign-in screen appears, and
        /// cancel that task when it goes. Platform passkeys only (AutoFill shows no others).
        @available(iOS 16.0, *)
        @available(macOS, unavailable)
        public static func autoFill(anchor: ASPresentationAnchor) -> AuthenticationServicesPasskeys {
            AuthenticationServicesPasskeys(anchor: anchor, kinds: .platform, autoFill: true)
        }

        public func register(_ request: PasskeyRegistrationRequest) async throws -> PasskeyResponse {
            try await registerOnMain(request)
        }

        public func authenticate(_ request: PasskeyAuthenticationRequest) async throws -> PasskeyResponse {
            try await authenticateOnMain(request)
        }

        @MainActor
        private func registerOnMain(_ request: PasskeyRegistrationRequest) async throws -> PasskeyResponse {
            let (challenge, userID) = (Data(request.challenge), Data(request.userID))
            var requests: [ASAuthorizationRequest] = []
            if kinds.contains(.platform) {
                requests.append(
                    ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.rpID)
                        .createCredentialRegistrationRequest(challenge: challenge, name: request.userName, userID: userID))
            }
            if kinds.contains(.securityKey) {
                let key = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: request.rpID)
                    .createCredentialRegistrationRequest(
                        challenge: challenge, displayName: request.userName, name: request.userName, userID: userID)
                key.credentialParameters = [ASAuthorizationPublicKeyCredentialParameters(algorithm: .ES256)]
                key.residentKeyPreference = .required
                requests.append(key)
            }
            return try await perform(requests, autoFill: false) { credential in
                guard let created = credential as? any ASAuthorizationPublicKeyCredentialRegistration else {
                    throw SesameClientError.invalidResponse("the authenticator answered another ceremony")
                }
                let result = PasskeyRegistrationResult(
                    credentialID: [UInt8](created.credentialID), rawClientDataJSON: [UInt8](created.rawClientDataJSON),
                    rawAttestationObject: created.rawAttestationObject.map { [UInt8]($0) },
                    attachment: credential is ASAuthorizationSecurityKeyPublicKeyCredentialRegistration
                        ? .crossPlatform : .platform)
                return try PasskeyResponse(registration: result, for: request)
            }
        }

        @MainActor
        private func authenticateOnMain(_ request: PasskeyAuthenticationRequest) async throws -> PasskeyResponse {
            let challenge = Data(request.challenge)
            var requests: [ASAuthorizationRequest] = []
            if kinds.contains(.platform) {
                requests.append(
                    ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.rpID)
                        .createCredentialAssertionRequest(challenge: challenge))
            }
            if kinds.contains(.securityKey) {
                requests.append(
                    ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: request.rpID)
                        .createCredentialAssertionRequest(challenge: challenge))
            }
            return try await perform(requests, autoFill: autoFill) { credential in
                guard let assertion = credential as? any ASAuthorizationPublicKeyCredentialAssertion else {
                    throw SesameClientError.invalidResponse("the authenticator answered another ceremony")
                }
                let result = PasskeyAssertionResult(
                    credentialID: [UInt8](assertion.credentialID), rawClientDataJSON: [UInt8](assertion.rawClientDataJSON),
                    rawAuthenticatorData: [UInt8](assertion.rawAuthenticatorData ?? Data()),
                    signature: [UInt8](assertion.signature ?? Data()), userID: assertion.userID.map { [UInt8]($0) },
                    attachment: credential is ASAuthorizationSecurityKeyPublicKeyCredentialAssertion ? .crossPlatform : .platform)
                return try PasskeyResponse(assertion: result, for: request)
            }
        }

        /// Runs one controller and maps its credential; cancelling the task cancels the
        /// controller (iOS 16, macOS 13).
        @MainActor
        private func perform(
            _ requests: [ASAuthorizationRequest], autoFill: Bool,
            map: @escaping (any ASAuthorizationCredential) throws -> PasskeyResponse
        ) async throws -> PasskeyResponse {
            let controller = ASAuthorizationController(authorizationRequests: requests)
            let ceremony = Ceremony(anchor: anchor, map: map)
            controller.delegate = ceremony
            controller.presentationContextProvider = ceremony
            let box = ControllerBox(controller: controller)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    ceremony.start(controller, continuation)
                    #if os(iOS)
                        if autoFill, #available(iOS 16.0, *) {
                            controller.performAutoFillAssistedRequests()
                            return
                        }
                    #endif
                    controller.performRequests()
                }
            } onCancel: {
                Task { @MainActor in box.cancel() }
            }
        }
    }

    /// The controller, handed to the cancellation handler (which runs on any thread).
    private final class ControllerBox: @unchecked Sendable {
        let controller: ASAuthorizationController

        init(controller: ASAuthorizationController) { self.controller = controller }

        @MainActor
        func cancel() {
            if #available(iOS 16.0, macOS 13.0, *) { controller.cancel() }
        }
    }

    /// The controller's delegate for one ceremony: it resumes the waiting task once.
    private final class Ceremony: NSObject, ASAuthorizationControllerDelegate,
        ASAuthorizationControllerPresentationContextProviding, @unchecked Sendable
    {
        private let anchor: ASPresentationAnchor
        private let map: (any ASAuthorizationCredential) throws -> PasskeyResponse
        private var continuation: CheckedContinuation<PasskeyResponse, any Error>?
        // The controller holds its delegate weakly: the ceremony keeps itself and the
        // controller alive until it has answered.
        private var running: (ceremony: Ceremony, controller: ASAuthorizationController)?

        init(anchor: ASPresentationAnchor, map: @escaping (any ASAuthorizationCredential) throws -> PasskeyResponse) {
            self.anchor = anchor
            self.map = map
        }

        func start(_ controller: ASAuthorizationController, _ continuation: CheckedContinuation<PasskeyResponse, any Error>) {
            self.continuation = continuation
            running = (self, controller)
        }

        func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }

        func authorizationController(
            controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
        ) {
            finish { try map(authorization.credential) }
        }

        func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
            finish { throw PasskeyResponse.authorizationError(code: (error as NSError).code) }
        }

        private func finish(_ result: () throws -> PasskeyResponse) {
            guard let continuation else { return }
            self.continuation = nil
            running = nil
            continuation.resume(with: Result { try result() })
        }
    }
#endif
