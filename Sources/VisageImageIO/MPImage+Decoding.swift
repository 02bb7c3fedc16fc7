import Visage
import VisageTFLite

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
  /// The file is opened without blocking and must be a regular file or a pipe (a FIFO, or a
  /// shell's process substitution `<(cat a.png)`), so a device given by mistake fails at once
  /// instead of reading without end. A pipe is read whole once its first eight bytes show a
  /// PNG or JPEG signature, up to 256 MiB.
  ///
  /// - Throws: `ImageIOError`, naming `path`: `.unreadableFile` if it cannot be read, is
  ///   neither a regular file nor a pipe, or is a pipe of more than 256 MiB, `.unknownFormat`
  ///   if it is neither PNG nor JPEG, or a decoding error
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
  /// Whether the bytes were a PNG or a JPEG.
  public var format: ImageFormat

  /// Reads a PNG or JPEG file; see `MPImage(contentsOfFile:orientation:limits:)`. `path` is
  /// read as a `BytePath`, so its string form names a file whose name is not UTF-8. `decoder`
  /// chooses the pixels' decoder (`ImageDecoder`).
  public init(
    contentsOfFile path: String, orientation: MPImage.Orientation? = nil, limits: ImageLimits = .default,
    decoder: ImageDecoder = .standard
  ) throws {
    let bytes = try ImageFile.bytes(atPath: path)
    do {
      self = try DecodedImage(encoded: bytes, orientation: orientation, limits: limits, decoder: decoder)
    } catch let error as ImageIOError {
      throw error.naming(path)
    }
  }

  /// Decodes a PNG or JPEG file held in memory; see `MPImage(encoded:orientation:limits:)`.
  /// With `decoder` `.mediaPipePython`, stb_image decodes (`STBImage`) and a PNG's eXIf is not
  /// read, as in MediaPipe's Python; a gray and alpha PNG is refused there, as MediaPipe
  /// refuses it.
  public init(
    encoded bytes: [UInt8], orientation: MPImage.Orientation? = nil, limits: ImageLimits = .default,
    decoder: ImageDecoder = .standard
  ) throws {
    var decoded: MPImage
    guard let sniffed = ImageFormat(sniffing: bytes) else {
      throw ImageIOError.unknownFormat(path: nil, leadingBytes: Array(bytes.prefix(16)))
    }
    format = sniffed
    switch (decoder, sniffed) {
    case (.standard, .png): decoded = try PNG.decode(bytes, limits: limits)
    case (.standard, .jpeg): decoded = try JPEG.decode(bytes, limits: limits)
    case (.mediaPipePython, _): decoded = try STBImage(encoded: bytes, limits: limits).image()
    }
    // Read only once the pixels decode, so a file that is not an image costs no Exif search.
    exifOrientation =
      decoder == .standard ? ExifOrientation.read(fromFile: bytes) : ExifOrientation.readAsMediaPipe(fromFile: bytes)
    storedOrientation = orientation ?? exifOrientation ?? .up
    decoded.orientation = storedOrientation
    image = decoded.removingMirroring()
    image.focalLengthInPixels = ExifFocalLength.pixels(fromFile: bytes, width: image.width, height: image.height)
  }
}

/// Whole-file reads with the system's reason when they fail.
enum ImageFile {
  /// The most bytes an image read from a pipe may have (256 MiB): a pipe's size is not known
  /// before it is read, and one that never ends must not fill the memory.
  static let maximumPipedBytes = 1 << 28

  /// The bytes of the regular file, or the pipe (a FIFO, `<(cat a.png)`), at `path`. A pipe
  /// must start with a PNG or JPEG signature, checked before more of it is read.
  static func bytes(atPath path: String) throws -> [UInt8] {
    func failure(_ code: Int32) -> ImageIOError {
      .unreadableFile(path: path, reason: String(cString: strerror(code)))
    }
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, possibly
    // forever. The type is checked before any read, and regular files ignore the flag.
    let descriptor = BytePath(path).open(O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { throw failure(errno) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw failure(errno) }
    switch status.st_mode & S_IFMT {
    case S_IFREG, S_IFDIR:
      do { return try BytePath.contents(of: descriptor) } catch {
        guard case .unreadable(let reason) = error else { throw failure(EFBIG) }
        throw ImageIOError.unreadableFile(path: path, reason: reason)
      }
    case S_IFIFO:
      // A pipe with a writer is waited for; one without reads as empty at once.
      _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
      return try piped(name: path) { read(descriptor, $0, $1) }
    default: throw ImageIOError.unreadableFile(path: path, reason: "not a regular file or a pipe (a socket or device)")
    }
  }

  /// A pipe's bytes, which must start with a PNG or JPEG signature (checked on the first eight
  /// bytes, so a stream of something else is not read on) and number at most
  /// `maximumPipedBytes`. `read` fills the buffer given and returns how much it read, 0 at
  /// the end, -1 on failure.
  static func piped(name: String, read: (UnsafeMutableRawPointer, Int) -> Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 8)
    var done = 0
    while true {
      if done == bytes.count {
        guard done <= maximumPipedBytes else {
          throw ImageIOError.unreadableFile(
            path: name, reason: "more than \(maximumPipedBytes >> 20) MiB on a pipe, too much for one image")
        }
        bytes += repeatElement(0, count: min(max(done, 1 << 16), maximumPipedBytes + 1 - done))
      }
      let count = bytes.withUnsafeMutableBytes { read($0.baseAddress! + done, $0.count - done) }
      if count < 0 {
        if errno == EINTR { continue }
        throw ImageIOError.unreadableFile(path: name, reason: String(cString: strerror(errno)))
      }
      done += count
      // The first eight bytes are in (the buffer holds no more until then), or all there are.
      if done - count < 8 && (done == 8 || count == 0) && ImageFormat(sniffing: bytes[..<done]) == nil {
        throw ImageIOError.unknownFormat(path: name, leadingBytes: Array(bytes[..<done]))
      }
      if count == 0 {
        bytes.removeLast(bytes.count - done)
        return bytes
      }
    }
  }
}
