// Apple platforms only. Typechecked on Linux against Tests/AppleStandIns by .ci/typecheck-apple;
// see docs/apple-platforms.md.
#if canImport(UIKit)
  import CoreGraphics
  import UIKit

  extension MPImage {
    /// Creates an image from a `UIImage` with the image's own `imageOrientation`, as MediaPipe's
    /// `MPImage(uiImage:)` does (its implementation passes `image.imageOrientation`). Its
    /// `cgImage` is read as `init(cgImage:orientation:)` reads it.
    ///
    /// A photo taken with the front camera may have a mirrored orientation, which the tasks
    /// refuse as MediaPipe's do; `removingMirroring()` gives the same picture with an accepted one.
    ///
    /// - Throws: `MPImageError.unreadableSource` if the image has no `CGImage` (one made from a
    ///   `CIImage`), or an error of `init(cgImage:orientation:)`.
    public init(uiImage: UIImage) throws {
      try self.init(uiImage: uiImage, orientation: uiImage.imageOrientation)
    }

    /// Creates an image from a `UIImage`'s `cgImage`, stored as turned by `orientation` instead
    /// of the image's own `imageOrientation`: MediaPipe's `MPImage(uiImage:orientation:)`.
    public init(uiImage: UIImage, orientation: UIImage.Orientation) throws {
      guard let cgImage = uiImage.cgImage else {
        throw MPImageError.unreadableSource("the UIImage has no CGImage (one made from a CIImage has none)")
      }
      try self.init(cgImage: cgImage, orientation: Orientation(orientation))
    }
  }

  extension MPImage.Orientation {
    /// The orientation of the same name (an orientation UIKit may add later reads as `.up`).
    public init(_ orientation: UIImage.Orientation) {
      switch orientation {
      case .up: self = .up
      case .down: self = .down
      case .left: self = .left
      case .right: self = .right
      case .upMirrored: self = .upMirrored
      case .downMirrored: self = .downMirrored
      case .leftMirrored: self = .leftMirrored
      case .rightMirrored: self = .rightMirrored
      @unknown default: self = .up
      }
    }
  }
#endif

// MediaPipe's buffer initializers take a UIImage.Orientation. These overloads accept one; they
// are disfavoured so that a literal such as `.right` picks the MPImage.Orientation form (same
// names, same meaning) instead of being ambiguous.
#if canImport(UIKit) && canImport(CoreVideo)
  import CoreVideo

  extension MPImage {
    /// `init(pixelBuffer:orientation:)` with a `UIImage.Orientation`, as MediaPipe takes it.
    @_disfavoredOverload
    public init(pixelBuffer: CVPixelBuffer, orientation: UIImage.Orientation) throws {
      try self.init(pixelBuffer: pixelBuffer, orientation: Orientation(orientation))
    }
  }
#endif

#if canImport(UIKit) && canImport(CoreMedia) && canImport(CoreVideo)
  import CoreMedia

  extension MPImage {
    /// `init(sampleBuffer:orientation:)` with a `UIImage.Orientation`, as MediaPipe takes it.
    @_disfavoredOverload
    public init(sampleBuffer: CMSampleBuffer, orientation: UIImage.Orientation) throws {
      try self.init(sampleBuffer: sampleBuffer, orientation: Orientation(orientation))
    }
  }
#endif
