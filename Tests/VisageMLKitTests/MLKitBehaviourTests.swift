import Foundation
import Testing
import VisageMLKit
import VisageTestSupport

import struct Visage.MPImage

/// What ML Kit's documentation says its detector does, checked on Visage's: the standalone
/// names (`FaceDetector.faceDetector(options:)`, `results(in:)`), mirrored front-camera
/// orientations, contours for the most prominent face, landmarks by yaw, Euler angles only
/// where ML Kit gives them, and options copied when a detector is made.
@Suite struct MLKitBehaviourTests {
  static func image(_ path: String) throws -> VisionImage {
    try VisionImage(contentsOfFile: Fixtures.fixturePath(path))
  }

  static func everything() -> FaceDetectorOptions {
    let options = FaceDetectorOptions()
    options.landmarkMode = .all
    options.contourMode = .all
    options.classificationMode = .all
    return options
  }

  /// The stored pixels that show `upright` when turned by `orientation`, made pixel by pixel:
  /// stored (x, y) holds the upright pixel the orientation carries it to.
  static func stored(_ upright: MPImage, as orientation: MPImage.Orientation) throws -> MPImage {
    let (w, h) = (upright.width, upright.height)
    let (sw, sh) = orientation.swapsSides ? (h, w) : (w, h)
    var pixels = [UInt8](repeating: 0, count: sw * sh * 3)
    for y in 0..<sh {
      for x in 0..<sw {
        // Where stored pixel (x, y) appears in the upright picture.
        let (u, v): (Int, Int) =
          switch orientation {
          case .upMirrored: (sw - 1 - x, y)
          case .downMirrored: (x, sh - 1 - y)
          case .leftMirrored: (y, x)
          case .rightMirrored: (sh - 1 - y, sw - 1 - x)
          default: (x, y)
          }
        for c in 0..<3 { pixels[(y * sw + x) * 3 + c] = upright.pixels[(v * w + u) * 3 + c] }
      }
    }
    return try MPImage(width: sw, height: sh, rgb: pixels, orientation: orientation)
  }

  @Test func mirroredFrontCameraFramesGiveTheUprightPicturesFaces() throws {
    let upright = try MPImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
    let detector = FaceDetector.faceDetector(options: Self.everything())
    let expected = try #require(detector.results(in: VisionImage(image: upright)).first)
    for orientation: MPImage.Orientation in [.upMirrored, .downMirrored, .leftMirrored, .rightMirrored] {
      let frame = VisionImage(image: try Self.stored(upright, as: orientation))
      let face = try #require(try detector.results(in: frame).first, "\(orientation)")
      // The same upright picture: positions agree to within the resampling of a turned input.
      #expect(abs(face.frame.midX - expected.frame.midX) < 2 && abs(face.frame.midY - expected.frame.midY) < 2)
      #expect(abs(face.frame.width - expected.frame.width) < 3, "\(orientation): \(face.frame) vs \(expected.frame)")
      let eye = try #require(face.landmark(ofType: .leftEye)).position
      let expectedEye = try #require(expected.landmark(ofType: .leftEye)).position
      #expect(hypot(eye.x - expectedEye.x, eye.y - expectedEye.y) < 2, "\(orientation)")
      #expect(abs(face.headEulerAngleY - expected.headEulerAngleY) < 3)
    }
    // The Firebase-era metadata says the same: leftTop is Exif 5, `.leftMirrored`.
    let frame = VisionImage(image: try Self.stored(upright, as: .leftMirrored))
    frame.orientation = .up  // overridden by the metadata
    let metadata = VisionImageMetadata()
    metadata.orientation = .leftTop
    frame.metadata = metadata
    let face = try #require(try detector.results(in: frame).first)
    #expect(abs(face.frame.midX - expected.frame.midX) < 2 && abs(face.frame.midY - expected.frame.midY) < 2)
  }

  @Test func contoursComeForTheMostProminentFaceUnlessAskedForAll() throws {
    let image = try Self.image("analysis/two_sizes_640x480.jpg")
    let options = Self.everything()
    let faces = try FaceDetector.faceDetector(options: options).results(in: image)
    try #require(faces.count == 2)
    let largest = faces.max { $0.frame.width < $1.frame.width }!
    #expect(faces.filter { !$0.contours.isEmpty }.count == 1)
    #expect(largest.contours.count == 15)
    options.contoursForEveryFace = true
    let all = try FaceDetector.faceDetector(options: options).results(in: image)
    #expect(all.allSatisfy { $0.contours.count == 15 })
  }

  @Test func landmarksFollowTheYawAsMLKitsTableSays() throws {
    #expect(FaceDetectorOptions.landmarkTypes(forYaw: 0).count == 8)
    #expect(!FaceDetectorOptions.landmarkTypes(forYaw: 0).contains(.leftEar))
    #expect(FaceDetectorOptions.landmarkTypes(forYaw: 20).contains(.rightEar))
    #expect(FaceDetectorOptions.landmarkTypes(forYaw: -20).contains(.leftEar))
    #expect(
      FaceDetectorOptions.landmarkTypes(forYaw: 50) == [.rightEye, .mouthRight, .rightEar, .noseBase, .rightCheek])
    #expect(FaceDetectorOptions.landmarkTypes(forYaw: -50) == [.leftEye, .mouthLeft, .leftEar, .noseBase, .leftCheek])
    let options = Self.everything()
    for path in ["analysis/neutral.jpg", "analysis/turned_right.jpg"] {
      let face = try #require(try FaceDetector.faceDetector(options: options).results(in: Self.image(path)).first)
      #expect(Set(face.landmarks.map(\.type)) == FaceDetectorOptions.landmarkTypes(forYaw: face.headEulerAngleY))
    }
    options.reportsEveryLandmark = true
    let face = try #require(
      try FaceDetector.faceDetector(options: options).results(in: Self.image("analysis/neutral.jpg")).first)
    #expect(face.landmarks.count == 10)
    // Positions are 3D points: depth comes from the face mesh, nose nearer than the ears.
    let nose = try #require(face.landmark(ofType: .noseBase)?.position as? Vision3DPoint)
    let ear = try #require(face.landmark(ofType: .leftEar)?.position as? Vision3DPoint)
    #expect(nose.z < ear.z)
  }

  @Test func eulerAnglesAreLeftOutOnlyWhereMLKitLeavesThemOut() throws {
    let image = try Self.image("images/astronaut.png")
    let options = FaceDetectorOptions()
    options.contourMode = .all
    let contoursOnly = try #require(try FaceDetector.faceDetector(options: options).results(in: image).first)
    #expect(!contoursOnly.hasHeadEulerAngleX && contoursOnly.headEulerAngleY == 0)
    options.classificationMode = .all
    let classified = try #require(try FaceDetector.faceDetector(options: options).results(in: image).first)
    #expect(classified.hasHeadEulerAngleX && classified.hasHeadEulerAngleY && classified.hasHeadEulerAngleZ)
  }

  @Test func aDetectorKeepsTheOptionsItWasMadeWith() throws {
    let options = FaceDetectorOptions()
    let detector = FaceDetector.faceDetector(options: options)
    options.landmarkMode = .all
    options.minFaceSize = 2  // would be refused, were it read
    let face = try #require(try detector.results(in: Self.image("images/astronaut.png")).first)
    #expect(face.landmarks.isEmpty)
  }

  @Test func trackingIDsCarryOverFromCallToCall() throws {
    let options = FaceDetectorOptions()
    options.isTrackingEnabled = true
    let detector = FaceDetector.faceDetector(options: options)
    let image = try Self.image("images/astronaut.png")
    let first = try #require(try detector.results(in: image).first)
    let second = try #require(try detector.results(in: image).first)
    #expect(first.hasTrackingID && second.hasTrackingID && first.trackingID == second.trackingID)
  }

  @Test func errorsReachTheCompletionAndTheThrowingCall() async throws {
    let options = FaceDetectorOptions()
    options.minFaceSize = 2
    let queue = DispatchQueue(label: "test.completion")
    options.completionQueue = queue
    let detector = FaceDetector.faceDetector(options: options)
    let image = try Self.image("images/astronaut.png")
    #expect { try detector.results(in: image) } throws: { "\($0)".contains("minFaceSize") }
    let outcome = await withCheckedContinuation { done in
      detector.process(image) { faces, error in
        dispatchPrecondition(condition: .onQueue(queue))
        done.resume(returning: Unchecked((faces, error)))
      }
    }.value
    #expect(outcome.0 == nil && "\(outcome.1!)".contains("minFaceSize"))

    options.minFaceSize = 0.1
    options.modelPath = "/nonexistent/face_landmarker.task"
    #expect(throws: (any Error).self) { try FaceDetector.faceDetector(options: options).results(in: image) }
    // A model the resource bundle lacks is an error, not a stop.
    #expect(throws: VisageMLKitError.missingBundledModel("no_such_model.tflite")) {
      try BundledModels.path(of: "no_such_model.tflite")
    }
    #expect(try BundledModels.path(of: "face_landmarker.task").hasSuffix("face_landmarker.task"))
  }
}

/// `FaceDetectorOptions.copy()`, which a detector takes when it is made, lists its fields by
/// hand: every field set away from its default must come through, and a field added later
/// must be counted here (and copied).
@Suite struct MLKitOptionsCopyTests {
  @Test func optionsCopyEveryField() {
    let options = FaceDetectorOptions()
    options.performanceMode = .accurate
    options.landmarkMode = .all
    options.contourMode = .all
    options.classificationMode = .all
    options.minFaceSize = 0.3
    options.isTrackingEnabled = true
    options.reportsEveryLandmark = true
    options.contoursForEveryFace = true
    options.modelPath = "a.task"
    options.fullRangeModelPath = "full.tflite"
    options.threadCount = 3
    options.maximumFaceCount = 2
    options.completionQueue = DispatchQueue(label: "test.copy")
    func fields(_ value: FaceDetectorOptions) -> [String: String] {
      var fields: [String: String] = [:]
      for child in Mirror(reflecting: value).children {
        // A queue prints its label, which tells the two queues apart here.
        fields[child.label ?? ""] = (child.value as? DispatchQueue)?.label ?? String(describing: child.value)
      }
      return fields
    }
    #expect(fields(options) == fields(options.copy()))
    #expect(Mirror(reflecting: options).children.count == 13, "a field was added: copy() it, then count it here")
  }
}
