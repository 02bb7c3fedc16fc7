import Visage

// Through libpng, or ImageIO on Apple platforms (Codec.swift chooses).

/// PNG decoding and encoding with libpng; on Apple platforms with ImageIO (see below).
///
/// 8-bit RGB and RGBA files that are not interlaced, most photos and screenshots, are decoded
/// without libpng, inflated by libdeflate and unfiltered by Visage, to the same pixels at about
/// twice the speed; damaged files and every other layout go to libpng, whose errors they get.
///
/// Decoding accepts every standard PNG: gray, gray with alpha, palette (with or without tRNS),
/// RGB and RGBA at every bit depth (1, 2, 4, 8, 16), interlaced or not. The result is always
/// 8-bit RGB: palette entries and low bit depths are expanded, 16-bit samples are scaled with
/// rounding (libpng's `png_set_scale_16`), alpha and tRNS transparency are dropped without
/// compositing, and gray is replicated. gAMA, cHRM, sRGB and iCCP are ignored, as in MediaPipe
/// and OpenCV: samples are used as stored. An `eXIf` orientation is read and applied by
/// `MPImage(encoded:orientation:limits:)`, not here (see `ExifOrientation`).
///
/// On Apple platforms libpng is not linked: ImageIO decodes, and the result is drawn into 8-bit
/// RGB by Core Graphics (`MPImage(cgImage:)`), which may match colours where the file has a
/// colour profile, gamma or gray samples, and keeps translucent pixels premultiplied (composited
/// over black). The size limits are checked the same way, before the pixels are decoded; errors
/// carry ImageIO's status rather than libpng's message, and damage ImageIO tolerates is no
/// error there.
public enum PNG {
  /// Decodes a PNG file held in memory.
  ///
  /// The whole file must be present up to its IEND chunk; anything after IEND is ignored.
  ///
  /// - Returns: an 8-bit RGB image of the stored pixels, with orientation `.up` whatever the
  ///   file's `eXIf` says.
  /// - Throws: `ImageIOError.tooLarge` when the header claims a side above
  ///   `MPImage.maximumDimension` (checked before allocating),
  ///   `.tooManyPixels` when it claims more pixels than `limits` allow (checked likewise), `.truncated`, `.corrupt`
  ///   with libpng's message, or `.outOfMemory`.
  public static func decode(_ bytes: [UInt8], limits: ImageLimits = .default) throws -> MPImage {
    try Codec.decode(bytes, format: .png, limits: limits)
  }

  /// Encodes an image as an 8-bit RGB, non-interlaced PNG with libpng's default compression
  /// and filters. Orientation is not recorded: the stored pixels are written as they are.
  /// On Apple platforms ImageIO writes it (an 8-bit RGB PNG with ImageIO's own compression and
  /// filters, so other bytes for the same pixels).
  ///
  /// - Throws: `ImageIOError.encodingFailed` or `.outOfMemory` if libpng (ImageIO) fails.
  public static func encode(_ image: MPImage) throws -> [UInt8] {
    try Codec.encodePNG(image)
  }
}
