/// A value that `FlatBufferBuilder` can serialize: a scalar stored inline in its table, or
/// something stored out of line and reached by a uoffset.
public indirect enum FlatValue: Sendable {
  case int8(Int8)
  case uint8(UInt8)
  case bool(Bool)
  case int16(Int16)
  case uint16(UInt16)
  case int32(Int32)
  case uint32(UInt32)
  case int64(Int64)
  case uint64(UInt64)
  case float32(Float)
  /// A sub-table.
  case table(FlatTableValue)
  /// A string (length, UTF-8 bytes, NUL).
  case string(String)
  /// A `[ubyte]` vector.
  case bytes([UInt8])
  /// An `[int]` vector.
  case int32s([Int32])
  /// A vector of tables.
  case tables([FlatTableValue])
  /// A vector written normally whose length word then says `count`: for lying files.
  case claimingCount(UInt32, FlatValue)
  /// A uoffset of this many bytes, written as is, pointing wherever it points.
  case rawOffset(UInt32)

  /// Bytes the value takes inside its table.
  var inlineSize: Int {
    switch self {
    case .int8, .uint8, .bool: 1
    case .int16, .uint16: 2
    case .int32, .uint32, .float32: 4
    case .int64, .uint64: 8
    case .table, .string, .bytes, .int32s, .tables, .claimingCount, .rawOffset: 4
    }
  }

  /// The little-endian bytes of a scalar, or nil for out-of-line values.
  var scalarBytes: [UInt8]? {
    func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] {
      (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
    }
    switch self {
    case .int8(let v): return le(v)
    case .uint8(let v): return le(v)
    case .bool(let v): return [v ? 1 : 0]
    case .int16(let v): return le(v)
    case .uint16(let v): return le(v)
    case .int32(let v): return le(v)
    case .uint32(let v): return le(v)
    case .int64(let v): return le(v)
    case .uint64(let v): return le(v)
    case .float32(let v): return le(v.bitPattern)
    case .rawOffset(let v): return le(v)
    case .table, .string, .bytes, .int32s, .tables, .claimingCount: return nil
    }
  }
}

/// A table: field values by field id; absent ids are left out of the vtable.
public struct FlatTableValue: Sendable, ExpressibleByDictionaryLiteral {
  /// The fields, by schema field id.
  public var fields: [Int: FlatValue]

  /// Creates a table from its fields.
  public init(_ fields: [Int: FlatValue] = [:]) { self.fields = fields }

  public init(dictionaryLiteral elements: (Int, FlatValue)...) {
    fields = Dictionary(elements, uniquingKeysWith: { _, last in last })
  }

  /// Field `id`, read or replaced.
  public subscript(id: Int) -> FlatValue? {
    get { fields[id] }
    set { fields[id] = newValue }
  }
}

/// Writes FlatBuffers front to back: a parent is written before its children, so every
/// uoffset points forward as the format requires, and each vtable sits just before its
/// table (the soffset from table to vtable is positive).
public struct FlatBufferBuilder {
  /// The bytes written so far.
  public private(set) var bytes: [UInt8] = []

  /// Serializes `root` with a 4-byte file identifier after the root offset.
  public static func serialize(root: FlatTableValue, fileIdentifier: String) -> [UInt8] {
    var builder = FlatBufferBuilder()
    builder.bytes = [0, 0, 0, 0] + Array(fileIdentifier.utf8.prefix(4))
    while builder.bytes.count < 8 { builder.bytes.append(0) }
    let position = builder.write(table: root)
    builder.patch(offsetAt: 0, to: position)
    return builder.bytes
  }

  private mutating func align(_ n: Int) {
    while bytes.count % n != 0 { bytes.append(0) }
  }

  private mutating func append32(_ value: UInt32) {
    for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(k)))) }
  }

  private mutating func store32(_ value: UInt32, at position: Int) {
    for k in 0..<4 { bytes[position + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
  }

  /// Writes the uoffset at `position` so that it points at `target`.
  private mutating func patch(offsetAt position: Int, to target: Int) {
    store32(UInt32(target - position), at: position)
  }

  /// Writes a table (vtable first) and then its out-of-line fields; returns its position.
  @discardableResult
  public mutating func write(table: FlatTableValue) -> Int {
    // Inline layout relative to the table start: the soffset, then fields by id, each
    // aligned to its size (the table start is 8-aligned).
    let ids = table.fields.keys.sorted()
    var layout: [(id: Int, offset: Int, value: FlatValue)] = []
    var size = 4
    for id in ids {
      let value = table.fields[id]!
      let n = value.inlineSize
      size = (size + n - 1) / n * n
      layout.append((id, size, value))
      size += n
    }
    let fieldCount = (ids.last ?? -1) + 1
    let vtableSize = 4 + 2 * fieldCount
    var vtable = [UInt16](repeating: 0, count: 2 + fieldCount)
    vtable[0] = UInt16(vtableSize)
    vtable[1] = UInt16(size)
    for field in layout { vtable[2 + field.id] = UInt16(field.offset) }

    align(2)
    let vtablePosition = bytes.count
    for v in vtable { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    // Keep 8-byte alignment for the table without letting the padding break the vtable.
    align(8)
    let tablePosition = bytes.count
    bytes += [UInt8](repeating: 0, count: size)
    store32(UInt32(tablePosition - vtablePosition), at: tablePosition)
    var children: [(at: Int, value: FlatValue)] = []
    for field in layout {
      if let raw = field.value.scalarBytes {
        for (k, b) in raw.enumerated() { bytes[tablePosition + field.offset + k] = b }
      } else {
        children.append((tablePosition + field.offset, field.value))
      }
    }
    for child in children {
      let target = write(value: child.value)
      patch(offsetAt: child.at, to: target)
    }
    return tablePosition
  }

  /// Writes an out-of-line value; returns the position a uoffset should point at.
  private mutating func write(value: FlatValue) -> Int {
    switch value {
    case .table(let table):
      return write(table: table)
    case .string(let string):
      align(4)
      let position = bytes.count
      let utf8 = Array(string.utf8)
      append32(UInt32(utf8.count))
      bytes += utf8
      bytes.append(0)
      return position
    case .bytes(let data):
      align(16)
      bytes += [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  // so the data after the length is 16-aligned
      let position = bytes.count
      append32(UInt32(data.count))
      bytes += data
      return position
    case .int32s(let values):
      align(4)
      let position = bytes.count
      append32(UInt32(values.count))
      for v in values { append32(UInt32(bitPattern: v)) }
      return position
    case .tables(let tables):
      align(4)
      let position = bytes.count
      append32(UInt32(tables.count))
      let slots = bytes.count
      bytes += [UInt8](repeating: 0, count: 4 * tables.count)
      for (k, table) in tables.enumerated() {
        let target = write(table: table)
        patch(offsetAt: slots + 4 * k, to: target)
      }
      return position
    case .claimingCount(let count, let inner):
      let position = write(value: inner)
      store32(count, at: position)
      return position
    default:
      preconditionFailure("scalars are written inline")
    }
  }
}
