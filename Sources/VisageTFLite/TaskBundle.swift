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
        "entry '\(name)' is compressed (zip method \(entry.method)); only stored entries are read — repack with `zip -0`"
      )
    }
    let data = Array(bytes[entry.offset..<(entry.offset + entry.size)])
    let crc = data.withUnsafeBytes { CRC32.checksum($0) }
    guard crc == entry.crc else {
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
    guard end >= lowest else {
      throw .invalidBundle("no zip end-of-central-directory record; this is not a zip archive")
    }
    let count = u16(end + 10)
    let directorySize = u32(end + 12)
    var at = u32(end + 16)
    guard count != 0xFFFF, at != 0xFFFF_FFFF else { throw .invalidBundle("zip64 archives are not supported") }
    try require(at, directorySize, "central directory")
    // The directory ends where its end record begins; a file cut short can still end in an
    // end record (an entry's own bytes may hold one), but not in the right place.
    guard at + directorySize == end else {
      throw .invalidBundle(
        "the central directory (\(directorySize) bytes at \(at)) does not end at its end record (\(end)); the archive is truncated or not a zip"
      )
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
      guard u32(localHeader) == 0x0403_4B50 else {
        throw .invalidBundle("local header of '\(name)' has a bad signature")
      }
      let dataStart = localHeader + 30 + u16(localHeader + 26) + u16(localHeader + 28)
      try require(dataStart, compressedSize, "data of '\(name)'")
      result.append(.init(name: name, offset: dataStart, size: compressedSize, method: method, crc: crc))
      at += 46 + skip
    }
    return result
  }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) as zip records it.
///
/// Eight bytes per step through eight tables ("slicing by 8"), on four quarters of the data
/// at once whose CRCs are then joined (a CRC of A then B is CRC(A) times x^(8·|B|) plus
/// CRC(B), modulo the polynomial). One chain at a time waited on its own table lookups
/// (LLVM turns the eight into one gather); four keep the core busy. The byte-at-a-time loop
/// took a third of loading face_landmarker.task; the tests check this one against a
/// bit-at-a-time twin (`ZipWriter.crc32`).
enum CRC32 {
  private static let polynomial: UInt32 = 0xEDB8_8320

  /// tables[k·256 + n]: the CRC register after byte n followed by k zero bytes.
  private static let tables: [UInt32] = {
    var t = [UInt32](repeating: 0, count: 8 * 256)
    for n in 0..<256 {
      var c = UInt32(n)
      for _ in 0..<8 { c = c & 1 != 0 ? polynomial ^ (c >> 1) : c >> 1 }
      t[n] = c
    }
    for k in 1..<8 {
      for n in 0..<256 { t[k * 256 + n] = t[(k - 1) * 256 + n] >> 8 ^ t[Int(t[(k - 1) * 256 + n] & 0xFF)] }
    }
    return t
  }()

  /// x^(2^k) modulo the polynomial, k = 0 ..< 32 (bit 31 is x^0 in this reflected form).
  private static let powers: [UInt32] = {
    var p: UInt32 = 1 << 30  // x^1
    var table = [p]
    for _ in 1..<32 {
      p = multiply(p, p)
      table.append(p)
    }
    return table
  }()

  /// a·b modulo the polynomial.
  private static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
    var (m, p, b) = (UInt32(1) << 31, UInt32(0), b)
    while m != 0 {
      if a & m != 0 { p ^= b }
      m >>= 1
      b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
    }
    return p
  }

  /// The CRC of A followed by B, from CRC(A), CRC(B) and B's length.
  static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
    // x^(8·length): multiply in x^(2^k) for every bit k of 8·length.
    var shift: UInt32 = 1 << 31
    var n = secondLength
    var k = 3
    while n != 0 {
      if n & 1 != 0 { shift = multiply(powers[k & 31], shift) }
      n >>= 1
      k += 1
    }
    return multiply(shift, first) ^ second
  }

  static func checksum(_ data: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = data.baseAddress, data.count > 0 else { return 0 }
    let quarter = data.count >= 1024 ? data.count / 4 & ~7 : 0
    var crcs: (UInt32, UInt32, UInt32, UInt32) = (~0, ~0, ~0, ~0)
    var last: UInt32 = ~0
    tables.withUnsafeBufferPointer { t in
      let t = t.baseAddress!
      @inline(__always) func step(_ crc: UInt32, _ at: UnsafeRawPointer) -> UInt32 {
        let low = UInt32(littleEndian: at.loadUnaligned(as: UInt32.self)) ^ crc
        let high = UInt32(littleEndian: at.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        return t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int(low >> 8 & 0xFF)]
          ^ t[5 * 256 + Int(low >> 16 & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
          ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int(high >> 8 & 0xFF)]
          ^ t[256 + Int(high >> 16 & 0xFF)] ^ t[Int(high >> 24)]
      }
      var i = 0
      while i < quarter {
        crcs.0 = step(crcs.0, base + i)
        crcs.1 = step(crcs.1, base + quarter + i)
        crcs.2 = step(crcs.2, base + 2 * quarter + i)
        crcs.3 = step(crcs.3, base + 3 * quarter + i)
        i += 8
      }
      // The rest follows the fourth quarter: its chain carries on.
      var crc = crcs.3
      i = 4 * quarter
      while i + 8 <= data.count {
        crc = step(crc, base + i)
        i += 8
      }
      while i < data.count {
        crc = t[Int((crc ^ UInt32(data[i])) & 0xFF)] ^ (crc >> 8)
        i += 1
      }
      last = crc
    }
    guard quarter > 0 else { return ~last }
    var total = combine(~crcs.0, ~crcs.1, secondLength: quarter)
    total = combine(total, ~crcs.2, secondLength: quarter)
    return combine(total, ~last, secondLength: data.count - 3 * quarter)
  }
}
