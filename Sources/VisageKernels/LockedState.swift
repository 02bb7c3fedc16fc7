import Foundation

/// A value that threads share behind a lock: the classes that only guard state with a lock
/// hold it in one of these and so are plainly `Sendable`. (`Synchronization.Mutex` would do,
/// but it needs macOS 15 and iOS 18, and the package supports macOS 13 and iOS 16.)
package final class LockedState<Value> {
  private let lock = NSLock()
  private var value: Value

  package init(_ value: Value) { self.value = value }

  /// `body`'s result, with the value lent to it under the lock.
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

// Safe: value is touched only under lock (Mutex needs macOS 15; the library has no NIO).
extension LockedState: @unchecked Sendable where Value: Sendable {}

/// A value handed to another thread although its type does not say it may be. Each use says
/// what orders the accesses to it (a lock, a queue, or the order of delivery).
package struct Unchecked<Value> {
  package let value: Value
  package init(_ value: Value) { self.value = value }
}

// Safe per use (each says what orders the access); no lock or Sendable copy of the value exists.
extension Unchecked: @unchecked Sendable {}
