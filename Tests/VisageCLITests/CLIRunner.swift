import Foundation
import Testing
import VisageTestSupport

/// What one run of the `visage` executable produced.
struct CLIRun {
  let status: Int32
  let stdout: String
  let stderr: String

  /// The JSON Lines on stdout, parsed.
  func jsonLines() throws -> [[String: Any]] {
    try stdout.split(separator: "\n").map { line in
      try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }
  }
}

/// Runs the `visage` executable that `swift test` built beside the test bundle.
enum CLI {
  /// The build folder holding the test bundle, and so the `visage` executable.
  static let executable: String = {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    while url.path != "/" {
      url.deleteLastPathComponent()
      let candidate = url.appendingPathComponent("visage").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return Fixtures.repositoryRoot + "/.build/release/visage"
  }()

  /// Runs `visage arguments…` from the repository root with `stdin` as its input.
  static func run(_ arguments: [String], stdin: Data = Data()) throws -> CLIRun {
    try launch(executable, arguments, stdin: stdin)
  }

  /// Runs a bash `script` from the repository root with `$VISAGE` naming the executable,
  /// for what needs a shell: redirections such as `> /dev/full`, `ulimit`, `timeout`.
  static func shell(_ script: String, stdin: Data = Data()) throws -> CLIRun {
    try launch("/bin/bash", ["-c", script], stdin: stdin, environment: ["VISAGE": executable])
  }

  /// Runs a program with `environment` added to this process's own.
  private static func launch(_ program: String, _ arguments: [String], stdin: Data, environment: [String: String] = [:])
    throws -> CLIRun
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.repositoryRoot)
    let (input, output, error) = (Pipe(), Pipe(), Pipe())
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Feed stdin and drain both outputs concurrently so that no pipe fills up and blocks.
    let writer = Thread {
      input.fileHandleForWriting.write(stdin)
      try? input.fileHandleForWriting.close()
    }
    writer.start()
    let errorData = LockedData()
    let reader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errorData.isSet { Thread.sleep(forTimeInterval: 0.001) }
    return CLIRun(
      status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
      stderr: String(decoding: errorData.value, as: UTF8.self))
  }
}

/// Data handed from one thread to another.
final class LockedData: @unchecked Sendable {
  private let lock = NSLock()
  private var data: Data?
  func set(_ value: Data) { lock.withLock { data = value } }
  var isSet: Bool { lock.withLock { data != nil } }
  var value: Data { lock.withLock { data ?? Data() } }
}
