import ArgumentParser

@main
struct Visage: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "visage",
    abstract: "Face detection and face landmarks in pure Swift, and the TFLite runtime beneath them.",
    subcommands: [Detect.self, Analyze.self, Run.self, Inspect.self, Bench.self])
}
