import Foundation
import Testing
import VisageTestSupport

/// `--input-format jsonl`: encoded images as JSON Lines, the way a batch engine hands image
/// bytes to the tool through standard input.
@Suite(.timeLimit(.minutes(minutesAllowed(5)))) struct RecordInputTests {
  static let images = [
    "Tests/Fixtures/images/astronaut.png", "Tests/Fixtures/images/camera.png",
    "Tests/Fixtures/detector/images/multiface_800x600.jpg",
  ]

  static func record(source: String?, data: [UInt8]) throws -> String {
    var object: [String: Any] = ["data": Data(data).base64EncodedString()]
    if let source { object["source"] = source }
    return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
  }

  /// Every record gets one line, in order: good ones exactly what the same file on the
  /// command line gives (bar `source`), bad ones an error, and the stream goes on.
  @Test func recordsGiveTheSameResultsAsFilesAndBadOnesAnError() throws {
    let files = try Self.images.map { try Fixtures.bytes(atPath: Fixtures.repositoryRoot + "/" + $0) }
    let lines = [
      try Self.record(source: "first", data: files[0]),
      "not json",
      try Self.record(source: "truncated", data: Array(files[1].prefix(200))),
      "",
      #"{"source": "no data"}"#,
      #"{"source": "bad base64", "data": "@@@"}"#,
      #"{"source": 7, "data": ""}"#,
      try Self.record(source: nil, data: files[1]),
      try Self.record(source: "last", data: files[2]),
    ]
    let run = try CLI.run(
      ["landmark", "--input-format", "jsonl", "-", "--num-faces", "4", "--blendshapes", "--output", "json"],
      stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
    #expect(run.status == 1, "a bad record makes the exit status 1")
    let results = try run.jsonLines()
    #expect(
      results.map { $0["source"] as? String } == [
        "first", "stdin#1", "truncated", "no data", "bad base64", "stdin#6", "stdin#7", "last",
      ])
    #expect(results.map { $0["error"] != nil } == [false, true, true, true, true, true, false, false])

    let direct = try CLI.run(["landmark", "--num-faces", "4", "--blendshapes", "--output", "json"] + Self.images)
    #expect(direct.status == 0)
    let expected = try direct.jsonLines()
    for (ours, theirs) in zip([results[0], results[6], results[7]], expected) {
      var (a, b) = (ours, theirs)
      a["source"] = nil
      b["source"] = nil
      #expect(NSDictionary(dictionary: a).isEqual(to: b), "\(theirs["source"] ?? "")")
    }
  }

  /// Records from standard input (how many is not known ahead) shared by task copies give
  /// the lines one task gives, in order, bad records among them; no record gives no line.
  @Test func taskCopiesTakeRecordsInTurn() throws {
    let files = try Self.images.map { try Fixtures.bytes(atPath: Fixtures.repositoryRoot + "/" + $0) }
    var lines: [String] = []
    for (i, file) in (files + files).enumerated() {
      lines.append(try Self.record(source: "r\(i)", data: file))
      if i % 2 == 1 { lines.append("not json") }
    }
    let stdin = Data((lines.joined(separator: "\n") + "\n").utf8)
    let arguments = ["landmark", "--input-format", "jsonl", "-", "--num-faces", "2", "--output", "json"]
    let one = try CLI.run(arguments, stdin: stdin)
    for threads in ["2", "4"] {
      let copies = try CLI.run(arguments + ["--threads", threads], stdin: stdin)
      #expect(copies.status == 1 && one.status == 1)
      #expect(copies.stdout == one.stdout, "--threads \(threads)")
    }
    #expect(try one.jsonLines().count == lines.count)
    let none = try CLI.run(arguments + ["--threads", "2"], stdin: Data())
    #expect(none.status == 0 && none.stdout.isEmpty, "\(none.stderr)")
  }

  /// A client that sends one record and waits for its result before sending more gets it,
  /// with one task, with task copies and with inputs decoded ahead: no thread waits on
  /// standard input while holding what writing a result needs.
  @Test(arguments: [["--threads", "1"], ["--threads", "2"], ["--range", "all", "--threads", "2"]])
  func aRecordIsAnsweredWhileStandardInputStaysOpen(options: [String]) throws {
    let path = NSTemporaryDirectory() + "visage-record-\(UUID().uuidString).jsonl"
    let file = try Fixtures.bytes(atPath: Fixtures.repositoryRoot + "/" + Self.images[0])
    try Data((try Self.record(source: "first", data: file) + "\n").utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    // Standard input stays open for 5 s after the record; the result must come out before.
    let run = try CLI.shell(
      "(cat '\(path)'; sleep 5) | timeout 4 \"$VISAGE\" detect --input-format jsonl - --output json "
        + options.joined(separator: " ") + " | head -1")
    #expect(run.stdout.contains("\"source\": \"first\""), "\(options): \(run.stdout) \(run.stderr)")
  }

  @Test func recordsComeFromOneFileOrStandardInput() throws {
    let run = try CLI.run(["detect", "--input-format", "jsonl", "a.jsonl", "b.jsonl"])
    #expect(run.status == 2 && run.stderr.contains("--input-format jsonl"))
    let missing = try CLI.run(["detect", "--input-format", "jsonl", "/nonexistent/records.jsonl"])
    #expect(missing.status != 0 && missing.stderr.contains("/nonexistent/records.jsonl"))
  }
}
