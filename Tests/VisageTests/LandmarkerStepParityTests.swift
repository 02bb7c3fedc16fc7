import Foundation
import Testing
import VisageTestSupport

@testable import Visage

/// One video step at a time against MediaPipe 1.2.2 ("teacher forcing"), held to the issue's
/// bars: landmark x, y error mean ≤ 1e-4 and max ≤ 2e-3, blendshapes ≤ 5e-3, matrix rotation
/// ≤ 1e-3 and translation ≤ 0.05 cm.
///
/// Free-running video (`LandmarkerParityTests.videoModeMatchesMediaPipe`) cannot meet the
/// blendshape bar: each frame's region comes from the previous frame's landmarks, so a 2e-7
/// difference in inference (XNNPACK against the reference kernels) is fed back and, through
/// the 1/32-pixel crop, grows from frame to frame. This test cuts the loop. For every frame
/// i ≥ 1 of each sequence whose unsmoothed landmarks MediaPipe gave
/// (`Tests/Fixtures/landmarker/unsmoothed.json`), the landmarker's pipeline (as `ModelLoader` builds
/// it for `FaceLandmarker`) is put in the state MediaPipe was in after frame i − 1: the tracked region comes from MediaPipe's raw
/// landmarks of frame i − 1, and the smoother has filtered MediaPipe's raw landmarks of
/// frames 0 ... i − 1 (at their timestamps and image size). Then the pipeline's own
/// `process` runs frame i: the landmark model on that region, the smoother, blendshapes and
/// matrix from the smoothed landmarks. Its results must match MediaPipe's smoothed
/// (`numFaces` 1) results for frame i in `mediapipe.json`, and its raw landmarks MediaPipe's
/// raw ones. Each step thus checks everything a video frame does with only one frame of
/// numeric difference to amplify.
@Suite struct LandmarkerStepParityTests {
  struct Errors {
    var meanXY = 0.0, maxXY = 0.0, maxZ = 0.0, maxBlendshape = 0.0, maxRotation = 0.0, maxTranslation = 0.0
    var rawMeanXY = 0.0, rawMaxXY = 0.0, rawMaxZ = 0.0
    var steps = 0

    mutating func merge(_ e: Errors) {
      meanXY = (meanXY * Double(steps) + e.meanXY * Double(e.steps)) / Double(max(steps + e.steps, 1))
      rawMeanXY = (rawMeanXY * Double(steps) + e.rawMeanXY * Double(e.steps)) / Double(max(steps + e.steps, 1))
      maxXY = max(maxXY, e.maxXY)
      maxZ = max(maxZ, e.maxZ)
      maxBlendshape = max(maxBlendshape, e.maxBlendshape)
      maxRotation = max(maxRotation, e.maxRotation)
      maxTranslation = max(maxTranslation, e.maxTranslation)
      rawMaxXY = max(rawMaxXY, e.rawMaxXY)
      rawMaxZ = max(rawMaxZ, e.rawMaxZ)
      steps += e.steps
    }
  }

  /// Every step of `sequence`, each compared with MediaPipe; one `Errors` per frame from 1 on.
  static func steps(_ sequence: LandmarkSmoothingTests.Sequence) throws -> [(timestampMs: Int, errors: Errors)] {
    let reference = try #require(LandmarkerFixtures.sequences.first { $0.name == sequence.name })
    // The raw and smoothed fixtures must describe the same frames.
    try #require(reference.numFaces == 1 && reference.frames.count == sequence.frames.count)
    for (raw, smoothed) in zip(sequence.frames, reference.frames) {
      try #require(raw.image == smoothed.image && raw.timestampMs == smoothed.timestampMs && smoothed.faces.count == 1)
    }
    let options = reference.options(.video)
    try options.validate()
    let pipeline = try ModelLoader.landmarkerPipeline(for: options)
    let (w, h) = (sequence.width, sequence.height)
    var smoother = LandmarkSmoother()
    var results: [(Int, Errors)] = []
    for (i, raw) in sequence.frames.enumerated() {
      let theirRaw = raw.landmarks.map { SIMD3($0[0], $0[1], $0[2]) }
      if i > 0 {
        let previous = sequence.frames[i - 1].landmarks.map { SIMD3($0[0], $0[1], $0[2]) }
        pipeline.tracking = .resuming(rawLandmarks: previous, imageWidth: w, imageHeight: h, smoother: smoother)
        let image = try reference.frames[i].loadImage()
        try #require(image.width == w && image.height == h)
        let faces = try pipeline.process(image, timestamp: raw.timestampMs)
        try #require(faces.count == 1, "\(sequence.name) at \(raw.timestampMs) ms: face count")
        results.append((raw.timestampMs, try compare(faces[0], reference.frames[i].faces[0], raw: theirRaw)))
      }
      // MediaPipe's smoother state after frame i: its own raw landmarks, as the pipeline feeds them.
      _ = smoother.smooth(theirRaw, timestampInMilliseconds: raw.timestampMs, imageWidth: w, imageHeight: h)
    }
    return results
  }

  static func compare(_ ours: LandmarkerPipeline.Face, _ theirs: LandmarkerFixtures.Face, raw theirRaw: [SIMD3<Float>])
    throws -> Errors
  {
    var e = Errors(steps: 1)
    func points(_ a: [SIMD3<Float>], _ b: [SIMD3<Float>]) -> (mean: Double, maxXY: Double, maxZ: Double) {
      var sum = 0.0
      var maxXY = 0.0
      var maxZ = 0.0
      for (p, q) in zip(a, b) {
        let dx = abs(Double(p.x) - Double(q.x))
        let dy = abs(Double(p.y) - Double(q.y))
        sum += dx + dy
        maxXY = max(maxXY, dx, dy)
        maxZ = max(maxZ, abs(Double(p.z) - Double(q.z)))
      }
      return (sum / Double(2 * a.count), maxXY, maxZ)
    }
    try #require(ours.landmarks.count == theirs.landmarks.count && ours.rawLandmarks.count == theirRaw.count)
    (e.meanXY, e.maxXY, e.maxZ) = points(ours.landmarks, theirs.landmarks)
    (e.rawMeanXY, e.rawMaxXY, e.rawMaxZ) = points(ours.rawLandmarks, theirRaw)
    let scores = try #require(ours.blendshapes)
    try #require(scores.count == theirs.blendshapes.count)
    for (score, theirs) in zip(scores, theirs.blendshapes) {
      e.maxBlendshape = max(e.maxBlendshape, abs(Double(score) - Double(theirs.1)))
    }
    let matrix = try #require(ours.transformationMatrix)
    for r in 0..<3 {
      for c in 0..<3 { e.maxRotation = max(e.maxRotation, abs(Double(matrix[r, c]) - Double(theirs.matrix[r][c]))) }
      e.maxTranslation = max(e.maxTranslation, abs(Double(matrix[r, 3]) - Double(theirs.matrix[r][3])))
    }
    return e
  }

  @Test(arguments: LandmarkSmoothingTests.sequences)
  func oneStepMatchesMediaPipe(_ sequence: LandmarkSmoothingTests.Sequence) throws {
    for (timestamp, e) in try Self.steps(sequence) {
      #expect(
        e.meanXY <= 1e-4 && e.maxXY <= 2e-3 && e.maxBlendshape <= 5e-3 && e.maxRotation <= 1e-3
          && e.maxTranslation <= 0.05,
        "\(sequence.name) at \(timestamp) ms: \(e)")
      // Only inference differs on a step's raw landmarks (XNNPACK against reference kernels).
      #expect(e.rawMeanXY <= 1e-5 && e.rawMaxXY <= 1e-4, "\(sequence.name) at \(timestamp) ms, raw: \(e)")
    }
  }

  /// Worst differences over every step, printed for docs/parity.md and held just above what
  /// the code achieves, so that a change that loosens parity fails here, not only in the
  /// docs/parity.md's table. Measured on x86-64 Linux with
  /// `swift test -c release --filter worstCaseStepDifferences`, 36 steps, at the baseline
  /// level (`VISAGE_MAX_ISA=baseline`) and at AVX-512: mean x,y 4.02e-8 / 3.97e-8, max x,y
  /// 8.94e-7 / 1.28e-6, max z 1.96e-7 / 1.64e-7, blendshapes 1.61e-5 / 1.65e-5, rotation
  /// 1.79e-6 / 1.25e-6, translation 7.63e-5 cm at both; raw mean x,y 4.33e-8 / 4.26e-8, raw
  /// max x,y 4.17e-7 at both, raw max z 2.46e-7 / 1.95e-7. (Before the region's angle was taken
  /// in double, `FaceRects.rotation`, max x,y was 1.94e-6 and blendshapes 1.04e-4.) Each bound
  /// is the larger figure plus about 20%.
  @Test func worstCaseStepDifferences() throws {
    var all = Errors()
    for sequence in LandmarkSmoothingTests.sequences {
      for (_, e) in try Self.steps(sequence) { all.merge(e) }
    }
    #expect(all.steps == 36)
    #expect(all.meanXY <= 4.9e-8 && all.maxXY <= 1.55e-6 && all.maxZ <= 2.4e-7, "\(all)")
    #expect(all.maxBlendshape <= 2e-5 && all.maxRotation <= 2.2e-6 && all.maxTranslation <= 9.2e-5, "\(all)")
    #expect(all.rawMeanXY <= 5.2e-8 && all.rawMaxXY <= 5e-7 && all.rawMaxZ <= 3e-7, "\(all)")
    print(
      "landmarker parity, video one step: \(all.steps) steps, mean xy \(all.meanXY), max xy \(all.maxXY), max z \(all.maxZ), max blendshape \(all.maxBlendshape), max rotation \(all.maxRotation), max translation \(all.maxTranslation); raw mean xy \(all.rawMeanXY), raw max xy \(all.rawMaxXY), raw max z \(all.rawMaxZ)"
    )
  }
}

extension LandmarkerPipeline.Tracking {
  /// The stream state after a frame in which one face had the unsmoothed landmarks
  /// `rawLandmarks` and `smoother` had filtered every frame so far, so that the next `process`
  /// call follows that face from them exactly as it would from landmarks of its own.
  static func resuming(
    rawLandmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int, smoother: LandmarkSmoother
  ) -> Self {
    let region = FaceRects.region(forLandmarks: rawLandmarks, imageWidth: imageWidth, imageHeight: imageHeight)
    return Self(regions: [region], smoothers: [(region, smoother)])
  }
}
