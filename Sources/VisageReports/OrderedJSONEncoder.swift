/// Encodes an `Encodable` value as a `JSONValue`: object keys in the order the value writes
/// them, floats in their shortest round-trip form, NaN and infinities as null. The command
/// line's lines and visage-server's responses are written with it, from the library result
/// types' own `Encodable` conformances.
///
/// A value that asks for the same keyed container twice (a report writing its own fields and
/// then its result's) gets one object, the later keys after the earlier ones.
public struct OrderedJSONEncoder: Sendable {
  /// Handed to every `encode(to:)`, as `JSONEncoder.userInfo` is; the results read their
  /// `ResultEncodingOptions` from it.
  public var userInfo: [CodingUserInfoKey: any Sendable]

  /// Creates an encoder with the given `userInfo`.
  public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
    self.userInfo = userInfo
  }

  /// The value as a JSON tree.
  public func encode(_ value: some Encodable) throws -> JSONValue {
    let node = Node()
    try value.encode(to: NodeEncoder(node: node, codingPath: [], userInfo: userInfo))
    return node.value
  }
}

/// What one encoder or container writes into: a value, an object or an array being filled.
private final class Node {
  enum Content {
    case empty
    case value(JSONValue)
    case object(keys: [String], fields: [String: Node])
    case array([Node])
  }
  var content = Content.empty

  var value: JSONValue {
    switch content {
    case .empty: .object([])
    case .value(let v): v
    case .object(let keys, let fields): .object(keys.map { ($0, fields[$0]!.value) })
    case .array(let items): .array(items.map(\.value))
    }
  }

  /// The node a key writes into, made (or replaced) in place; the object keeps first-write order.
  func field(_ key: String) -> Node {
    guard case .object(var keys, var fields) = content else {
      content = .object(keys: [key], fields: [key: Node()])
      return field(key)
    }
    if let existing = fields[key] {
      existing.content = .empty
      return existing
    }
    // Taken out first, so that the copies here are the only ones and grow in place (left in
    // `content`, each new key copied every key before it).
    content = .empty
    let node = Node()
    keys.append(key)
    fields[key] = node
    content = .object(keys: keys, fields: fields)
    return node
  }

  func makeObject() {
    if case .object = content { return }
    content = .object(keys: [], fields: [:])
  }

  func append() -> Node {
    var items: [Node] = []
    if case .array(let existing) = content { items = existing }
    // Taken out first, so that `items` is the only copy and grows in place (left in `content`,
    // each item copied the array: a 37,000-value output took seconds).
    content = .empty
    let node = Node()
    items.append(node)
    content = .array(items)
    return node
  }

  func makeArray() {
    if case .array = content { return }
    content = .array([])
  }

  var count: Int {
    switch content {
    case .array(let items): items.count
    case .object(let keys, _): keys.count
    default: 0
    }
  }
}

private struct NodeEncoder: Encoder {
  let node: Node
  let codingPath: [any CodingKey]
  let infos: [CodingUserInfoKey: any Sendable]
  var userInfo: [CodingUserInfoKey: Any] { infos }

  init(node: Node, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
    self.node = node
    self.codingPath = codingPath
    infos = userInfo
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.makeObject()
    return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath, userInfo: infos))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.makeArray()
    return UnkeyedNodeContainer(node: node, codingPath: codingPath, userInfo: infos)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleNodeContainer(node: node, codingPath: codingPath, userInfo: infos)
  }
}

/// Writes a value into a node: primitives directly, anything else through its `encode(to:)`.
private func write(
  _ value: some Encodable, into node: Node, path: @autoclosure () -> [any CodingKey],
  userInfo: [CodingUserInfoKey: any Sendable]
)
  throws
{
  switch value {
  case let v as Float: node.content = .value(.float(v))
  case let v as Double: node.content = .value(.double(v))
  case let v as String: node.content = .value(.string(v))
  case let v as Bool: node.content = .value(.bool(v))
  case let v as Int: node.content = .value(.int(v))
  // The other integer types too: their own encode(to:) would come back here for ever.
  case let v as any BinaryInteger: node.content = .value(.number("\(v)"))
  // A tensor's values (tens of thousands in a model's output) straight to JSON, without a
  // node each.
  case let v as [Float]: node.content = .value(.array(v.map(JSONValue.float)))
  default: try value.encode(to: NodeEncoder(node: node, codingPath: path(), userInfo: userInfo))
  }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: Node
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: any Sendable]

  mutating func encodeNil(forKey key: Key) throws { node.field(key.stringValue).content = .value(.null) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try write(value, into: node.field(key.stringValue), path: codingPath + [key], userInfo: userInfo)
  }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    NodeEncoder(node: node.field(key.stringValue), codingPath: codingPath + [key], userInfo: userInfo)
      .container(keyedBy: keyType)
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    NodeEncoder(node: node.field(key.stringValue), codingPath: codingPath + [key], userInfo: userInfo)
      .unkeyedContainer()
  }
  mutating func superEncoder() -> any Encoder {
    NodeEncoder(node: node.field("super"), codingPath: codingPath, userInfo: userInfo)
  }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    NodeEncoder(node: node.field(key.stringValue), codingPath: codingPath + [key], userInfo: userInfo)
  }
}

/// An array index as a coding key, for error paths.
private struct IndexKey: CodingKey {
  let intValue: Int?
  var stringValue: String { "\(intValue!)" }
  init(_ index: Int) { intValue = index }
  init?(stringValue: String) { nil }
  init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: any Sendable]
  var count: Int { node.count }

  mutating func encodeNil() throws { node.append().content = .value(.null) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    let index = count
    try write(value, into: node.append(), path: codingPath + [IndexKey(index)], userInfo: userInfo)
  }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let path = codingPath + [IndexKey(count)]
    return NodeEncoder(node: node.append(), codingPath: path, userInfo: userInfo).container(keyedBy: keyType)
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let path = codingPath + [IndexKey(count)]
    return NodeEncoder(node: node.append(), codingPath: path, userInfo: userInfo).unkeyedContainer()
  }
  mutating func superEncoder() -> any Encoder {
    let path = codingPath + [IndexKey(count)]
    return NodeEncoder(node: node.append(), codingPath: path, userInfo: userInfo)
  }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: any Sendable]

  mutating func encodeNil() throws { node.content = .value(.null) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try write(value, into: node, path: codingPath, userInfo: userInfo)
  }
}
