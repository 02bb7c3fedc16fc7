import Dispatch
import Foundation
import Testing
import Visage
import VisageTestSupport

/// Four threads feeding one live-stream `FaceLandmarker` at once, checked against the flow
/// limiter's contract (`LiveStreamRunner`: one frame in flight, one waiting, a newer frame
/// replaces the waiting one): results come in timestamp order, no frame is lost except by
/// replacement, and no callback comes once the landmarker is gone.
///
/// Runs for `VISAGE_STRESS_SECONDS` seconds (1 by default; the ThreadSanitizer step of
/// `.ci/run` sets 10), since the point under ThreadSanitizer is a long interleaving.
struct LiveStreamStressTests {
  static var seconds: Double {
    ProcessInfo.processInfo.environment["VISAGE_STRESS_SECONDS"].flatMap(Double.init) ?? 1
  }

  /// What the submitters and the callback saw, under one lock.
  final class Log: @unchecked Sendable {
    let lock = NSLock()
    /// The next timestamp to hand out: every submission takes the next one, whatever thread.
    var next = 0
    /// Timestamps whose `detectAsync` returned, in order.
    var accepted: [Int] = []
    /// Each callback's timestamp, and the newest accepted timestamp when it returned.
    var delivered: [(timestamp: Int, newestAccepted: Int)] = []
    var problems: [String] = []
    /// Set once the landmarker has been deallocated.
    var released = false
    var callbacksAfterRelease = 0

    /// Submits the next timestamp. The lock is held across `detectAsync` so that "accepted"
    /// is exact when a callback reads it; `detectAsync` never waits for inference.
    func submit(_ image: MPImage, to landmarker: FaceLandmarker) {
      lock.withLock {
        do {
          try landmarker.detectAsync(image: image, timestampInMilliseconds: next)
          accepted.append(next)
        } catch {
          problems.append("detectAsync(\(next)) threw \(error)")
        }
        next += 1
      }
    }
  }

  @Test func fourThreadsFeedOneLandmarker() throws {
    let log = Log()
    let image = FaceDetectorAPITests.astronaut
    let options = FaceLandmarkerAPITests.options(.liveStream)
    options.liveStreamHandler = { result, timestamp, error in
      log.lock.withLock {
        if log.released { log.callbacksAfterRelease += 1 }
        if let error { log.problems.append("frame \(timestamp) failed: \(error)") }
        if let result, result.timestampInMilliseconds != timestamp || result.faceLandmarks.count != 1 {
          log.problems.append(
            "frame \(timestamp): result for \(result.timestampInMilliseconds) with \(result.faceLandmarks.count) faces")
        }
        // Read last, as the callback returns: the runner picks its next frame after this.
        log.delivered.append((timestamp, log.accepted.last ?? -1))
      }
    }

    weak var watcher: FaceLandmarker?
    do {
      let landmarker = try FaceLandmarker(options: options)
      watcher = landmarker
      let deadline = Date(timeIntervalSinceNow: Self.seconds)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in
        while Date() < deadline {
          log.submit(image, to: landmarker)
          usleep(200)  // let the other threads in between
        }
      }
      landmarker.waitUntilIdle()
      log.lock.withLock {
        // The newest frame is never replaced, so it is always delivered.
        #expect(log.delivered.last?.timestamp == log.accepted.last, "the last frame handed over was lost")
      }
      // A burst still queued when the landmarker goes away: its waiting frame is dropped.
      for _ in 0..<8 { log.submit(image, to: landmarker) }
    }
    // A frame in flight keeps the landmarker alive until its callback returns.
    let giveUp = Date(timeIntervalSinceNow: 60)
    while watcher != nil && Date() < giveUp { usleep(1_000) }
    #expect(watcher == nil, "the landmarker was not released within 60 s")
    log.lock.withLock { log.released = true }
    usleep(500_000)

    log.lock.withLock {
      #expect(log.problems.isEmpty, "\(log.problems.prefix(5))")
      #expect(
        log.callbacksAfterRelease == 0, "\(log.callbacksAfterRelease) callbacks after the landmarker was released")
      let accepted = Set(log.accepted)
      #expect(log.accepted.count > 4 && log.delivered.count >= 2)
      for (i, delivery) in log.delivered.enumerated() {
        #expect(accepted.contains(delivery.timestamp), "frame \(delivery.timestamp) was delivered but never accepted")
        guard i > 0 else { continue }
        let previous = log.delivered[i - 1]
        #expect(delivery.timestamp > previous.timestamp, "frame \(delivery.timestamp) came after \(previous.timestamp)")
        // Frames accepted while `previous` was in flight waited; only a newer frame may have
        // replaced the newest of them, so the next delivery cannot be older than it.
        if previous.newestAccepted > previous.timestamp {
          #expect(
            delivery.timestamp >= previous.newestAccepted,
            "frame \(previous.newestAccepted) was waiting when \(previous.timestamp) finished, but \(delivery.timestamp) came next"
          )
        }
      }
      print(
        "live-stream stress: \(Self.seconds) s, \(log.accepted.count) frames handed over by 4 threads, \(log.delivered.count) delivered"
      )
    }
  }
}
