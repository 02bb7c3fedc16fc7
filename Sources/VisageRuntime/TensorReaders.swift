/// Who reads each tensor of a graph, as the fusion passes ask it: a pass may fold a tensor
/// away only when it knows every node that reads it and the tensor is not a graph output.
struct TensorReaders {
  private let readers: [Int: [Int]]
  private let exposed: Set<Int>

  init(_ graph: Graph) {
    var readers: [Int: [Int]] = [:]
    for (index, node) in graph.nodes.enumerated() {
      for id in Set(node.inputs) { readers[id, default: []].append(index) }
    }
    self.readers = readers
    exposed = Set(graph.outputs)
  }

  /// The nodes that read `id` (each once, in order), or nil when `id` is a graph output.
  func of(_ id: Int) -> [Int]? {
    exposed.contains(id) ? nil : readers[id] ?? []
  }

  /// The node that reads `id` as its only reader, when `id` is not a graph output.
  func sole(_ id: Int) -> Int? {
    guard let r = of(id), r.count == 1 else { return nil }
    return r[0]
  }
}
