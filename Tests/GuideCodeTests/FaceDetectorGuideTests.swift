import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

// The MediaPipe Face Detector guide for iOS, call by call, as FaceLandmarkerGuideTests does
// for the landmarker: `model.tflite` from `Bundle.main`, options in a `let`, each running mode,
// and the delegate as the guide declares it. A camera frame comes as NV12, the layout of
// `AVCaptureVideoDataOutput`'s default 420v buffers, where the guide has `MPImage(sampleBuffer:)`.

/// The guide's live-stream delegate shape: a plain NSObject subclass, not `Sendable`.
class FaceDetectorResultProcessor: NSObject, FaceDetectorLiveStreamDelegate {
  private let lock = NSLock()
  private var results: [(Int, FaceDetectorResult?)] = []

  func faceDetector(
    _ faceDetector: FaceDetector,
    didFinishDetection result: FaceDetectorResult?,
    timestampInMilliseconds: Int,
    error: Error?
  ) {
    lock.lock()
    results.append((timestampInMilliseconds, result))
    lock.unlock()
  }

  var received: [(Int, FaceDetectorResult?)] {
    lock.lock()
    defer { lock.unlock() }
    return results
  }
}

@Suite struct FaceDetectorGuideTests {
  init() { GuideModels.place() }

  func picture() throws -> MPImage {
    try MPImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
  }

  /// The picture as a camera's NV12 frame (BT.601 video range, rows padded to 64 bytes as Core
  /// Video pads them), converted here with the textbook formulas.
  func cameraFrame() throws -> MPImage {
    let rgb = try picture()
    let (w, h) = (rgb.width, rgb.height)
    let rowBytes = (w + 63) / 64 * 64
    var luma = [UInt8](repeating: 0, count: rowBytes * h)
    var chroma = [UInt8](repeating: 0, count: rowBytes * h / 2)
    func level(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
    for y in 0..<h {
      for x in 0..<w {
        let i = (y * w + x) * 3
        let (r, g, b) = (Double(rgb.pixels[i]), Double(rgb.pixels[i + 1]), Double(rgb.pixels[i + 2]))
        let yy: Double = 16 + 0.257 * r + 0.504 * g + 0.098 * b
        luma[y * rowBytes + x] = level(yy)
        if x % 2 == 0 && y % 2 == 0 {
          let u: Double = 128 - 0.148 * r - 0.291 * g + 0.439 * b
          let v: Double = 128 + 0.439 * r - 0.368 * g - 0.071 * b
          chroma[y / 2 * rowBytes + x] = level(u)
          chroma[y / 2 * rowBytes + x + 1] = level(v)
        }
      }
    }
    return try luma.withUnsafeBytes { y in
      try chroma.withUnsafeBytes { uv in
        try MPImage(
          width: w, height: h, layout: .nv12, range: .video,
          planes: [MPImage.Plane(bytes: y, bytesPerRow: rowBytes), MPImage.Plane(bytes: uv, bytesPerRow: rowBytes)])
      }
    }
  }

  /// What the guide says a result holds: a box, one category with a score, six keypoints.
  func expectDescribed(_ result: FaceDetectorResult) {
    #expect(result.detections.count == 1)
    guard let detection = result.detections.first else { return }
    #expect(detection.boundingBox.width > 50 && detection.boundingBox.height > 50)
    #expect(detection.categories.count == 1 && detection.categories[0].score > 0.5)
    #expect(detection.keypoints?.count == 6)
  }

  @Test func imageMode() throws {
    let modelPath = Bundle.main.path(
      forResource: "model",
      ofType: "tflite")

    let options = FaceDetectorOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image

    let faceDetector = try FaceDetector(options: options)

    let image = try picture()
    let result = try faceDetector.detect(image: image)
    expectDescribed(result)
  }

  @Test func videoModeOnCameraFrames() throws {
    let modelPath = Bundle.main.path(
      forResource: "model",
      ofType: "tflite")

    let options = FaceDetectorOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video

    let faceDetector = try FaceDetector(options: options)

    let image = try cameraFrame()
    let result = try faceDetector.detect(
      videoFrame: image,
      timestampInMilliseconds: 0)
    expectDescribed(result)
    // The camera frame's face is the picture's, within the conversion's rounding.
    let still = try FaceDetector(modelPath: modelPath!).detect(image: picture())
    if let a = result.detections.first?.boundingBox, let b = still.detections.first?.boundingBox {
      #expect(abs(a.midX - b.midX) <= 2 && abs(a.midY - b.midY) <= 2 && abs(a.width - b.width) <= 3)
    }
  }

  @Test func liveStreamMode() throws {
    let modelPath = Bundle.main.path(
      forResource: "model",
      ofType: "tflite")

    let options = FaceDetectorOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream

    let processor = FaceDetectorResultProcessor()
    options.faceDetectorLiveStreamDelegate = processor

    let faceDetector = try FaceDetector(options: options)

    let image = try cameraFrame()
    let timestamp = 40
    try faceDetector.detectAsync(
      image: image,
      timestampInMilliseconds: timestamp)

    faceDetector.waitUntilIdle()
    #expect(processor.received.map(\.0) == [40])
    if let result = processor.received.first?.1 { expectDescribed(result) }
  }
}
