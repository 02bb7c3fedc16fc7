import Testing
import VisageKernels
@testable import VisageTFLite

/// The elementwise functions have no decoder rows of their own: each is found under the
/// builtin its raw value names, so a misspelt name would silently drop the op.
@Suite struct ElementwiseDecoderTests {
  @Test func everyUnaryFunctionNamesADecodedBuiltin() throws {
    for function in UnaryFunction.allCases {
      let builtin = try #require(BuiltinOperator(name: function.rawValue), "\(function) names no builtin")
      #expect(decoders[builtin] != nil, "no decoder for \(builtin)")
      #expect(builtin.description == function.rawValue)
    }
  }

  @Test func everyBinaryFunctionNamesADecodedBuiltin() throws {
    for function in BinaryFunction.allCases {
      let builtin = try #require(BuiltinOperator(name: function.rawValue), "\(function) names no builtin")
      #expect(decoders[builtin] != nil, "no decoder for \(builtin)")
    }
  }

  @Test func namesAreTheSchemas() {
    #expect(BuiltinOperator(name: "ADD")?.code == 0)
    #expect(BuiltinOperator(name: "SQUARED_DIFFERENCE")?.code == 99)
    #expect(BuiltinOperator(name: "BATCH_MATMUL")?.code == 126)
    #expect(BuiltinOperator(name: "add") == nil)
    #expect(BuiltinOperator(name: "") == nil)
  }
}
