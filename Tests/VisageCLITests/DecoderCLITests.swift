import Foundation
import Testing
import VisageImageIO
import VisageTestSupport

/// `--decoder mediapipe-python`: photos read as MediaPipe's Python `create_from_file` reads them
/// give MediaPipe's numbers from the command line (Tests/Fixtures/stb/file_numbers.json, by
/// Tools/make_file_numbers_fixtures.py), with the bars of the image-mode parity tests.
@Suite(
  .timeLimit(.minutes(minutesAllowed(5))),
  .enabled(if: STBImage.isAvailable, "stb_image is not in this build: run Tools/stb-header, then build"))
struct DecoderCLITests {
  struct Case: Decodable {
    struct Face: Decodable {
      let landmarks: [[Double]]
      let blendshapes: [Double]
    }
    struct Detection: Decodable {
      let box: [Int]
      let score: Double
    }
    let file: String
    let faces: [Face]?
    let detections: [Detection]?
  }

  static let cases: [Case] = {
    struct File: Decodable { let cases: [Case] }
    guard let bytes = try? Fixtures.bytes(atPath: Fixtures.fixturePath("stb/file_numbers.json")),
      let file = try? JSONDecoder().decode(File.self, from: Data(bytes))
    else { return [] }
    return file.cases.filter { $0.file.hasPrefix("stb/photos/astronaut_") && $0.faces != nil }
  }()

  @Test func photosTurnedByExifGiveMediaPipesNumbers() throws {
    #expect(Self.cases.count >= 4, "run Tools/make_file_numbers_fixtures.py")
    let paths = Self.cases.map { Fixtures.fixturePath($0.file) }
    let common = ["--decoder", "mediapipe-python", "--output", "json"]
    let detect = try CLI.run(["detect", "--range", "short"] + common + paths)
    #expect(detect.status == 0, "\(detect.stderr)")
    let landmark = try CLI.run(["landmark", "--num-faces", "4", "--blendshapes"] + common + paths)
    #expect(landmark.status == 0, "\(landmark.stderr)")
    let (detections, landmarks) = (try detect.jsonLines(), try landmark.jsonLines())
    try #require(detections.count == Self.cases.count && landmarks.count == Self.cases.count)
    for (i, expected) in Self.cases.enumerated() {
      let found = detections[i]["detections"] as? [[String: Any]] ?? []
      try #require(found.count == expected.detections?.count, "\(expected.file)")
      for (ours, theirs) in zip(found, expected.detections ?? []) {
        let box = try #require(ours["boundingBox"] as? [String: Int])
        #expect(
          [box["originX"], box["originY"], box["width"], box["height"]] == theirs.box.map { $0 }, "\(expected.file)")
        let score = try #require((ours["categories"] as? [[String: Any]])?.first?["score"] as? Double)
        #expect(abs(score - theirs.score) <= 1e-6, "\(expected.file)")
      }
      let faces = landmarks[i]["faceLandmarks"] as? [[[String: Double]]] ?? []
      let shapes = landmarks[i]["faceBlendshapes"] as? [[[String: Any]]] ?? []
      try #require(faces.count == expected.faces?.count && shapes.count == faces.count, "\(expected.file)")
      for (face, (theirs, scores)) in zip(expected.faces ?? [], zip(faces, shapes)) {
        try #require(theirs.count == 478 && scores.count == 52)
        let errors = zip(face.landmarks, theirs).flatMap { p, q in [abs(p[0] - q["x"]!), abs(p[1] - q["y"]!)] }
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(mean <= 1e-5 && errors.max()! <= 1e-4, "\(expected.file): mean \(mean), max \(errors.max()!)")
        let worst = zip(face.blendshapes, scores).map { abs($0 - ($1["score"] as? Double ?? .nan)) }.max()!
        #expect(worst <= 5e-3, "\(expected.file): blendshapes \(worst)")
      }
    }
  }

  @Test func anUnknownDecoderIsAUsageError() throws {
    let run = try CLI.run(["detect", "--decoder", "pillow", Fixtures.fixturePath("images/astronaut.png")])
    #expect(run.status == 2, "status \(run.status)")
    #expect(run.stderr.contains("mediapipe-python"))
  }
}
