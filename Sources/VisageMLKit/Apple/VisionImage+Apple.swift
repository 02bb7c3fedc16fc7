// ML Kit's platform image initializers: they only hand the platform object to `MPImage`'s own
// (typechecked against stand-ins on Linux by .ci/typecheck-apple, docs/apple-platforms.md).
#if canImport(UIKit)
  import UIKit
  import Visage

  /// The type of `VisionImage.orientation`: `UIImage.Orientation`, as in ML Kit.
  public typealias VisionImageOrientation = UIImage.Orientation

  extension VisionImage {
    static func visionOrientation(_ orientation: MPImage.Orientation) -> VisionImageOrientation {
      switch orientation {
      case .up: .up
      case .down: .down
      case .left: .left
      case .right: .right
      case .upMirrored: .upMirrored
      case .downMirrored: .downMirrored
      case .leftMirrored: .leftMirrored
      case .rightMirrored: .rightMirrored
      }
    }

    static func imageOrientation(_ orientation: VisionImageOrientation) -> MPImage.Orientation {
      MPImage.Orientation(orientation)
    }

    /// An image of a `UIImage`, as ML Kit's `VisionImage(image:)`. As ML Kit's guide says, give
    /// it an upright image (`imageOrientation` `.up`) and leave `orientation` at `.up`; the
    /// pixels are drawn and read now.
    /// An image with no `CGImage` behind it (one made from a `CIImage`) cannot be read: the
    /// detector reports that error.
    public convenience init(image: UIImage) {
      self.init { try MPImage(uiImage: image, orientation: .up) }
    }
  }
#endif

#if canImport(CoreMedia) && canImport(CoreVideo)
  import CoreMedia
  import Visage

  extension VisionImage {
    /// An image of a camera frame, as ML Kit's `VisionImage(buffer:)`: its pixels are read
    /// now (32BGRA or 4:2:0 YUV), so the camera may reuse the buffer; set `orientation` (or
    /// `metadata`) to the frame's, front-camera mirrored ones included.
    /// A sample buffer without an image, or in an unsupported pixel format, cannot be read:
    /// the detector reports that error.
    public convenience init(buffer: CMSampleBuffer) {
      self.init { try MPImage(sampleBuffer: buffer, orientation: .up) }
    }
  }
#endif
