import Foundation
import VisageKernels

extension WorkPool {
  /// Runs `work` on each item `next` gives, each on whichever worker is free, and hands each
  /// output to `deliver` in the items' order; returns after the last delivery.
  ///
  /// - `next` is called on the calling thread, one item at a time, only while fewer than
  ///   `window` items are taken and not yet delivered: so memory stays bounded however slow
  ///   one item is, and an item that waits on its input (a record on standard input) does not
  ///   hold back the delivery of those before it.
  /// - `deliver` is called one output at a time, in order, on the worker thread that finished
  ///   the next item in order (the others go on meanwhile). An item counts as taken until its
  ///   delivery returns, so `deliver` may do more work (run a model on a decoded image).
  /// - `work` and `deliver` run on the pool's threads while this call waits, so they may use
  ///   what the caller holds; nothing of an item is kept once it is delivered. The call
  ///   returns once the pool is idle, so the pool must run nothing else meanwhile.
  public func forEachInOrder<Item, Output>(
    next: () -> Item?, window: Int, work: (Worker, Item) -> Output, deliver: (Output) -> Void
  ) {
    precondition(window >= 1, "the window holds at least one item")
    withoutActuallyEscaping(work) { work in
      withoutActuallyEscaping(deliver) { deliver in
        let order = InOrder<Output>(deliver: deliver)
        let work = Unchecked(work)
        var taken = 0
        while true {
          order.waitForRoom(taken: taken, window: window)
          guard let item = next() else { break }
          let slot = taken
          taken += 1
          let box = Unchecked(item)
          submit { worker in order.finish(slot, Unchecked(work.value(worker, box.value))) }
        }
        order.waitForAll(taken)
        // The jobs hold `work` and `deliver`, which must not outlive this call.
        waitUntilIdle()
      }
    }
  }
}

/// The outputs of `forEachInOrder` waiting for those before them, and who delivers.
// Threads: the pool's threads finish outputs; its state is touched only under `condition`,
// and one thread delivers at a time.
private final class InOrder<Output> {
  private let condition = NSCondition()
  private let deliver: (Output) -> Void
  // Under `condition`: outputs finished and not delivered by slot, how many are delivered,
  // and whether a thread is delivering (outputs finished meanwhile wait for it).
  private var done: [Int: Unchecked<Output>] = [:]
  private var delivered = 0
  private var delivering = false

  init(deliver: @escaping (Output) -> Void) { self.deliver = deliver }

  func waitForRoom(taken: Int, window: Int) {
    condition.withLock { while taken - delivered >= window { condition.wait() } }
  }

  func waitForAll(_ taken: Int) {
    condition.withLock { while delivered < taken { condition.wait() } }
  }

  /// Stores a slot's output; then, unless another thread is delivering, delivers every output
  /// that is next in order, outside the lock.
  func finish(_ slot: Int, _ output: consuming Unchecked<Output>) {
    condition.lock()
    done[slot] = output
    guard !delivering else { return condition.unlock() }
    delivering = true
    while let next = done.removeValue(forKey: delivered) {
      condition.unlock()
      deliver(next.value)
      condition.lock()
      delivered += 1
      condition.broadcast()
    }
    delivering = false
    condition.unlock()
  }
}
