import Foundation
import Testing
import VisageTestSupport

/// Numbers on the command line and in stream headers: every value is either usable or
/// refused with a clear error, never a trap (frame rates once ended in SIGILL, exit status
/// 132, through timestamps that overflowed).
@Suite(.timeLimit(.minutes(minutesAllowed(5)))) struct NumericOptionTests {
  static let astronaut = CommandLineContractTests.astronaut

  /// A tiny 4:4:4 stream of `frames` gray 4x2 frames with the header's `F` field as given.
  static func grayStream(rate: String, frames: Int = 2, frameLine: String = "FRAME") -> Data {
    var bytes = Array("YUV4MPEG2 W4 H2 F\(rate) Ip A1:1 C444\n".utf8)
    for _ in 0..<frames { bytes += Array("\(frameLine)\n".utf8) + [UInt8](repeating: 128, count: 24) }
    return Data(bytes)
  }

  /// `--fps` not finite, not positive, above 1000 (timestamps would repeat), or so low that
  /// the second frame's timestamp would not fit: a usage error, before any output.
  @Test(arguments: ["1e-17", "1e-300", "4.9e-324", "1e-10", "inf", "nan", "0", "-1", "1001"])
  func unusableRatesAreUsageErrors(_ fps: String) throws {
    for command in ["detect", "landmark"] {
      let run = try CLI.run([command, "--running-mode", "video", "--fps", fps, Self.astronaut, Self.astronaut])
      #expect(run.status == 2, "\(command) --fps \(fps): \(run.stderr)")
      #expect(run.stdout.isEmpty && run.stderr.contains("--fps"))
    }
  }

  /// With the frames counted beforehand, the rate must time the last of them: at 2e-10
  /// frames per second the second frame is at 5e12 ms, which fits, and the third would be at
  /// 1e13 ms, which does not.
  @Test func theLastOfTheGivenFramesMustFit() throws {
    let three = try CLI.run([
      "landmark", "--running-mode", "video", "--fps", "2e-10", Self.astronaut, Self.astronaut, Self.astronaut,
    ])
    #expect(three.status == 2 && three.stderr.contains("frame 2's timestamp"), "\(three.stderr)")
    let two = try CLI.run([
      "landmark", "--running-mode", "video", "--fps", "2e-10", "--output", "json", Self.astronaut, Self.astronaut,
    ])
    #expect(two.status == 0, "\(two.stderr)")
    #expect(try two.jsonLines().map { $0["timestampMs"] as? Int } == [0, 5_000_000_000_000])
  }

  /// The smoothing filter's settings are checked as typed, before they become Floats, and the
  /// message names the flag and the value given (it showed a Swift type, and 1e-300 as 0.0).
  @Test(arguments: [
    ("--smoothing-min-cutoff", "0", "above 0 hertz", "got 0.0"),
    ("--smoothing-min-cutoff", "1e-300", "above 0", "1e-300"),
    ("--smoothing-beta", "1e308", "at least 0", "got 1e+308"), ("--smoothing-beta", "-1", "at least 0", "got -1.0"),
  ])
  func smoothingSettingsAreCheckedAsTyped(flag: String, value: String, rule: String, got: String) throws {
    let run = try CLI.run(["landmark", flag, value, "Tests/Fixtures/images/astronaut.png"])
    #expect(run.status == 2, "\(run.stderr)")
    let message = try #require(run.stderr.split(separator: "\n").first)
    #expect(
      message.hasPrefix("Error: \(flag) must be") && message.contains(rule) && message.hasSuffix(got), "\(message)")
  }

  /// A stream's own rate that is malformed or unusable fails the stream with an error line
  /// (exit status 1), from a file or from standard input.
  @Test(arguments: [
    "1:inf", "1:1e300", "1:1e15", "1:1e18", "1:99999999999999999999", "1e-300:1", "1:1000000000000000000", "1000000:1",
  ])
  func unusableStreamRatesAreFailedInputs(_ rate: String) throws {
    let path = NSTemporaryDirectory() + "visage-rate-\(UUID().uuidString).y4m"
    try Self.grayStream(rate: rate).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    for (input, stdin) in [(path, Data()), ("-", Self.grayStream(rate: rate))] {
      let run = try CLI.run(["landmark", "--running-mode", "video", "--output", "json", input], stdin: stdin)
      #expect(run.status == 1, "F\(rate) from \(input): \(run.stderr)")
      let lines = try run.jsonLines()
      #expect(lines.count == 1 && (lines.first?["error"] as? String)?.contains("frame rate") == true, "\(lines)")
    }
  }

  /// Still images need no rate: in image mode a stream's unusable rate does not matter.
  @Test func imageModeIgnoresTheStreamsRate() throws {
    let run = try CLI.run(["detect", "--output", "json", "-"], stdin: Self.grayStream(rate: "2000:1"))
    let lines = try run.jsonLines()
    #expect(run.status == 0 && lines.count == 2, "\(run.stderr)")
  }

  /// `--fps` overrides the stream's own rate, a bad one included.
  @Test func fpsOverridesTheStreamsRate() throws {
    let run = try CLI.run(
      ["detect", "--running-mode", "video", "--fps", "10", "--output", "json", "-"],
      stdin: Self.grayStream(rate: "1000000:1"))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try run.jsonLines().map { $0["timestampMs"] as? Int } == [0, 100])
  }

  /// A stream of unknown length outliving the range: each frame past it gets an error line,
  /// the frames before it their results. (Video mode: live-stream mode paces frames in real
  /// time, so a test cannot wait for the 5e12 ms this takes.)
  @Test func framesPastTheRangeGetErrorLines() throws {
    let run = try CLI.run(
      ["detect", "--running-mode", "video", "--fps", "2e-10", "--output", "json", "-"],
      stdin: Self.grayStream(rate: "25:1", frames: 3))
    #expect(run.status == 1, "\(run.stderr)")
    let lines = try run.jsonLines()
    #expect(lines.map { $0["timestampMs"] as? Int } == [0, 5_000_000_000_000, nil])
    #expect((lines.last?["error"] as? String)?.contains("frame 2's timestamp") == true, "\(lines)")
  }

  /// Out-of-range, non-finite and unparsable numbers for the other options: usage errors.
  @Test(arguments: [
    ["detect", "--threads", "65"], ["detect", "--threads", "9223372036854775807"], ["landmark", "--num-faces", "-1"],
    ["landmark", "--num-faces", "99999999999999999999"], ["analyze", "--max-faces", "0"],
    ["detect", "--min-detection-confidence", "nan"], ["detect", "--min-suppression-threshold", "inf"],
    ["landmark", "--min-tracking-confidence", "-0.1"], ["analyze", "--min-face-size", "nan"],
    ["bench", "--threads", "100000"], ["bench", "--iterations", "0"], ["bench", "--warmup", "-1"],
  ])
  func otherBadNumbersAreUsageErrors(_ arguments: [String]) throws {
    let run = try CLI.run(arguments + (arguments[0] == "bench" ? [] : [Self.astronaut]))
    #expect(run.status == 2, "\(arguments): \(run.stderr)")
    #expect(run.stdout.isEmpty && !run.stderr.isEmpty)
  }

  /// Face counts have the option table's one range, as visage-server and Python have: the
  /// largest runs as any other, one more is refused naming the flag.
  @Test func faceCountsHaveTheTablesRange() throws {
    for (task, flag) in [("landmark", "--num-faces"), ("analyze", "--max-faces")] {
      let run = try CLI.run([
        task, flag, "1000", "--running-mode", "video", "--output", "json", Self.astronaut, Self.astronaut,
      ])
      #expect(run.status == 0, "\(task): \(run.stderr)")
      #expect(try run.jsonLines().count == 2)
      for huge in ["1001", "9223372036854775807"] {
        let refused = try CLI.run([task, flag, huge, Self.astronaut])
        #expect(
          refused.status == 2
            && refused.stderr.contains("option \(flag) takes a whole number in 1...1000, got '\(huge)'"))
      }
    }
  }

  /// Header sizes and fields of a stream: W and H out of range or unparsable are refused with
  /// an error line; A and I, which the reader does not use, cannot break it.
  @Test(arguments: [
    "W0 H2", "W-4 H2", "W99999999999999999999 H2", "W4 H32769", "W32768 H32768", "W4 H2 A0:0",
    "W4 H2 A99999999999999999999:1 Ix",
  ])
  func streamHeaderSizesAreChecked(_ fields: String) throws {
    var stream = Array("YUV4MPEG2 \(fields) F25:1 C444\n".utf8)
    stream += Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: 24)
    let run = try CLI.run(["detect", "--output", "json", "-"], stdin: Data(stream))
    let lines = try run.jsonLines()
    if fields.hasPrefix("W4 H2") {
      #expect(run.status == 0 && lines.count == 1 && lines[0]["detections"] != nil, "\(fields): \(run.stdout)")
    } else {
      #expect(run.status == 1 && lines.count == 1 && lines[0]["error"] != nil, "\(fields): \(run.stdout)")
    }
  }
}
