import Testing
import Visage
import VisageHosting
import VisageRequests

/// visage-server's front end fills every option of the one table (`TaskOptions`) into the
/// settings VisageHosting makes the library's options from (`OptionApplicationTests` in the
/// package's VisageHostingTests holds every setting to reach the task): a query giving an
/// option a value other than its default gives settings with that value, and options that
/// differ from those of no query.
@Suite struct OptionApplicationTests {
  static let models = ServerModels(bundle: "bundle.task", fullRange: "full-range.tflite", sampleImage: "")

  @Test(arguments: FaceTaskKind.allCases) func everyOptionReachesTheSettings(_ kind: FaceTaskKind) throws {
    let plain = try TaskRequest(kind: kind, query: [], live: true)
    for option in TaskOptions.table(for: kind) {
      let request = try TaskRequest(kind: kind, query: [(option.name, option.alternativeValue)], live: true)
      #expect(
        request.settings.values == [option.name: option.alternativeValue], "/v1/\(kind.rawValue): `\(option.name)`")
      #expect(request.cacheKey != plain.cacheKey)
    }
  }

  /// The server's own base settings: one thread, its bound on a search's runs, its models.
  @Test func theServersModelsAndBoundsReachTheTask() throws {
    var models = Self.models
    models.maximumSearchRuns = 60
    let request = try TaskRequest(kind: .detect, query: [("range", "full")])
    let options = try request.detectorOptions(models: models, handler: nil)
    #expect(options.baseOptions.modelAssetPath == "full-range.tflite")
    #expect(options.baseOptions.threadCount == 1 && options.baseOptions.maximumSearchRuns == 60)
    #expect(options.runningMode == .image)
  }
}
