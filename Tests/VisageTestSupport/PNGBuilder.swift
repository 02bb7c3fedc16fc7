/// Big-endian bytes of a 32-bit value.
public func bigEndian(_ value: UInt32) -> [UInt8] {
  [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
}

/// One PNG chunk: length, type, data, CRC (PNG's CRC-32 is zip's).
public func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
  let body = Array(type.utf8) + data
  return bigEndian(UInt32(data.count)) + body + bigEndian(ZipWriter.crc32(body))
}

/// A well-formed PNG claiming 8-bit RGB of the given size whose IDAT holds a single byte:
/// a few dozen bytes that would decode to gigabytes if a decoder believed the header.
public func pngClaiming(width: UInt32, height: UInt32) -> [UInt8] {
  let oneZeroByte: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]  // zlib of [0]
  return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    + pngChunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
    + pngChunk("IDAT", oneZeroByte) + pngChunk("IEND", [])
}
