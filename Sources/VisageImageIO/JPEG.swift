import Visage

// Through libjpeg-turbo, or ImageIO on Apple platforms (Codec.swift chooses).

/// JPEG decoding with libjpeg-turbo.
///
/// Reads baseline, extended and progressive files (and arithmetic-coded ones where the library
/// supports them) in gray, YCbCr, RGB, CMYK and YCCK, always producing 8-bit RGB with
/// libjpeg's default (accurate integer) IDCT and smooth chroma upsampling. Gray is replicated.
///
/// CMYK and YCCK (which libjpeg turns into CMYK) are converted without colour management:
/// files with an Adobe APP14 marker, as Photoshop, libjpeg and Pillow write, store inverted
/// CMYK, so R = C·K/255, G = M·K/255, B = Y·K/255, rounded to nearest; files without the
/// marker store plain ink amounts, so R = (255−C)(255−K)/255, and so on.
///
/// Colour profiles are ignored. This decoder gives the stored pixels only; the Exif
/// orientation is read and applied by `MPImage(encoded:orientation:limits:)` and
/// `MPImage(contentsOfFile:orientation:limits:)` (see `ExifOrientation`).
///
/// On Apple platforms libjpeg is not linked: ImageIO decodes (with its own IDCT, upsampling and
/// CMYK handling) and Core Graphics draws the result into 8-bit RGB (`MPImage(cgImage:)`),
/// matching colours where the file has a colour profile; so pixels may differ slightly from
/// the Linux build's. The size limits are checked the same way, before the pixels are decoded;
/// errors carry ImageIO's status rather than libjpeg's message, and damage ImageIO tolerates
/// (it may fill a cut-off image with gray) is no error there.
public enum JPEG {
  /// Decodes a JPEG file held in memory.
  ///
  /// Damage that libjpeg only warns about, filling the missing part of the image with gray, is
  /// an error here: data that ends early, entropy-coded data cut by a marker, bad Huffman or
  /// arithmetic codes, lost restart markers and inconsistent progressive scans. Harmless
  /// warnings (junk bytes between segments, unknown JFIF or Adobe versions, a bad ICC marker)
  /// are ignored. A file with more than 500 scans is refused, to bound decoding time.
  ///
  /// - Returns: an 8-bit RGB image of the stored pixels, with orientation `.up` whatever the
  ///   file's Exif says.
  /// - Throws: `ImageIOError.tooLarge` when the header claims a side above
  ///   `MPImage.maximumDimension` (checked before allocating),
  ///   `.tooManyPixels` when it claims more pixels than `limits` allow (checked likewise), `.truncated`, `.corrupt` with
  ///   libjpeg's message, `.unsupported` or `.outOfMemory`.
  public static func decode(_ bytes: [UInt8], limits: ImageLimits = .default) throws -> MPImage {
    try Codec.decode(bytes, format: .jpeg, limits: limits)
  }
}
