/// A MediaPipe `.task` bundle: a zip archive of models and metadata, stored uncompressed.
///
/// Reads the central directory at the end of the archive, checks every offset and size
/// against the file, and hands out entries by name. Compressed entries are refused with an
/// error rather than inflated: MediaPipe writes bundles stored (zip method 0).
public struct TaskBundle: Sendable {
  /// One file in the bundle.
  public struct Entry: Hashable, Sendable {
    /// The entry's name in the archive.
    public let name: String
    /// Where its bytes start in the archive.
    let offset: Int
    /// Its size in bytes.
    public let size: Int
    /// Zip compression method (0 = stored).
    let method: Int
    /// CRC-32 recorded in the directory.
    let crc: UInt32
  }

  private let bytes: [UInt8]
  /// The entries, in directory order.
  public let entries: [Entry]

  /// Names of the entries, in directory order.
  public var entryNames: [String] { entries.map(\.name) }

  /// Reads the archive's directory.
  public init(bytes: [UInt8]) throws(TFLiteError) {
    self.bytes = bytes
    let reader = ZipReader(bytes: bytes)
    entries = try reader.entries()
  }

  /// The bytes of entry `name`, checked against its CRC-32.
  public func data(named name: String) throws(TFLiteError) -> [UInt8] {
    guard let entry = entries.first(where: { $0.name == name }) else {
      throw .missingEntry(name: name, available: entryNames)
    }
    guard entry.method == 0 else {
      throw .invalidBundle(
        "entry '\(name)' is compressed (zip method \(entry.method)); only stored entries are read — repack with `zip -0`")
    }
    let data = Array(bytes[entry.offset..<(entry.offset + entry.size)])
    guard CRC32.checksum(data) == entry.crc else {
      throw .invalidBundle("entry '\(name)' fails its CRC-32 check; the bundle is corrupt")
    }
    return data
  }
}

/// The few zip structures a stored archive needs (PKWARE APPNOTE 4.3.6, 4.3.7, 4.3.12, 4.3.16).
private struct ZipReader {
  let bytes: [UInt8]

  func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
  func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }

  func require(_ at: Int, _ size: Int, _ what: String) throws(TFLiteError) {
    guard at >= 0, size >= 0, at <= bytes.count - size else {
      throw .invalidBundle("\(what) at offset \(at) runs past the end of the \(bytes.count)-byte file")
    }
  }

  func entries() throws(TFLiteError) -> [TaskBundle.Entry] {
    // The end-of-central-directory record is the last 22 bytes, before an optional comment.
    guard bytes.count >= 22 else { throw .invalidBundle("\(bytes.count) bytes is too short for a zip archive") }
    var end = bytes.count - 22
    let lowest = max(0, bytes.count - 22 - 0xFFFF)
    while end >= lowest, u32(end) != 0x0605_4B50 { end -= 1 }
    guard end >= lowest else { throw .invalidBundle("no zip end-of-central-directory record; this is not a zip archive") }
    let count = u16(end + 10)
    let directorySize = u32(end + 12)
    var at = u32(end + 16)
    guard count != 0xFFFF, at != 0xFFFF_FFFF else { throw .invalidBundle("zip64 archives are not supported") }
    try require(at, directorySize, "central directory")
    // The directory ends where its end record begins; a file cut short can still end in an
    // end record (an entry's own bytes may hold one), but not in the right place.
    guard at + directorySize == end else {
      throw .invalidBundle("the central directory (\(directorySize) bytes at \(at)) does not end at its end record (\(end)); the archive is truncated or not a zip")
    }
    var result: [TaskBundle.Entry] = []
    for index in 0..<count {
      try require(at, 46, "central directory entry \(index)")
      guard u32(at) == 0x0201_4B50 else { throw .invalidBundle("central directory entry \(index) has a bad signature") }
      let flags = u16(at + 8)
      let method = u16(at + 10)
      let crc = UInt32(u32(at + 16))
      let compressedSize = u32(at + 20)
      let nameLength = u16(at + 28)
      let skip = nameLength + u16(at + 30) + u16(at + 32)
      let localHeader = u32(at + 42)
      try require(at + 46, skip, "central directory entry \(index)")
      let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
      guard flags & 1 == 0 else { throw .invalidBundle("entry '\(name)' is encrypted") }
      try require(localHeader, 30, "local header of '\(name)'")
      guard u32(localHeader) == 0x0403_4B50 else { throw .invalidBundle("local header of '\(name)' has a bad signature") }
      let dataStart = localHeader + 30 + u16(localHeader + 26) + u16(localHeader + 28)
      try require(dataStart, compressedSize, "data of '\(name)'")
      result.append(.init(name: name, offset: dataStart, size: compressedSize, method: method, crc: crc))
      at += 46 + skip
    }
    return result
  }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) as zip records it.
enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  static func checksum(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
  }
}
