import Visage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension VisionImage {
  /// Reads a PNG or JPEG file, recognised by its first bytes whatever its name.
  ///
  /// Pixels become 8-bit RGB as described for `PNG` and `JPEG`. Exif orientation is not read:
  /// pass `orientation` if the stored picture is turned.
  ///
  /// The file is opened without blocking and must be a regular file, so a FIFO or a device
  /// given by mistake fails at once instead of waiting for data or reading without end.
  ///
  /// - Throws: `ImageIOError`, naming `path`: `.unreadableFile` if it cannot be read or is not
  ///   a regular file, `.unknownFormat` if it is neither PNG nor JPEG, or a decoding error
  ///   (`.tooLarge` and `.tooManyPixels` past `limits`).
  public init(contentsOfFile path: String, orientation: Orientation = .up, limits: ImageLimits = .default) throws {
    let bytes = try ImageFile.bytes(atPath: path)
    do {
      self = try VisionImage(encoded: bytes, orientation: orientation, limits: limits)
    } catch let error as ImageIOError {
      throw error.naming(path)
    }
  }

  /// Decodes a PNG or JPEG file held in memory, recognised by its first bytes.
  ///
  /// - Throws: `ImageIOError.unknownFormat` if the bytes start with neither the PNG signature
  ///   nor the JPEG marker `FF D8 FF`, or a decoding error from `PNG.decode` or `JPEG.decode`.
  public init(encoded bytes: [UInt8], orientation: Orientation = .up, limits: ImageLimits = .default) throws {
    switch ImageFormat(sniffing: bytes) {
    case .png: self = try PNG.decode(bytes, limits: limits)
    case .jpeg: self = try JPEG.decode(bytes, limits: limits)
    case nil: throw ImageIOError.unknownFormat(path: nil, leadingBytes: Array(bytes.prefix(16)))
    }
    self.orientation = orientation
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
