import ArgumentParser
import SesameCLI
import Testing

/// Every command in the tree says its own name. Without one, ArgumentParser derives each
/// name from the type's with `String(describing:)` whenever the tree is built, which is on
/// every start of `sesame serve`: those reflective lookups were a sixth of the CPU the server
/// spent before its first answer (docs/performance.md).
@Suite("command names")
struct CommandNameTests {
    @Test("every command and subcommand has an explicit commandName")
    func explicitNames() {
        var unnamed: [String] = []
        var seen = 0
        func walk(_ command: any ParsableCommand.Type, path: [String]) {
            seen += 1
            let name = command.configuration.commandName
            if name == nil { unnamed.append((path + ["\(command)"]).joined(separator: " ")) }
            for subcommand in command.configuration.subcommands {
                walk(subcommand, path: path + [name ?? "\(command)"])
            }
        }
        walk(SesameCommand.self, path: [])
        #expect(unnamed == [])
        #expect(seen > 60)
    }
}
