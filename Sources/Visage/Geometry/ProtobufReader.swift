/// Why protobuf bytes could not be read: the byte offset where reading failed and what was wrong.
struct ProtobufError: Error, Hashable, Sendable {
  /// Offset into the outermost message's bytes.
  var offset: Int
  var reason: String
}

/// A minimal reader of the protobuf wire format: just enough for the face-geometry metadata.
///
/// Every read is checked against the end of the current message, so truncated or hostile
/// bytes throw a `ProtobufError` instead of trapping. Sub-messages are readers over a range of
/// the same array, so nothing is copied.
struct ProtobufReader {
  /// How a field's value is encoded (the low three bits of its tag).
  enum WireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
  }

  private let bytes: [UInt8]
  /// The next byte to read.
  private(set) var offset: Int
  /// One past the last byte of this message.
  private let end: Int

  /// A reader over the whole of `bytes`.
  init(bytes: [UInt8]) {
    self.init(bytes: bytes, range: 0..<bytes.count)
  }

  private init(bytes: [UInt8], range: Range<Int>) {
    self.bytes = bytes
    offset = range.lowerBound
    end = range.upperBound
  }

  /// Whether the message has no more fields.
  var isAtEnd: Bool { offset >= end }

  private func fail(_ reason: String, at position: Int? = nil) -> ProtobufError {
    ProtobufError(offset: position ?? offset, reason: reason)
  }

  /// Reads a field's tag: its number and wire type.
  mutating func readTag() throws(ProtobufError) -> (field: UInt32, wireType: WireType) {
    let start = offset
    let tag = try readVarint()
    // Tags are 32-bit in every protobuf implementation; field 0 is reserved as invalid.
    guard tag <= UInt64(UInt32.max), tag >> 3 != 0 else {
      throw fail("invalid field tag \(tag)", at: start)
    }
    guard let wireType = WireType(rawValue: UInt8(tag & 7)) else {
      throw fail("invalid wire type \(tag & 7) for field \(tag >> 3)", at: start)
    }
    return (UInt32(tag >> 3), wireType)
  }

  /// Reads a base-128 varint of at most 10 bytes; bits past the 64th are dropped, as protobuf does.
  mutating func readVarint() throws(ProtobufError) -> UInt64 {
    let start = offset
    var value: UInt64 = 0
    for index in 0..<10 {
      guard offset < end else { throw fail("varint runs past the end of the message", at: start) }
      let byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x7F) << UInt64(7 * index)
      if byte & 0x80 == 0 { return value }
    }
    throw fail("varint is longer than 10 bytes", at: start)
  }

  /// Reads four little-endian bytes.
  mutating func readFixed32() throws(ProtobufError) -> UInt32 {
    guard end - offset >= 4 else { throw fail("fixed32 runs past the end of the message") }
    var value: UInt32 = 0
    for index in 0..<4 { value |= UInt32(bytes[offset + index]) << UInt32(8 * index) }
    offset += 4
    return value
  }

  /// Reads a `float` field's value (fixed32 holding IEEE-754 bits).
  mutating func readFloat() throws(ProtobufError) -> Float {
    Float(bitPattern: try readFixed32())
  }

  /// Reads a length prefix and returns a reader over that many following bytes, which this
  /// reader then skips.
  mutating func readLengthDelimited() throws(ProtobufError) -> ProtobufReader {
    let start = offset
    let length = try readVarint()
    // Compare before converting: a hostile length may not fit in an Int.
    guard length <= UInt64(end - offset) else {
      throw fail("length \(length) runs past the end of the message", at: start)
    }
    let range = offset..<(offset + Int(length))
    offset = range.upperBound
    return ProtobufReader(bytes: bytes, range: range)
  }

  /// Skips the value of a field this reader does not know, as protobuf keeps unknown fields.
  mutating func skipValue(of wireType: WireType) throws(ProtobufError) {
    switch wireType {
    case .varint: _ = try readVarint()
    case .fixed64:
      guard end - offset >= 8 else { throw fail("fixed64 runs past the end of the message") }
      offset += 8
    case .lengthDelimited: _ = try readLengthDelimited()
    case .fixed32: _ = try readFixed32()
    // Groups are deprecated and never appear in the metadata; refusing them keeps the reader
    // free of the nesting bookkeeping they would need.
    case .startGroup, .endGroup: throw fail("groups are not supported")
    }
  }

  /// Appends the values of a `repeated float` field, which may be written one value per tag
  /// (fixed32) or packed into one length-delimited run. Other wire types are skipped as
  /// unknown, as protobuf does.
  mutating func appendFloats(_ wireType: WireType, to values: inout [Float]) throws(ProtobufError) {
    switch wireType {
    case .fixed32: values.append(try readFloat())
    case .lengthDelimited:
      var packed = try readLengthDelimited()
      guard (packed.end - packed.offset) % 4 == 0 else {
        throw fail("packed float run of \(packed.end - packed.offset) bytes is not a multiple of 4", at: packed.offset)
      }
      values.reserveCapacity(values.count + (packed.end - packed.offset) / 4)
      while !packed.isAtEnd { values.append(try packed.readFloat()) }
    default: try skipValue(of: wireType)
    }
  }

  /// Appends the values of a `repeated uint32` field, one varint per tag or packed. Wider
  /// varints are truncated to 32 bits, as protobuf does for uint32.
  mutating func appendUInt32s(_ wireType: WireType, to values: inout [UInt32]) throws(ProtobufError) {
    switch wireType {
    case .varint: values.append(UInt32(truncatingIfNeeded: try readVarint()))
    case .lengthDelimited:
      var packed = try readLengthDelimited()
      while !packed.isAtEnd { values.append(UInt32(truncatingIfNeeded: try packed.readVarint())) }
    default: try skipValue(of: wireType)
    }
  }
}
