import Dispatch
import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTFLite
import VisageTestSupport

/// Running modes, timestamps, option checks, bad bundles, live stream, resetting tracking,
/// smoothing every face, and thread safety of `FaceLandmarker`.
struct FaceLandmarkerAPITests {
  static let astronaut = FaceDetectorAPITests.astronaut

  static func options(_ mode: RunningMode = .image) -> FaceLandmarkerOptions {
    FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: mode)
  }

  static func sequence(_ name: String) throws -> LandmarkerFixtures.Case {
    try #require(LandmarkerFixtures.sequences.first { $0.name == name })
  }

  @Test func methodsOfAnotherModeAreRefused() throws {
    let image = try FaceLandmarker(options: Self.options(.image))
    #expect(throws: VisionTaskError.self) { try image.detect(videoFrame: Self.astronaut, timestampInMilliseconds: 0) }
    #expect(throws: VisionTaskError.self) { try image.detectAsync(image: Self.astronaut, timestampInMilliseconds: 0) }
    let video = try FaceLandmarker(options: Self.options(.video))
    #expect(throws: VisionTaskError.wrongRunningMode(method: "detect(image:)", required: .image, current: .video)) {
      try video.detect(image: Self.astronaut)
    }
  }

  @Test func timestampsMustIncrease() throws {
    let video = try FaceLandmarker(options: Self.options(.video))
    _ = try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: 10)
    for bad in [10, 5, -5] {
      #expect(throws: VisionTaskError.timestampNotIncreasing(previous: 10, given: bad)) {
        try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: bad)
      }
    }
    #expect(try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: 11).faceLandmarks.count == 1)
  }

  /// Timestamps whose nanoseconds an Int64 cannot hold are refused with an error, not a
  /// trap; the two ends of the range are accepted and smoothed without trapping.
  @Test func timestampsOutsideTheRangeAreRefused() throws {
    let range = RunningMode.timestampRangeInMilliseconds
    #expect(range.upperBound == 9_223_372_036_854 && range.lowerBound == -range.upperBound)
    let video = try FaceLandmarker(options: Self.options(.video))
    for bad in [Int.min, range.lowerBound - 1, range.upperBound + 1, Int.max] {
      #expect(throws: VisionTaskError.timestampOutOfRange(given: bad)) {
        try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: bad)
      }
    }
    #expect(
      try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: range.lowerBound).faceLandmarks.count == 1)
    #expect(
      try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: range.upperBound).faceLandmarks.count == 1)
  }

  @Test func liveStreamNeedsExactlyItsDelegate() throws {
    #expect(throws: VisionTaskError.missingLiveStreamDelegate) {
      try FaceLandmarker(options: Self.options(.liveStream))
    }
    let options = Self.options(.video)
    options.liveStreamHandler = { _, _, _ in }
    #expect(throws: VisionTaskError.unexpectedLiveStreamDelegate) { try FaceLandmarker(options: options) }
  }

  @Test(arguments: [
    (0, Float(0.5), Float(0.5), Float(0.5)), (1, 1.5, 0.5, 0.5), (1, 0.5, -0.1, 0.5), (1, 0.5, 0.5, .nan),
    (-3, 0.5, 0.5, 0.5),
  ])
  func outOfRangeOptionsAreRefused(_ numFaces: Int, _ detection: Float, _ presence: Float, _ tracking: Float) {
    let options = Self.options()
    options.numFaces = numFaces
    options.minFaceDetectionConfidence = detection
    options.minFacePresenceConfidence = presence
    options.minTrackingConfidence = tracking
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(options: options) }
  }

  @Test func badBundlesAreClearErrors() throws {
    let missing = try requireThrows(VisionTaskError.self) { try FaceLandmarker(modelPath: "/nonexistent/face.task") }
    #expect("\(missing)".contains("/nonexistent/face.task"))
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(modelPath: "") }
    // A plain .tflite is not a bundle.
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(modelPath: FullRangeTests.fullRangePath) }
    // A bundle without the blendshape model is fine until blendshapes are asked for.
    let bundle = try TaskBundleFixture.write(dropping: ["face_blendshapes.tflite"])
    #expect(throws: Never.self) { try FaceLandmarker(modelPath: bundle) }
    var options = Self.options()
    options.baseOptions.modelAssetPath = bundle
    options.outputFaceBlendshapes = true
    let noBlendshapes = try requireThrows(VisionTaskError.self) { try FaceLandmarker(options: options) }
    #expect("\(noBlendshapes)".contains("face_blendshapes.tflite"))
    // Without the geometry metadata there can be no transformation matrices.
    options.baseOptions.modelAssetPath = try TaskBundleFixture.write(dropping: [
      "geometry_pipeline_metadata_landmarks.binarypb"
    ])
    options.outputFaceBlendshapes = false
    options.outputFacialTransformationMatrixes = true
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(options: options) }
    // A truncated bundle, and a detector that is not one.
    let bytes = try Fixtures.taskBundleBytes()
    let truncated = FileManager.default.temporaryDirectory.appendingPathComponent(
      "visage-truncated-\(UUID().uuidString).task"
    ).path
    FileManager.default.createFile(atPath: truncated, contents: Data(bytes.prefix(bytes.count / 3)))
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(modelPath: truncated) }
    options = Self.options()
    options.faceDetectorModelAssetPath = BundledModel.faceLandmarksDetector.reference
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(options: options) }
  }

  @Test func mirroredOrientationIsRefused() throws {
    var image = Self.astronaut
    image.orientation = .upMirrored
    #expect(throws: VisionTaskError.self) { try FaceLandmarker(options: Self.options()).detect(image: image) }
  }

  @Test func liveStreamDropsWaitingFramesAndKeepsOrder() throws {
    let gate = DispatchSemaphore(value: 0)
    let received = Locked<[Int]>([])
    let options = Self.options(.liveStream)
    options.liveStreamHandler = { result, timestamp, error in
      if timestamp == 0 { gate.wait() }  // hold the first frame in flight
      #expect(error == nil && result?.faceLandmarks.count == 1 && result?.timestampInMilliseconds == timestamp)
      received.mutate { $0.append(timestamp) }
    }
    let landmarker = try FaceLandmarker(options: options)
    for t in 0..<6 { try landmarker.detectAsync(image: Self.astronaut, timestampInMilliseconds: t * 33) }
    #expect(throws: VisionTaskError.self) {
      try landmarker.detectAsync(image: Self.astronaut, timestampInMilliseconds: 165)
    }
    gate.signal()
    landmarker.waitUntilIdle()
    #expect(received.value == [0, 165])
  }

  @Test func liveStreamDelegateIsCalled() throws {
    final class Collector: FaceLandmarkerLiveStreamDelegate, @unchecked Sendable {
      let faces = Locked<[Int]>([])
      func faceLandmarker(
        _ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
      ) { faces.mutate { $0.append(result?.faceLandmarks.count ?? -1) } }
    }
    let collector = Collector()
    let options = Self.options(.liveStream)
    options.faceLandmarkerLiveStreamDelegate = collector
    let landmarker = try FaceLandmarker(options: options)
    for t in [5, 9] {
      try landmarker.detectAsync(image: Self.astronaut, timestampInMilliseconds: t)
      landmarker.waitUntilIdle()
    }
    #expect(collector.faces.value == [1, 1])
  }

  /// After `resetTracking()` a landmarker starts an unrelated video from timestamp 0 and
  /// gives exactly what a freshly made one gives: no tracked face or filter state survives.
  @Test func resetTrackingStartsAFreshVideo() throws {
    let pan = try Self.sequence("pan")
    let frames = try pan.frames.map { try $0.loadImage() }
    let landmarker = try FaceLandmarker(options: pan.options(.video))
    var first: [FaceLandmarkerResult] = []
    for (frame, image) in zip(pan.frames, frames) {
      first.append(try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampMs))
    }
    landmarker.resetTracking()
    for (i, (frame, image)) in zip(pan.frames, frames).enumerated() {
      #expect(try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampMs) == first[i])
    }
    // Without the reset, going back to timestamp 0 is refused.
    #expect(throws: VisionTaskError.self) { try landmarker.detect(videoFrame: frames[0], timestampInMilliseconds: 0) }
  }

  /// `.everyFace` smooths each of several tracked faces with its own filter: the landmarks
  /// move less from frame to frame than unsmoothed ones but stay close to them, and each
  /// face keeps its identity (its smoothed landmarks stay with the raw face they follow).
  /// With one face it is exactly MediaPipe's smoothing.
  @Test func everyFaceSmoothingFollowsEachFace() throws {
    let two = try Self.sequence("two_faces")
    #expect(two.numFaces == 2)
    let raw = two.options(.video)
    raw.landmarkSmoothing = .mediaPipe  // MediaPipe does not smooth when numFaces > 1
    let smooth = raw.copy()
    smooth.landmarkSmoothing = .everyFace
    let (rawLandmarker, smoothLandmarker) = (try FaceLandmarker(options: raw), try FaceLandmarker(options: smooth))
    var (rawMotion, smoothMotion): (Float, Float) = (0, 0)
    var previous: ([[NormalizedLandmark]], [[NormalizedLandmark]])?
    for frame in two.frames {
      let image = try frame.loadImage()
      let r = try rawLandmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampMs).faceLandmarks
      let s = try smoothLandmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampMs).faceLandmarks
      try #require(r.count == 2 && s.count == 2)
      for (rf, sf) in zip(r, s) {
        let offset = zip(rf, sf).map { hypot($0.x - $1.x, $0.y - $1.y) }.max()!
        #expect(offset < 0.01, "a smoothed face strays \(offset) from its raw landmarks")
      }
      if let (pr, ps) = previous {
        rawMotion += jitter(pr, r)
        smoothMotion += jitter(ps, s)
      }
      previous = (r, s)
    }
    #expect(smoothMotion < rawMotion)
    #expect(smoothMotion > 0)

    let one = try Self.sequence("pan")
    let mediaPipe = one.options(.video)
    let everyFace = mediaPipe.copy()
    (mediaPipe.landmarkSmoothing, everyFace.landmarkSmoothing) = (.mediaPipe, .everyFace)
    let (a, b) = (try FaceLandmarker(options: mediaPipe), try FaceLandmarker(options: everyFace))
    for frame in one.frames {
      let image = try frame.loadImage()
      #expect(
        try a.detect(videoFrame: image, timestampInMilliseconds: frame.timestampMs)
          == b.detect(videoFrame: image, timestampInMilliseconds: frame.timestampMs))
    }
  }

  /// How much the faces' shapes change between two frames: each landmark's offset from its
  /// face's centre, compared frame to frame, so that the faces' motion does not count.
  private func jitter(_ a: [[NormalizedLandmark]], _ b: [[NormalizedLandmark]]) -> Float {
    var total: Float = 0
    for (fa, fb) in zip(a, b) {
      let ca = centre(fa)
      let cb = centre(fb)
      for (p, q) in zip(fa, fb) { total += hypot((p.x - ca.0) - (q.x - cb.0), (p.y - ca.1) - (q.y - cb.1)) }
    }
    return total
  }

  private func centre(_ face: [NormalizedLandmark]) -> (Float, Float) {
    (face.map(\.x).reduce(0, +) / Float(face.count), face.map(\.y).reduce(0, +) / Float(face.count))
  }

  @Test func oneLandmarkerServesManyThreads() throws {
    let options = Self.options()
    options.outputFaceBlendshapes = true
    options.outputFacialTransformationMatrixes = true
    let landmarker = try FaceLandmarker(options: options)
    let expected = try landmarker.detect(image: Self.astronaut)
    let results = Locked<[FaceLandmarkerResult]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      if let r = try? landmarker.detect(image: Self.astronaut) { results.mutate { $0.append(r) } }
    }
    #expect(results.value.count == 8 && results.value.allSatisfy { $0 == expected })
  }
}

/// The bundled face_landmarker.task rewritten without some of its entries.
enum TaskBundleFixture {
  static func write(dropping names: Set<String>) throws -> String {
    let bundle = try TaskBundle(bytes: Fixtures.taskBundleBytes())
    let kept = try bundle.entryNames.filter { !names.contains($0) }.map {
      ZipWriter.Entry(name: $0, data: try bundle.data(named: $0))
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("visage-\(UUID().uuidString).task").path
    FileManager.default.createFile(atPath: path, contents: Data(ZipWriter.archive(kept)))
    return path
  }
}
