import Visage

/// The frame rates the command line accepts, from `--fps` or a YUV4MPEG2 header, and the
/// timestamps round(i·1000/fps) ms they give.
///
/// A rate is accepted when it is finite, positive, at most `maximum` (so that consecutive
/// frames get different millisecond timestamps, which video and live-stream mode need), and
/// low enough in period that the frames' timestamps stay within
/// `RunningMode.timestampRangeInMilliseconds`: the second frame's always, every frame's when
/// the number of frames is known beforehand. A stream of unknown length that outlives the
/// range gets an error line for each frame past it.
enum FrameRate {
  /// One frame per millisecond: above it, two frames would share a timestamp.
  static let maximum = 1000.0

  /// Why `fps` cannot time `frames` frames (nil: unknown, at least two), or nil if it can.
  static func problem(_ fps: Double, frames: Int? = nil) -> String? {
    guard fps.isFinite, fps > 0, fps <= maximum else {
      return "the frame rate must be a finite number in (0, \(Int(maximum))] frames per second, got \(fps)"
    }
    do { _ = try timestamp(max(1, (frames ?? 2) - 1), fps: fps) } catch { return error.description }
    return nil
  }

  /// The timestamp of frame `index` at `fps` frames per second, round(index·1000/fps) ms,
  /// computed in Double and checked before it becomes an `Int`.
  static func timestamp(_ index: Int, fps: Double) throws(CLIError) -> Int {
    let milliseconds = (Double(index) * 1000 / fps).rounded()
    // The bound is below 2^53, so it converts to Double exactly and the comparison is exact.
    guard milliseconds.isFinite, milliseconds >= 0,
      milliseconds <= Double(RunningMode.timestampRangeInMilliseconds.upperBound)
    else {
      throw CLIError(
        "frame \(index)'s timestamp at \(fps) frames per second would exceed the largest the tasks accept, "
          + "\(RunningMode.timestampRangeInMilliseconds.upperBound) ms")
    }
    return Int(milliseconds)
  }
}
