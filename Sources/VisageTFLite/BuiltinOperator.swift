/// TFLite builtin operator codes (schema.fbs `BuiltinOperator`), named for messages.
struct BuiltinOperator: Hashable, Sendable, CustomStringConvertible {
  let code: Int

  static let add = BuiltinOperator(code: 0)
  static let concatenation = BuiltinOperator(code: 2)
  static let conv2D = BuiltinOperator(code: 3)
  static let depthwiseConv2D = BuiltinOperator(code: 4)
  static let dequantize = BuiltinOperator(code: 6)
  static let maxPool2D = BuiltinOperator(code: 17)
  static let mul = BuiltinOperator(code: 18)
  static let reshape = BuiltinOperator(code: 22)
  static let resizeBilinear = BuiltinOperator(code: 23)
  static let pad = BuiltinOperator(code: 34)
  static let transpose = BuiltinOperator(code: 39)
  static let mean = BuiltinOperator(code: 40)
  static let sub = BuiltinOperator(code: 41)
  static let div = BuiltinOperator(code: 42)
  static let stridedSlice = BuiltinOperator(code: 45)
  static let padV2 = BuiltinOperator(code: 60)
  static let sum = BuiltinOperator(code: 74)

  /// The schema's name for the code, or `BUILTIN_<code>` past the names listed here.
  var description: String {
    code >= 0 && code < Self.names.count ? Self.names[code] : "BUILTIN_\(code)"
  }

  /// The builtin with schema code `code`.
  init(code: Int) { self.code = code }

  /// The builtin the schema names `name` (`"ADD"`), if it is one of the names listed here.
  init?(name: String) {
    guard let code = Self.names.firstIndex(of: name) else { return nil }
    self.code = code
  }

  /// Names of codes 0..<127 in schema order.
  private static let names = """
    ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE \
    EMBEDDING_LOOKUP FLOOR FULLY_CONNECTED HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D \
    LOCAL_RESPONSE_NORMALIZATION LOGISTIC LSH_PROJECTION LSTM MAX_POOL_2D MUL RELU \
    RELU_N1_TO_1 RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX SPACE_TO_DEPTH SVDF TANH \
    CONCAT_EMBEDDINGS SKIP_GRAM CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD \
    UNIDIRECTIONAL_SEQUENCE_RNN GATHER BATCH_TO_SPACE_ND SPACE_TO_BATCH_ND TRANSPOSE MEAN \
    SUB DIV SQUEEZE UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE BIDIRECTIONAL_SEQUENCE_RNN EXP \
    TOPK_V2 SPLIT LOG_SOFTMAX DELEGATE BIDIRECTIONAL_SEQUENCE_LSTM CAST PRELU MAXIMUM ARG_MAX \
    MINIMUM LESS NEG PADV2 GREATER GREATER_EQUAL LESS_EQUAL SELECT SLICE SIN TRANSPOSE_CONV \
    SPARSE_TO_DENSE TILE EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT RSQRT SHAPE POW ARG_MIN \
    FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK LOGICAL_OR ONE_HOT LOGICAL_AND LOGICAL_NOT UNPACK \
    REDUCE_MIN FLOOR_DIV REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD RANGE \
    RESIZE_NEAREST_NEIGHBOR LEAKY_RELU SQUARED_DIFFERENCE MIRROR_PAD ABS SPLIT_V UNIQUE CEIL \
    REVERSE_V2 ADD_N GATHER_ND COS WHERE RANK ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE \
    MATRIX_SET_DIAG ROUND HARD_SWISH IF WHILE NON_MAX_SUPPRESSION_V4 NON_MAX_SUPPRESSION_V5 \
    SCATTER_ND SELECT_V2 DENSIFY SEGMENT_SUM BATCH_MATMUL
    """.split(separator: " ").map(String.init)
}

/// TFLite tensor element types (schema.fbs `TensorType`), as far as this runtime cares.
enum TensorType: Int, Sendable {
  case float32 = 0
  case float16 = 1
  case int32 = 2
  case uint8 = 3
  case int64 = 4
  case string = 5
  case bool = 6
  case int16 = 7
  case complex64 = 8
  case int8 = 9
  case float64 = 10

  /// Bytes per element.
  var size: Int {
    switch self {
    case .bool, .uint8, .int8, .string: 1
    case .float16, .int16: 2
    case .float32, .int32: 4
    case .int64, .float64, .complex64: 8
    }
  }

  /// The schema's name.
  var name: String {
    switch self {
    case .float32: "FLOAT32"
    case .float16: "FLOAT16"
    case .int32: "INT32"
    case .uint8: "UINT8"
    case .int64: "INT64"
    case .string: "STRING"
    case .bool: "BOOL"
    case .int16: "INT16"
    case .complex64: "COMPLEX64"
    case .int8: "INT8"
    case .float64: "FLOAT64"
    }
  }
}
