/// The dimensions of a tensor, outermost first.
public struct Shape: Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
  /// The size of each dimension.
  public var dimensions: [Int]

  /// Creates a shape from its dimensions.
  public init(_ dimensions: [Int]) { self.dimensions = dimensions }

  /// Creates a shape from a literal such as `[1, 128, 128, 3]`.
  public init(arrayLiteral elements: Int...) { self.dimensions = elements }

  /// Number of dimensions.
  public var rank: Int { dimensions.count }

  /// Number of values (1 for a scalar).
  public var count: Int { dimensions.reduce(1, *) }

  /// Number of values, or nil when a dimension is negative or the product overflows.
  public var checkedCount: Int? {
    var total = 1
    for d in dimensions {
      guard d >= 0 else { return nil }
      let (product, overflow) = total.multipliedReportingOverflow(by: d)
      if overflow { return nil }
      total = product
    }
    return total
  }

  /// The size of dimension `axis`.
  public subscript(axis: Int) -> Int { dimensions[axis] }

  /// The shape written as `[1, 128, 128, 3]`.
  public var description: String { "[" + dimensions.map(String.init).joined(separator: ", ") + "]" }
}
