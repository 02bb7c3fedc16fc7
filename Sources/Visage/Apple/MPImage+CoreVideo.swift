// Apple platforms only. Typechecked on Linux against Tests/AppleStandIns by .ci/typecheck-apple;
// see docs/apple-platforms.md.
#if canImport(CoreVideo)
  import CoreVideo

  extension MPImage {
    /// Creates an image by copying a Core Video pixel buffer: MediaPipe's
    /// `MPImage(pixelBuffer:orientation:)`, with the orientation as an `MPImage.Orientation`
    /// (on UIKit platforms a `UIImage.Orientation` is taken too).
    ///
    /// Formats read: `kCVPixelFormatType_32BGRA` ('BGRA', the only one MediaPipe reads) and
    /// `32RGBA` ('RGBA'), alpha dropped as by `init(width:height:bytesPerRow:format:buffer:orientation:)`;
    /// the 4:2:0 formats cameras deliver, two-plane `420YpCbCr8BiPlanarVideoRange` ('420v') and
    /// `...FullRange` ('420f') as `.nv12`, three-plane `420YpCbCr8Planar` ('y420') and
    /// `...PlanarFullRange` ('f420') as `.i420`, converted by
    /// `init(width:height:layout:range:planes:orientation:)`. The buffer's YCbCr matrix
    /// attachment is not read: the conversion is that initializer's. The buffer is locked
    /// read-only while it is copied and is not kept.
    ///
    /// - Throws: `MPImageError.unsupportedPixelFormat` for any other format, `.unreadableSource`
    ///   if the buffer cannot be locked or has no memory to read, or the initializer's error.
    public init(pixelBuffer: CVPixelBuffer, orientation: Orientation = .up) throws {
      let format = CVPixelBufferGetPixelFormatType(pixelBuffer)
      let layout: PixelBufferLayout
      switch format {
      case kCVPixelFormatType_32BGRA: layout = .packed(.bgra)
      case kCVPixelFormatType_32RGBA: layout = .packed(.rgba)
      case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: layout = .planar(.nv12, .video)
      case kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: layout = .planar(.nv12, .full)
      case kCVPixelFormatType_420YpCbCr8Planar: layout = .planar(.i420, .video)
      case kCVPixelFormatType_420YpCbCr8PlanarFullRange: layout = .planar(.i420, .full)
      default: throw MPImageError.unsupportedPixelFormat(format)
      }
      guard CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly) == kCVReturnSuccess else {
        throw MPImageError.unreadableSource("the pixel buffer could not be locked for reading")
      }
      defer { _ = CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
      let (width, height) = (CVPixelBufferGetWidth(pixelBuffer), CVPixelBufferGetHeight(pixelBuffer))
      let missing = MPImageError.unreadableSource("the pixel buffer has no base address")
      switch layout {
      case .packed(let packed):
        guard let base = CVPixelBufferGetBaseAddress(pixelBuffer) else { throw missing }
        // Core Video allocates whole rows, so bytesPerRow × height bytes are there to read.
        let bytesPerRow = CVPixelBufferGetBytesPerRow(pixelBuffer)
        try self.init(
          width: width, height: height, bytesPerRow: bytesPerRow, format: packed,
          buffer: UnsafeRawBufferPointer(start: base, count: bytesPerRow * height), orientation: orientation)
      case .planar(let yuvLayout, let range):
        var planes: [Plane] = []
        for index in 0..<CVPixelBufferGetPlaneCount(pixelBuffer) {
          guard let base = CVPixelBufferGetBaseAddressOfPlane(pixelBuffer, index) else { throw missing }
          let bytesPerRow = CVPixelBufferGetBytesPerRowOfPlane(pixelBuffer, index)
          let rows = CVPixelBufferGetHeightOfPlane(pixelBuffer, index)
          planes.append(
            Plane(bytes: UnsafeRawBufferPointer(start: base, count: bytesPerRow * rows), bytesPerRow: bytesPerRow))
        }
        try self.init(
          width: width, height: height, layout: yuvLayout, range: range, planes: planes, orientation: orientation)
      }
    }
  }

  /// How `init(pixelBuffer:orientation:)` reads a Core Video pixel format.
  private enum PixelBufferLayout {
    case packed(MPImage.PixelFormat)
    case planar(MPImage.YUVLayout, MPImage.YUVRange)
  }
#endif
