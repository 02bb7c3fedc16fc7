import Visage
import VisageRuntime

extension Bench {
  /// Frame items: a camera frame into an `MPImage`, on the calling thread whatever
  /// `--threads` says. `nv12_frame`: 1920×1080 video-range NV12 (iOS `420v`), random
  /// samples, converted to RGB, the image's pixel storage allocated each time as a camera
  /// loop does.
  static let frameNames = ["nv12_frame"]

  func measureFrame() -> Timing.Statistics {
    let (width, height) = (1920, 1080)
    var random = SplitMix64(seed: 42)
    let frame = (0..<width * height * 3 / 2).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    var checksum = 0
    let stats = Timing.measure(warmup: warmup, iterations: iterations) {
      let image = try? MPImage(width: width, height: height, layout: .nv12, bytes: frame)
      checksum &+= Int(image?.pixels[width * 3] ?? 0)
    }
    // Used, so that the conversions cannot be optimized away.
    if checksum == -1 { print(checksum) }
    return stats
  }
}
