import Foundation
import Testing
import VisageMLKit
import VisageTestSupport

/// The Firebase ML Kit face detection guide's calls, in its order, with its names: options,
/// `Vision.vision()`, a `VisionImage` with `VisionImageMetadata`, `process(_:completion:)`, and
/// reading every property the guide reads. The only line that differs is the one making the
/// image, from a file where the guide has a `UIImage` or a camera's sample buffer.
@Suite struct FirebaseGuideTests {
  /// Runs `process` and waits for its completion.
  static func process(_ detector: VisionFaceDetector, _ image: VisionImage) async -> ([VisionFace]?, (any Error)?) {
    await withCheckedContinuation { done in
      detector.process(image) { faces, error in done.resume(returning: Unchecked((faces, error))) }
    }.value
  }

  @Test func accurateLandmarksAndClassificationAsTheGuideWritesThem() async throws {
    // High-accuracy landmark detection and face classification.
    let options = VisionFaceDetectorOptions()
    options.performanceMode = .accurate
    options.landmarkMode = .all
    options.classificationMode = .all

    let vision = Vision.vision()
    let faceDetector = vision.faceDetector(options: options)

    let image = try VisionImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
    let metadata = VisionImageMetadata()
    metadata.orientation = .topLeft
    image.metadata = metadata

    let (found, error) = await Self.process(faceDetector, image)
    #expect(error == nil)
    let faces = try #require(found)
    #expect(faces.count == 1)
    for face in faces {
      let frame = face.frame
      // The astronaut's face, about 100 px wide around (225, 130) in the 512×512 picture.
      #expect(frame.width > 70 && frame.width < 140 && abs(frame.midX - 225) < 30, "\(frame)")
      #expect(face.hasHeadEulerAngleY && face.hasHeadEulerAngleZ)
      let rotY = face.headEulerAngleY
      let rotZ = face.headEulerAngleZ
      #expect(abs(rotY) < 40 && abs(rotZ) < 30)
      // Landmarks: those ML Kit finds at this yaw, each on the face.
      let leftEye = try #require(face.landmark(ofType: .leftEye))
      #expect(frame.contains(CGPoint(x: leftEye.position.x, y: leftEye.position.y)))
      #expect(Set(face.landmarks.map(\.type)) == VisionFaceDetectorOptions.landmarkTypes(forYaw: rotY))
      // No contours were asked for.
      #expect(face.contour(ofType: .leftEye) == nil && face.contour(ofType: .upperLipBottom) == nil)
      #expect(face.hasSmilingProbability && (0...1).contains(face.smilingProbability))
      #expect(face.hasRightEyeOpenProbability && face.rightEyeOpenProbability > 0.5)
      #expect(!face.hasTrackingID)
    }
  }

  @Test func realTimeContoursAsTheGuideWritesThem() async throws {
    // Real-time contour detection of multiple faces.
    let options = VisionFaceDetectorOptions()
    options.contourMode = .all
    let faceDetector = Vision.vision().faceDetector(options: options)
    let image = try VisionImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
    let faces = try #require(await Self.process(faceDetector, image).0)
    let face = try #require(faces.first)
    let leftEyePoints = try #require(face.contour(ofType: .leftEye)).points
    let upperLipBottomPoints = try #require(face.contour(ofType: .upperLipBottom)).points
    #expect(leftEyePoints.count == 16 && upperLipBottomPoints.count == 9)
    // Fast mode, contours alone: ML Kit gives no Euler angles, nor landmarks or probabilities.
    #expect(!face.hasHeadEulerAngleX && !face.hasHeadEulerAngleY && !face.hasHeadEulerAngleZ)
    #expect(face.landmarks.isEmpty && !face.hasSmilingProbability)
  }

  @Test func theDefaultDetectorNeedsNoModelPath() throws {
    let faces = try Vision.vision().faceDetector().results(
      in: VisionImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png")))
    #expect(faces.count == 1)
    #expect(faces[0].landmarks.isEmpty && faces[0].contours.isEmpty && faces[0].hasHeadEulerAngleY)
  }
}

/// Carries the faces (classes, not `Sendable`) out of the completion in a test.
struct Unchecked<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
