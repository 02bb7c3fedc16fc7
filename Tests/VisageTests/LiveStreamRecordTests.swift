import Dispatch
import Testing

@testable import Visage

/// `LiveStreamRecord` and `LiveStreamRunner` together, as the command line and the server use
/// them: every frame answered once, in order, as processed, dropped or failed.
struct LiveStreamRecordTests {
  struct Refused: Error, Equatable {}

  /// The record's answers, as "entry:outcome" strings in the order given.
  static func record() -> (LiveStreamRecord<String, Int>, Locked<[String]>) {
    let answers = Locked<[String]>([])
    let record = LiveStreamRecord<String, Int> { entry, _, outcome in
      let text =
        switch outcome {
        case .processed(let output): (try? output.get()).map { "\($0)" } ?? "error"
        case .dropped: "dropped"
        case .failed: "failed"
        }
      answers.mutate { $0.append("\(entry):\(text)") }
    }
    return (record, answers)
  }

  @Test func framesAreAnsweredInOrder() {
    let (record, answers) = Self.record()
    // A frame that never reached the task, first in line, waits for nothing.
    record.add("a", timestamp: 0, failure: Refused())
    #expect(answers.value == ["a:failed"])
    record.add("b", timestamp: 10)
    record.add("c", timestamp: 20)
    record.add("d", timestamp: 30, failure: Refused())
    record.add("e", timestamp: 40)
    record.withdraw(timestamp: 40, error: Refused())
    record.add("f", timestamp: 50)
    // "d" and "e" failed but wait for "c"; the output for "c" says "b" was dropped.
    #expect(answers.value == ["a:failed"])
    record.deliver(.success(20), timestamp: 20)
    #expect(answers.value == ["a:failed", "b:dropped", "c:20", "d:failed", "e:failed"])
    record.deliver(.failure(Refused()), timestamp: 50)
    record.add("g", timestamp: 60)
    record.finish()
    #expect(answers.value == ["a:failed", "b:dropped", "c:20", "d:failed", "e:failed", "f:error", "g:dropped"])
  }

  @Test func theRunnerDropsTheWaitingFrameForANewerOne() {
    let (record, answers) = Self.record()
    let (started, gate) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let runner = LiveStreamRunner<Int>(label: "test") { frame, timestamp in
      if frame == 0 {
        started.signal()
        gate.wait()  // frame 0 stays in flight while the others arrive
      }
      record.deliver(.success(frame), timestamp: timestamp)
    }
    for frame in 0..<4 {
      record.add("\(frame)", timestamp: frame)
      // Frame 1 waits; frame 2 takes its place (dropping it), then frame 3 frame 2's.
      #expect(runner.submit(frame, timestamp: frame) == (frame < 2))
      if frame == 0 { started.wait() }
    }
    gate.signal()
    runner.waitUntilIdle()
    record.finish()
    #expect(answers.value == ["0:0", "1:dropped", "2:dropped", "3:3"])
  }
}
