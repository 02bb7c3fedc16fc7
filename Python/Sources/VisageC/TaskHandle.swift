import Foundation
import Visage

/// The function Python gives for live-stream results: (context, result table or nil,
/// timestamp in ms, error text or nil). It owns the table it is given (`visage_result_free`).
public typealias LiveStreamCallback =
  @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int64, UnsafePointer<CChar>?
  ) -> Void

/// One task behind a C handle: a face landmarker or a face detector. The engine's tasks
/// serialise their own calls, so a handle may be used from several threads at once.
final class TaskHandle: @unchecked Sendable {
  // @unchecked: `task` is set once in init; `sizes` and `closed` are guarded by `lock`.
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
    switch configuration.task {
    case .faceLandmarker:
      let options = try configuration.landmarkerOptions()
      if let callback, configuration.runningMode == .liveStream {
        options.liveStreamHandler = { [weak self] result, timestamp, error in
          self?.deliver(result.map { ResultTable($0) }, timestamp, error, callback, context)
        }
      }
      task = .landmarker(try FaceLandmarker(options: options))
    case .faceDetector:
      let options = try configuration.detectorOptions()
      if let callback, configuration.runningMode == .liveStream {
        options.liveStreamHandler = { [weak self] result, timestamp, error in
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
      task = .detector(try FaceDetector(options: options))
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

  /// Runs one image: mode 0 is a still image, 1 a video frame, 2 a live-stream frame (whose
  /// result goes to the callback; nil is returned).
  func run(mode: Int32, image: MPImage, timestamp: Int, regions: [FaceRegion]?) throws -> ResultTable? {
    switch (task!, mode) {
    case (.landmarker(let task), 0):
      return ResultTable(
        try regions.map { try task.detect(image: image, faceRegions: $0) } ?? task.detect(image: image))
    case (.landmarker(let task), 1):
      return ResultTable(try task.detect(videoFrame: image, timestampInMilliseconds: timestamp))
    case (.landmarker(let task), 2):
      try task.detectAsync(image: image, timestampInMilliseconds: timestamp)
    case (.detector, _) where regions != nil:
      throw CallError("face regions are for the face landmarker")
    case (.detector(let task), 0):
      return ResultTable(try task.detect(image: image), imageWidth: image.width, imageHeight: image.height)
    case (.detector(let task), 1):
      let result = try task.detect(videoFrame: image, timestampInMilliseconds: timestamp)
      return ResultTable(result, imageWidth: image.width, imageHeight: image.height)
    case (.detector(let task), 2):
      lock.withLock { sizes[timestamp] = (image.width, image.height) }
      try task.detectAsync(image: image, timestampInMilliseconds: timestamp)
    default:
      throw CallError("unknown running mode \(mode)")
    }
    return nil
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
