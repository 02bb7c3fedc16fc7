/// An image to find faces in: 8-bit RGB pixels plus the orientation they are stored in.
///
/// Whatever the source (PNG, JPEG or a raw buffer), pixels are kept as tightly packed
/// RGB rows, top row first: alpha is dropped, gray is replicated to three channels and
/// 16-bit samples are scaled to 8 bits before the image is built. That is what MediaPipe's
/// CPU path feeds its models, so every stage after this one sees one layout.
public struct MPImage: Sendable {
  /// How the stored pixels are turned relative to the upright picture, with the names and
  /// meaning of `UIImage.Orientation`.
  ///
  /// MediaPipe's iOS tasks map `.up`, `.right`, `.down` and `.left` to a rotation of the
  /// model's input; they refuse the mirrored orientations, and so does Visage (see
  /// `rotationDegrees`). `removingMirroring()` turns a mirrored image into an accepted one
  /// showing the same picture, as decoding a file with a mirrored Exif tag does.
  public enum Orientation: String, Sendable, CaseIterable {
    /// The pixels are upright.
    case up
    /// The stored picture is upside down. EXIF orientation 3.
    case down
    /// The stored picture is turned 90 degrees clockwise (its top is at the right); shown
    /// upright by turning it 90 degrees counter-clockwise. EXIF orientation 8.
    case left
    /// The stored picture is turned 90 degrees counter-clockwise (its top is at the left), as
    /// a phone held upright stores its photos; shown by turning 90 degrees clockwise. EXIF 6.
    case right
    /// `.up`, mirrored left to right.
    case upMirrored
    /// `.down`, mirrored left to right.
    case downMirrored
    /// `.left`, mirrored.
    case leftMirrored
    /// `.right`, mirrored.
    case rightMirrored

    /// The clockwise rotation MediaPipe's iOS task runner applies for this orientation:
    /// up 0, right −270, down −180, left −90 (`MPPVisionTaskRunner.mm`).
    ///
    /// - Throws: `MPImageError.unsupportedOrientation` for a mirrored orientation.
    public func rotationDegrees() throws -> Int {
      switch self {
      case .up: 0
      case .right: -270
      case .down: -180
      case .left: -90
      case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored:
        throw MPImageError.unsupportedOrientation(self)
      }
    }
  }

  /// The layouts a raw pixel buffer may come in.
  public enum PixelFormat: String, Sendable, CaseIterable {
    /// Three bytes per pixel: red, green, blue.
    case rgb
    /// Four bytes per pixel: red, green, blue, alpha (alpha is dropped).
    case rgba
    /// Four bytes per pixel: blue, green, red, alpha, as Core Video's 32BGRA (alpha dropped).
    case bgra
    /// One byte per pixel, replicated to red, green and blue.
    case gray

    /// Bytes one pixel takes in this format.
    public var bytesPerPixel: Int {
      switch self {
      case .rgb: 3
      case .rgba, .bgra: 4
      case .gray: 1
      }
    }
  }

  /// Width in pixels, as stored (before orientation is applied).
  public let width: Int
  /// Height in pixels, as stored.
  public let height: Int
  /// `width * height * 3` bytes: RGB, rows top to bottom, no padding. (Of an image made by
  /// `withBorrowedPixels`, a copy of the caller's bytes.)
  public var pixels: [UInt8] {
    switch storage {
    case .owned(let array): array
    case .borrowed(let bytes): Array(bytes)
    }
  }
  /// Where the pixels are: the image's own array, or the caller's memory (`withBorrowedPixels`).
  private let storage: Storage
  /// How the stored pixels are turned; detectors undo it as MediaPipe does.
  public var orientation: Orientation
  /// Visage: the camera's focal length in pixels, when known (Visage's decoders read it from
  /// Exif); the same whichever way the picture is turned. A landmarker uses it only when its
  /// options allow (`FaceLandmarkerOptions.usesImageFocalLength`).
  public var focalLengthInPixels: Double?

  /// The largest width or height accepted: guards against sizes that would overflow or
  /// exhaust memory when a hostile file claims them.
  public static let maximumDimension = 1 << 15

  /// Creates an image from tightly packed RGB bytes.
  ///
  /// - Throws: `MPImageError` if a dimension is not in 1...`maximumDimension` or
  ///   `pixels` does not hold exactly `width * height * 3` bytes.
  public init(width: Int, height: Int, rgb pixels: [UInt8], orientation: Orientation = .up) throws {
    try Self.validate(width: width, height: height)
    guard pixels.count == width * height * 3 else {
      throw MPImageError.bufferSize(expected: width * height * 3, actual: pixels.count)
    }
    self.width = width
    self.height = height
    self.storage = .owned(pixels)
    self.orientation = orientation
  }

  /// Creates an image by copying a raw buffer whose rows may be padded.
  ///
  /// - Parameters:
  ///   - width: pixels per row, in 1...`maximumDimension`.
  ///   - height: rows, in 1...`maximumDimension`.
  ///   - bytesPerRow: the distance between the starts of two rows; at least
  ///     `width * format.bytesPerPixel`. The last row needs only its pixels.
  ///   - format: how the buffer's pixels are laid out; it becomes RGB.
  ///   - buffer: the pixels, read once, here; the image keeps its own copy.
  ///   - orientation: how the picture is turned in the buffer.
  /// - Throws: `MPImageError` for a bad size, a short row stride or a buffer too small
  ///   for the rows it should hold.
  public init(
    width: Int, height: Int, bytesPerRow: Int, format: PixelFormat,
    buffer: UnsafeRawBufferPointer, orientation: Orientation = .up
  ) throws {
    try Self.validate(width: width, height: height)
    let rowBytes = width * format.bytesPerPixel
    guard bytesPerRow >= rowBytes else {
      throw MPImageError.rowStride(bytesPerRow: bytesPerRow, minimum: rowBytes)
    }
    let needed = bytesPerRow * (height - 1) + rowBytes
    guard buffer.count >= needed else {
      throw MPImageError.bufferSize(expected: needed, actual: buffer.count)
    }
    // Every byte is written below, so the array is not zeroed first (a tenth of a millisecond
    // at 640×480, which a caller copying frames in from Python or C pays on every frame).
    self.storage = .owned(
      [UInt8](unsafeUninitializedCapacity: width * height * 3) { out, count in
        for y in 0..<height {
          let row = buffer.baseAddress! + y * bytesPerRow
          let dst = out.baseAddress! + y * width * 3
          Self.convertRow(row, into: dst, count: width, format: format)
        }
        count = width * height * 3
      })
    self.width = width
    self.height = height
    self.orientation = orientation
  }

  /// Creates an image by copying a raw byte array whose rows may be padded.
  ///
  /// See `init(width:height:bytesPerRow:format:buffer:orientation:)`.
  public init(
    width: Int, height: Int, bytesPerRow: Int, format: PixelFormat, bytes: [UInt8],
    orientation: Orientation = .up
  ) throws {
    self = try bytes.withUnsafeBytes {
      try MPImage(
        width: width, height: height, bytesPerRow: bytesPerRow, format: format, buffer: $0,
        orientation: orientation)
    }
  }

  /// Visage: calls `body` with an image whose pixels are the caller's tightly packed RGB bytes,
  /// read where they are instead of copied: for one image- or video-mode call on a frame the
  /// caller holds (the Python package passes numpy arrays so). The image, and anything holding
  /// it, must not be kept past `body`; a task handed it in live-stream mode, which keeps frames
  /// for later, copies it first.
  ///
  /// - Parameters:
  ///   - width: pixels per row, in 1...`maximumDimension`.
  ///   - height: rows, in 1...`maximumDimension`.
  ///   - bytes: `width * height * 3` bytes: RGB, rows top to bottom, no padding.
  ///   - orientation: how the picture is turned in the bytes.
  ///   - body: the work to do with the image.
  /// - Returns: what `body` returns.
  /// - Throws: `MPImageError` if a dimension is not in 1...`maximumDimension` or `bytes` does
  ///   not hold exactly `width * height * 3` bytes; else what `body` throws.
  public static func withBorrowedPixels<Result>(
    width: Int, height: Int, rgb bytes: UnsafeBufferPointer<UInt8>, orientation: Orientation = .up,
    _ body: (MPImage) throws -> Result
  ) throws -> Result {
    try validate(width: width, height: height)
    guard bytes.count == width * height * 3, bytes.baseAddress != nil else {
      throw MPImageError.bufferSize(expected: width * height * 3, actual: bytes.count)
    }
    return try body(MPImage(width: width, height: height, storage: .borrowed(bytes), orientation: orientation))
  }

  private init(width: Int, height: Int, storage: Storage, orientation: Orientation) {
    (self.width, self.height, self.storage, self.orientation) = (width, height, storage, orientation)
  }

  /// Calls `body` with the pixels where they are.
  func withPixels<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    switch storage {
    case .owned(let array): try array.withUnsafeBufferPointer(body)
    case .borrowed(let bytes): try body(bytes)
    }
  }

  /// This image with pixels of its own: itself, or a copy of borrowed pixels, for keeping.
  func owningPixels() -> MPImage {
    guard case .borrowed(let bytes) = storage else { return self }
    var copy = MPImage(width: width, height: height, storage: .owned(Array(bytes)), orientation: orientation)
    copy.focalLengthInPixels = focalLengthInPixels
    return copy
  }

  /// The pixels' storage. A borrowed buffer lives only within `withBorrowedPixels`'s call, so
  /// an image holding one never crosses threads beyond it (tasks copy before keeping one).
  // Safe: UnsafeBufferPointer is not Sendable, but the borrowed bytes are only read here.
  private enum Storage: @unchecked Sendable {
    case owned([UInt8])
    case borrowed(UnsafeBufferPointer<UInt8>)
  }

  /// Throws `MPImageError.dimensions` unless both sides are in 1...`maximumDimension`.
  static func validate(width: Int, height: Int) throws {
    guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
      throw MPImageError.dimensions(width: width, height: height)
    }
  }

  private static func convertRow(
    _ src: UnsafeRawPointer, into dst: UnsafeMutablePointer<UInt8>, count: Int, format: PixelFormat
  ) {
    let s = src.assumingMemoryBound(to: UInt8.self)
    switch format {
    case .rgb:
      dst.initialize(from: s, count: count * 3)
    case .rgba:
      for i in 0..<count {
        dst[3 * i] = s[4 * i]
        dst[3 * i + 1] = s[4 * i + 1]
        dst[3 * i + 2] = s[4 * i + 2]
      }
    case .bgra:
      for i in 0..<count {
        dst[3 * i] = s[4 * i + 2]
        dst[3 * i + 1] = s[4 * i + 1]
        dst[3 * i + 2] = s[4 * i]
      }
    case .gray:
      for i in 0..<count {
        let v = s[i]
        dst[3 * i] = v
        dst[3 * i + 1] = v
        dst[3 * i + 2] = v
      }
    }
  }
}

/// Why a `MPImage` could not be built or used.
public enum MPImageError: Error, Equatable, CustomStringConvertible {
  /// A width or height outside 1...`MPImage.maximumDimension`.
  case dimensions(width: Int, height: Int)
  /// The buffer holds fewer (or, for packed RGB, other than the) bytes the size needs.
  case bufferSize(expected: Int, actual: Int)
  /// Rows closer together than one row of pixels.
  case rowStride(bytesPerRow: Int, minimum: Int)
  /// A mirrored orientation, which MediaPipe's tasks refuse.
  case unsupportedOrientation(MPImage.Orientation)
  /// A YUV frame given with the wrong number of planes for its layout.
  case planeCount(layout: MPImage.YUVLayout, actual: Int)
  /// A YUV plane (named "Y", "U", "V", "UV" or "VU") whose rows are closer together than one
  /// row of its samples.
  case planeRowStride(plane: String, bytesPerRow: Int, minimum: Int)
  /// A YUV plane whose buffer holds fewer bytes than its rows need (`Int.max` when the stride
  /// times the rows overflows).
  case planeSize(plane: String, expected: Int, actual: Int)
  /// A Core Video pixel format `MPImage(pixelBuffer:)` does not read, by its four-character
  /// code (`CVPixelBufferGetPixelFormatType`).
  case unsupportedPixelFormat(UInt32)
  /// A platform image with no pixels to read: a `UIImage` or `NSImage` without a `CGImage`, an
  /// invalid `CMSampleBuffer` or one without an image buffer, a pixel buffer that cannot be
  /// locked. The text says which.
  case unreadableSource(String)

  /// A one-line explanation that names the value at fault.
  public var description: String {
    switch self {
    case .dimensions(let w, let h):
      "image size \(w)x\(h) is not supported (each side must be 1...\(MPImage.maximumDimension))"
    case .bufferSize(let expected, let actual):
      "pixel buffer holds \(actual) bytes; the image needs \(expected)"
    case .rowStride(let stride, let minimum):
      "bytesPerRow \(stride) is smaller than one row of pixels (\(minimum) bytes)"
    case .unsupportedOrientation(let o):
      "unsupported image orientation '\(o.rawValue)': mirrored orientations are not supported (as in MediaPipe)"
    case .planeCount(let layout, let actual):
      "a \(layout.rawValue) frame has \(layout.planeCount) planes (\(layout.planeNames.joined(separator: ", "))); got \(actual)"
    case .planeRowStride(let plane, let stride, let minimum):
      "the \(plane) plane's bytesPerRow \(stride) is smaller than one row of its samples (\(minimum) bytes)"
    case .planeSize(let plane, let expected, let actual):
      "the \(plane) plane holds \(actual) bytes; its rows need \(expected)"
    case .unsupportedPixelFormat(let code):
      "unsupported pixel format \(Self.fourCharacterCode(code)): MPImage(pixelBuffer:) reads 'BGRA', 'RGBA', "
        + "'420v', '420f', 'y420' and 'f420'"
    case .unreadableSource(let reason):
      "cannot read the image: \(reason)"
    }
  }

  /// A pixel format's four-character code quoted ('420v'), or in hexadecimal when its bytes are
  /// not printable ASCII.
  static func fourCharacterCode(_ code: UInt32) -> String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (24 - 8 * $0)) }
    guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return "0x" + String(code, radix: 16) }
    return "'" + String(decoding: bytes, as: UTF8.self) + "'"
  }
}
