import Testing
import VisageKernels
import VisageRuntime
import VisageTestSupport

/// Operators that only move values (and a few small ones), through the interpreter with
/// hand-worked answers, under every implementation.
@Suite struct OperatorTests {
  /// Runs a one-operator graph on one input.
  func apply(
    _ op: any Operator, to x: Tensor, extra: [Tensor] = [], expecting shape: Shape,
    _ implementation: Implementation
  ) throws -> Tensor {
    var g = GraphSketch()
    let input = g.input("x", x.shape)
    var ids = [input]
    for (k, t) in extra.enumerated() { ids.append(try g.constant("c\(k)", t.shape, t.values)) }
    g.outputs = [g.node(op, ids, "y", shape)]
    return try run(g.graph, [x], implementation)[0]
  }

  /// [3, 4] holding 0…11.
  let matrix = try! Tensor(shape: [3, 4], values: (0..<12).map(Float.init))

  @Test(arguments: Implementation.allCases)
  func stridedSlice(_ implementation: Implementation) throws {
    // Rows 0 and 2, columns 1 and 3.
    let every2 = StridedSlice(begin: [0, 1], end: [3, 4], strides: [2, 2])
    #expect(try apply(every2, to: matrix, expecting: [2, 2], implementation).values == [1, 3, 9, 11])
    // Backwards: rows 2, 1, 0 (end mask on axis 0), columns 3, 1.
    let backwards = StridedSlice(begin: [2, 3], end: [0, 0], strides: [-1, -2], endMask: 1)
    #expect(try apply(backwards, to: matrix, expecting: [3, 2], implementation).values == [11, 9, 7, 5, 3, 1])
    // Shrink axis 0 at row 1.
    let row = StridedSlice(begin: [1, 0], end: [2, 4], strides: [1, 1], shrinkAxisMask: 1)
    #expect(try apply(row, to: matrix, expecting: [4], implementation).values == [4, 5, 6, 7])
    // Begin mask ignores the 5 on axis 0; negative end counts from the back.
    let masked = StridedSlice(begin: [5, 2], end: [2, -1], strides: [1, 1], beginMask: 1)
    #expect(try apply(masked, to: matrix, expecting: [2, 1], implementation).values == [2, 6])
    // Offset: end is relative to begin.
    let offset = StridedSlice(begin: [1, 1], end: [2, 2], strides: [1, 1], offset: true)
    #expect(try apply(offset, to: matrix, expecting: [2, 2], implementation).values == [5, 6, 9, 10])
  }

  @Test(arguments: Implementation.allCases)
  func transpose(_ implementation: Implementation) throws {
    let x = try Tensor(shape: [2, 3, 4], values: (0..<24).map(Float.init))
    let y = try apply(Transpose(permutation: [2, 0, 1]), to: x, expecting: [4, 2, 3], implementation)
    var expected: [Float] = []
    for i in 0..<4 { for j in 0..<2 { for k in 0..<3 { expected.append(Float(j * 12 + k * 4 + i)) } } }
    #expect(y.values == expected)
  }

  @Test(arguments: Implementation.allCases)
  func padAndConcatenateAndReshape(_ implementation: Implementation) throws {
    let x = try Tensor(shape: [2, 2], values: [1, 2, 3, 4])
    let padded = try apply(Pad(paddings: [(1, 0), (0, 2)], value: -1), to: x, expecting: [3, 4], implementation)
    #expect(padded.values == [-1, -1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1])
    let joined = try apply(
      Concatenation(axis: -1), to: try Tensor(shape: [2, 1], values: [1, 2]),
      extra: [try Tensor(shape: [2, 2], values: [3, 4, 5, 6])], expecting: [2, 3], implementation)
    #expect(joined.values == [1, 3, 4, 2, 5, 6])
    let reshaped = try apply(Reshape(newShape: [-1, 2]), to: matrix, expecting: [6, 2], implementation)
    #expect(reshaped.values == matrix.values)
  }

  @Test(arguments: Implementation.allCases)
  func meanKeepingDimensions(_ implementation: Implementation) throws {
    let x = try Tensor(shape: [2, 2, 3], values: (0..<12).map(Float.init))
    let y = try apply(Reduce(.mean, axes: [1, -1], keepDimensions: true), to: x, expecting: [2, 1, 1], implementation)
    #expect(y.values == [2.5, 8.5])
    let z = try apply(Reduce(.sum, axes: [0, 0], keepDimensions: false), to: x, expecting: [2, 3], implementation)
    #expect(z.values == [6, 8, 10, 12, 14, 16])
  }

  @Test(arguments: Implementation.allCases)
  func resizeAndMaxPool(_ implementation: Implementation) throws {
    let x = try Tensor(shape: [1, 2, 2, 1], values: [0, 4, 8, 12])
    let resized = try apply(
      ResizeBilinear(height: 4, width: 4, options: .init(halfPixelCenters: true)), to: x,
      expecting: [1, 4, 4, 1], implementation)
    #expect(resized.values == [0, 1, 3, 4, 2, 3, 5, 6, 6, 7, 9, 10, 8, 9, 11, 12])
    let pooled = try apply(
      MaxPool2D(padding: .same, strideHeight: 2, strideWidth: 2, filterHeight: 2, filterWidth: 2),
      to: try Tensor(shape: [1, 3, 3, 1], values: [-1, -2, -3, -4, -5, -6, -7, -8, -9]),
      expecting: [1, 2, 2, 1], implementation)
    #expect(pooled.values == [-1, -3, -7, -9])
  }

  @Test func operatorsReportTheirShapeErrors() {
    #expect(throws: RuntimeError.self) { try Transpose(permutation: [0, 0]).outputShape([[2, 2]]) }
    #expect(throws: RuntimeError.self) { try Reshape(newShape: [-1, -1]).outputShape([[4]]) }
    #expect(throws: RuntimeError.self) { try Reshape(newShape: [3, -1]).outputShape([[4]]) }
    #expect(throws: RuntimeError.self) { try Concatenation(axis: 2).outputShape([[2, 2], [2, 2]]) }
    #expect(throws: RuntimeError.self) { try Concatenation(axis: 0).outputShape([[2, 2], [2, 3]]) }
    #expect(throws: RuntimeError.self) { try Pad(paddings: [(-1, 0)]).outputShape([[2]]) }
    #expect(throws: RuntimeError.self) { try Reduce(.sum, axes: [3], keepDimensions: false).outputShape([[2, 2]]) }
    #expect(throws: RuntimeError.self) { try StridedSlice(begin: [0], end: [1], strides: [0]).outputShape([[2]]) }
    #expect(throws: RuntimeError.self) {
      try StridedSlice(begin: [5], end: [6], strides: [1], shrinkAxisMask: 1).outputShape([[2]])
    }
    #expect(throws: RuntimeError.self) {
      try ResizeBilinear(height: 0, width: 4, options: .init()).outputShape([[1, 2, 2, 1]])
    }
    #expect(throws: RuntimeError.self) {
      try ResizeBilinear(height: 2, width: 2, options: .init(alignCorners: true, halfPixelCenters: true))
        .outputShape([[1, 4, 4, 1]])
    }
  }
}
