/// Operators' message template overrides, shared by every instance.
public protocol MessageTemplateRepository: Sendable {
    /// Stores an override, replacing the one of the same name, language and scope.
    func setMessageTemplate(_ template: MessageTemplateOverride) async throws
    /// Every override. Read for every message sent, so a backend may keep it for a moment:
    /// a change made elsewhere is seen within seconds.
    func messageTemplates() async throws -> [MessageTemplateOverride]
    /// Deletes one override; false when there was none.
    func deleteMessageTemplate(name: String, language: String, scope: MessageTemplateOverride.Scope) async throws -> Bool
}
