import VisageTFLite
import VisageTestSupport

extension BundledModel {
  /// Loads the model through `ModelSource`, as the command line does.
  func load() throws -> TFLiteModel { try ModelSource.model(at: reference) }
}
