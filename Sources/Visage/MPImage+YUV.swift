import VisageKernels

extension MPImage {
  /// The YUV 4:2:0 layouts camera frames come in: a full-size luma (Y) plane, and chroma
  /// (U = Cb, V = Cr) with one sample per 2×2 block of pixels, ⌈width/2⌉ × ⌈height/2⌉ of them.
  public enum YUVLayout: String, Sendable, CaseIterable {
    /// A Y plane, then one plane of interleaved chroma, U first: Core Video's bi-planar
    /// `420v` (video range) and `420f` (full range).
    case nv12
    /// A Y plane, then one plane of interleaved chroma, V first: Android's `ImageFormat.NV21`,
    /// the old camera API's default.
    case nv21
    /// Three planes, Y, U and V: V4L2's `YU12`, FFmpeg's `yuv420p`.
    case i420

    /// How many planes a frame has in this layout.
    var planeCount: Int { self == .i420 ? 3 : 2 }

    /// The planes' names, for error messages.
    var planeNames: [String] {
      switch self {
      case .nv12: ["Y", "UV"]
      case .nv21: ["Y", "VU"]
      case .i420: ["Y", "U", "V"]
      }
    }
  }

  /// The range a frame's samples span. Both are converted with BT.601's matrix.
  public enum YUVRange: String, Sendable, CaseIterable {
    /// Y in 16...235 and chroma in 16...240, as Core Video's `420v` and most video: converted
    /// exactly as OpenCV's `cvtColor` converts NV12, NV21 and I420.
    case video
    /// Every sample in 0...255, as Core Video's `420f` and JPEG.
    case full
  }

  /// One plane of a frame: its bytes and the distance between its rows' starts.
  public struct Plane {
    /// The plane's bytes, starting at its first sample. The last row needs only its samples.
    public var bytes: UnsafeRawBufferPointer
    /// Bytes between the starts of two rows: at least one row of samples.
    public var bytesPerRow: Int

    /// Describes a plane of `bytes` whose rows start `bytesPerRow` bytes apart.
    public init(bytes: UnsafeRawBufferPointer, bytesPerRow: Int) {
      self.bytes = bytes
      self.bytesPerRow = bytesPerRow
    }
  }

  /// Creates an RGB image by converting a YUV 4:2:0 frame, read in place from its planes.
  ///
  /// Each 2×2 block of pixels takes its one chroma sample (an odd last column or row, the
  /// sample of its half-block). Video range gives OpenCV's `cvtColor` result bit for bit;
  /// full range applies R = Y + 1.402 (V − 128), G = Y − 0.344136 (U − 128) − 0.714136
  /// (V − 128), B = Y + 1.772 (U − 128) in 20-bit fixed point, rounded (`YUVToRGB`).
  ///
  /// - Parameters:
  ///   - width: pixels per row, in 1...`maximumDimension`; odd sizes are allowed.
  ///   - height: rows, in 1...`maximumDimension`.
  ///   - layout: which planes there are and how chroma is stored.
  ///   - range: video range (16...235 luma) or full range.
  ///   - planes: `[Y, interleaved chroma]` for `.nv12` (U first) and `.nv21` (V first);
  ///     `[Y, U, V]` for `.i420`. The Y plane has `height` rows of `width` samples; each
  ///     chroma plane ⌈height/2⌉ rows of ⌈width/2⌉ samples (pairs when interleaved).
  ///   - orientation: how the picture is turned in the frame.
  /// - Throws: `MPImageError` for a bad size, the wrong number of planes, or a plane whose
  ///   row stride or buffer is too small for its rows.
  public init(
    width: Int, height: Int, layout: YUVLayout, range: YUVRange = .video, planes: [Plane],
    orientation: Orientation = .up
  ) throws {
    try Self.validate(width: width, height: height)
    guard planes.count == layout.planeCount else {
      throw MPImageError.planeCount(layout: layout, actual: planes.count)
    }
    let (chromaWidth, chromaHeight) = ((width + 1) / 2, (height + 1) / 2)
    let chromaRowBytes = layout == .i420 ? chromaWidth : 2 * chromaWidth
    var starts: [UnsafePointer<UInt8>] = []
    for (index, plane) in planes.enumerated() {
      try starts.append(
        plane.checked(
          name: layout.planeNames[index], rowBytes: index == 0 ? width : chromaRowBytes,
          rows: index == 0 ? height : chromaHeight))
    }
    let (y, yStride, chroma, chromaStride) = (starts[0], planes[0].bytesPerRow, starts[1], planes[1].bytesPerRow)
    let frame =
      switch layout {
      case .nv12:
        YUVToRGB.Planes(
          y: y, yBytesPerRow: yStride, u: chroma, uBytesPerRow: chromaStride, v: chroma + 1,
          vBytesPerRow: chromaStride, chromaStep: 2)
      case .nv21:
        YUVToRGB.Planes(
          y: y, yBytesPerRow: yStride, u: chroma + 1, uBytesPerRow: chromaStride, v: chroma,
          vBytesPerRow: chromaStride, chromaStep: 2)
      case .i420:
        YUVToRGB.Planes(
          y: y, yBytesPerRow: yStride, u: chroma, uBytesPerRow: chromaStride, v: starts[2],
          vBytesPerRow: planes[2].bytesPerRow, chromaStep: 1)
      }
    // The kernel writes every byte of the image's own storage, in one pass.
    let count = width * height * 3
    let rgb = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      YUVToRGB.optimized(
        frame, width: width, height: height, range == .video ? .videoRange : .fullRange, output: buffer.baseAddress!)
      initialized = count
    }
    try self.init(width: width, height: height, rgb: rgb, orientation: orientation)
  }

  /// Creates an RGB image by converting a YUV 4:2:0 frame held in one tightly packed buffer:
  /// the Y plane (`width` × `height` bytes), then the chroma in the layout's standard
  /// arrangement, ⌈width/2⌉ × ⌈height/2⌉ samples (one interleaved plane for `.nv12` and
  /// `.nv21`, a U plane then a V plane for `.i420`).
  ///
  /// See `init(width:height:layout:range:planes:orientation:)` for the conversion.
  ///
  /// - Throws: `MPImageError` for a bad size, or `bytes` not holding exactly the frame.
  public init(
    width: Int, height: Int, layout: YUVLayout, range: YUVRange = .video, bytes: [UInt8],
    orientation: Orientation = .up
  ) throws {
    try Self.validate(width: width, height: height)
    let lumaBytes = width * height
    let chromaBytes = ((width + 1) / 2) * ((height + 1) / 2)
    guard bytes.count == lumaBytes + 2 * chromaBytes else {
      throw MPImageError.bufferSize(expected: lumaBytes + 2 * chromaBytes, actual: bytes.count)
    }
    self = try bytes.withUnsafeBytes { all in
      func plane(_ start: Int, _ count: Int, bytesPerRow: Int) -> Plane {
        Plane(bytes: UnsafeRawBufferPointer(rebasing: all[start..<start + count]), bytesPerRow: bytesPerRow)
      }
      let chromaWidth = (width + 1) / 2
      let y = plane(0, lumaBytes, bytesPerRow: width)
      let planes =
        layout == .i420
        ? [
          y, plane(lumaBytes, chromaBytes, bytesPerRow: chromaWidth),
          plane(lumaBytes + chromaBytes, chromaBytes, bytesPerRow: chromaWidth),
        ]
        : [y, plane(lumaBytes, 2 * chromaBytes, bytesPerRow: 2 * chromaWidth)]
      return try MPImage(
        width: width, height: height, layout: layout, range: range, planes: planes, orientation: orientation)
    }
  }
}

extension MPImage.Plane {
  /// The plane's first byte, once its stride and size are known to cover `rows` rows of
  /// `rowBytes` bytes.
  fileprivate func checked(name: String, rowBytes: Int, rows: Int) throws -> UnsafePointer<UInt8> {
    guard bytesPerRow >= rowBytes else {
      throw MPImageError.planeRowStride(plane: name, bytesPerRow: bytesPerRow, minimum: rowBytes)
    }
    // A stride so large that the product overflows cannot fit in any buffer.
    let (span, overflow) = bytesPerRow.multipliedReportingOverflow(by: rows - 1)
    let needed = overflow || span > Int.max - rowBytes ? Int.max : span + rowBytes
    guard bytes.count >= needed, let base = bytes.baseAddress else {
      throw MPImageError.planeSize(plane: name, expected: needed, actual: bytes.count)
    }
    return base.assumingMemoryBound(to: UInt8.self)
  }
}
