import CVisageISA

/// How a warp fills output pixels whose source lies outside the image.
public enum BorderMode: Sendable {
  /// Taps outside read black, and a pixel entirely outside is black (`cv::BORDER_CONSTANT`
  /// with 0): the detector's letterbox.
  case zero
  /// Taps are clamped to the nearest edge pixel (`cv::BORDER_REPLICATE`): the landmark
  /// model's crop.
  case replicate
}

/// Cuts a turned rectangle out of an 8-bit RGB image into a model's float input, the way
/// MediaPipe's CPU `ImageToTensorConverter` does with OpenCV's `warpPerspective`: an
/// optimized kernel (the micro-kernels' copy for this CPU) and its per-pixel reference twin,
/// as `YUVToRGB` has.
///
/// The numerics are OpenCV's fixed-point bilinear path, not an idealised resampler, because
/// that is what reproduces MediaPipe's tensors exactly:
/// - destination pixel (u, v) samples the source through `PerspectiveMap`, the inverse of the
///   map from the rect's corners to the output's corners: in exact arithmetic corner +
///   u·(roi width / output width) along the rect's x axis (corner-aligned, no half-pixel
///   offset), in practice with that map's rounding and a division by its third row;
/// - source coordinates are rounded (half to even) to 1/32 pixel, and their whole-pixel part
///   saturates to 16 bits (OpenCV keeps it in a `short`);
/// - the four taps get integer weights summing to 32768, and the sum is rounded half up
///   back to 8 bits;
/// - the 8-bit result becomes a float through the value range (`LevelMap`).
///
/// OpenCV's `warpAffine` with `INTER_LINEAR` and its fixed-point tables
/// (`imgproc/src/imgwarp.cpp`), which MediaPipe's image-to-tensor calculator runs on the CPU.
public enum FixedPointWarp {
  /// An 8-bit RGB image: `width` × `height` pixels of three bytes, rows packed.
  public struct Source {
    /// The first pixel's red byte.
    public var pixels: UnsafePointer<UInt8>
    /// Pixels per row.
    public var width: Int
    /// Rows.
    public var height: Int

    /// The image at `pixels`, which must hold width × height × 3 bytes.
    public init(pixels: UnsafePointer<UInt8>, width: Int, height: Int) {
      (self.pixels, self.width, self.height) = (pixels, width, height)
    }
  }

  /// OpenCV processes a destination row in blocks; the block start anchors the double
  /// arithmetic of the inverse map, so we keep the same blocking (`BLOCK_SZ` 32).
  static func blockWidth(outputWidth: Int, outputHeight: Int) -> Int {
    let bh = min(16, outputHeight)
    return min(1024 / bh, outputWidth)
  }

  /// Warps `source` through `map` into `output` (outputHeight × outputWidth × 3 floats,
  /// NHWC) with the micro-kernel copy for this CPU (VisageMicroKernels' FixedPointWarp.swift).
  /// Same output as `reference`, bit for bit (`WarpTests`).
  public static func optimized(
    _ source: Source, map: PerspectiveMap, outputWidth: Int, outputHeight: Int, border: BorderMode,
    levels: LevelMap, into output: UnsafeMutablePointer<Float>
  ) {
    let warp = parameters(
      source, map: map, outputWidth: outputWidth, outputHeight: outputHeight, border: border, levels: levels)
    MicroKernels.active.fixedPointWarp(warp, output)
  }

  /// The micro-kernel's parameters for that warp.
  static func parameters(
    _ source: Source, map m: PerspectiveMap, outputWidth: Int, outputHeight: Int, border: BorderMode,
    levels: LevelMap
  ) -> VisageFixedPointWarp {
    VisageFixedPointWarp(
      pixels: source.pixels, width: source.width, height: source.height, outputWidth: outputWidth,
      outputHeight: outputHeight, blockWidth: blockWidth(outputWidth: outputWidth, outputHeight: outputHeight),
      map: (m.m0, m.m1, m.m2, m.m3, m.m4, m.m5, m.m6, m.m7, m.m8), replicateBorder: border == .replicate ? 1 : 0,
      scale: levels.scale, offset: levels.offset)
  }

  /// A tap coordinate after the border rule, or −1 for a black tap.
  @inline(__always)
  static func tap(_ i: Int, _ size: Int, _ border: BorderMode) -> Int {
    if i >= 0 && i < size { return i }
    return border == .replicate ? min(max(i, 0), size - 1) : -1
  }

  /// OpenCV's clamp of a scaled source coordinate into the int32 range; NaN (only from a
  /// degenerate rect) goes to the far left, outside any image.
  @inline(__always)
  static func clampToInt32(_ value: Double) -> Double {
    value.isNaN ? Double(Int32.min) : min(max(value, Double(Int32.min)), Double(Int32.max))
  }
}

/// The float each 8-bit level becomes for a model whose input range is `range`: level ·
/// scale + offset with scale = (max − min)/255 in float, as `GetValueRangeTransformation`
/// and `convertTo` compute it.
public struct LevelMap: Sendable {
  /// (max − min) / 255, in float.
  public let scale: Float
  /// The value of level 0.
  public let offset: Float

  /// The map for a model whose inputs span `range`.
  public init(range: ClosedRange<Float>) {
    scale = (range.upperBound - range.lowerBound) / 255
    offset = range.lowerBound
  }

  /// The value of `level` (0...255).
  @inline(__always)
  public func callAsFunction(_ level: Int) -> Float { Float(level) * scale + offset }

  /// All 256 values, for the reference's lookups.
  var table: [Float] { (0..<256).map { self($0) } }
}
