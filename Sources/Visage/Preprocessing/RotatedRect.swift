import Foundation

/// A rectangle in normalized image coordinates, turned about its centre: MediaPipe's
/// `NormalizedRect`. The unit of x is the image width and of y the image height.
public struct NormalizedRect: Sendable, Equatable {
  /// Centre, as a fraction of the image width.
  public var xCenter: Float
  /// Centre, as a fraction of the image height.
  public var yCenter: Float
  /// Width, as a fraction of the image width.
  public var width: Float
  /// Height, as a fraction of the image height.
  public var height: Float
  /// Counter-clockwise rotation in radians.
  public var rotation: Float

  /// Creates a rectangle.
  public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0) {
    self.xCenter = xCenter
    self.yCenter = yCenter
    self.width = width
    self.height = height
    self.rotation = rotation
  }

  /// The whole image, seen through a clockwise rotation of `rotationDegrees` (a multiple of
  /// 90), as MediaPipe's `ConvertToNormalizedRect` builds it from an image orientation.
  ///
  /// For a quarter turn the width and height are swapped in pixel terms, so that the rect
  /// still covers the whole image once turned.
  static func wholeImage(rotationDegrees: Int, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
    var rect = NormalizedRect(
      xCenter: 0.5, yCenter: 0.5, width: 1, height: 1,
      rotation: Float(-Double(rotationDegrees) * Double.pi / 180))
    if abs(rotationDegrees) % 180 != 0 {
      let width = rect.height * Float(imageHeight) / Float(imageWidth)
      let height = rect.width * Float(imageWidth) / Float(imageHeight)
      rect.width = width
      rect.height = height
    }
    return rect
  }
}

/// A turned rectangle in pixels: MediaPipe's `RotatedRect`, the region a model input is cut
/// from. All arithmetic is float, as in MediaPipe, so results match to the last bit.
struct RotatedRect: Equatable {
  var centerX: Float
  var centerY: Float
  var width: Float
  var height: Float
  /// Counter-clockwise, radians.
  var rotation: Float

  /// `rect` in the pixels of a `imageWidth` by `imageHeight` image (`GetRoi`).
  init(_ rect: NormalizedRect, imageWidth: Int, imageHeight: Int) {
    centerX = rect.xCenter * Float(imageWidth)
    centerY = rect.yCenter * Float(imageHeight)
    width = rect.width * Float(imageWidth)
    height = rect.height * Float(imageHeight)
    rotation = rect.rotation
  }

  init(centerX: Float, centerY: Float, width: Float, height: Float, rotation: Float) {
    self.centerX = centerX
    self.centerY = centerY
    self.width = width
    self.height = height
    self.rotation = rotation
  }

  /// Grows the shorter side so the rect has the tensor's aspect ratio, keeping its centre
  /// (`PadRoi` with keep_aspect_ratio).
  mutating func padToAspect(tensorWidth: Int, tensorHeight: Int) {
    let tensorAspect = Float(tensorHeight) / Float(tensorWidth)
    if tensorAspect > height / width {
      height = width * tensorAspect
    } else {
      width = height / tensorAspect
    }
  }

  /// Whether MediaPipe's `ValidateRoi` accepts the rect (no NaN, positive size); infinite
  /// values are refused too, since no warp can sample them.
  var isValid: Bool {
    [centerX, centerY, width, height, rotation].allSatisfy(\.isFinite) && width > 0 && height > 0
  }

  /// The corners as OpenCV's `RotatedRect::points` computes them (float arithmetic, angle
  /// through degrees): bottom-left, top-left, top-right, bottom-right for an unturned rect.
  /// Each corner is worked out from the centre; reflecting two of them through the centre
  /// instead gives the same corners in exact arithmetic but not always in float (a quarter
  /// turn leaves cos at 1e-16, not 0), and those last bits decide which way exact ties
  /// between 1/32-pixel sample positions round in the warp.
  /// A tuple, not an array: the warp asks for them every frame.
  func boxPoints() -> (SIMD2<Float>, SIMD2<Float>, SIMD2<Float>, SIMD2<Float>) {
    let degrees = Float(Double(rotation * 180) / Double.pi)
    let radians = Double(degrees) * Double.pi / 180
    let b = Float(cos(radians)) * 0.5
    let a = Float(sin(radians)) * 0.5
    let p0 = SIMD2(centerX - a * height - b * width, centerY + b * height - a * width)
    let p1 = SIMD2(centerX + a * height - b * width, centerY - b * height - a * width)
    let p2 = SIMD2(centerX + a * height + b * width, centerY - b * height + a * width)
    let p3 = SIMD2(centerX - a * height + b * width, centerY + b * height + a * width)
    return (p0, p1, p2, p3)
  }
}

/// The affine map from normalized tensor coordinates (0...1 across the model input) to
/// normalized image coordinates: the 2x3 part of MediaPipe's
/// `GetRotatedSubRectToRectTransformMatrix`, which `DetectionProjectionCalculator` and the
/// landmark projection apply.
struct ProjectionMatrix: Equatable {
  var m0, m1, m3, m4, m5, m7: Float

  /// The map for a region `roi` (pixels) of an `imageWidth` by `imageHeight` image.
  init(roi: RotatedRect, imageWidth: Int, imageHeight: Int) {
    let a = roi.width
    let b = roi.height
    let c = cos(roi.rotation)
    let d = sin(roi.rotation)
    let e = roi.centerX
    let f = roi.centerY
    let g = 1 / Float(imageWidth)
    let h = 1 / Float(imageHeight)
    m0 = a * c * g
    m1 = -b * d * g
    m3 = (-0.5 * a * c + 0.5 * b * d + e) * g
    m4 = a * d * h
    m5 = b * c * h
    m7 = (-0.5 * b * c - 0.5 * a * d + f) * h
  }

  /// Maps one point.
  func apply(_ p: SIMD2<Float>) -> SIMD2<Float> {
    SIMD2(p.x * m0 + p.y * m1 + m3, p.x * m4 + p.y * m5 + m7)
  }
}
