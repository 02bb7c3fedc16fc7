import Visage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension MPImage {
  /// Reads a PNG or JPEG file, recognised by its first bytes whatever its name.
  ///
  /// Pixels become 8-bit RGB as described for `PNG` and `JPEG`. `orientation` says how the
  /// stored pixels are turned; `nil` (the default) takes it from the file's Exif orientation
  /// tag, `.up` when there is none or it cannot be read (see `ExifOrientation`); pass `.up` to
  /// ignore the tag. A mirrored orientation, read or given, is undone on the pixels by
  /// `removingMirroring()` (they are flipped left to right and the orientation loses its
  /// mirror), since the tasks refuse mirrored orientations as MediaPipe does: the image is the
  /// same picture, and `applyingOrientation()` gives what Pillow's `exif_transpose` gives.
  ///
  /// The file is opened without blocking and must be a regular file, so a FIFO or a device
  /// given by mistake fails at once instead of waiting for data or reading without end.
  ///
  /// - Throws: `ImageIOError`, naming `path`: `.unreadableFile` if it cannot be read or is not
  ///   a regular file, `.unknownFormat` if it is neither PNG nor JPEG, or a decoding error
  ///   (`.tooLarge` and `.tooManyPixels` past `limits`).
  public init(contentsOfFile path: String, orientation: Orientation? = nil, limits: ImageLimits = .default) throws {
    self = try DecodedImage(contentsOfFile: path, orientation: orientation, limits: limits).image
  }

  /// Decodes a PNG or JPEG file held in memory, recognised by its first bytes, with
  /// `orientation` as for `init(contentsOfFile:orientation:limits:)`.
  ///
  /// - Throws: `ImageIOError.unknownFormat` if the bytes start with neither the PNG signature
  ///   nor the JPEG marker `FF D8 FF`, or a decoding error from `PNG.decode` or `JPEG.decode`.
  public init(encoded bytes: [UInt8], orientation: Orientation? = nil, limits: ImageLimits = .default) throws {
    self = try DecodedImage(encoded: bytes, orientation: orientation, limits: limits).image
  }
}

/// A PNG or JPEG file decoded, with the Exif orientation it declares: for callers that report
/// what was applied, such as the `visage` command line.
public struct DecodedImage: Sendable {
  /// The image, oriented as `MPImage(contentsOfFile:orientation:limits:)` describes.
  public var image: MPImage
  /// The orientation the file's Exif tag gives (`ExifOrientation.read(fromFile:)`), whether or
  /// not it was applied; `nil` when there is none or it cannot be read.
  public var exifOrientation: MPImage.Orientation?
  /// The orientation the file's stored pixels were taken to have: the one given, else the Exif
  /// tag's, else `.up`. It differs from `image.orientation` only when mirrored, since `image`
  /// is then un-mirrored; `image.applyingOrientation()` is the stored pixels put through it.
  public var storedOrientation: MPImage.Orientation

  /// Reads a PNG or JPEG file; see `MPImage(contentsOfFile:orientation:limits:)`.
  public init(contentsOfFile path: String, orientation: MPImage.Orientation? = nil, limits: ImageLimits = .default)
    throws
  {
    let bytes = try ImageFile.bytes(atPath: path)
    do {
      self = try DecodedImage(encoded: bytes, orientation: orientation, limits: limits)
    } catch let error as ImageIOError {
      throw error.naming(path)
    }
  }

  /// Decodes a PNG or JPEG file held in memory; see `MPImage(encoded:orientation:limits:)`.
  public init(encoded bytes: [UInt8], orientation: MPImage.Orientation? = nil, limits: ImageLimits = .default)
    throws
  {
    var decoded: MPImage
    switch ImageFormat(sniffing: bytes) {
    case .png: decoded = try PNG.decode(bytes, limits: limits)
    case .jpeg: decoded = try JPEG.decode(bytes, limits: limits)
    case nil: throw ImageIOError.unknownFormat(path: nil, leadingBytes: Array(bytes.prefix(16)))
    }
    // Read only once the pixels decode, so a file that is not an image costs no Exif search.
    exifOrientation = ExifOrientation.read(fromFile: bytes)
    storedOrientation = orientation ?? exifOrientation ?? .up
    decoded.orientation = storedOrientation
    image = decoded.removingMirroring()
    image.focalLengthInPixels = ExifFocalLength.pixels(fromFile: bytes, width: image.width, height: image.height)
  }
}

/// Whole-file reads with the system's reason when they fail.
enum ImageFile {
  /// The bytes of the regular file at `path`.
  static func bytes(atPath path: String) throws -> [UInt8] {
    func failure(_ code: Int32) -> ImageIOError {
      .unreadableFile(path: path, reason: String(cString: strerror(code)))
    }
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, possibly
    // forever. The type is checked before any read, and regular files ignore the flag.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { throw failure(errno) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw failure(errno) }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw failure(EISDIR)
    default: throw ImageIOError.unreadableFile(path: path, reason: "not a regular file (a FIFO, socket or device)")
    }
    let size = Int(status.st_size)
    var bytes = [UInt8](repeating: 0, count: size)
    var done = 0
    while done < size {
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + done, size - done) }
      if count < 0 {
        if errno == EINTR { continue }
        throw failure(errno)
      }
      if count == 0 { break }  // the file shrank while we read it
      done += count
    }
    bytes.removeLast(size - done)
    return bytes
  }
}
