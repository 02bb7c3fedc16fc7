/// A bounds-checked reader of FlatBuffers binaries.
///
/// Every offset, length and vtable entry is checked against the buffer before it is used,
/// so a hostile file produces a `TFLiteError.malformed` naming the path being read and
/// never traps, loops or allocates more than the file could describe.
struct FlatBuffer {
  let bytes: [UInt8]

  /// The root table (the first 4 bytes hold its offset).
  func root(path: String) throws(TFLiteError) -> FlatTable {
    try table(at: try offsetTarget(at: 0, path: path), path: path)
  }

  func check(_ position: Int, _ size: Int, _ path: String) throws(TFLiteError) {
    guard position >= 0, size >= 0, position <= bytes.count - size else {
      throw .malformed(
        path: path,
        reason: "\(size) bytes at offset \(position) lie outside the \(bytes.count)-byte file")
    }
  }

  func load<T: FixedWidthInteger>(_ type: T.Type, at position: Int, path: String) throws(TFLiteError) -> T {
    try check(position, MemoryLayout<T>.size, path)
    var value: T = 0
    for i in 0..<MemoryLayout<T>.size { value |= T(truncatingIfNeeded: bytes[position + i]) << (8 * i) }
    return value
  }

  /// Follows a uoffset stored at `position` (relative to itself).
  func offsetTarget(at position: Int, path: String) throws(TFLiteError) -> Int {
    position + Int(try load(UInt32.self, at: position, path: path))
  }

  func table(at position: Int, path: String) throws(TFLiteError) -> FlatTable {
    let vtable = position - Int(try load(Int32.self, at: position, path: path))
    let vtableSize = Int(try load(UInt16.self, at: vtable, path: path + " (vtable)"))
    guard vtableSize >= 4, vtableSize % 2 == 0 else {
      throw .malformed(path: path, reason: "vtable size \(vtableSize) is not an even number >= 4")
    }
    try check(vtable, vtableSize, path + " (vtable)")
    let tableSize = Int(try load(UInt16.self, at: vtable + 2, path: path + " (vtable)"))
    try check(position, tableSize, path)
    return FlatTable(
      buffer: self, position: position, vtable: vtable, vtableSize: vtableSize, tableSize: tableSize, path: path)
  }
}

/// One table of a FlatBuffers binary, with the path that led to it for error messages.
struct FlatTable {
  let buffer: FlatBuffer
  let position: Int
  let vtable: Int
  let vtableSize: Int
  let tableSize: Int
  let path: String

  /// Absolute position of field `id`, or nil when the field is absent.
  func field(_ id: Int, _ name: String, size: Int) throws(TFLiteError) -> Int? {
    let entry = 4 + 2 * id
    guard entry + 2 <= vtableSize else { return nil }
    let offset = Int(try buffer.load(UInt16.self, at: vtable + entry, path: path))
    guard offset != 0 else { return nil }
    guard offset + size <= tableSize else {
      throw .malformed(
        path: "\(path).\(name)", reason: "field offset \(offset) lies outside its \(tableSize)-byte table")
    }
    return position + offset
  }

  func scalar<T: FixedWidthInteger>(_ id: Int, _ name: String, default value: T) throws(TFLiteError) -> T {
    guard let at = try field(id, name, size: MemoryLayout<T>.size) else { return value }
    return try buffer.load(T.self, at: at, path: "\(path).\(name)")
  }

  func bool(_ id: Int, _ name: String) throws(TFLiteError) -> Bool {
    try scalar(id, name, default: UInt8(0)) != 0
  }

  func table(_ id: Int, _ name: String) throws(TFLiteError) -> FlatTable? {
    guard let at = try field(id, name, size: 4) else { return nil }
    let p = "\(path).\(name)"
    return try buffer.table(at: try buffer.offsetTarget(at: at, path: p), path: p)
  }

  /// The position of the first element and the element count of vector field `id`; the
  /// whole vector is checked to lie inside the file.
  func vector(_ id: Int, _ name: String, elementSize: Int) throws(TFLiteError) -> (
    start: Int, count: Int, path: String
  )? {
    guard let at = try field(id, name, size: 4) else { return nil }
    let p = "\(path).\(name)"
    let target = try buffer.offsetTarget(at: at, path: p)
    let count = Int(try buffer.load(UInt32.self, at: target, path: p))
    let (bytes, overflow) = count.multipliedReportingOverflow(by: elementSize)
    guard !overflow else { throw .malformed(path: p, reason: "vector length \(count) is impossibly large") }
    try buffer.check(target + 4, bytes, p)
    return (target + 4, count, p)
  }

  func string(_ id: Int, _ name: String) throws(TFLiteError) -> String? {
    guard let v = try vector(id, name, elementSize: 1) else { return nil }
    return String(decoding: buffer.bytes[v.start..<(v.start + v.count)], as: UTF8.self)
  }

  func int32s(_ id: Int, _ name: String) throws(TFLiteError) -> [Int]? {
    guard let v = try vector(id, name, elementSize: 4) else { return nil }
    var result: [Int] = []
    result.reserveCapacity(v.count)
    for i in 0..<v.count {
      result.append(Int(try buffer.load(Int32.self, at: v.start + 4 * i, path: "\(v.path)[\(i)]")))
    }
    return result
  }

  func tables(_ id: Int, _ name: String) throws(TFLiteError) -> [FlatTable] {
    guard let v = try vector(id, name, elementSize: 4) else { return [] }
    var result: [FlatTable] = []
    result.reserveCapacity(v.count)
    for i in 0..<v.count {
      let p = "\(v.path)[\(i)]"
      result.append(try buffer.table(at: try buffer.offsetTarget(at: v.start + 4 * i, path: p), path: p))
    }
    return result
  }

  /// The byte range of a `[ubyte]` field.
  func byteRange(_ id: Int, _ name: String) throws(TFLiteError) -> Range<Int>? {
    guard let v = try vector(id, name, elementSize: 1) else { return nil }
    return v.start..<(v.start + v.count)
  }
}
