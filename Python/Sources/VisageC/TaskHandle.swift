import CVisage
import Foundation
import Visage

/// The function Python gives for live-stream results: (context, result table or nil,
/// timestamp in ms, error text or nil). It owns the table it is given (`visage_result_free`).
public typealias LiveStreamCallback = visage_live_stream_callback

/// One task behind a C handle: a face landmarker or a face detector. The engine's tasks
/// serialise their own calls, so a handle may be used from several threads at once.
final class TaskHandle: @unchecked Sendable {
  // @unchecked: `task` is set once in init, after the live-stream closure that captures self
  // (so it cannot be a `let`); `sizes` and `closed` are guarded by `lock`. Synchronization's
  // Mutex would need macOS 15, which this package does not require.
  private enum Task {
    case landmarker(FaceLandmarker)
    case detector(FaceDetector)
  }
  private var task: Task!
  private let lock = NSLock()
  /// Live-stream frames' sizes by timestamp, for the detector's in-plane rotations.
  private var sizes: [Int: (Int, Int)] = [:]
  private var closed = false

  init(configuration: TaskConfiguration, callback: LiveStreamCallback?, context: UnsafeMutableRawPointer?) throws {
    let context = UInt(bitPattern: context)
    let live = callback != nil && configuration.runningMode == .liveStream
    switch configuration.kind {
    case .faceLandmarker:
      var handler: (@Sendable (FaceLandmarkerResult?, Int, (any Error)?) -> Void)?
      if let callback, live {
        handler = { [weak self] result, timestamp, error in
          self?.deliver(result.map { ResultTable($0) }, timestamp, error, callback, context)
        }
      }
      task = .landmarker(try FaceLandmarker(options: try configuration.landmarkerOptions(handler: handler)))
    case .faceDetector:
      var handler: (@Sendable (FaceDetectorResult?, Int, (any Error)?) -> Void)?
      if let callback, live {
        handler = { [weak self] result, timestamp, error in
          guard let self else { return }
          let size = self.lock.withLock { () -> (Int, Int)? in
            let size = self.sizes[timestamp]
            self.sizes = self.sizes.filter { $0.key > timestamp }
            return size
          }
          let table = result.map { ResultTable($0, imageWidth: size?.0 ?? 1, imageHeight: size?.1 ?? 1) }
          self.deliver(table, timestamp, error, callback, context)
        }
      }
      task = .detector(try FaceDetector(options: try configuration.detectorOptions(handler: handler)))
    }
  }

  private func deliver(
    _ table: ResultTable?, _ timestamp: Int, _ error: Error?, _ callback: LiveStreamCallback, _ context: UInt
  ) {
    guard !lock.withLock({ closed }) else { return }
    let pointer = table.map { Unmanaged.passRetained($0).toOpaque() }
    if let error {
      String(describing: error).withCString {
        callback(UnsafeMutableRawPointer(bitPattern: context), pointer, Int64(timestamp), $0)
      }
    } else {
      callback(UnsafeMutableRawPointer(bitPattern: context), pointer, Int64(timestamp), nil)
    }
  }

  /// Runs one image: a still image, a video frame or a live-stream frame (whose result goes to
  /// the callback; nil is returned). The table records how long the engine's
  /// own call took, so that a benchmark can tell it from the cost of crossing into Python.
  func run(
    mode: visage_running_mode, source: PixelSource, timestamp: Int, regions: [FaceRegion]?
  ) throws -> ResultTable? {
    // Image and video calls read the caller's pixels in place; a live-stream frame is kept for
    // later, so it is copied.
    if mode == VISAGE_LIVE_STREAM {
      return try run(mode: mode, image: try source.image(), timestamp: timestamp, regions: regions)
    }
    return try source.withImage {
      try run(mode: mode, image: $0, timestamp: timestamp, regions: regions)
    }
  }

  private func run(mode: visage_running_mode, image: MPImage, timestamp: Int, regions: [FaceRegion]?) throws
    -> ResultTable?
  {
    let clock = ContinuousClock()
    var engineTime = Duration.zero
    // The task's own call, timed as `visage bench` times it.
    func timed<Result>(_ call: () throws -> Result) rethrows -> Result {
      let start = clock.now
      defer { engineTime = start.duration(to: clock.now) }
      return try call()
    }
    let table: ResultTable
    switch (task!, mode) {
    case (.landmarker(let task), VISAGE_IMAGE):
      table = ResultTable(
        try timed { try regions.map { try task.detect(image: image, faceRegions: $0) } ?? task.detect(image: image) })
    case (.landmarker(let task), VISAGE_VIDEO):
      table = ResultTable(try timed { try task.detect(videoFrame: image, timestampInMilliseconds: timestamp) })
    case (.landmarker(let task), VISAGE_LIVE_STREAM):
      try task.detectAsync(image: image, timestampInMilliseconds: timestamp)
      return nil
    case (.detector, _) where regions != nil:
      throw CallError("face regions are for the face landmarker")
    case (.detector(let task), VISAGE_IMAGE):
      let result = try timed { try task.detect(image: image) }
      table = ResultTable(result, imageWidth: image.width, imageHeight: image.height)
    case (.detector(let task), VISAGE_VIDEO):
      let result = try timed { try task.detect(videoFrame: image, timestampInMilliseconds: timestamp) }
      table = ResultTable(result, imageWidth: image.width, imageHeight: image.height)
    case (.detector(let task), VISAGE_LIVE_STREAM):
      lock.withLock { sizes[timestamp] = (image.width, image.height) }
      try task.detectAsync(image: image, timestampInMilliseconds: timestamp)
      return nil
    default:
      throw CallError("unknown running mode \(mode.rawValue)")
    }
    table.engineTime = engineTime
    return table
  }

  /// Waits for the live stream's frames in hand, then stops calling back.
  func close() {
    switch task! {
    case .landmarker(let task): task.waitUntilIdle()
    case .detector(let task): task.waitUntilIdle()
    }
    lock.withLock { closed = true }
  }
}
