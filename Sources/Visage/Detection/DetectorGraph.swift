import VisageKernels
import VisageRuntime
import VisageTFLite

/// One BlazeFace model with its pre- and postprocessing: MediaPipe's `FaceDetectorGraph`
/// up to the projected, suppressed detections.
///
/// Not thread-safe: it owns the interpreter's memory, so callers serialise use.
final class DetectorGraph {
  /// Which BlazeFace variant the model is, told by its input size.
  enum Range: String, Sendable {
    /// 128×128, faces within about 2 m (the Tasks face detector).
    case short
    /// 192×192, faces up to about 5 m (MediaPipe's legacy full-range model).
    case full
  }

  let range: Range
  /// The time this detector's runs took, stage by stage, since it was made (`SearchProfile`).
  private(set) var times = InferenceTimes()
  private let interpreter: Interpreter
  private let imageToTensor: ImageToTensor
  private let decoder: TensorsToDetections

  /// Checks that `model` has a BlazeFace signature and plans it.
  init(model: TFLiteModel, pool: ThreadPool? = nil) throws(VisionTaskError) {
    let interpreter: Interpreter
    do { interpreter = try Interpreter(model: model, pool: pool) } catch { throw .invalidModel("\(error)") }
    let input = interpreter.inputShapes.map(\.dimensions)
    let output = interpreter.outputShapes.map(\.dimensions)
    let anchors: SSDAnchors
    switch input {
    case [[1, 128, 128, 3]]:
      range = .short
      anchors = .shortRange
    case [[1, 192, 192, 3]]:
      range = .full
      anchors = .fullRange
    default:
      throw .invalidModel(
        "a face detector takes one [1, 128, 128, 3] or [1, 192, 192, 3] input; this model takes \(input)")
    }
    let n = anchors.centers.count
    guard output == [[1, n, 16], [1, n, 1]] else {
      throw .invalidModel(
        "a \(range)-range face detector outputs [1, \(n), 16] and [1, \(n), 1]; this model outputs \(output)")
    }
    let size = input[0][1]
    self.interpreter = interpreter
    // Both models want RGB in [-1, 1]; the short-range model says so in its metadata
    // (mean 127.5, std 127.5), the full-range file has no metadata and was trained the same way.
    imageToTensor = ImageToTensor(width: size, height: size, keepAspectRatio: true, border: .zero, range: -1...1)
    decoder = TensorsToDetections(anchors: anchors, scale: Float(size))
  }

  /// Runs the detector on the whole of `image`, turned upright by its orientation as
  /// MediaPipe's tasks turn it: detections in normalized coordinates of the stored image,
  /// after non-maximum suppression, best first.
  func detect(_ image: MPImage, minScore: Float, suppressionThreshold: Float) throws(VisionTaskError)
    -> [RawDetection]
  {
    let rect = NormalizedRect.wholeImage(
      rotationDegrees: try image.rotationDegrees(), imageWidth: image.width, imageHeight: image.height)
    let (raw, matrix) = try run(image, rect: rect, minScore: minScore)
    return NonMaxSuppression.weighted(raw, threshold: suppressionThreshold).map { $0.projected(by: matrix) }
  }

  /// Every detection scoring at least `minScore` in `rect` of `image`, before suppression,
  /// projected to normalized image coordinates: one pass of a wider search whose passes are
  /// suppressed together.
  func candidates(_ image: MPImage, rect: NormalizedRect, minScore: Float) throws(VisionTaskError) -> [RawDetection] {
    let (raw, matrix) = try run(image, rect: rect, minScore: minScore)
    return raw.map { $0.projected(by: matrix) }
  }

  /// The candidates of one run on each of `tiles` seen through a clockwise turn of `degrees`,
  /// each kept only when its tile holds it whole (`SearchTile.holds`).
  func candidates(
    _ image: MPImage, tiles: some Sequence<SearchTile>, rotationDegrees degrees: Int, minScore: Float
  )
    throws(VisionTaskError) -> [RawDetection]
  {
    let (w, h) = (image.width, image.height)
    var found: [RawDetection] = []
    for tile in tiles {
      let rect = tile.rect(rotationDegrees: degrees, imageWidth: w, imageHeight: h)
      found += try candidates(image, rect: rect, minScore: minScore).filter {
        tile.holds($0, imageWidth: w, imageHeight: h)
      }
    }
    return found
  }

  /// One model run on `rect`: the decoded detections in tensor coordinates and the map out.
  func run(
    _ image: MPImage, rect: NormalizedRect, minScore: Float
  ) throws(VisionTaskError) -> ([RawDetection], ProjectionMatrix) {
    let start = monotonicSeconds()
    let matrix = try interpreter.withInput(0) { tensor in
      Result { () throws(VisionTaskError) in try imageToTensor.convert(image, rect: rect, into: tensor) }
    }.get()
    let warped = monotonicSeconds()
    interpreter.invoke()
    let invoked = monotonicSeconds()
    let raw = interpreter.withOutput(0) { boxes in
      interpreter.withOutput(1) { scores in decoder.decode(boxes: boxes, scores: scores, minScore: minScore) }
    }
    times.runs += 1
    times.warpSeconds += warped - start
    times.modelSeconds += invoked - warped
    times.decodeSeconds += monotonicSeconds() - invoked
    return (raw, matrix)
  }
}

extension MPImage {
  /// The clockwise turn that makes the image upright, as a task error when the orientation
  /// is one the detectors refuse.
  func rotationDegrees() throws(VisionTaskError) -> Int {
    do { return try orientation.rotationDegrees() } catch { throw .invalidImage("\(error)") }
  }
}

extension RawDetection {
  /// The detection mapped through `matrix` (`DetectionProjectionCalculator`): keypoints
  /// directly, the box as the axis-aligned bounds of its four projected corners.
  func projected(by matrix: ProjectionMatrix) -> RawDetection {
    let corners = [
      SIMD2(xmin, ymin), SIMD2(xmin + width, ymin), SIMD2(xmin + width, ymin + height),
      SIMD2(xmin, ymin + height),
    ].map(matrix.apply)
    var low = SIMD2<Float>(repeating: .greatestFiniteMagnitude)
    var high = SIMD2<Float>(repeating: -.greatestFiniteMagnitude)
    for c in corners {
      low = SIMD2(min(low.x, c.x), min(low.y, c.y))
      high = SIMD2(max(high.x, c.x), max(high.y, c.y))
    }
    return RawDetection(
      score: score, xmin: low.x, ymin: low.y, width: high.x - low.x, height: high.y - low.y,
      keypoints: keypoints.map(matrix.apply))
  }
}
