import VisageHosting
import VisageRequests
import VisageRuntime
import VisageTFLite

/// One model served over the Open Inference Protocol (`/v2/models/{name}`): read, planned and
/// checked once at start. Each task copy makes its own `Interpreter` from it on first use and
/// keeps it (`TaskCache.interpreters`), because an interpreter runs one inference at a time.
struct InferenceModel: Sendable {
  /// The name in the protocol's paths.
  let name: String
  let model: TFLiteModel
  /// The inputs' names and shapes, in the model's order: the shapes a request must give.
  let inputs: [TensorInfo]
  /// The outputs' names and shapes, in the model's order, as the interpreter computes them.
  let outputs: [TensorInfo]

  /// The protocol's only version of every model: the one file it was started with.
  static let version = "1"

  /// Reads the model at `reference` and prepares it once, so that a model the runtime cannot
  /// run stops the server at start rather than failing its first request.
  init(name: String, reference: String) throws {
    self.name = name
    model = try ModelSource.model(at: reference)
    let interpreter = try Interpreter(model: model)
    inputs = zip(model.inputNames, interpreter.inputShapes).map { TensorInfo(name: $0, shape: $1) }
    outputs = zip(model.outputNames, interpreter.outputShapes).map { TensorInfo(name: $0, shape: $1) }
  }
}

/// The models `/v2/models/{name}` serves: the four bundled ones under their MediaPipe names,
/// and those `--model NAME=PATH` adds.
public struct InferenceModels: Sendable {
  /// The models by name.
  let byName: [String: InferenceModel]
  /// Their names in the order they were given: the bundled ones first.
  let names: [String]

  /// The bundled models' names: the face landmarker bundle's three entries, and the
  /// full-range detector.
  public static let bundledNames = BundledWeights.modelNames

  /// The bundled models' names and where `models` has them: the full-range detector is a
  /// file of its own, the others are entries of the bundle.
  static func bundled(_ models: ServerModels) -> [(name: String, path: String)] {
    bundledNames.map { ($0, $0 == "face_detection_full_range" ? models.fullRange : "\(models.bundle):\($0).tflite") }
  }

  /// Reads every model once. A name given twice, or one of the bundled names given again, is
  /// refused: a request must know which file answers it.
  init(_ list: [(name: String, path: String)]) throws {
    var byName: [String: InferenceModel] = [:]
    for (name, path) in list {
      guard byName[name] == nil else { throw InferenceSetupError("the model name \(name) is given twice (--model)") }
      do { byName[name] = try InferenceModel(name: name, reference: path) } catch {
        throw InferenceSetupError("cannot serve \(path) as the model \(name): \(error)")
      }
    }
    self.byName = byName
    names = list.map(\.name)
  }

  /// Whether `name` may name a model: letters, digits, `_`, `-` and `.`, so that it is one
  /// path segment that needs no percent-encoding.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 128 && name != "." && name != ".."
      && name.unicodeScalars.allSatisfy {
        $0.isASCII && ($0.properties.isAlphabetic || "0123456789_-.".unicodeScalars.contains($0))
      }
  }
}

/// A model the server was told to serve that it cannot: the server does not start.
struct InferenceSetupError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
