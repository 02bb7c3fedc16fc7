import Foundation
import Testing
import VisageImageIO
import VisageTestSupport

@testable import Visage

/// The landmarker's outputs beyond MediaPipe's (docs/beyond-mediapipe.md): iris distances,
/// tracking IDs and their reset, scores, the camera, smoothing switched off, and the metric
/// mesh in the result.
@Suite struct BeyondMediaPipeTests {
  static func options(_ mode: RunningMode = .image) -> FaceLandmarkerOptions {
    FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: mode)
  }

  static func image(_ path: String) throws -> MPImage { try MPImage(contentsOfFile: Fixtures.fixturePath(path)) }

  /// Half the size in each direction, each pixel the mean of four.
  static func halved(_ image: MPImage) throws -> MPImage {
    let (w, h) = (image.width / 2, image.height / 2)
    var out = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
      for x in 0..<w {
        for c in 0..<3 {
          let p = { (dx: Int, dy: Int) in Int(image.pixels[((2 * y + dy) * image.width + 2 * x + dx) * 3 + c]) }
          out[(y * w + x) * 3 + c] = UInt8((p(0, 0) + p(1, 0) + p(0, 1) + p(1, 1) + 2) / 4)
        }
      }
    }
    return try MPImage(width: w, height: h, rgb: out)
  }

  // MARK: Iris distance

  /// MediaPipe's IrisToDepthCalculator on the landmarks of MediaPipe's geometry test: with
  /// the 63° camera, 637 and 643 mm, which the geometry's own translation (64.35 cm) agrees
  /// with.
  @Test func irisDistanceFollowsMediaPipesFormula() throws {
    let (landmarks, expected) = try MetricMeshTests.load()
    let f = LandmarkerExtras.focalLength(height: expected.imageHeight, verticalFieldOfView: 63)
    let d = try #require(
      LandmarkerExtras.irisDistances(
        landmarks, width: expected.imageWidth, height: expected.imageHeight, focalLength: f))
    #expect(abs(d.right - 637) < 1.5 && abs(d.left - 643) < 1.5, "\(d)")
    let depth = -expected.poseTransformMatrix[11] * 10
    #expect(abs((d.left + d.right) / 2 - depth) < 0.02 * depth, "\(d) against the pose's \(depth) mm")
    // By hand, one eye: 11.8 mm · √(f² + r²) / mean diameter.
    let (w, h) = (Double(expected.imageWidth), Double(expected.imageHeight))
    func px(_ i: Int) -> SIMD2<Double> { SIMD2(Double(landmarks[i].x) * w, Double(landmarks[i].y) * h) }
    func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
    let size = (length(px(469) - px(471)) + length(px(470) - px(472))) / 2
    let r = length(px(468) - SIMD2(w / 2, h / 2))
    #expect(abs(Double(d.right) - 11.8 * (f * f + r * r).squareRoot() / size) < 1e-3)
  }

  /// The same photo at half the size is the same scene: the distance stays.
  @Test func irisDistanceDoesNotDependOnTheImagesSize() throws {
    let options = Self.options()
    options.outputFaceIrisDistances = true
    let landmarker = try FaceLandmarker(options: options)
    let full = try Self.image("images/astronaut.png")
    let a = try #require(try landmarker.detect(image: full).faceIrisDistances.first ?? nil)
    let b = try #require(try landmarker.detect(image: Self.halved(full)).faceIrisDistances.first ?? nil)
    #expect(abs(a.left - b.left) < 0.05 * a.left && abs(a.right - b.right) < 0.05 * a.right, "\(a) vs \(b)")
    // A wider camera (shorter focal length) puts the same iris nearer.
    options.cameraVerticalFieldOfView = 90
    let wide = try #require(try FaceLandmarker(options: options).detect(image: full).faceIrisDistances.first ?? nil)
    #expect(wide.left < 0.8 * a.left)
  }

  /// In a stream each eye's distance moves a tenth of the way to each new frame's.
  @Test func irisDistanceIsSmoothedInAStream() throws {
    let (landmarks, expected) = try MetricMeshTests.load()
    let options = Self.options(.video)
    options.outputFaceIrisDistances = true
    let extras = LandmarkerExtras(options: options)
    let image = try MPImage(
      width: expected.imageWidth, height: expected.imageHeight,
      rgb: [UInt8](repeating: 0, count: expected.imageWidth * expected.imageHeight * 3))
    func face(_ scale: Float) -> LandmarkerPipeline.Face {
      // The iris scaled about its own centre: the face seen nearer or farther.
      var points = landmarks
      for center in [468, 473] {
        for i in center + 1...center + 4 { points[i] = points[center] + (points[i] - points[center]) * scale }
      }
      return LandmarkerPipeline.Face(
        landmarks: points, rawLandmarks: points, blendshapes: nil, transformationMatrix: nil, metricMesh: nil,
        detection: nil, presence: 1)
    }
    let first = try #require(extras.outputs([face(1)], image: image, streaming: true)[0].irisDistances)
    let second = try #require(extras.outputs([face(2)], image: image, streaming: true)[0].irisDistances)
    // Twice the iris: half the distance, of which a tenth is taken.
    #expect(abs(second.left - (0.9 * first.left + 0.1 * first.left / 2)) < 0.01)
    extras.reset()
    let afresh = try #require(extras.outputs([face(2)], image: image, streaming: true)[0].irisDistances)
    #expect(abs(afresh.left - first.left / 2) < 0.01)
  }

  // MARK: Tracking IDs

  static func leaveAndReturn(_ ids: [Int?]) {
    let runs = ids.split(separator: nil, omittingEmptySubsequences: true).map { Array($0.compactMap { $0 }) }
    #expect(runs.count >= 2, "\(ids)")
    for run in runs { #expect(Set(run).count == 1, "one ID while in view: \(ids)") }
    #expect(Set(runs.map { $0[0] }).count == runs.count, "a new ID after each return: \(ids)")
  }

  /// A face keeps its ID while in view and gets a new one when it comes back, in the
  /// landmarker and the detector; after `resetTracking()` timestamps start again and IDs are
  /// new.
  @Test func facesKeepTheirIDsWhileInViewAndResetStartsAClip() throws {
    let landmarkerOptions = Self.options(.video)
    landmarkerOptions.isTrackingEnabled = true
    landmarkerOptions.outputFaceScores = true
    let landmarker = try FaceLandmarker(options: landmarkerOptions)
    let detectorOptions = FaceDetectorOptions(
      baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: .video)
    detectorOptions.isTrackingEnabled = true
    let detector = try FaceDetector(options: detectorOptions)
    var (landmarkerIDs, detectorIDs): ([Int?], [Int?]) = ([], [])
    var seen = Set<Int>()
    for round in 0..<2 {
      for i in 0..<14 {
        let frame = try Self.image(String(format: "landmarker/frames/leave_return/%03d.jpg", i))
        let result = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: i * 33)
        #expect(result.faceTrackingIds.count == result.faceLandmarks.count)
        #expect(result.faceScores.count == result.faceLandmarks.count)
        // A face followed without a detection keeps the score that found it.
        #expect(result.faceScores.allSatisfy { ($0.detection ?? 0) >= 0.5 && $0.presence > 0.5 })
        let detected = try detector.detect(videoFrame: frame, timestampInMilliseconds: i * 33)
        #expect(detected.faceTrackingIds.count == detected.detections.count)
        if round == 0 {
          landmarkerIDs.append(result.faceTrackingIds.first)
          detectorIDs.append(detected.faceTrackingIds.first)
          seen.formUnion(result.faceTrackingIds)
        } else if i == 0 {
          // A new clip: the first face's ID is one never used before.
          #expect(result.faceTrackingIds.allSatisfy { !seen.contains($0) }, "\(result.faceTrackingIds) after \(seen)")
        }
      }
      landmarker.resetTracking()
      detector.resetTracking()
    }
    Self.leaveAndReturn(landmarkerIDs)
    Self.leaveAndReturn(detectorIDs)
  }

  /// Two faces keep two IDs through a clip.
  @Test func twoFacesKeepTwoIDs() throws {
    let options = Self.options(.video)
    options.numFaces = 2
    options.isTrackingEnabled = true
    let landmarker = try FaceLandmarker(options: options)
    var ids: [[Int]] = []
    for i in 0..<12 {
      let result = try landmarker.detect(
        videoFrame: Self.image(String(format: "landmarker/frames/two_faces/%03d.jpg", i)),
        timestampInMilliseconds: i * 33)
      // Left to right, so a face keeps its place.
      let order = result.faceLandmarks.indices.sorted { result.faceLandmarks[$0][1].x < result.faceLandmarks[$1][1].x }
      ids.append(order.map { result.faceTrackingIds[$0] })
    }
    #expect(ids.allSatisfy { $0 == ids[0] } && Set(ids[0]).count == 2, "\(ids)")
  }

  // MARK: A caller's region

  /// The detector's own box and rotation, given as a region, give the landmarker's faces; a
  /// sideways face in a turned picture is read upright when its region says how it is turned.
  @Test func aRegionGivesTheLandmarksADetectionWould() throws {
    let upright = try Self.image("images/astronaut.png")
    let landmarker = try FaceLandmarker(options: Self.options())
    let detector = try FaceDetector(
      options: FaceDetectorOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath)))
    let detection = try #require(try detector.detect(image: upright).detections.first)
    let box = detection.boundingBox
    let rotation = try #require(detection.inPlaneRotation(imageWidth: upright.width, imageHeight: upright.height))
    let found = try #require(try landmarker.detect(image: upright).faceLandmarks.first)
    let given = try #require(
      try landmarker.detect(image: upright, faceRegions: [FaceRegion(boundingBox: box, rotationDegrees: rotation)])
        .faceLandmarks.first)
    // No detection found a given face: its scores say so.
    let scoring = Self.options()
    scoring.outputFaceScores = true
    scoring.isTrackingEnabled = true
    let scored = try FaceLandmarker(options: scoring)
    _ = try scored.detect(image: upright)
    let regionScores = try scored.detect(
      image: upright, faceRegions: [FaceRegion(boundingBox: box, rotationDegrees: rotation)]
    ).faceScores
    #expect(regionScores.count == 1 && regionScores[0].detection == nil && regionScores[0].presence > 0.5)
    // The pixel box is the detection's rounded down: the same face within a fraction of a pixel.
    let gap = zip(found, given).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max() ?? 1
    #expect(gap * Float(upright.width) < 1.5, "\(gap * Float(upright.width)) px apart")

    // Turned a quarter counter-clockwise: the face's top points left (-90°).
    let turned = try MPImage(
      width: upright.height, height: upright.width, rgb: FaceAnalyzerTests.quarterTurnCounterClockwise(upright))
    let turnedBox = CGRect(x: box.minY, y: CGFloat(upright.width) - box.maxX, width: box.height, height: box.width)
    let sideways = try #require(
      try landmarker.detect(
        image: turned, faceRegions: [FaceRegion(boundingBox: turnedBox, rotationDegrees: rotation - 90)]
      )
      .faceLandmarks.first)
    // The nose tip (1), turned back: upright (x, y) was stored at (y, w − x).
    let nose = (
      x: Float(upright.width) - sideways[1].y * Float(upright.width), y: sideways[1].x * Float(upright.height)
    )
    #expect(
      abs(nose.x - found[1].x * Float(upright.width)) < 3 && abs(nose.y - found[1].y * Float(upright.height)) < 3,
      "\(nose) vs \(found[1])")
    // A region with no face in it gives none; an empty box is refused.
    #expect(
      try landmarker.detect(
        image: upright, faceRegions: [FaceRegion(boundingBox: CGRect(x: 0, y: 400, width: 60, height: 60))]
      )
      .faceLandmarks.isEmpty)
    #expect(throws: VisionTaskError.self) {
      try landmarker.detect(
        image: upright, faceRegions: [FaceRegion(boundingBox: CGRect(x: 0, y: 0, width: 0, height: 5))])
    }
  }

  // MARK: Aligned crops

  /// A face turned a quarter gives the same crop as upright, within interpolation; the eyes
  /// land on the template's.
  @Test func cropsDoNotDependOnHowTheFaceIsTurned() throws {
    let upright = try Self.image("images/astronaut.png")
    let turned = try MPImage(
      width: upright.height, height: upright.width, rgb: FaceAnalyzerTests.quarterTurnCounterClockwise(upright))
    let options = Self.options()
    options.searchesAnyRotation = true
    let landmarker = try FaceLandmarker(options: options)
    let crops = try [upright, turned].map { image in
      try image.alignedFaceCrop(landmarks: #require(try landmarker.detect(image: image).faceLandmarks.first))
    }
    #expect(crops.allSatisfy { $0.width == 112 && $0.height == 112 })
    let difference = zip(crops[0].pixels, crops[1].pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +)
    let mean = Double(difference) / Double(crops[0].pixels.count)
    #expect(mean < 12, "mean difference \(mean) of 255")
    // The crop is the face: the landmarker finds it there, eyes near the template's.
    let again = try #require(try landmarker.detect(image: crops[0]).faceLandmarks.first)
    let eye = (x: (again[468].x * 112), y: again[468].y * 112)
    #expect(abs(eye.x - 38.3) < 6 && abs(eye.y - 51.7) < 6, "\(eye)")
    // Bigger, with a margin; bad options refused.
    let wide = try upright.alignedFaceCrop(
      landmarks: #require(try landmarker.detect(image: upright).faceLandmarks.first),
      options: FaceCropOptions(size: 224, margin: 0.25))
    #expect(wide.width == 224)
    #expect(throws: VisionTaskError.self) { try upright.alignedFaceCrop(landmarks: []) }
  }

  // MARK: Scores, camera, smoothing, metric mesh

  /// In a still image the scores are the detector's and the landmark model's, as the detector
  /// with its presence check gives them.
  @Test func scoresAreTheDetectorsAndThePresence() throws {
    let options = Self.options()
    options.outputFaceScores = true
    let scores = try #require(
      try FaceLandmarker(options: options).detect(image: Self.image("images/astronaut.png")).faceScores.first)
    let detectorOptions = FaceDetectorOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath))
    detectorOptions.minFacePresenceConfidence = 0
    let detection = try #require(
      try FaceDetector(options: detectorOptions).detect(image: Self.image("images/astronaut.png")).detections.first)
    #expect(abs((scores.detection ?? -1) - detection.categories[0].score) < 1e-6)
    #expect(abs(scores.presence - (detection.facePresence ?? -1)) < 1e-4)
  }

  /// The focal length from Exif sets the camera when allowed; a wider camera brings the face
  /// nearer in the matrix.
  @Test func theCameraMovesTheFaceAlongItsAxis() throws {
    let image = try Self.image("images/astronaut.png")
    func depth(_ configure: (FaceLandmarkerOptions) -> Void, _ image: MPImage) throws -> Float {
      let options = Self.options()
      options.outputFacialTransformationMatrixes = true
      configure(options)
      return try #require(try FaceLandmarker(options: options).detect(image: image).facialTransformationMatrixes.first)[
        2, 3]
    }
    let standard = try depth({ _ in }, image)
    let wide = try depth({ $0.cameraVerticalFieldOfView = 90 }, image)
    #expect(wide > standard, "a wider camera puts the face nearer (z less negative): \(wide) vs \(standard)")
    // A focal length that makes 63° is MediaPipe's camera.
    var withFocal = image
    withFocal.focalLengthInPixels = LandmarkerExtras.focalLength(height: image.height, verticalFieldOfView: 63)
    let allowed = try depth({ $0.usesImageFocalLength = true }, withFocal)
    #expect(abs(allowed - standard) < 1e-3)
    withFocal.focalLengthInPixels = LandmarkerExtras.focalLength(height: image.height, verticalFieldOfView: 90)
    let allowedWide = try depth({ $0.usesImageFocalLength = true }, withFocal)
    #expect(abs(allowedWide - wide) < 1e-3)
    let notAllowed = try depth({ _ in }, withFocal)
    #expect(abs(notAllowed - standard) < 1e-6, "not used unless allowed")
    let options = Self.options()
    options.cameraVerticalFieldOfView = 180
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(options: options) }
  }

  /// Exif's FocalLengthIn35mmFilm: f = f₃₅ · diagonal / 43.27 mm (MediaPipe's test: 25 mm on
  /// 2448×3264 is 2357.48 px).
  @Test func exifFocalLengthIsReadAsMediaPipeReadsIt() throws {
    // A little-endian TIFF: IFD0 with one entry pointing to the Exif IFD, which holds 0xA405.
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
    let tiff: [UInt8] =
      Array("II".utf8) + le16(42) + le32(8) + le16(1) + le16(0x8769) + le16(4) + le32(1) + le32(26) + le32(0)
      + le16(1) + le16(0xA405) + le16(3) + le32(1) + le16(25) + le16(0) + le32(0)
    let app1 = [0xFF, 0xE1] + le16(tiff.count + 8).reversed() + Array("Exif\0\0".utf8) + tiff
    let jpeg: [UInt8] = [0xFF, 0xD8] + app1 + [0xFF, 0xD9]
    let f = try #require(ExifFocalLength.pixels(fromFile: jpeg, width: 2448, height: 3264))
    #expect(abs(f - 2357.4758) < 1e-3)
    #expect(ExifFocalLength.pixels(fromFile: [0xFF, 0xD8, 0xFF, 0xD9], width: 10, height: 10) == nil)
  }

  /// Smoothing off: a video frame's landmarks are the model's own (`rawLandmarks`).
  @Test func smoothingCanBeSwitchedOff() throws {
    var results: [LandmarkSmoothing: [[NormalizedLandmark]]] = [:]
    for smoothing in [LandmarkSmoothing.off, .everyFace] {
      let options = Self.options(.video)
      options.landmarkSmoothing = smoothing
      let landmarker = try FaceLandmarker(options: options)
      for i in 0..<6 {
        let r = try landmarker.detect(
          videoFrame: Self.image(String(format: "landmarker/frames/pan/%03d.jpg", i)), timestampInMilliseconds: i * 33)
        results[smoothing, default: []].append(contentsOf: r.faceLandmarks)
      }
    }
    let (off, on) = (results[.off]!, results[.everyFace]!)
    #expect(off.count == on.count && off.count >= 5)
    // The filter passes its first value through (in pixels and back: within rounding).
    func gap(_ a: [NormalizedLandmark], _ b: [NormalizedLandmark]) -> Float {
      zip(a, b).map { max(abs($0.x - $1.x), abs($0.y - $1.y), abs($0.z - $1.z)) }.max() ?? 0
    }
    #expect(gap(off[0], on[0]) < 1e-6, "the first frame is the same")
    #expect(zip(off.dropFirst(), on.dropFirst()).contains { gap($0, $1) > 1e-4 }, "later frames differ")
  }

  /// The result's metric mesh is the geometry's, 468 centimetre points; a vertex taken by the
  /// matrix lies in front of the camera.
  @Test func theResultCarriesTheMetricMesh() throws {
    let options = Self.options()
    options.outputFaceMetricLandmarks = true
    options.outputFacialTransformationMatrixes = true
    let result = try FaceLandmarker(options: options).detect(image: Self.image("images/astronaut.png"))
    let mesh = try #require(result.faceMetricLandmarks.first.flatMap { $0 })
    #expect(mesh.count == 468)
    let xs = mesh.map(\.x)
    #expect((xs.max()! - xs.min()!) > 10 && (xs.max()! - xs.min()!) < 20, "a face about 15 cm wide")
    let m = try #require(result.facialTransformationMatrixes.first)
    let z = m[2, 0] * mesh[1].x + m[2, 1] * mesh[1].y + m[2, 2] * mesh[1].z + m[2, 3]
    #expect(z < -10)
  }
}
