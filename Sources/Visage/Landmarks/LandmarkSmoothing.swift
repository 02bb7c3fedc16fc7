import Foundation

/// MediaPipe's `LowPassFilter`: float state, the blend computed partly in double exactly as
/// its C++ mixes float and double.
struct LowPassFilter {
  private(set) var alpha: Float
  private(set) var rawValue: Float = 0
  private(set) var storedValue: Float = 0
  private(set) var isInitialized = false

  init(alpha: Float) { self.alpha = alpha }

  mutating func apply(_ value: Float, alpha newAlpha: Float) -> Float {
    // An alpha outside [0, 1] is ignored, keeping the previous one (MediaPipe logs it).
    if newAlpha >= 0 && newAlpha <= 1 { alpha = newAlpha }
    let result: Float
    if isInitialized {
      result = Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(storedValue))
    } else {
      result = value
      isInitialized = true
    }
    rawValue = value
    storedValue = result
    return result
  }
}

/// MediaPipe's `OneEuroFilter` (Casiez et al.'s 1€ filter) for one coordinate.
struct OneEuroFilter {
  private var frequency: Double
  private let minCutoff: Double
  private let beta: Double
  private let derivativeCutoff: Double
  private var x: LowPassFilter
  private var dx: LowPassFilter
  /// Nanoseconds; −1 until the first value.
  private var lastTime: Int64 = -1

  init(frequency: Double, minCutoff: Double, beta: Double, derivativeCutoff: Double) {
    self.frequency = frequency
    self.minCutoff = minCutoff
    self.beta = beta
    self.derivativeCutoff = derivativeCutoff
    x = LowPassFilter(alpha: Float(Self.alpha(cutoff: minCutoff, frequency: frequency)))
    dx = LowPassFilter(alpha: Float(Self.alpha(cutoff: derivativeCutoff, frequency: frequency)))
  }

  private static func alpha(cutoff: Double, frequency: Double) -> Double {
    let te = 1.0 / frequency
    let tau = 1.0 / (2 * Double.pi * cutoff)
    return 1.0 / (1.0 + tau / te)
  }

  private func alpha(cutoff: Double) -> Double { Self.alpha(cutoff: cutoff, frequency: frequency) }

  mutating func apply(_ value: Double, nanoseconds: Int64, valueScale: Double) -> Double {
    // `lastTime` only ever holds −1 or a later time, so the gap below cannot overflow.
    if lastTime >= nanoseconds { return value }
    if lastTime != 0 && nanoseconds != 0 {
      frequency = 1.0 / (Double(nanoseconds - lastTime) * 1e-9)
    }
    lastTime = nanoseconds
    var derivative = 0.0
    if x.isInitialized {
      derivative = (value - Double(x.rawValue)) * valueScale * frequency
    }
    let smoothedDerivative = Double(dx.apply(Float(derivative), alpha: Float(alpha(cutoff: derivativeCutoff))))
    let cutoff = minCutoff + beta * abs(smoothedDerivative)
    return Double(x.apply(Float(value), alpha: Float(alpha(cutoff: cutoff))))
  }
}

/// Smooths one face's landmarks over time the way MediaPipe's face landmarker does in
/// video and live-stream mode: a 1€ filter per landmark and axis (min cutoff 0.05, beta
/// 80, derivative cutoff 1), values in pixels, velocities scaled by the face's size.
struct LandmarkSmoother {
  private var filters: [OneEuroFilter] = []
  /// The filter's settings.
  var parameters: LandmarkFilterParameters

  init(parameters: LandmarkFilterParameters = .mediaPipe) { self.parameters = parameters }

  /// Forgets the past: the next frame comes out unfiltered.
  mutating func reset() { filters.removeAll(keepingCapacity: true) }

  /// The smoothed landmarks of a frame at `timestampInMilliseconds`.
  mutating func smooth(_ landmarks: [SIMD3<Float>], timestampInMilliseconds: Int, imageWidth: Int, imageHeight: Int)
    -> [SIMD3<Float>]
  {
    var landmarks = landmarks
    let (w, h) = (Float(imageWidth), Float(imageHeight))
    func pixel(_ p: SIMD3<Float>) -> SIMD3<Float> { SIMD3(p.x * w, p.y * h, p.z * w) }
    if filters.isEmpty {
      // The options are float fields (0.05f widens to 0.050000000745…); the filter works in double.
      let p = parameters
      filters = Array(
        repeating: OneEuroFilter(
          frequency: Double(p.frequency), minCutoff: Double(p.minCutoff), beta: Double(p.beta),
          derivativeCutoff: Double(p.derivativeCutoff)),
        count: landmarks.count * 3)
    }
    // Object scale: the mean of the landmarks' bounding box width and height, in pixels.
    var low = SIMD2<Float>(repeating: .greatestFiniteMagnitude)
    var high = -low
    for landmark in landmarks {
      let p = pixel(landmark)
      low = SIMD2(min(low.x, p.x), min(low.y, p.y))
      high = SIMD2(max(high.x, p.x), max(high.y, p.y))
    }
    let scale = ((high.x - low.x) + (high.y - low.y)) / 2
    if scale < 1e-6 { return landmarks }
    let valueScale = Double(1 / scale)
    // The task's timestamp gate admits only `RunningMode.timestampRangeInMilliseconds`,
    // chosen so that this product fits.
    let nanoseconds = Int64(timestampInMilliseconds) * 1_000_000
    for i in landmarks.indices {
      let p = pixel(landmarks[i])
      var q = SIMD3<Float>()
      for axis in 0..<3 {
        q[axis] = Float(filters[3 * i + axis].apply(Double(p[axis]), nanoseconds: nanoseconds, valueScale: valueScale))
      }
      landmarks[i] = SIMD3(q.x / w, q.y / h, q.z / w)
    }
    return landmarks
  }
}

/// Visage: the settings of the 1€ filter that smooths landmarks in video and live-stream mode
/// (`FaceLandmarkerOptions.landmarkFilter`), MediaPipe's `OneEuroFilter` options. A lower
/// `minCutoff` smooths a still face more; a higher `beta` follows a moving face with less lag.
public struct LandmarkFilterParameters: Sendable, Hashable {
  /// The frame rate assumed before two frames give one, in hertz.
  public var frequency: Float
  /// The cutoff frequency at rest, in hertz.
  public var minCutoff: Float
  /// How fast the cutoff rises with speed.
  public var beta: Float
  /// The cutoff of the speed's own filter, in hertz.
  public var derivativeCutoff: Float

  /// Creates settings.
  public init(frequency: Float = 30, minCutoff: Float, beta: Float, derivativeCutoff: Float = 1) {
    self.frequency = frequency
    self.minCutoff = minCutoff
    self.beta = beta
    self.derivativeCutoff = derivativeCutoff
  }

  /// MediaPipe's face landmarker's: 30 Hz, min cutoff 0.05, beta 80, derivative cutoff 1.
  public static let mediaPipe = LandmarkFilterParameters(frequency: 30, minCutoff: 0.05, beta: 80, derivativeCutoff: 1)

  /// Whether every value is finite and positive (beta may be 0).
  var isValid: Bool {
    frequency > 0 && minCutoff > 0 && derivativeCutoff > 0 && beta >= 0
      && [frequency, minCutoff, beta, derivativeCutoff].allSatisfy(\.isFinite)
  }
}
