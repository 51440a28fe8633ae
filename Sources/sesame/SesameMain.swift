import ArgumentParser
import SesameCLI

/// The `sesame` executable: the command tree lives in SesameCLI so tests can drive it.
@main
struct SesameMain: AsyncParsableCommand {
    static let configuration = SesameCommand.configuration
}
