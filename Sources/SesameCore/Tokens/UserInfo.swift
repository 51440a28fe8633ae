public import SesameAPI

extension UserInfo {
    /// The claims of `user` that `scope` releases: `profile` the names, picture and update
    /// time; `email` and `phone` the address and whether it is verified.
    public init(user: User, scope: Scope) {
        let profile = scope.contains("profile")
        let email = scope.contains("email") ? user.email : nil
        let phone = scope.contains("phone") ? user.phoneNumber : nil
        self.init(
            sub: user.userID, name: profile ? user.name : nil, nickname: profile ? user.nickname : nil,
            picture: profile ? user.picture : nil, updatedAt: profile ? ISO8601.string(user.updatedAt) : nil,
            email: email, emailVerified: email.map { _ in user.emailVerified }, phoneNumber: phone,
            phoneNumberVerified: phone.map { _ in user.phoneVerified })
    }
}
