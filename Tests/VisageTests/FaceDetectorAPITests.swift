import Dispatch
import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// Running modes, timestamps, option checks, bad models and thread safety.
struct FaceDetectorAPITests {
  static let astronaut = try! MPImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))

  static func options(_ mode: RunningMode = .image) -> FaceDetectorOptions {
    FaceDetectorOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: mode)
  }

  @Test func methodsOfAnotherModeAreRefused() throws {
    let image = try FaceDetector(options: Self.options(.image))
    #expect(throws: VisionTaskError.self) { try image.detect(videoFrame: Self.astronaut, timestampInMilliseconds: 0) }
    #expect(throws: VisionTaskError.self) { try image.detectAsync(image: Self.astronaut, timestampInMilliseconds: 0) }
    let video = try FaceDetector(options: Self.options(.video))
    #expect(throws: VisionTaskError.wrongRunningMode(method: "detect(image:)", required: .image, current: .video)) {
      try video.detect(image: Self.astronaut)
    }
  }

  @Test func timestampsMustIncrease() throws {
    let video = try FaceDetector(options: Self.options(.video))
    _ = try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: 10)
    for bad in [10, 5, -5] {
      #expect(throws: VisionTaskError.timestampNotIncreasing(previous: 10, given: bad)) {
        try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: bad)
      }
    }
    #expect(try video.detect(videoFrame: Self.astronaut, timestampInMilliseconds: 11).detections.count == 1)
  }

  /// Options are a class, as MediaPipe's: the detector takes a copy when it is made, so later
  /// changes (here ones that would fail every call) do not reach it, and the copy it hands out
  /// cannot change it either.
  @Test func aDetectorKeepsTheOptionsItWasMadeWith() throws {
    let options = Self.options()
    options.minDetectionConfidence = 0.8
    let detector = try FaceDetector(options: options)
    options.minDetectionConfidence = 0.99
    options.runningMode = .video
    options.baseOptions.modelAssetPath = "/nonexistent.tflite"
    #expect(try detector.detect(image: Self.astronaut).detections.count == 1)
    detector.options.minDetectionConfidence = 1
    #expect(detector.options.minDetectionConfidence == 0.8 && detector.options.runningMode == .image)
    let copy = options.copy()
    copy.baseOptions.threadCount = 2
    #expect(options.baseOptions.threadCount == 1)
  }

  @Test func liveStreamNeedsExactlyItsDelegate() throws {
    #expect(throws: VisionTaskError.missingLiveStreamDelegate) { try FaceDetector(options: Self.options(.liveStream)) }
    let options = Self.options(.image)
    options.liveStreamHandler = { _, _, _ in }
    #expect(throws: VisionTaskError.unexpectedLiveStreamDelegate) { try FaceDetector(options: options) }
  }

  @Test(arguments: [(Float(1.5), Float(0.3)), (-0.1, 0.3), (.nan, 0.3), (0.5, 2), (0.5, -1)])
  func outOfRangeOptionsAreRefused(_ confidence: Float, _ suppression: Float) {
    let options = Self.options()
    options.minDetectionConfidence = confidence
    options.minSuppressionThreshold = suppression
    #expect(throws: VisionTaskError.self) { try FaceDetector(options: options) }
  }

  @Test(arguments: [Float(-0.1), 1.5, .nan])
  func outOfRangePresenceCheckIsRefused(_ presence: Float) {
    let options = Self.options()
    options.minFacePresenceConfidence = presence
    #expect(throws: VisionTaskError.self) { try FaceDetector(options: options) }
  }

  /// The face presence check needs the landmark model: from the `.task` bundle the detector
  /// comes from, or named apart; a lone detector `.tflite` gets a clear error.
  @Test func presenceCheckFindsItsLandmarkModel() throws {
    let options = Self.options()
    options.minFacePresenceConfidence = 0.5
    let result = try FaceDetector(options: options).detect(image: Self.astronaut)
    #expect(result.detections.count == 1)
    #expect((result.detections.first?.facePresence ?? 0) > 0.9)
    options.baseOptions.modelAssetPath = FullRangeTests.fullRangePath
    let error = try requireThrows(VisionTaskError.self) { try FaceDetector(options: options) }
    #expect("\(error)".contains("landmarksModelAssetPath"))
    options.landmarksModelAssetPath = BundledModel.taskBundlePath
    #expect(try FaceDetector(options: options).detect(image: Self.astronaut).detections.count == 1)
    options.landmarksModelAssetPath = BundledModel.faceDetector.reference
    #expect(throws: VisionTaskError.self) { try FaceDetector(options: options) }
  }

  @Test func mirroredOrientationIsRefused() throws {
    var image = Self.astronaut
    image.orientation = .leftMirrored
    let detector = try FaceDetector(options: Self.options())
    #expect(throws: VisionTaskError.self) { try detector.detect(image: image) }
  }

  @Test func badModelsAreClearErrors() throws {
    let missing = "/nonexistent/model.tflite"
    let error = try requireThrows(VisionTaskError.self) { try FaceDetector(modelPath: missing) }
    #expect("\(error)".contains(missing))
    // The landmark model loads but is not a detector.
    let landmarks = BundledModel.faceLandmarksDetector.reference
    let wrong = try requireThrows(VisionTaskError.self) { try FaceDetector(modelPath: landmarks) }
    #expect("\(wrong)".contains("[1, 256, 256, 3]"))
    // A truncated detector.
    let bytes = try Fixtures.bytes(atPath: FullRangeTests.fullRangePath)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("visage-truncated.tflite").path
    FileManager.default.createFile(atPath: path, contents: Data(bytes.prefix(bytes.count / 2)))
    #expect(throws: VisionTaskError.self) { try FaceDetector(modelPath: path) }
    #expect(throws: VisionTaskError.self) { try FaceDetector(modelPath: "") }
  }

  @Test func liveStreamDropsWaitingFramesAndKeepsOrder() throws {
    let gate = DispatchSemaphore(value: 0)
    let received = Locked<[Int]>([])
    let options = Self.options(.liveStream)
    options.liveStreamHandler = { result, timestamp, error in
      if timestamp == 0 { gate.wait() }  // hold the first frame in flight
      #expect(error == nil && result?.detections.count == 1 && result?.timestampInMilliseconds == timestamp)
      received.mutate { $0.append(timestamp) }
    }
    let detector = try FaceDetector(options: options)
    let start = ContinuousClock.now
    for t in 0..<6 { try detector.detectAsync(image: Self.astronaut, timestampInMilliseconds: t * 33) }
    // Handing frames over never waits for inference.
    #expect(ContinuousClock.now - start < .seconds(1))
    #expect(throws: VisionTaskError.self) {
      try detector.detectAsync(image: Self.astronaut, timestampInMilliseconds: 165)
    }
    gate.signal()
    detector.waitUntilIdle()
    // Frame 0 was in flight; 33...132 each waited and were replaced; 165 ran last.
    #expect(received.value == [0, 165])
  }

  @Test func aReleasedDetectorDropsItsWaitingFrame() throws {
    let (started, gate) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let received = Locked<[Int]>([])
    let options = Self.options(.liveStream)
    options.liveStreamHandler = { _, timestamp, _ in
      if timestamp == 0 {
        started.signal()
        gate.wait()
      }
      received.mutate { $0.append(timestamp) }
    }
    var detector: FaceDetector? = try FaceDetector(options: options)
    weak var released = detector
    try detector?.detectAsync(image: Self.astronaut, timestampInMilliseconds: 0)
    started.wait()
    try detector?.detectAsync(image: Self.astronaut, timestampInMilliseconds: 33)
    detector = nil
    gate.signal()
    // Frame 0's callback keeps the detector alive until it returns; then the detector is
    // freed (nothing else holds it) and the waiting frame gets no callback (TaskRunnerTests
    // follows that frame to its end).
    #expect(TaskRunnerTests.wait { released == nil })
    #expect(received.value == [0])
  }

  @Test func liveStreamDelegateIsCalled() throws {
    final class Collector: FaceDetectorLiveStreamDelegate, @unchecked Sendable {
      let timestamps = Locked<[Int]>([])
      func faceDetector(
        _ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
        timestampInMilliseconds: Int, error: (any Error)?
      ) { timestamps.mutate { $0.append(timestampInMilliseconds) } }
    }
    let collector = Collector()
    let options = Self.options(.liveStream)
    options.faceDetectorLiveStreamDelegate = collector
    let detector = try FaceDetector(options: options)
    for t in [5, 9] {
      try detector.detectAsync(image: Self.astronaut, timestampInMilliseconds: t)
      detector.waitUntilIdle()
    }
    #expect(collector.timestamps.value == [5, 9])
  }

  @Test func oneDetectorServesManyThreads() throws {
    let detector = try FaceDetector(options: Self.options())
    let expected = try detector.detect(image: Self.astronaut)
    let results = Locked<[FaceDetectorResult]>([])
    DispatchQueue.concurrentPerform(iterations: 16) { _ in
      if let r = try? detector.detect(image: Self.astronaut) { results.mutate { $0.append(r) } }
    }
    #expect(results.value.count == 16 && results.value.allSatisfy { $0 == expected })
  }

  @Test func orientationTurnsTheInputNotTheCoordinates() throws {
    // The same pixels read as `.down` see an upside-down face the right way up; boxes stay
    // in the stored image's pixels.
    let rotated = try MPImage(
      contentsOfFile: Fixtures.fixturePath("detector/images/rotated_180.png"), orientation: .down)
    let face = try #require(try FaceDetector(options: Self.options()).detect(image: rotated).detections.first)
    let box = face.boundingBox
    #expect(box.minX >= 0 && box.maxX <= Double(rotated.width) && box.maxY <= Double(rotated.height))
    // Upside down, the eyes are below the mouth in stored pixels.
    let k = try #require(face.keypoints)
    #expect(k[0].location.y > k[3].location.y)
  }
}

/// A value guarded by a lock, for collecting results across threads in tests.
final class Locked<Value>: @unchecked Sendable {
  private var stored: Value
  private let lock = NSLock()
  init(_ value: Value) { stored = value }
  var value: Value { lock.withLock { stored } }
  func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
