import Visage

/// The encoded image formats VisageImageIO reads.
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Portable Network Graphics, read and written with libpng (ImageIO on Apple platforms).
  case png
  /// JPEG (JFIF, Exif, Adobe), read with libjpeg-turbo (ImageIO on Apple platforms).
  case jpeg

  /// The eight bytes every PNG file starts with.
  static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  /// A JPEG's start-of-image marker followed by the first byte of the next marker.
  static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

  /// Recognises a format by its magic bytes: the PNG signature or the JPEG start-of-image
  /// marker `FF D8 FF`. Returns `nil` for anything else, including too few bytes.
  public init?(sniffing bytes: some Collection<UInt8>) {
    if bytes.starts(with: Self.pngSignature) {
      self = .png
    } else if bytes.starts(with: Self.jpegSignature) {
      self = .jpeg
    } else {
      return nil
    }
  }

  /// The format's usual name: `PNG` or `JPEG`.
  public var description: String {
    switch self {
    case .png: "PNG"
    case .jpeg: "JPEG"
    }
  }
}

/// Why an image could not be read, decoded or encoded.
///
/// Errors from `MPImage(contentsOfFile:)` carry the file's path; errors from decoding bytes
/// in memory have `path == nil`. Codec messages are libpng's and libjpeg's own (on Apple
/// platforms, a sentence on what ImageIO reported).
public enum ImageIOError: Error, Equatable, CustomStringConvertible {
  /// The file could not be read: it is missing, a directory, not readable, ...
  /// `reason` is the system's explanation.
  case unreadableFile(path: String, reason: String)
  /// The bytes are neither PNG nor JPEG (or there are none). `leadingBytes` holds up to the
  /// first 16 bytes.
  case unknownFormat(path: String?, leadingBytes: [UInt8])
  /// The header claims a width or height above `MPImage.maximumDimension`. Reported from
  /// the header alone, before any memory for pixels is allocated.
  case tooLarge(format: ImageFormat, width: Int, height: Int, path: String?)
  /// The header claims more pixels, width × height, than `limit` (`ImageLimits.maximumPixels`).
  /// Reported from the header alone, before any memory for pixels is allocated.
  case tooManyPixels(format: ImageFormat, width: Int, height: Int, limit: Int, path: String?)
  /// The data ends before the image does.
  case truncated(format: ImageFormat, message: String, path: String?)
  /// The codec refused the data: a bad signature, checksum, header, compressed stream, ...
  case corrupt(format: ImageFormat, message: String, path: String?)
  /// A well-formed file using something this reader does not handle, such as a JPEG colour
  /// space other than gray, YCbCr, RGB, CMYK and YCCK.
  case unsupported(format: ImageFormat, message: String, path: String?)
  /// There was not enough memory to decode or encode the image.
  case outOfMemory(format: ImageFormat, path: String?)
  /// The encoder failed; `message` is the codec's.
  case encodingFailed(format: ImageFormat, message: String)
  /// A decoder other than the PNG and JPEG ones (`STBImage`: `decoder` is "stb_image") could
  /// not decode the data, or is not in this build; `message` is its reason.
  case decoderFailed(decoder: String, message: String, path: String?)

  /// The file the error is about, if it came from a file.
  public var path: String? {
    switch self {
    case .unreadableFile(let path, _): path
    case .unknownFormat(let path, _), .tooLarge(_, _, _, let path), .tooManyPixels(_, _, _, _, let path),
      .truncated(_, _, let path),
      .corrupt(_, _, let path), .unsupported(_, _, let path), .outOfMemory(_, let path),
      .decoderFailed(_, _, let path):
      path
    case .encodingFailed: nil
    }
  }

  /// A sentence explaining the error, naming the file when there is one.
  public var description: String {
    switch self {
    case .unreadableFile(let path, let reason):
      return "cannot read image file '\(path)': \(reason)"
    case .unknownFormat(let path, let leadingBytes):
      let subject = path.map { "'\($0)'" } ?? "the data"
      if leadingBytes.isEmpty {
        return "\(subject) is empty: expected a PNG or JPEG image"
      }
      let kind = Self.formatName(leadingBytes).map { " (it looks like \($0))" } ?? ""
      let hex = leadingBytes.prefix(8).map { String($0, radix: 16, uppercase: true) }
        .map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: " ")
      return "\(subject) is not a PNG or JPEG image\(kind): it starts with \(hex); "
        + "only PNG and JPEG are supported"
    case .tooLarge(let format, let width, let height, let path):
      return "\(Self.subject(format, path)) is \(width)x\(height) pixels, too large: each side "
        + "must be at most \(MPImage.maximumDimension)"
    case .tooManyPixels(let format, let width, let height, let limit, let path):
      return "\(Self.subject(format, path)) is \(width)x\(height) pixels, too large: the limit is "
        + "\(limit) pixels (ImageLimits.maximumPixels)"
    case .truncated(let format, let message, let path):
      return "\(Self.subject(format, path)) is truncated: \(message)"
    case .corrupt(let format, let message, let path):
      return "\(Self.subject(format, path)) is corrupt: \(message)"
    case .unsupported(let format, let message, let path):
      return "\(Self.subject(format, path)) is not supported: \(message)"
    case .outOfMemory(let format, let path):
      return "not enough memory to decode \(Self.subject(format, path))"
    case .encodingFailed(let format, let message):
      return "cannot encode \(format) image: \(message)"
    case .decoderFailed(let decoder, let message, let path):
      return "\(decoder) cannot decode \(path.map { "'\($0)'" } ?? "the data"): \(message)"
    }
  }

  /// `PNG image '/path'` or `PNG data`.
  private static func subject(_ format: ImageFormat, _ path: String?) -> String {
    path.map { "\(format) image '\($0)'" } ?? "\(format) data"
  }

  /// A guess at what other common format some bytes are in, for the unknown-format message.
  static func formatName(_ bytes: [UInt8]) -> String? {
    func has(_ text: String, at offset: Int = 0) -> Bool {
      bytes.count >= offset + text.utf8.count
        && bytes[offset..<(offset + text.utf8.count)].elementsEqual(text.utf8)
    }
    if has("GIF87a") || has("GIF89a") { return "a GIF file" }
    if has("RIFF") && has("WEBP", at: 8) { return "a WebP file" }
    if has("II*\u{0}") || has("MM\u{0}*") { return "a TIFF file" }
    if has("ftyp", at: 4) { return "a HEIF, AVIF or other ISO media file" }
    if has("BM") { return "a BMP file" }
    if bytes.starts(with: [0xFF, 0xD8]) { return "a damaged JPEG file" }
    if bytes.starts(with: ImageFormat.pngSignature.prefix(4)) { return "a damaged PNG file" }
    return nil
  }

  /// The same error, naming the file it came from.
  func naming(_ path: String) -> ImageIOError {
    switch self {
    case .unknownFormat(_, let bytes): .unknownFormat(path: path, leadingBytes: bytes)
    case .tooLarge(let format, let width, let height, _):
      .tooLarge(format: format, width: width, height: height, path: path)
    case .tooManyPixels(let format, let width, let height, let limit, _):
      .tooManyPixels(format: format, width: width, height: height, limit: limit, path: path)
    case .truncated(let format, let message, _):
      .truncated(format: format, message: message, path: path)
    case .corrupt(let format, let message, _): .corrupt(format: format, message: message, path: path)
    case .unsupported(let format, let message, _):
      .unsupported(format: format, message: message, path: path)
    case .outOfMemory(let format, _): .outOfMemory(format: format, path: path)
    case .decoderFailed(let decoder, let message, _): .decoderFailed(decoder: decoder, message: message, path: path)
    case .unreadableFile, .encodingFailed: self
    }
  }
}
