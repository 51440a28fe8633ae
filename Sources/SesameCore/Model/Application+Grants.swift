extension Application {
    /// Refuses a grant this application may not use. Every Core service a grant ends in calls
    /// this first, so no caller (an endpoint, the hosted page, a future one) can skip the rule.
    /// - Throws: 403 `unauthorized_client`: "Grant type '…' not allowed for the client."
    public func requireGrant(_ grant: String) throws {
        guard allows(grant) else { throw SesameError.grantNotAllowed(grant) }
    }
}
