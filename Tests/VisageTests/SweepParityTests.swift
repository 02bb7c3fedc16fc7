import Foundation
import Testing
import VisageKernels
import VisageTestSupport

@testable import Visage

/// Parity on a sweep instead of picked sizes (Tests/Fixtures/sweep, Tools/make_sweep_fixtures.py):
/// every square size from 96 to 400 px, and 160 random sizes up to 4096 px with aspect ratios
/// from 1:2 to 2:1, from three photos, in the four orientations MediaPipe accepts.
///
/// Bars, on every case:
/// - short-range detector against MediaPipe 1.2.2: the same faces, box edges identical, score
///   and keypoints within 1e-6;
/// - full-range detector: top score within 1e-6 of the model run on MediaPipe's preprocessing
///   (emulated by the script, which checks the emulation against MediaPipe's own short-range
///   scores bit for bit);
/// - landmarker, image mode (3 faces, blendshapes, matrices): per face, landmark x, y error
///   mean ≤ 2e-5 and max ≤ 1e-4, blendshapes within 2e-3, rotation entries within 2e-4 and
///   translation within 0.01 cm. Blendshapes come within 1e-3 on all but two faces, both on
///   images under 150 px wide, where the face is a few dozen pixels and the detector's
///   keypoints (within 3.6e-7 of MediaPipe's: our kernels are TFLite's reference arithmetic,
///   MediaPipe's are XNNPACK's) move the crop enough to move a blendshape by up to 1.8e-3.
///
/// The worst differences are printed for docs/parity.md
/// (`swift test -c release --filter SweepParityTests`).
@Suite struct SweepParityTests {
  /// The largest differences seen over a group of cases.
  struct Worst: CustomStringConvertible {
    var score: Float = 0, keypoint: Float = 0, edge = 0, faces = 0
    var description: String {
      "\(faces) faces, max box edge gap \(edge) px, max score gap \(score), max keypoint gap \(keypoint)"
    }
  }

  @Test func fixturesArePresent() {
    #expect(SweepFixtures.cases.count >= 465, "Tests/Fixtures/sweep/mediapipe.json is missing or short")
    #expect(SweepFixtures.landmarkerCases.count >= 60)
    #expect(SweepFixtures.perspectiveCases.count >= 40)
  }

  /// `PerspectiveMap` against `cv2.getPerspectiveTransform` + `cv2.invert`, bit for bit.
  @Test func perspectiveMapsMatchOpenCV() {
    for c in SweepFixtures.perspectiveCases {
      let r = c.rect
      let rect = RotatedRect(centerX: r[0], centerY: r[1], width: r[2], height: r[3], rotation: r[4])
      let m = PerspectiveMap(roi: rect, outputWidth: c.size, outputHeight: c.size)
      let ours = [m.m0, m.m1, m.m2, m.m3, m.m4, m.m5, m.m6, m.m7, m.m8]
      #expect(
        ours.map(\.bitPattern) == c.inverse.map(\.bitPattern), "rect \(r) size \(c.size): \(ours) vs \(c.inverse)")
    }
  }

  @Test func detectorsMatchMediaPipe() throws {
    let short = try FaceDetector(modelPath: BundledModel.taskBundlePath)
    let full = try FaceDetector(modelPath: Fixtures.weightsPath("face_detection_full_range.tflite"))
    var worst = Worst()
    var fullRange: Float = 0
    for fixture in SweepFixtures.cases {
      let image = try fixture.image()
      let found = try short.detect(image: image).detections
      #expect(
        found.count == fixture.detections.count,
        "\(fixture): \(found.count) faces, MediaPipe \(fixture.detections.count)")
      for (ours, theirs) in zip(found, fixture.detections) {
        let b = ours.boundingBox
        let box = [Int(b.minX), Int(b.minY), Int(b.width), Int(b.height)]
        let edge = zip(box, theirs.box).map { abs($0 - $1) }.max()!
        let score = abs(ours.categories[0].score - theirs.score)
        let keypoints = (ours.keypoints ?? []).flatMap { [Float($0.location.x), Float($0.location.y)] }
        let keypoint = zip(keypoints, theirs.keypoints).map { abs($0 - $1) }.max() ?? .infinity
        #expect(
          edge == 0 && score <= 1e-6 && keypoint <= 1e-6,
          "\(fixture): box \(box) vs \(theirs.box), score off by \(score), keypoints by \(keypoint)")
        (worst.edge, worst.score, worst.keypoint) = (
          max(worst.edge, edge), max(worst.score, score), max(worst.keypoint, keypoint)
        )
        worst.faces += 1
      }
      let top = try full.detect(image: image).detections.map { $0.categories[0].score }.max()
      if fixture.fullRangeTopScore >= 0.5 {
        let gap = abs((top ?? 0) - fixture.fullRangeTopScore)
        #expect(gap <= 1e-6, "\(fixture): full-range top score \(top ?? 0) vs \(fixture.fullRangeTopScore)")
        fullRange = max(fullRange, gap)
      } else {
        #expect(top == nil, "\(fixture): full range found a face the reference scores \(fixture.fullRangeTopScore)")
      }
    }
    print("sweep, short-range detector: \(SweepFixtures.cases.count) images: \(worst)")
    print("sweep, full-range detector: \(SweepFixtures.cases.count) images, max top-score gap \(fullRange)")
  }

  @Test func landmarkerMatchesMediaPipe() throws {
    let options = FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath))
    options.numFaces = 3
    options.outputFaceBlendshapes = true
    options.outputFacialTransformationMatrixes = true
    let landmarker = try FaceLandmarker(options: options)
    var worst = LandmarkGaps()
    var overOneThousandth = 0
    for fixture in SweepFixtures.landmarkerCases {
      let result = try landmarker.detect(image: fixture.image())
      let expected = fixture.faces ?? []
      #expect(
        result.faceLandmarks.count == expected.count,
        "\(fixture): \(result.faceLandmarks.count) faces, MediaPipe \(expected.count)")
      guard result.faceLandmarks.count == expected.count else { continue }
      for (i, theirs) in expected.enumerated() {
        let gaps = LandmarkGaps(
          result.faceLandmarks[i], result.faceBlendshapes[i].categories.map(\.score),
          result.facialTransformationMatrixes[i].rowMajor, theirs)
        #expect(
          gaps.mean <= 2e-5 && gaps.max <= 1e-4 && gaps.blendshape <= 2e-3 && gaps.rotation <= 2e-4
            && gaps.translation <= 0.01, "\(fixture) face \(i): \(gaps)")
        worst.merge(gaps)
        overOneThousandth += gaps.blendshape > 1e-3 ? 1 : 0
      }
    }
    print("sweep, landmarker: \(SweepFixtures.landmarkerCases.count) images: \(worst)")
    print("sweep, landmarker: \(overOneThousandth) faces with a blendshape more than 1e-3 off")
  }
}

/// One face's differences from MediaPipe, or the largest over several faces.
struct LandmarkGaps: CustomStringConvertible {
  /// Mean of |Δx| and |Δy| over the landmarks (normalized coordinates).
  var mean = 0.0
  /// Largest |Δx| or |Δy|.
  var max = 0.0
  var blendshape = 0.0
  /// Largest difference in the matrix's 3×3 rotation part, and in its translation (cm).
  var rotation = 0.0, translation = 0.0
  var faces = 0

  init() {}

  init(_ landmarks: [NormalizedLandmark], _ blendshapes: [Float], _ matrix: [Float], _ theirs: SweepFixtures.Face) {
    var sum = 0.0
    for (j, p) in landmarks.enumerated() {
      let dx = abs(Double(p.x) - Double(theirs.landmarks[j * 3]))
      let dy = abs(Double(p.y) - Double(theirs.landmarks[j * 3 + 1]))
      sum += dx + dy
      max = Swift.max(max, dx, dy)
    }
    mean = sum / Double(2 * landmarks.count)
    blendshape = Double(zip(blendshapes, theirs.blendshapes).map { abs($0 - $1) }.max() ?? .infinity)
    for row in 0..<3 {
      for column in 0..<4 {
        let gap = Double(abs(matrix[row * 4 + column] - theirs.matrix[row * 4 + column]))
        if column < 3 { rotation = Swift.max(rotation, gap) } else { translation = Swift.max(translation, gap) }
      }
    }
    faces = 1
  }

  mutating func merge(_ other: LandmarkGaps) {
    mean = Swift.max(mean, other.mean)
    max = Swift.max(max, other.max)
    blendshape = Swift.max(blendshape, other.blendshape)
    rotation = Swift.max(rotation, other.rotation)
    translation = Swift.max(translation, other.translation)
    faces += other.faces
  }

  var description: String {
    "\(faces) faces, worst per-face mean xy \(mean), max xy \(max), blendshape \(blendshape), "
      + "rotation \(rotation), translation \(translation) cm"
  }
}
