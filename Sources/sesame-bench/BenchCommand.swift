import ArgumentParser

/// `sesame-bench`: measures Sesame against the crypto bound of the same machine, in the same run.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sesame-bench",
        abstract: "Benchmarks for Sesame, each reported as a ratio to the crypto bound measured in the same run.",
        subcommands: [
            OTPLoginBench.self, DeviceKeyBench.self, RefreshBench.self, PasskeyBench.self, AllBench.self, SeedBench.self,
            ServerChild.self, FloorBench.self, FloorServer.self, SoakBench.self, ImportBench.self,
        ])
}
