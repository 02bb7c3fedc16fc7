import VisageKernels

/// An operator whose results go through an `Epilogue` on the way out, which the fusion
/// passes may extend with the step that follows it in the graph. An operator states what
/// its kernels can apply by rejecting any other epilogue in `outputShape`; the passes ask
/// it before folding.
public protocol EpilogueOperator: Operator {
  /// What the output gets on the way out.
  var epilogue: Epilogue { get set }
}

extension Conv2D: EpilogueOperator {}
extension DepthwiseConv2D: EpilogueOperator {}
extension Binary: EpilogueOperator {}
extension Transpose: EpilogueOperator {}
extension LayerNorm: EpilogueOperator {}
extension RowMixing: EpilogueOperator {}
