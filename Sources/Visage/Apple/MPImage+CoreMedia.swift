// Apple platforms only. Typechecked on Linux against Tests/AppleStandIns by .ci/typecheck-apple;
// see docs/apple-platforms.md.
#if canImport(CoreMedia) && canImport(CoreVideo)
  import CoreMedia
  import CoreVideo

  extension MPImage {
    /// Creates an image from a camera frame: MediaPipe's `MPImage(sampleBuffer:orientation:)`.
    /// The sample buffer must hold an image buffer (`AVCaptureVideoDataOutput` gives one), which
    /// is read as `init(pixelBuffer:orientation:)` reads it.
    ///
    /// - Throws: `MPImageError.unreadableSource` for an invalidated sample buffer or one without
    ///   an image buffer, or an error of `init(pixelBuffer:orientation:)`.
    public init(sampleBuffer: CMSampleBuffer, orientation: Orientation = .up) throws {
      guard CMSampleBufferIsValid(sampleBuffer) else {
        throw MPImageError.unreadableSource("the sample buffer is not valid (CMSampleBufferIsValid is false)")
      }
      guard let imageBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else {
        throw MPImageError.unreadableSource("the sample buffer holds no image buffer")
      }
      try self.init(pixelBuffer: imageBuffer, orientation: orientation)
    }
  }
#endif
