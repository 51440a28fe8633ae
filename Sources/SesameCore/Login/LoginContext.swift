/// What every login service is built on: storage, the HMAC hasher, the injected clock and
/// randomness, the settings and the coordinator that records logins. One value, made once by
/// the composition root (``Sesame``), so the services cannot be wired with different clocks
/// or hashers, and a dependency added here reaches them all.
struct LoginContext: Sendable {
    let storage: any SesameStorage
    let hasher: SecretHasher
    let clock: any SesameClock
    let random: any RandomSource
    let settings: LoginSettings
    let coordinator: LoginCoordinator
}

/// A service built on a ``LoginContext``: its parts read as the service's own.
protocol LoginService {
    var context: LoginContext { get }
}

extension LoginService {
    var storage: any SesameStorage { context.storage }
    var hasher: SecretHasher { context.hasher }
    var clock: any SesameClock { context.clock }
    var random: any RandomSource { context.random }
    var settings: LoginSettings { context.settings }
    var coordinator: LoginCoordinator { context.coordinator }
}
