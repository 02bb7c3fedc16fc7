/// Why a graph cannot be prepared or run.
public enum RuntimeError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The graph's structure is inconsistent: a tensor read before it is written, written
  /// twice, a cycle, an index out of range.
  case invalidGraph(String)
  /// An operator's inputs have shapes or values it cannot work with.
  case invalidOperator(String)
  /// Input data handed to the interpreter does not fit the graph.
  case invalidInput(String)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .invalidGraph(let message): "invalid graph: \(message)"
    case .invalidOperator(let message): "invalid operator: \(message)"
    case .invalidInput(let message): "invalid input: \(message)"
    }
  }
}
