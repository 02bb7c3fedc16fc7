import Dispatch
import Foundation
import Testing

@testable import Visage

/// `TaskRunner`'s checks and its live stream: handing a frame over never waits for the frame
/// being processed, which keeps its task alive through its callback; a frame still waiting
/// when the task has gone is dropped.
struct TaskRunnerTests {
  /// Stands in for a task: it owns the runner, as `FaceDetector` and `FaceLandmarker` do.
  final class Owner: @unchecked Sendable {
    var runner: TaskRunner<Int>?
  }

  /// Held by a callback only, to see when whatever holds the callback lets go of it.
  final class Token: Sendable {}

  static let pixel = try! MPImage(width: 1, height: 1, rgb: [0, 0, 0])

  /// Waits until `isDone` holds, for at most ten seconds; false if it never did.
  static func wait(until isDone: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !isDone() {
      guard ContinuousClock.now < deadline else { return false }
      Thread.sleep(forTimeInterval: 0.001)
    }
    return true
  }

  @Test func aReleasedTaskFinishesItsFrameAndDropsTheWaitingOne() throws {
    let (started, gate) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let processed = Locked<[Int]>([])
    let delivered = Locked<[Int]>([])
    var owner: Owner? = Owner()
    owner?.runner = TaskRunner<Int>(runningMode: .liveStream) { _, timestamp in
      processed.mutate { $0.append(timestamp!) }
      if timestamp == 0 {
        started.signal()
        gate.wait()  // hold frame 0 in processing while the owner is released
      }
      return timestamp!
    }
    // Only the live-stream queue holds the callback, so the token goes when the queue does.
    var token: Token? = Token()
    weak var queue = token
    owner?.runner?.startLiveStream(label: "test", owner: owner!) { [token] _, outcome, timestamp in
      _ = token
      #expect((try? outcome.get()) == timestamp)
      delivered.mutate { $0.append(timestamp) }
    }
    token = nil
    try owner?.runner?.submit(Self.pixel, timestamp: 0, method: "detectAsync")
    started.wait()
    // Handing a frame over while another is being processed does not wait for it.
    try owner?.runner?.submit(Self.pixel, timestamp: 33, method: "detectAsync")
    weak var released = owner
    owner = nil
    gate.signal()
    // The runner and its queue go once the drain loop has let frame 33 go.
    #expect(Self.wait { released == nil && queue == nil })
    #expect(processed.value == [0])
    #expect(delivered.value == [0])
  }

  @Test func modesAndTimestampsAreChecked() throws {
    let video = TaskRunner<Int>(runningMode: .video) { _, timestamp in timestamp ?? -1 }
    #expect(throws: VisionTaskError.wrongRunningMode(method: "m", required: .image, current: .video)) {
      try video.image(Self.pixel, method: "m")
    }
    #expect(throws: VisionTaskError.wrongRunningMode(method: "m", required: .liveStream, current: .video)) {
      try video.submit(Self.pixel, timestamp: 1, method: "m")
    }
    #expect(try video.videoFrame(Self.pixel, timestamp: 5, method: "m") == 5)
    #expect(throws: VisionTaskError.timestampNotIncreasing(previous: 5, given: 5)) {
      try video.videoFrame(Self.pixel, timestamp: 5, method: "m")
    }
    video.reset {}
    #expect(try video.videoFrame(Self.pixel, timestamp: 0, method: "m") == 0)
    // Out of range is refused before the order is looked at, in live-stream mode too.
    #expect(throws: VisionTaskError.timestampOutOfRange(given: Int.max)) {
      try video.videoFrame(Self.pixel, timestamp: Int.max, method: "m")
    }
    let live = TaskRunner<Int>(runningMode: .liveStream) { _, timestamp in timestamp ?? -1 }
    #expect(throws: VisionTaskError.timestampOutOfRange(given: Int.min)) {
      try live.submit(Self.pixel, timestamp: Int.min, method: "m")
    }
    // A still image skips the gate: no timestamp, so any number of calls pass.
    let image = TaskRunner<Int>(runningMode: .image) { _, timestamp in timestamp ?? -1 }
    #expect(try image.image(Self.pixel, method: "m") == -1)
    #expect(try image.image(Self.pixel, method: "m") == -1)
  }
}
