/// A minimal zip archive writer for building `.task` bundles inside tests.
///
/// Writes local headers, a central directory and the end record (PKWARE APPNOTE 4.3.7,
/// 4.3.12, 4.3.16), no zip64, no extra fields. Entries are stored, or "deflated" as one
/// stored deflate block (RFC 1951 §3.2.4: a valid method-8 stream that needs no
/// compressor), which is enough to check how a reader treats compressed entries.
public enum ZipWriter {
  /// How an entry's bytes are written.
  public enum Method: UInt16, Sendable {
    /// Method 0: the bytes as they are.
    case stored = 0
    /// Method 8: a deflate stream (here, a single uncompressed block).
    case deflated = 8
  }

  /// One file of the archive.
  public struct Entry: Sendable {
    /// The name in the archive.
    public var name: String
    /// The uncompressed bytes.
    public var data: [UInt8]
    /// How the bytes are written.
    public var method: Method
    /// A CRC-32 to record instead of the true one, to make a corrupt archive.
    public var recordedCRC: UInt32?

    /// Creates an entry.
    public init(name: String, data: [UInt8], method: Method = .stored, recordedCRC: UInt32? = nil) {
      self.name = name
      self.data = data
      self.method = method
      self.recordedCRC = recordedCRC
    }
  }

  /// The archive holding `entries` in order.
  public static func archive(_ entries: [Entry]) -> [UInt8] {
    var out: [UInt8] = []
    var directory: [UInt8] = []
    for entry in entries {
      let name = Array(entry.name.utf8)
      let payload = entry.method == .stored ? entry.data : storedDeflateStream(entry.data)
      let crc = entry.recordedCRC ?? crc32(entry.data)
      let localOffset = out.count
      // Local file header.
      append32(&out, 0x0403_4B50)
      append16(&out, 20)  // version needed
      append16(&out, 0)  // flags
      append16(&out, entry.method.rawValue)
      append16(&out, 0)  // time
      append16(&out, 0x21)  // date: 1980-01-01
      append32(&out, crc)
      append32(&out, UInt32(payload.count))
      append32(&out, UInt32(entry.data.count))
      append16(&out, UInt16(name.count))
      append16(&out, 0)  // extra length
      out += name
      out += payload
      // Central directory header.
      append32(&directory, 0x0201_4B50)
      append16(&directory, 20)  // version made by
      append16(&directory, 20)  // version needed
      append16(&directory, 0)
      append16(&directory, entry.method.rawValue)
      append16(&directory, 0)
      append16(&directory, 0x21)
      append32(&directory, crc)
      append32(&directory, UInt32(payload.count))
      append32(&directory, UInt32(entry.data.count))
      append16(&directory, UInt16(name.count))
      append16(&directory, 0)  // extra length
      append16(&directory, 0)  // comment length
      append16(&directory, 0)  // disk number
      append16(&directory, 0)  // internal attributes
      append32(&directory, 0)  // external attributes
      append32(&directory, UInt32(localOffset))
      directory += name
    }
    let directoryOffset = out.count
    out += directory
    // End of central directory record.
    append32(&out, 0x0605_4B50)
    append16(&out, 0)
    append16(&out, 0)
    append16(&out, UInt16(entries.count))
    append16(&out, UInt16(entries.count))
    append32(&out, UInt32(directory.count))
    append32(&out, UInt32(directoryOffset))
    append16(&out, 0)  // comment length
    return out
  }

  /// `data` as a deflate stream of uncompressed blocks of at most 65535 bytes.
  public static func storedDeflateStream(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    repeat {
      let end = min(start + 0xFFFF, data.count)
      let isLast = end == data.count
      out.append(isLast ? 0x01 : 0x00)  // BFINAL, BTYPE = 00 (stored)
      let length = UInt16(end - start)
      append16(&out, length)
      append16(&out, ~length)
      out += data[start..<end]
      start = end
    } while start < data.count
    return out
  }

  /// CRC-32 as zip records it (reflected polynomial 0xEDB88320), bit by bit.
  public static func crc32(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  private static func append16(_ out: inout [UInt8], _ value: UInt16) {
    out += [UInt8(value & 0xFF), UInt8(value >> 8)]
  }

  private static func append32(_ out: inout [UInt8], _ value: UInt32) {
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
  }
}
