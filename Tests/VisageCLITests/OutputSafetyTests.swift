import Foundation
import Testing
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// No silent loss and no clobbering: results that cannot be written make the run fail, and
/// `--annotate` writes only regular files, never through a link or onto a device.
@Suite(.timeLimit(.minutes(minutesAllowed(5)))) struct OutputSafetyTests {
  static let astronaut = CommandLineContractTests.astronaut

  /// A fresh temporary folder.
  static func folder() throws -> String {
    let path = NSTemporaryDirectory() + "visage-output-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// The subcommands that print results. (A literal of interpolations in `@Test(arguments:)`
  /// itself crashes Swift 6.0's type checker.)
  static let printingCommands = [
    "detect --output json \(astronaut)", "landmark --output json \(astronaut)", "analyze --output json \(astronaut)",
    "inspect --output json Weights/face_detection_full_range.tflite",
    "inspect --output json Weights/face_landmarker.task",
  ]

  /// `> /dev/full`: every subcommand that prints results exits 1 and says why.
  @Test(arguments: printingCommands)
  func aFullStandardOutputIsAFailure(_ command: String) throws {
    let run = try CLI.shell("\"$VISAGE\" \(command) > /dev/full")
    #expect(run.status == 1, "\(command): \(run.stderr)")
    #expect(
      run.stderr.contains("cannot write the results to standard output: No space left on device"), "\(run.stderr)")
  }

  /// `run` prints a JSON summary of the outputs it wrote; that summary lost is a failure too.
  @Test func runWithAFullStandardOutputFails() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let input = folder + "/zeros.npy"
    try Data(Tensor(shape: [1, 192, 192, 3], values: [Float](repeating: 0, count: 192 * 192 * 3)).npy).write(
      to: URL(fileURLWithPath: input))
    let run = try CLI.shell(
      "\"$VISAGE\" run Weights/face_detection_full_range.tflite --input \(input) --output-dir \(folder) > /dev/full")
    #expect(run.status == 1 && run.stderr.contains("No space left on device"), "\(run.stderr)")
  }

  /// What is at the `--annotate` path must be nothing or a regular file: a link (to a file or
  /// dangling) or a FIFO is refused on stderr (exit status 1, the result's line kept) and left
  /// as it was. A folder there takes the picture inside it (`AnnotationPathTests`).
  @Test func annotateLeavesAnythingButARegularFileAlone() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let victim = folder + "/victim.txt"
    try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
    let link = folder + "/link.png"
    let dangling = folder + "/dangling.png"
    let fifo = folder + "/fifo.png"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
    try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder + "/nowhere.png")
    #expect(mkfifo(fifo, 0o600) == 0)
    for target in [link, dangling, fifo] {
      let run = try CLI.shell("timeout 60 \"$VISAGE\" detect --output json --annotate \(target) \(Self.astronaut)")
      #expect(run.status == 1, "\(target): \(run.stderr)")
      #expect(try run.jsonLines().first?["detections"] != nil, "the result's line is kept: \(run.stdout)")
      #expect(run.stderr.contains("something other than a regular file is there"), "\(run.stderr)")
    }
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == victim)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == folder + "/nowhere.png")
    #expect(!FileManager.default.fileExists(atPath: folder + "/nowhere.png"))
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
    #expect(isFIFO(fifo))
    // The folder holds nothing the run left behind: no partial file either.
    #expect(
      try Set(FileManager.default.contentsOfDirectory(atPath: folder)) == [
        "victim.txt", "link.png", "dangling.png", "fifo.png",
      ])
    // A regular file there is replaced, as before.
    let existing = folder + "/existing.png"
    try Data("old".utf8).write(to: URL(fileURLWithPath: existing))
    let run = try CLI.run(["detect", "--output", "json", "--annotate", existing, Self.astronaut])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: existing)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
  }

  /// An annotation that cannot be written whole (here past a 1 KiB file-size limit, with
  /// SIGXFSZ ignored so that the write itself fails) is an error on stderr and exit status 1,
  /// the result's line kept, and neither the target nor a partial file is left behind.
  @Test func aFailedAnnotationWriteIsAnError() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let target = folder + "/out.png"
    let run = try CLI.shell(
      "trap '' XFSZ; ulimit -f 1; exec \"$VISAGE\" detect --output json --annotate \(target) \(Self.astronaut)")
    #expect(run.status == 1, "\(run.stderr)")
    #expect(try run.jsonLines().first?["detections"] != nil, "the result's line is kept: \(run.stdout)")
    #expect(run.stderr.contains("cannot write the annotated image '\(target)': File too large"), "\(run.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
  }

  /// Whether `path` itself is a FIFO.
  func isFIFO(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
  }
}
