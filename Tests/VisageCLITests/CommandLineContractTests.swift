import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// The command-line contract (`docs/cli.md`) as scripts see it: JSON Lines in
/// input order, an error line and exit status 1 for a bad input with the batch going on,
/// exit status 2 for usage errors, streams on stdin.
@Suite(.timeLimit(.minutes(minutesAllowed(5)))) struct CommandLineContractTests {
  static let astronaut = "Tests/Fixtures/images/astronaut.png"
  static let pan = (0..<6).map { String(format: "Tests/Fixtures/landmarker/frames/pan/%03d.jpg", $0) }

  @Test func detectPrintsTheContractsExample() throws {
    let run = try CLI.run(["detect", Self.astronaut, "--output", "json"])
    #expect(run.status == 0)
    let line = try #require(try run.jsonLines().first)
    // A PNG without Exif: nothing turned, no tag.
    #expect(line["orientation"] as? String == "up" && line["exifOrientation"] is NSNull)
    let detections = try #require(line["detections"] as? [[String: Any]])
    #expect(detections.count == 1)
    let box = try #require(detections[0]["boundingBox"] as? [String: Int])
    #expect(box == ["originX": 177, "originY": 82, "width": 95, "height": 95])
    #expect((detections[0]["keypoints"] as? [Any])?.count == 6)
  }

  @Test func detectSearchesAllScalesAndTurnsWithARotationPerFace() throws {
    let run = try CLI.run(["detect", Self.astronaut, "--range", "all", "--any-rotation", "--output", "json"])
    #expect(run.status == 0)
    let detections = try #require(try run.jsonLines().first?["detections"] as? [[String: Any]])
    let upright = try #require(detections.first)
    #expect((upright["keypoints"] as? [Any])?.count == 6)
    // The astronaut's eye line rises about 5° to the image's right: a small turn, not a quarter.
    let rotation = try #require(upright["rotation"] as? Double)
    #expect(abs(rotation) < 15, "\(rotation)")
    // A detector file as the model, which a range other than short would replace: refused.
    let refused = try CLI.run([
      "detect", Self.astronaut, "--model", "Weights/face_detection_full_range.tflite", "--range", "all",
    ])
    #expect(refused.status == 2 && refused.stderr.contains("give either --model or --range all"), "\(refused.stderr)")
  }

  /// `--min-face-presence-confidence` checks each face with the landmark model (from the
  /// bundled .task, whatever the range) and reports its presence; without it there is none.
  @Test(arguments: ["short", "full"]) func detectChecksFacesWhenAsked(range: String) throws {
    let run = try CLI.run([
      "detect", Self.astronaut, "--range", range, "--min-face-presence-confidence", "0.5", "--output", "json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let detections = try #require(try run.jsonLines().first?["detections"] as? [[String: Any]])
    #expect(detections.count == 1)
    #expect((detections.first?["facePresence"] as? Double ?? 0) > 0.9)
    let plain = try CLI.run(["detect", Self.astronaut, "--range", range, "--output", "json"])
    let unchecked = try #require(try plain.jsonLines().first?["detections"] as? [[String: Any]])
    #expect(unchecked.count == 1 && unchecked.first?["facePresence"] == nil)
  }

  @Test func landmarkWritesLandmarksBlendshapesMatricesAndAnnotation() throws {
    // In a folder that does not exist yet, as in the README's first command.
    let annotation = NSTemporaryDirectory() + "visage-cli-\(UUID().uuidString)/out/astronaut.png"
    let run = try CLI.run([
      "landmark", Self.astronaut, "--blendshapes", "--transformation-matrices", "--output", "json", "--annotate",
      annotation,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let line = try #require(try run.jsonLines().first)
    #expect(line["source"] as? String == Self.astronaut && line["width"] as? Int == 512 && line["timestampMs"] == nil)
    let faces = try #require(line["faceLandmarks"] as? [[[String: Double]]])
    #expect(faces.count == 1 && faces[0].count == 478 && Set(faces[0][0].keys) == ["x", "y", "z"])
    let blendshapes = try #require(line["faceBlendshapes"] as? [[[String: Any]]])
    #expect(blendshapes.count == 1 && blendshapes[0].count == 52)
    #expect(blendshapes[0][0]["categoryName"] as? String == "_neutral")
    #expect(blendshapes[0][44]["categoryName"] as? String == "mouthSmileLeft")
    let matrices = try #require(line["facialTransformationMatrixes"] as? [[[Double]]])
    #expect(matrices.count == 1 && matrices[0].count == 4 && matrices[0][3] == [0, 0, 0, 1])
    let png = try MPImage(contentsOfFile: annotation)
    #expect(png.width == 512 && png.height == 512)
    try? FileManager.default.removeItem(atPath: annotation)
  }

  /// `analyze` with every flag: the contract's fields, ML Kit's ten landmarks and fifteen
  /// contours with their point counts, probabilities in 0...1 and a tracking ID.
  @Test func analyzeWritesTheContractsFields() throws {
    let run = try CLI.run([
      "analyze", Self.astronaut, "--landmarks", "--contours", "--classification", "--tracking", "--output", "json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let line = try #require(try run.jsonLines().first)
    let face = try #require((line["faces"] as? [[String: Any]])?.first)
    let frame = try #require(face["frame"] as? [String: Double])
    #expect(Set(frame.keys) == ["x", "y", "width", "height"])
    #expect(abs(frame["x"]! - 177) < 15 && abs(frame["y"]! - 82) < 15)
    for key in ["headEulerAngleX", "headEulerAngleY", "headEulerAngleZ"] {
      #expect(abs(face[key] as? Double ?? 999) < 30)
    }
    let landmarks = try #require(face["landmarks"] as? [String: [String: Double]])
    #expect(
      Set(landmarks.keys) == [
        "leftEye", "rightEye", "leftEar", "rightEar", "leftCheek", "rightCheek", "noseBase", "mouthLeft", "mouthRight",
        "mouthBottom",
      ])
    // Left and right are the subject's: her left eye is on the image's right.
    #expect(landmarks["leftEye"]!["x"]! > landmarks["rightEye"]!["x"]!)
    let contours = try #require(face["contours"] as? [String: [[String: Double]]])
    let counts: [String: Int] = [
      "face": 36, "leftEyebrowTop": 5, "leftEyebrowBottom": 5, "rightEyebrowTop": 5, "rightEyebrowBottom": 5,
      "leftEye": 16, "rightEye": 16,
      "upperLipTop": 11, "upperLipBottom": 9, "lowerLipTop": 9, "lowerLipBottom": 9, "noseBridge": 2, "noseBottom": 3,
      "leftCheek": 1, "rightCheek": 1,
    ]
    #expect(contours.mapValues(\.count) == counts)
    #expect((face["smilingProbability"] as? Double ?? 0) > 0.9)
    for key in ["leftEyeOpenProbability", "rightEyeOpenProbability"] { #expect((face[key] as? Double ?? 0) > 0.9) }
    #expect(face["trackingID"] as? Int == 1)
    // Without the flags, only the frame and the angles.
    let plain = try #require(try CLI.run(["analyze", Self.astronaut, "--output", "json"]).jsonLines().first)
    let bare = try #require((plain["faces"] as? [[String: Any]])?.first)
    #expect(Set(bare.keys) == ["frame", "headEulerAngleX", "headEulerAngleY", "headEulerAngleZ"])
  }

  /// `--threads` changes the speed, never the numbers.
  @Test func threadsGiveTheSameResults() throws {
    let arguments = ["landmark", Self.astronaut, "--blendshapes", "--transformation-matrices", "--output", "json"]
    let one = try CLI.run(arguments)
    let two = try CLI.run(arguments + ["--threads", "2"])
    #expect(one.status == 0 && two.status == 0 && !one.stdout.isEmpty)
    #expect(one.stdout == two.stdout)
  }

  /// With `--threads` above 1 a batch is shared by task copies that each take the next input
  /// (image mode), or decodes later inputs on other threads meanwhile (video mode); the lines,
  /// a failed input's among them, come out the same and in input order, in every command.
  @Test(arguments: ["detect", "landmark", "analyze"]) func decodingAheadKeepsTheBatchAsItWas(command: String) throws {
    let garbage = NSTemporaryDirectory() + "visage-cli-ahead-\(UUID().uuidString).jpg"
    try Data("not an image".utf8).write(to: URL(fileURLWithPath: garbage))
    defer { try? FileManager.default.removeItem(atPath: garbage) }
    let inputs = [Self.astronaut, garbage] + Array(repeating: Self.astronaut, count: 3) + [garbage, Self.astronaut]
    for mode in ["image", "video"] {
      let arguments = [command] + inputs + ["--running-mode", mode, "--output", "json"]
      let one = try CLI.run(arguments)
      let three = try CLI.run(arguments + ["--threads", "3"])
      #expect(one.status == 1 && three.status == 1)
      #expect(one.stdout == three.stdout, "\(command) in \(mode) mode")
      #expect(try three.jsonLines().count == inputs.count)
    }
  }

  /// Task copies (image mode, `--threads` above 1) write the same annotated images as one
  /// task; `analyze --tracking` keeps one task, so its tracking IDs follow the inputs' order.
  @Test func taskCopiesAnnotateAndTrackAsOneTaskDoes() throws {
    let inputs = [
      Self.astronaut, "Tests/Fixtures/images/camera.png", "Tests/Fixtures/crowd/crowd_00.jpg", Self.astronaut,
    ]
    for command in ["detect", "landmark", "analyze"] {
      var written: [[Data?]] = []
      for threads in ["1", "2"] {
        let folder = NSTemporaryDirectory() + "visage-cli-copies-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CLI.run(
          [command] + inputs.prefix(3) + ["--annotate", folder, "--threads", threads, "--output", "json"])
        #expect(run.status == 0, "\(command): \(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.count == 3, "\(command) --threads \(threads): \(names)")
        written.append(names.map { FileManager.default.contents(atPath: folder + "/" + $0) })
      }
      #expect(written[0] == written[1], "\(command): the annotations differ between one task and copies")
    }
    let tracking = ["analyze"] + inputs + ["--tracking", "--output", "json"]
    let one = try CLI.run(tracking)
    let two = try CLI.run(tracking + ["--threads", "2"])
    #expect(one.status == 0 && one.stdout == two.stdout)
  }

  /// `--profile-search` adds one JSON line per input on standard error, saying where an
  /// all-scales search's time went, and leaves standard output as it was.
  @Test func searchProfileGoesToStandardError() throws {
    let crowd = "Tests/Fixtures/crowd/crowd_00.jpg"
    let arguments = ["detect", crowd, Self.astronaut, "--range", "all", "--output", "json"]
    let plain = try CLI.run(arguments)
    let profiled = try CLI.run(arguments + ["--profile-search"])
    #expect(plain.status == 0 && profiled.status == 0 && plain.stdout == profiled.stdout)
    let lines = profiled.stderr.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(lines.compactMap { $0["source"] as? String } == [crowd, Self.astronaut])
    // Seconds to the microsecond: never a clock's `0.012345678901234567`.
    let seconds = try NSRegularExpression(
      pattern: #""(?:seconds|warpSeconds|modelSeconds|decodeSeconds)": ([0-9.e-]+)"#)
    let text = profiled.stderr
    let values = seconds.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
      String(text[Range($0.range(at: 1), in: text)!])
    }
    #expect(values.count == 2 * 9, "\(text)")
    for value in values {
      let number = try #require(Double(value))
      #expect(number == (number * 1e6).rounded() / 1e6 && value.count <= 16, "\(value)")
    }
    for line in lines {
      let profile = try #require(line["searchProfile"] as? [String: Any])
      let phases = try #require(profile["phases"] as? [[String: Any]])
      #expect(
        phases.compactMap { $0["name"] as? String } == [
          "short whole 0°", "full whole 0°", "full tiles 0°", "small tiles 0°", "suppression", "looks",
        ])
      // Every model run falls in one phase, and each look confirms at most its candidate.
      #expect(phases.compactMap { $0["inferences"] as? Int }.reduce(0, +) == profile["inferences"] as? Int)
      #expect((profile["confirmed"] as? Int ?? .max) <= (profile["candidates"] as? Int ?? 0))
      #expect((profile["modelSeconds"] as? Double ?? 0) > 0)
    }
    // MediaPipe's own search has nothing to profile.
    #expect(try CLI.run(["detect", Self.astronaut, "--profile-search", "--output", "json"]).stderr.isEmpty)
  }

  /// Without the flags the optional arrays are absent, as the contract's comments say.
  @Test func optionalFieldsOnlyWhenAsked() throws {
    let line = try #require(try CLI.run(["landmark", Self.astronaut, "--output", "json"]).jsonLines().first)
    #expect(line["faceBlendshapes"] == nil && line["facialTransformationMatrixes"] == nil)
  }

  @Test(arguments: ["detect", "landmark", "analyze"]) func aBadFileDoesNotStopTheBatch(command: String) throws {
    let garbage = NSTemporaryDirectory() + "visage-cli-garbage-\(UUID().uuidString).png"
    try Data("not an image".utf8).write(to: URL(fileURLWithPath: garbage))
    let run = try CLI.run([command, Self.astronaut, "missing.png", garbage, Self.astronaut, "--output", "json"])
    #expect(run.status == 1)
    let lines = try run.jsonLines()
    #expect(lines.map { $0["source"] as? String } == [Self.astronaut, "missing.png", garbage, Self.astronaut])
    #expect(lines[1]["error"] as? String == "cannot read image file 'missing.png': No such file or directory")
    #expect((lines[2]["error"] as? String)?.contains("is not a PNG or JPEG image") == true)
    #expect(lines[3]["error"] == nil)
    #expect(run.stderr.contains("missing.png") && run.stderr.contains(garbage))
  }

  /// A model or list that is missing or unusable fails the run with status 1 and a message
  /// on stderr, before any output; it is not a usage error (2).
  @Test func unusableModelsAndMissingFilesExitWithOne() throws {
    let garbage = NSTemporaryDirectory() + "visage-cli-\(UUID().uuidString).tflite"
    try Data("not a model".utf8).write(to: URL(fileURLWithPath: garbage))
    defer { try? FileManager.default.removeItem(atPath: garbage) }
    for (arguments, message) in [
      (["detect", "--model", "missing.tflite", Self.astronaut], "invalid model"),
      (["detect", "--model", garbage, Self.astronaut], "invalid model"),
      (["detect", "--model", garbage, "--running-mode", "live-stream", Self.astronaut], "invalid model"),
      (["landmark", "--model", "missing.task", Self.astronaut], "invalid model"),
      // A detector where a .task bundle belongs.
      (
        ["landmark", "--model", "Weights/face_detection_full_range.tflite", Self.astronaut],
        "needs a face_landmarker .task bundle"
      ),
      (["analyze", "--model", garbage, Self.astronaut], "invalid model"),
      (["landmark", "--paths-from", "missing-list.txt"], "cannot read 'missing-list.txt'"),
    ] {
      let run = try CLI.run(arguments)
      #expect(run.status == 1, "\(arguments): \(run.stderr)")
      #expect(run.stdout.isEmpty && run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }
  }

  /// Option values the option table or the library refuses are usage errors naming the flag:
  /// the table's words, or the library's message with its option names put as the flags.
  @Test func optionChecksAreTheLibrarys() throws {
    for (arguments, message) in [
      (["detect", "--min-detection-confidence", "2"], "option --min-detection-confidence takes a number in 0...1"),
      (["detect", "--min-face-presence-confidence", "1.5"], "option --min-face-presence-confidence takes a number"),
      (["landmark", "--num-faces", "0"], "option --num-faces takes a whole number in 1...1000, got '0'"),
      (["analyze", "--threads", "65"], "invalid --threads option"),
      (["detect", "--running-mode", "live-stream", "--threads", "0"], "invalid --threads option"),
    ] {
      let run = try CLI.run(arguments + [Self.astronaut])
      #expect(run.status == 2 && run.stdout.isEmpty && run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }
  }

  /// `bench` reads its inputs from Weights/bench, never from Tests/: they must stay the same
  /// bytes as the fixtures they copy, so that its figures and the tests speak of one input.
  @Test func benchInputsAreCopiesOfTheFixtures() throws {
    let root = Fixtures.repositoryRoot
    var pairs = [("Weights/bench/astronaut.png", "Tests/Fixtures/images/astronaut.png")]
    let pan = try FileManager.default.contentsOfDirectory(atPath: root + "/Tests/Fixtures/landmarker/frames/pan")
      .sorted()
    #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/Weights/bench/pan").sorted() == pan)
    pairs += pan.map { ("Weights/bench/pan/" + $0, "Tests/Fixtures/landmarker/frames/pan/" + $0) }
    for (copy, fixture) in pairs {
      #expect(FileManager.default.contentsEqual(atPath: root + "/" + copy, andPath: root + "/" + fixture), "\(copy)")
    }
  }

  @Test(arguments: [
    ["landmark", "--num-faces", "0", astronaut], ["landmark", "--fps", "-1", astronaut],
    ["landmark", "--min-face-presence-confidence", "1.5", astronaut],
    ["detect", "--running-mode", "sideways", astronaut],
    ["landmark", astronaut, "--paths-from", "-"], ["landmark"], ["detect", astronaut, "-"],
    ["analyze", "--min-face-size", "2", astronaut], ["analyze", "--performance", "slow", astronaut],
    ["analyze", "--running-mode", "live-stream", astronaut], ["landmark", "--threads", "0", astronaut],
  ]) func usageErrorsExitWithTwo(arguments: [String]) throws {
    let run = try CLI.run(arguments)
    #expect(run.status == 2, "\(arguments): \(run.stderr)")
    #expect(run.stdout.isEmpty && !run.stderr.isEmpty)
  }

  @Test(arguments: ["detect", "landmark", "analyze", "run", "inspect", "bench"])
  func everySubcommandHasHelpWithExamples(command: String) throws {
    let run = try CLI.run([command, "--help"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("xample"), "\(command) --help has no examples")
    // analyze has image and video mode only; the options it shares must not offer it more.
    if command == "analyze" { #expect(!run.stdout.contains("live-stream"), "\(run.stdout)") }
  }

  /// `bench --threads 2` says how the pool's tasks were shared, so a run whose worker got no
  /// core shows; one thread has no pool and says nothing about it.
  @Test func benchReportsTheWorkersShare() throws {
    let args = ["bench", "--only", "face_detector", "--iterations", "3", "--warmup", "1", "--output", "json"]
    let two = try CLI.run(args + ["--threads", "2"])
    #expect(two.status == 0, "\(two.stderr)")
    let row = try #require(try two.jsonLines().last)
    let share = try #require(row["workerShare"] as? Double)
    #expect((0...1).contains(share))
    #expect((row["workerMoves"] as? Int).map { $0 >= 0 } == true)
    let one = try CLI.run(args + ["--threads", "1"])
    #expect(try one.jsonLines().last?["workerShare"] == nil)
  }

  /// `--profile` prints time per operator type, `--profile-nodes` one line per node as the
  /// interpreter runs it: for the blendshapes model, its eight fused ROW_MIXING nodes. As
  /// JSON they are fields of the item's object, so every line stays one JSON object.
  @Test func benchProfilesOperatorTypesAndNodes() throws {
    let arguments = [
      "bench", "--only", "face_blendshapes", "--iterations", "2", "--warmup", "1", "--profile", "--profile-nodes",
    ]
    let json = try CLI.run(arguments + ["--output", "json"])
    #expect(json.status == 0, "\(json.stderr)")
    let objects = try json.jsonLines()
    try #require(objects.count == 1 && json.stdout.split(separator: "\n").count == 1, "\(json.stdout)")
    let byType = try #require(objects[0]["profile"] as? [[String: Any]])
    #expect(byType.contains { $0["operator"] as? String == "CONV_2D" && ($0["ms"] as? Double ?? 0) > 0 })
    let nodesJSON = try #require(objects[0]["nodes"] as? [[String: Any]])
    let rowMixing = nodesJSON.filter { $0["operator"] as? String == "ROW_MIXING" }
    #expect(rowMixing.count == 8)
    #expect(
      rowMixing.contains { $0["inputs"] as? [[Int]] == [[1, 1, 97, 64]] && $0["output"] as? [Int] == [1, 1, 384, 64] })
    let run = try CLI.run(arguments + ["--output", "text"])
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasPrefix("  CONV_2D ") && $0.hasSuffix("%") })
    let nodes = lines.filter { $0.contains(" us  ") }
    #expect(nodes.filter { $0.contains("ROW_MIXING") }.count == 8)
    #expect(nodes.contains { $0.contains("ROW_MIXING") && $0.contains("[1, 1, 97, 64] -> [1, 1, 384, 64]") })
  }

  /// `--paths-from -`: one path per line on stdin, blank lines skipped, so that the tool can
  /// sit behind xargs, GNU parallel or Spark's RDD.pipe.
  @Test func pathsFromStandardInput() throws {
    let paths = Self.pan.prefix(3)
    let run = try CLI.run(
      ["landmark", "--paths-from", "-", "--output", "json"], stdin: Data((paths.joined(separator: "\n\n") + "\n").utf8))
    #expect(run.status == 0)
    #expect(try run.jsonLines().map { $0["source"] as? String } == paths.map { $0 })
  }

  /// A video piped in as YUV4MPEG2 (what `ffmpeg -f yuv4mpegpipe -` writes): one line per
  /// frame, timestamps from the stream's frame rate, the face followed through.
  @Test func yuv4mpegOnStandardInputIsAVideo() throws {
    let frames = try Self.pan.map { try MPImage(contentsOfFile: Fixtures.repositoryRoot + "/" + $0) }
    let run = try CLI.run(
      ["landmark", "--running-mode", "video", "-", "--output", "json"], stdin: Data(Self.y4m(frames, rate: "10:1")))
    #expect(run.status == 0, "\(run.stderr)")
    let lines = try run.jsonLines()
    #expect(lines.map { $0["source"] as? String } == (0..<6).map { "stdin#\($0)" })
    #expect(lines.map { $0["timestampMs"] as? Int } == [0, 100, 200, 300, 400, 500])
    #expect(lines.allSatisfy { ($0["faceLandmarks"] as? [Any])?.count == 1 })
  }

  /// A stream that breaks off mid-frame: the frames before it are reported, then one error
  /// line, and the exit status is 1.
  @Test func aTruncatedStreamEndsWithAnError() throws {
    let frames = try Self.pan.prefix(2).map { try MPImage(contentsOfFile: Fixtures.repositoryRoot + "/" + $0) }
    let path = NSTemporaryDirectory() + "visage-cli-\(UUID().uuidString).y4m"
    try Data(Self.y4m(frames, rate: "30:1").dropLast(100)).write(to: URL(fileURLWithPath: path))
    let run = try CLI.run(["detect", path, "--output", "json"])
    #expect(run.status == 1)
    let lines = try run.jsonLines()
    #expect(lines.count == 2 && lines[0]["detections"] != nil)
    #expect((lines[1]["error"] as? String)?.contains("truncated inside frame 1") == true)
  }

  /// A stream's frames in image mode, shared by task copies (the stream's job reads each
  /// frame): the lines one task gives, its truncation error last.
  @Test func taskCopiesTakeAStreamsFramesInTurn() throws {
    let frames = try Self.pan.map { try MPImage(contentsOfFile: Fixtures.repositoryRoot + "/" + $0) }
    let path = NSTemporaryDirectory() + "visage-cli-\(UUID().uuidString).y4m"
    try Data(Self.y4m(frames, rate: "30:1").dropLast(100)).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let arguments = ["landmark", path, "--output", "json"]
    let one = try CLI.run(arguments)
    let copies = try CLI.run(arguments + ["--threads", "3"])
    #expect(one.status == 1 && copies.status == 1)
    #expect(copies.stdout == one.stdout)
    #expect(try one.jsonLines().count == frames.count)
  }

  /// Live stream: frames arrive in real time faster than the landmarker can keep up with, so
  /// some are dropped; every frame still gets exactly one line, in order.
  @Test func liveStreamReportsEveryFrameInOrder() throws {
    let frames = Array(repeating: Self.pan, count: 4).flatMap { $0 }
    let run = try CLI.run(["landmark", "--running-mode", "live-stream", "--fps", "1000", "--output", "json"] + frames)
    #expect(run.status == 0, "\(run.stderr)")
    let lines = try run.jsonLines()
    #expect(lines.map { $0["timestampMs"] as? Int } == (0..<frames.count).map { $0 })
    for line in lines {
      let faces = (line["faceLandmarks"] as? [Any])?.count
      // A processed frame may have no face as MediaPipe's would: after a run of dropped frames
      // the face can have left the region tracked from the last processed one.
      #expect(line["dropped"] as? Bool == true ? faces == 0 : faces == 0 || faces == 1, "\(line["timestampMs"] ?? "")")
    }
    #expect(lines.first?["dropped"] == nil && (lines.first?["faceLandmarks"] as? [Any])?.count == 1)
  }

  /// 4:4:4 limited-range BT.601 YUV4MPEG2, the inverse of what the reader does.
  static func y4m(_ frames: [MPImage], rate: String) -> [UInt8] {
    let (w, h) = (frames[0].width, frames[0].height)
    var bytes = Array("YUV4MPEG2 W\(w) H\(h) F\(rate) Ip A1:1 C444\n".utf8)
    for frame in frames {
      var y = [UInt8]()
      var cb = [UInt8]()
      var cr = [UInt8]()
      for p in stride(from: 0, to: frame.pixels.count, by: 3) {
        let (r, g, b) = (Double(frame.pixels[p]), Double(frame.pixels[p + 1]), Double(frame.pixels[p + 2]))
        let luma = 0.299 * r + 0.587 * g + 0.114 * b
        y.append(UInt8((16 + luma * 219 / 255).rounded()))
        cb.append(UInt8((128 + (b - luma) / 1.772 * 224 / 255).rounded()))
        cr.append(UInt8((128 + (r - luma) / 1.402 * 224 / 255).rounded()))
      }
      bytes += Array("FRAME\n".utf8) + y + cb + cr
    }
    return bytes
  }
}
