import Foundation

/// A file's path as the bytes the system takes, which need not be UTF-8: Linux allows any byte
/// but NUL in a name (`lat\xe9.png` from an old archive), and no Swift `String` holds such a
/// byte. Its `string` form does, losslessly: each byte that is not part of UTF-8 is written
/// as NUL followed by the scalar of the same value (U+0080...U+00FF), a pair that no path
/// written as text holds, since no path holds NUL. The library opens the files it is given by
/// `String` path (models, `.npy` files, images, streams) through this type, so such a string
/// opens what its bytes name; the command line makes its arguments so (docs/cli.md, "File
/// names that are not UTF-8").
public struct BytePath: Hashable, Sendable, CustomStringConvertible {
  /// The path's bytes, without a terminating NUL.
  public var bytes: [UInt8]

  /// The path of these bytes.
  public init(bytes: some Sequence<UInt8>) { self.bytes = Array(bytes) }

  /// The path a string names: its UTF-8, each NUL and U+0080...U+00FF pair read as that byte.
  public init(_ string: String) {
    var bytes: [UInt8] = []
    var pendingNUL = false
    for scalar in string.unicodeScalars {
      if pendingNUL && (0x80...0xFF).contains(scalar.value) {
        bytes.append(UInt8(scalar.value))
        pendingNUL = false
        continue
      }
      if pendingNUL { bytes.append(0) }
      pendingNUL = scalar == "\0"
      if !pendingNUL { UTF8.encode(scalar) { bytes.append($0) } }
    }
    if pendingNUL { bytes.append(0) }
    self.bytes = bytes
  }

  /// A piece of a path: UTF-8 text, or bytes that are not part of UTF-8 (one maximal invalid
  /// sequence, which decoding makes one U+FFFD).
  public enum Piece: Equatable, Sendable {
    /// Bytes that are UTF-8, as text.
    case text(String)
    /// One sequence of bytes that is not UTF-8.
    case notUTF8([UInt8])
  }

  /// The path in pieces, in order.
  public var pieces: [Piece] {
    var pieces: [Piece] = []
    var text = String.UnicodeScalarView()
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        text.append(Unicode.UTF8.decode(encoded))
        offset += encoded.count
      case .error(let length):
        if !text.isEmpty { pieces.append(.text(String(text))) }
        text = String.UnicodeScalarView()
        pieces.append(.notUTF8(Array(bytes[offset..<(offset + length)])))
        offset += length
      case .emptyInput:
        if !text.isEmpty { pieces.append(.text(String(text))) }
        return pieces
      }
    }
  }

  /// The string form, which `init(_:)` reads back as these bytes; the UTF-8 text itself when
  /// the bytes are UTF-8.
  public var string: String {
    if let text = String(bytes: bytes, encoding: .utf8) { return text }
    var scalars = String.UnicodeScalarView()
    for piece in pieces {
      switch piece {
      case .text(let text): scalars += text.unicodeScalars
      case .notUTF8(let bytes): for byte in bytes { scalars += ["\0", Unicode.Scalar(byte)] }
      }
    }
    return String(scalars)
  }

  /// The path for people, each byte sequence that is not UTF-8 shown as U+FFFD.
  /// `BytePath(message).description` shows a message holding string forms so too.
  public var description: String { String(decoding: bytes, as: UTF8.self) }

  /// The path as a C string.
  public var cString: [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

  /// Opens the path (`open(2)`): the descriptor, or -1 with `errno` set.
  public func open(_ flags: Int32, mode: mode_t = 0o666) -> Int32 { openPath(cString, flags, mode) }

  /// Whether anything is there (following a link).
  public var exists: Bool { access(cString, F_OK) == 0 }

  /// Whether a folder is there (following a link).
  public var isFolder: Bool {
    var status = stat()
    return stat(cString, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
  }

  /// The folder the path is in (`.` for a bare name) and its own name, trailing `/`s dropped.
  public var folderAndName: (folder: BytePath, name: [UInt8]) {
    let slash = UInt8(ascii: "/")
    var whole = bytes[...]
    while whole.count > 1 && whole.last == slash { whole.removeLast() }
    guard let cut = whole.lastIndex(of: slash) else { return (BytePath("."), Array(whole)) }
    return (BytePath(bytes: cut == 0 ? [slash] : whole[..<cut]), Array(whole[(cut + 1)...]))
  }

  /// The whole regular file, of at most `limit` bytes.
  ///
  /// - Throws: `ReadFailure`; a FIFO, device or folder is `.unreadable` without being waited on.
  public func contents(limit: Int = .max) throws(ReadFailure) -> [UInt8] {
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer; regular files ignore it.
    let descriptor = open(O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    return try Self.contents(of: descriptor, limit: limit)
  }

  /// The whole regular file open at `descriptor`, of at most `limit` bytes; as much as there
  /// is of one that shrinks while it is read.
  public static func contents(of descriptor: Int32, limit: Int = .max) throws(ReadFailure) -> [UInt8] {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw .unreadable(reason: String(cString: strerror(status.st_mode & S_IFMT == S_IFDIR ? EISDIR : EINVAL)))
    }
    guard status.st_size <= limit else { throw .tooLarge(bytes: Int(status.st_size)) }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + done, $0.count - done) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
      if count == 0 { break }
      done += count
    }
    bytes.removeLast(bytes.count - done)
    return bytes
  }

  /// Why `contents(limit:)` failed.
  public enum ReadFailure: Error, Equatable {
    /// The file cannot be opened or read, or is not a regular file; the system's reason.
    case unreadable(reason: String)
    /// The file has more than the limit's bytes.
    case tooLarge(bytes: Int)
  }

  /// Creates or replaces the file with `contents`: nil, or why not in the system's words.
  public func write(_ contents: [UInt8]) -> String? {
    let descriptor = open(O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
    guard descriptor >= 0 else { return String(cString: strerror(errno)) }
    var done = 0
    while done < contents.count {
      let count = contents.withUnsafeBytes { writeBytes(descriptor, $0.baseAddress! + done, $0.count - done) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        let reason = String(cString: strerror(errno))
        close(descriptor)
        return reason
      }
      done += count
    }
    return close(descriptor) == 0 ? nil : String(cString: strerror(errno))
  }

  /// Makes the folder the path names and its parents, as `mkdir -p` does: nil, or why not in
  /// the system's words ("Not a directory"; Foundation's own reads "The operation could not
  /// be completed. (NSCocoaErrorDomain error 512.)").
  public func makeFolders() -> String? {
    let slash = UInt8(ascii: "/")
    for end in bytes.indices.dropFirst() where bytes[end] == slash && bytes[end - 1] != slash {
      if mkdir(BytePath(bytes: bytes[..<end]).cString, 0o777) != 0 && errno != EEXIST {
        return String(cString: strerror(errno))
      }
    }
    if mkdir(cString, 0o777) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
    // EEXIST is also what a file of that name gives.
    return isFolder ? nil : String(cString: strerror(ENOTDIR))
  }
}

/// `open(2)` and `write(2)`, which `BytePath`'s own methods hide inside it.
private func openPath(_ path: [CChar], _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
