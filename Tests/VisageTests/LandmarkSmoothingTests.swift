import Foundation
import Testing
import VisageTestSupport

@testable import Visage

/// The One Euro smoother against MediaPipe 1.2.2, isolated from the landmark model: fed
/// MediaPipe's own unsmoothed VIDEO-mode landmarks (Tests/Fixtures/landmarker/unsmoothed.json,
/// from Tools/make_unsmoothed_fixtures.py) it must give MediaPipe's smoothed output
/// (mediapipe.json) bit for bit.
@Suite struct LandmarkSmoothingTests {
  /// The fixture is committed; a missing one fails here rather than skipping the suite.
  @Test func fixturesArePresent() {
    #expect(!Self.sequences.isEmpty, "Tests/Fixtures/landmarker/unsmoothed.json is missing or empty")
  }

  struct Sequence: Decodable, CustomStringConvertible {
    struct Frame: Decodable {
      var image: String
      var timestampMs: Int
      var landmarks: [[Float]]
    }
    var name: String
    var width: Int
    var height: Int
    var frames: [Frame]
    var description: String { name }
  }

  static let sequences: [Sequence] = {
    struct File: Decodable { var sequences: [Sequence] }
    guard let data = FileManager.default.contents(atPath: Fixtures.fixturePath("landmarker/unsmoothed.json")),
      let file = try? JSONDecoder().decode(File.self, from: data)
    else { return [] }
    return file.sequences
  }()

  @Test(arguments: sequences)
  func smootherReproducesMediaPipeExactly(_ sequence: Sequence) throws {
    let reference = try #require(LandmarkerFixtures.sequences.first { $0.name == sequence.name })
    try #require(reference.frames.count == sequence.frames.count)
    var smoother = LandmarkSmoother()
    for (raw, expected) in zip(sequence.frames, reference.frames) {
      #expect(raw.timestampMs == expected.timestampMs)
      let points = raw.landmarks.map { SIMD3($0[0], $0[1], $0[2]) }
      let smoothed = smoother.smooth(
        points, timestampInMilliseconds: raw.timestampMs, imageWidth: sequence.width, imageHeight: sequence.height)
      let theirs = try #require(expected.faces.first).landmarks
      let mismatches = zip(smoothed, theirs).filter { $0 != $1 }.count
      #expect(
        mismatches == 0, "\(sequence.name) at \(raw.timestampMs) ms: \(mismatches) of \(theirs.count) landmarks differ")
    }
  }
}
