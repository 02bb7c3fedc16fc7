import ArgumentParser
import CAllocator
import Foundation
import VisageHosting
import VisageKernels
import VisageTFLite

/// The `visage` command line (docs/cli.md). A library so that the Python wheel's shared object
/// carries it too (`visage_command_line` in Python/Sources/VisageC): one copy of the engine
/// and Swift's runtime serves both, which keeps the wheel within MediaPipe's size
/// (docs/install.md). The `visage` executable is one call to `main()`.
public struct Visage: ParsableCommand {
  /// The root command, as ArgumentParser makes it before parsing.
  public init() {}

  /// The command's name, summary and subcommands.
  public static let configuration = CommandConfiguration(
    commandName: "visage",
    abstract: "Face detection and face landmarks in pure Swift, and the TFLite runtime beneath them.",
    subcommands: [Detect.self, Landmark.self, Analyze.self, Run.self, Compare.self, Inspect.self, Bench.self])

  /// Runs the command, with the exit statuses of the command-line contract: 0 on success, 1
  /// when an input failed, a model or file could not be read (`SetupError`) or standard
  /// output could not be written, 2 for usage errors (argument parser's own would be 64).
  /// Statuses other than 0 end the process; 0 returns.
  public static func main() {
    // A bad tuning variable is a usage error, before anything reads it (the kernels would stop
    // the process with a backtrace).
    let problems = EnvironmentCheck.problems() + environmentProblems()
    if !problems.isEmpty {
      FileHandle.standardError.write(Data(problems.map { "Error: \($0)\n" }.joined().utf8))
      Foundation.exit(2)
    }
    retainFreedMemory()
    // OpenBLAS's workers would spin for a tenth of a second at start; only `--kernels blas`
    // uses BLAS, and it makes them again (GEMM.stopIdleThreads).
    GEMM.stopIdleThreads()
    // The subcommand parsed, whose usage a usage error found after parsing shows.
    var parsed: ParsableCommand.Type?
    do {
      var command = try parseAsRoot(FileNames.arguments)
      parsed = type(of: command)
      try command.run()
      StandardOutput.flush()
    } catch  where error is SetupError || error is BundledWeightsError {
      StandardOutput.flush()
      FileHandle.standardError.write(Data("Error: \(BytePath("\(error)").description)\n".utf8))
      Foundation.exit(1)
    } catch {
      StandardOutput.flush()
      let code = exitCode(for: error)
      if code == .validationFailure {
        // ArgumentParser shows the root's usage for an error thrown by `run()`, which it
        // cannot tie to the subcommand; the subcommand's is what helps.
        let text =
          if let parsed, parsed != Visage.self, error is ValidationError {
            "Error: \(message(for: error))\nUsage: \(usageString(for: parsed))\n"
              + "  See 'visage \(parsed._commandName) --help' for more information."
          } else { fullMessage(for: error) }
        FileHandle.standardError.write(Data((BytePath(text).description + "\n").utf8))
        Foundation.exit(2)
      }
      // A file's name in an error is shown as text (`FileNames`).
      let text = fullMessage(for: error)
      if code != .success && BytePath(text).description != text {
        FileHandle.standardError.write(Data((BytePath(text).description + "\n").utf8))
        Foundation.exit(code.rawValue)
      }
      exit(withError: error)
    }
  }
}

extension Visage {
  /// Runs the command line on `argv` (its first element the command's name) inside a process
  /// that is not `visage` itself, such as the Python wheel's: the same program as the
  /// executable. Returns 0 on success; every other status ends the process, as in `main()`.
  public static func main(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FileNames.given = (argc, argv)
    main()
    return 0
  }
}

/// Standard output, where results go: a write that fails (a full disk, a closed pipe's
/// reader gone, `> /dev/full`) must not pass for success with the results lost.
enum StandardOutput {
  /// Flushes what is buffered; on a write error says so on stderr and exits with status 1
  /// at once, since nothing more can be delivered.
  static func flush() {
    // Standard output only (through C, since Swift 6 refuses to name `stdout`): flushing
    // every stream would wait on standard input while a reader thread blocks on it. Results
    // are flushed after every line, so a write that failed inside `print` leaves data behind
    // that this flush tries again and fails on too.
    guard visage_flush_standard_output() != 0 else { return }
    let reason = String(cString: strerror(errno))
    FileHandle.standardError.write(Data("visage: cannot write the results to standard output: \(reason)\n".utf8))
    Foundation.exit(1)
  }
}

/// Keeps the memory of freed large buffers for the next input instead of handing it back to
/// the system (glibc; `visage_retain_freed_memory`). By default glibc maps each block of 32 MB
/// or more afresh and returns freed memory at once, so every 12 MP photo's 36 MB of pixels
/// came in new pages that the kernel faulted in and zeroed. Kept, a batch of 12 MP JPEGs runs
/// about 1.5 times as fast, at the same peak memory on one thread and a quarter more on two
/// (docs/speed.md, "Photos per second"). Set for the command line only: a library does not
/// choose its host's allocator.
private func retainFreedMemory() {
  _ = visage_retain_freed_memory()
}

/// The command line's own environment variables with values it cannot use.
func environmentProblems(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
  guard let text = environment["VISAGE_SEARCH_PROGRESS_AFTER"], !text.isEmpty else { return [] }
  guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
    return ["VISAGE_SEARCH_PROGRESS_AFTER is \"\(text)\"; it must be a number of seconds, 0 or more"]
  }
  return []
}
