import Foundation
import Visage
import VisageImageIO

/// An image for the face detector: ML Kit's `VisionImage`.
///
/// A class, as ML Kit's is: make it, then set `orientation` (or the Firebase-era `metadata`)
/// before handing it to `FaceDetector`. The pixels are read when the image is made (a camera
/// may reuse its buffer once the capture callback returns); the orientation is read when the
/// detector is called.
///
/// Unlike MediaPipe's tasks, ML Kit accepts the mirrored orientations a front camera gives
/// (`.leftMirrored` and so on), and so does this: positions come back in the upright picture
/// the orientation describes.
public final class VisionImage {
  /// The stored pixels as captured, or why they could not be read (reported by the detector,
  /// since ML Kit's platform initializers do not throw).
  private let source: Result<MPImage, any Error>
  /// The stored pixels as captured; nil when the platform image could not be read.
  public var image: MPImage? { try? source.get() }
  /// How the stored pixels are turned (and mirrored) relative to the upright picture: a
  /// `UIImage.Orientation` where UIKit exists, as in ML Kit (so `image.imageOrientation` can
  /// be assigned), elsewhere `MPImage.Orientation`, whose cases have the same names. Default
  /// `.up`.
  ///
  /// Ignored while `metadata` is set: the Firebase-era guide sets the orientation there.
  public var orientation: VisionImageOrientation
  /// Firebase ML Kit's way to give the orientation; when set, its `orientation` is used.
  public var metadata: VisionImageMetadata?

  /// An image of the stored pixels of `image`, keeping its orientation.
  public init(image: MPImage) {
    source = .success(image)
    orientation = Self.visionOrientation(image.orientation)
  }

  /// An image read by `read`, whose error, if any, the detector reports.
  init(reading read: () throws -> MPImage) {
    source = Result { try read() }
    orientation = .up
  }

  /// Decodes a PNG or JPEG file; its Exif orientation becomes `orientation`.
  public convenience init(contentsOfFile path: String) throws {
    self.init(image: try MPImage(contentsOfFile: path))
  }

  /// Decodes PNG or JPEG bytes; their Exif orientation becomes `orientation`.
  public convenience init(encoded bytes: [UInt8]) throws {
    self.init(image: try MPImage(encoded: bytes))
  }

  /// The orientation the detector applies: the metadata's if set, else `orientation`.
  var effectiveOrientation: MPImage.Orientation {
    metadata?.orientation.imageOrientation ?? Self.imageOrientation(orientation)
  }

  /// The stored pixels with the effective orientation, mirroring undone (the same upright
  /// picture, which Visage's tasks accept), ready for the analyzer. Read on the caller's
  /// thread so that later changes to this object do not reach a detection under way.
  func snapshot() throws -> MPImage {
    var oriented = try source.get()
    oriented.orientation = effectiveOrientation
    return oriented.removingMirroring()
  }
}

#if !canImport(UIKit)
  /// The type of `VisionImage.orientation`: `UIImage.Orientation` where UIKit exists, as in ML
  /// Kit; elsewhere `MPImage.Orientation`, whose eight cases have the same names and meaning.
  public typealias VisionImageOrientation = MPImage.Orientation

  extension VisionImage {
    static func visionOrientation(_ orientation: MPImage.Orientation) -> VisionImageOrientation { orientation }
    static func imageOrientation(_ orientation: VisionImageOrientation) -> MPImage.Orientation { orientation }
  }
#endif

/// Firebase ML Kit's image metadata: the orientation of a camera frame.
public final class VisionImageMetadata {
  /// How the frame is turned. Default `.topLeft` (upright).
  public var orientation: VisionDetectorImageOrientation = .topLeft

  /// Metadata for an upright image.
  public init() {}
}

/// Firebase ML Kit's orientations, by where the stored first row and column end up: the Exif
/// orientation values 1 to 8.
public enum VisionDetectorImageOrientation: Int, Sendable, CaseIterable {
  /// Upright (Exif 1).
  case topLeft = 1
  /// Mirrored left to right (Exif 2).
  case topRight = 2
  /// Upside down (Exif 3).
  case bottomRight = 3
  /// Mirrored top to bottom (Exif 4).
  case bottomLeft = 4
  /// Transposed (Exif 5).
  case leftTop = 5
  /// Turned a quarter clockwise to view (Exif 6).
  case rightTop = 6
  /// Transposed the other way (Exif 7).
  case rightBottom = 7
  /// Turned a quarter counter-clockwise to view (Exif 8).
  case leftBottom = 8

  /// The same orientation by `UIImage.Orientation`'s name.
  public var imageOrientation: MPImage.Orientation {
    switch self {
    case .topLeft: .up
    case .topRight: .upMirrored
    case .bottomRight: .down
    case .bottomLeft: .downMirrored
    case .leftTop: .leftMirrored
    case .rightTop: .right
    case .rightBottom: .rightMirrored
    case .leftBottom: .left
    }
  }
}
