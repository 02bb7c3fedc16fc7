/// The chunks of a PNG file in order, from after its signature, as the file frames them: each
/// one's type, where its data lies and the CRC it carries (checked by the reader that needs it).
/// Iteration ends at the first chunk the bytes do not hold whole.
///
/// Read by `ExifOrientation` (the `eXIf` chunk) and by the Linux decoder's own path for common
/// PNGs (`DirectPNG`).
struct PNGChunks: Sequence, IteratorProtocol {
  /// One chunk: its type's four bytes start at `typeStart`, its data is `data`; the CRC covers
  /// both (`checked`).
  struct Chunk {
    let typeStart: Int
    let data: Range<Int>
    let storedCRC: UInt32
    /// The bytes the CRC covers: the type and the data.
    var checked: Range<Int> { typeStart..<data.upperBound }
  }

  private let bytes: UnsafeBufferPointer<UInt8>
  private var offset: Int

  /// The chunks of `bytes`, which start with the PNG signature (not checked here).
  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
    offset = ImageFormat.pngSignature.count
  }

  mutating func next() -> Chunk? {
    guard bytes.count - offset >= 12 else { return nil }
    let length = Int(Self.bigEndian(bytes, offset))
    // A length above 2^31 - 1 is invalid in PNG (and could not be held whole anyway).
    guard length <= Int(Int32.max), bytes.count - offset - 12 >= length else { return nil }
    let data = (offset + 8)..<(offset + 8 + length)
    let chunk = Chunk(typeStart: offset + 4, data: data, storedCRC: Self.bigEndian(bytes, data.upperBound))
    offset = data.upperBound + 4
    return chunk
  }

  /// The big-endian 32-bit number at `offset`, as PNG stores lengths, sizes and CRCs.
  static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
      | UInt32(bytes[offset + 3])
  }
}
