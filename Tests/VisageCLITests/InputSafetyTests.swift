import Foundation
import Testing
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// Inputs that are not what they claim: special files, empty lists, loose `.npy` files, long
/// FRAME lines, and sizes past the stated limits. Each fails cleanly, at once.
@Suite(.timeLimit(.minutes(minutesAllowed(5)))) struct InputSafetyTests {
  static let astronaut = CommandLineContractTests.astronaut

  /// A fresh temporary folder, removed by the caller.
  static func folder() throws -> String { try OutputSafetyTests.folder() }

  /// A FIFO with no writer given as an image fails at once as empty (it used to block
  /// forever waiting for a writer), and the batch goes on.
  @Test func aFIFOIsNotAnImage() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let fifo = folder + "/frame.png"
    #expect(mkfifo(fifo, 0o600) == 0)
    let run = try CLI.shell("timeout 60 \"$VISAGE\" detect --output json \(fifo) \(Self.astronaut)")
    #expect(run.status == 1, "\(run.stderr)")
    let lines = try run.jsonLines()
    #expect(lines.count == 2 && lines[1]["detections"] != nil)
    #expect((lines.first?["error"] as? String)?.contains("is empty") == true, "\(lines)")
  }

  /// An empty path list is no input, as no image at all is: exit status 2, nothing on stdout.
  @Test(arguments: ["", "\n  \n\n"]) func anEmptyPathListIsNoInput(_ list: String) throws {
    let none = try CLI.run(["landmark"])
    let empty = try CLI.run(["landmark", "--paths-from", "-"], stdin: Data(list.utf8))
    #expect(none.status == 2 && empty.status == 2, "\(empty.stderr)")
    #expect(empty.stdout.isEmpty && empty.stderr.contains("no input"))
  }

  /// `run` takes an input only in the model's own shape, not another of the same size.
  @Test func runNeedsTheExactInputShape() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let input = folder + "/input.npy"
    try Data(Tensor(shape: [3, 192, 192, 1], values: [Float](repeating: 0, count: 192 * 192 * 3)).npy).write(
      to: URL(fileURLWithPath: input))
    let run = try CLI.run(["run", "Weights/face_detection_full_range.tflite", "--input", input, "--output-dir", folder])
    #expect(run.status == 2 && run.stderr.contains("needs shape [1, 192, 192, 3]"), "\(run.stderr)")
  }

  /// A FRAME line longer than the reader's line limit ends the stream with an error line
  /// (it was once cut at 4096 bytes and its rest read as pixels).
  @Test func aLongFrameLineIsAnError() throws {
    let stream =
      NumericOptionTests.grayStream(rate: "25:1", frames: 1)
      + NumericOptionTests.grayStream(
        rate: "25:1", frames: 1, frameLine: "FRAME " + String(repeating: "X", count: 5000)
      ).drop(while: { $0 != 0x0A }).dropFirst()
    let run = try CLI.run(["detect", "--output", "json", "-"], stdin: stream)
    #expect(run.status == 1)
    let lines = try run.jsonLines()
    #expect(lines.count == 2 && lines[0]["detections"] != nil)
    #expect(
      (lines[1]["error"] as? String)?.contains("frame 1's FRAME line is longer than 4096 bytes") == true, "\(lines)")
  }

  /// Sizes past the limits are refused from the header, before allocating: run under a 2 GB
  /// address-space limit, an allocation made anyway would fail (and trap) rather than
  /// happen to succeed on a machine with memory to spare. Each error names its limit.
  @Test func limitsHoldUnderAMemoryCap() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // 32768 x 32768: each side allowed, 1 Gi pixels (3 GiB of RGB) past the total.
    let png = folder + "/huge.png"
    try Data(pngClaiming(width: 32768, height: 32768)).write(to: URL(fileURLWithPath: png))
    // A 1 GiB + 1 model, sparse so that it costs no disk.
    let model = folder + "/huge.tflite"
    #expect(FileManager.default.createFile(atPath: model, contents: nil))
    #expect(truncate(model, 1 << 30 + 1) == 0)
    // A .npy whose shape claims 2^27 values, past the tensor limit.
    let npy = folder + "/huge.npy"
    try Data(NPYTestFile.header(shape: "(1, 8192, 8192, 2)")).write(to: URL(fileURLWithPath: npy))
    let cap = "ulimit -v 2000000; exec \"$VISAGE\""
    let image = try CLI.shell("\(cap) detect --output json \(png)")
    #expect(image.status == 1, "\(image.stderr)")
    #expect(
      (try image.jsonLines().first?["error"] as? String)?.contains(
        "32768x32768 pixels, too large: the limit is 67108864 pixels") == true, "\(image.stdout)")
    let stream = try CLI.shell(
      "\(cap) detect --output json -", stdin: Data("YUV4MPEG2 W32768 H32768 F25:1 C444\nFRAME\n".utf8))
    #expect(
      stream.status == 1 && stream.stdout.contains("at most 32768 a side and 67108864 pixels"), "\(stream.stdout)")
    let tooBig = try CLI.shell("\(cap) inspect --output json \(model)")
    #expect(tooBig.status == 1 && tooBig.stderr.contains("more than the limit of 1073741824 bytes"), "\(tooBig.stderr)")
    let tensor = try CLI.shell(
      "\(cap) run Weights/face_detection_full_range.tflite --input \(npy) --output-dir \(folder)")
    #expect(tensor.status == 1 && tensor.stderr.contains("limit of 67108864 values"), "\(tensor.stderr)")
  }
}

/// `.npy` bytes written by hand, for headers `Tensor.npy` would never write.
enum NPYTestFile {
  /// A version 1.0 float32 header for `shape` (a Python tuple), with no data after it.
  static func header(shape: String) -> [UInt8] {
    let text = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shape), }\n"
    return [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0, UInt8(text.utf8.count), 0] + Array(text.utf8)
  }
}
