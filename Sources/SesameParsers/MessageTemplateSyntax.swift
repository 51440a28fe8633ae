import Foundation
package import Mustache

/// Parses message templates the way they are rendered: text parts without HTML escaping,
/// and Auth0's legacy SMS placeholder `@@password@@` as the code.
package enum MessageTemplateSyntax {
    /// Makes text parts render unescaped: a code or app name with `&` stays `&` in a text.
    private static let textPragma = "{{% CONTENT_TYPE: TEXT}}"

    /// The parsed template named `name` from `source`.
    /// - Throws: ``MessageTemplateError`` with the line and column of a syntax error.
    package static func parse(_ source: String, name: String) throws -> MustacheTemplate {
        let legacy = source.replacingOccurrences(of: "@@password@@", with: "{{code}}")
        let text = MessageTemplateNames.isText(name)
        do {
            return try MustacheTemplate(string: text ? textPragma + legacy : legacy)
        } catch let error as MustacheTemplate.ParserError {
            let context = error.context
            // The pragma sits before the first line's text: columns there are shifted by it.
            let shift = text && context.lineNumber == 1 ? textPragma.count : 0
            throw MessageTemplateError.syntax(
                name: name, line: context.lineNumber, column: max(1, context.columnNumber - shift),
                reason: reason(error.error))
        }
    }

    /// The parser's error in words.
    private static func reason(_ error: any Error) -> String {
        switch error as? MustacheTemplate.Error {
        case .sectionCloseNameIncorrect: "a closing tag does not match the section it closes"
        case .unfinishedName: "a tag is not finished (a {{ without its }})"
        case .expectedSectionEnd: "a section is not closed"
        case .invalidSetDelimiter: "a set-delimiter tag is malformed"
        case .invalidConfigVariableSyntax, .unrecognisedConfigVariable: "a {{% pragma }} is not understood"
        case .transformAppliedToInheritanceSection, .illegalTokenInsideInheritSection, .textInsideInheritSection:
            "a {{<parent}} section holds something other than {{$blocks}}"
        case nil: "\(error)"
        }
    }
}

/// A message template that cannot be used.
public struct MessageTemplateError: Error, CustomStringConvertible, Equatable {
    private enum Kind: Equatable {
        case syntax(line: Int, column: Int, reason: String)
        case unknownName
        case badLanguage(String)
    }

    private let kind: Kind
    /// The template's name.
    public let name: String

    package static func syntax(name: String, line: Int, column: Int, reason: String) -> MessageTemplateError {
        MessageTemplateError(kind: .syntax(line: line, column: column, reason: reason), name: name)
    }

    package static func unknownName(_ name: String) -> MessageTemplateError {
        MessageTemplateError(kind: .unknownName, name: name)
    }

    package static func badLanguage(_ language: String, name: String) -> MessageTemplateError {
        MessageTemplateError(kind: .badLanguage(language), name: name)
    }

    /// Where a syntax error is, when it is one.
    public var position: (line: Int, column: Int)? {
        if case .syntax(let line, let column, _) = kind { return (line, column) }
        return nil
    }

    public var description: String {
        switch kind {
        case .syntax(let line, let column, let reason):
            "template \(name) has a syntax error at line \(line), column \(column): \(reason)"
        case .unknownName:
            "there is no template \(name); the templates are \(MessageTemplateNames.all.joined(separator: ", "))"
        case .badLanguage(let language):
            "\(language) is not a language code like en, fr or pt-br"
        }
    }
}
