import Foundation
import Testing
import VisageHosting

/// `Server/openapi.yaml`'s query parameters are the one option table's (VisageHosting's
/// `TaskOptions`): each route lists its task's options, and each parameter's description is
/// the option's help, its schema the option's kind, choices and default.
@Suite struct OptionTableTests {
  /// The document's lines.
  static let lines = String(decoding: ServerFixtures.bytes("Server/openapi.yaml"), as: UTF8.self)
    .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

  /// Each `/v1/…` route's `$ref`ed parameters, in order.
  static func routeParameters() -> [String: [String]] {
    var routes: [String: [String]] = [:]
    var path: String?
    for line in lines {
      if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
        path = String(line.dropFirst(2).dropLast())
      } else if line == "components:" {
        break
      } else if let path, let range = line.range(of: "- $ref: \"#/components/parameters/") {
        routes[path, default: []].append(String(line[range.upperBound...].dropLast()))
      }
    }
    return routes
  }

  /// `components.parameters`: each one's description (its lines joined) and schema line.
  static func components() -> [String: (description: String, schema: String)] {
    guard let start = lines.firstIndex(of: "  parameters:") else { return [:] }
    var found: [String: (description: String, schema: String)] = [:]
    var name: String?
    var description: [String] = []
    var inDescription = false
    for line in lines[(start + 1)...] {
      if line.hasPrefix("  "), !line.hasPrefix("   ") { break }
      if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
        (name, description, inDescription) = (String(line.dropFirst(4).dropLast()), [], false)
      } else if line.hasPrefix("      description:") {
        inDescription = line.hasSuffix("|")
        if !inDescription { description = [String(line.dropFirst("      description: ".count))] }
      } else if inDescription, line.hasPrefix("        ") {
        description.append(line.trimmingCharacters(in: .whitespaces))
      } else if let name, line.hasPrefix("      schema:") {
        inDescription = false
        found[name] = (description.joined(separator: " "), line)
      }
    }
    return found
  }

  @Test(arguments: FaceTaskKind.allCases) func theDocumentsParametersAreTheTables(_ task: FaceTaskKind) throws {
    let taken = TaskOptions.table(for: task).filter { !$0.streamOnly }
    let listed = Self.routeParameters()["/v1/\(task.rawValue)"] ?? []
    #expect(Set(listed) == Set(taken.map(\.name)), "/v1/\(task.rawValue) lists \(listed)")
    let components = Self.components()
    for option in taken {
      let component = try #require(components[option.name], "no component for \(option.name)")
      #expect(component.description.contains(option.help), "\(option.name)'s description: \(component.description)")
      let schema = component.schema
      switch option.kind {
      case .flag: #expect(schema.contains("schemas/Flag"), "\(schema)")
      case .fraction: #expect(schema.contains("schemas/Fraction"), "\(schema)")
      case .degrees: #expect(schema.contains("schemas/FieldOfView"), "\(schema)")
      case .count(let range):
        #expect(schema.contains("schemas/Count") && range == TaskOptions.faceCounts, "\(schema)")
      case .choice(let choices):
        let listed = schema.components(separatedBy: "enum: [").last?.components(separatedBy: "]").first ?? ""
        let words = listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces.union(["\""])) }
        #expect(words == choices, "\(option.name)'s enum: \(schema)")
      }
      // The schema's default is the option's, where every task taking it agrees.
      let defaults = Set(
        FaceTaskKind.allCases.compactMap { kind in
          TaskOptions.table(for: kind).first { $0.name == option.name && !$0.streamOnly }.map { $0.defaultValue ?? "" }
        })
      let written = schema.components(separatedBy: "default: ").dropFirst().first?
        .trimmingCharacters(in: CharacterSet(charactersIn: "} \""))
      if defaults.count == 1, let value = option.defaultValue {
        let same =
          written == value || (written.flatMap(Double.init) != nil && written.flatMap(Double.init) == Double(value))
        #expect(same, "\(option.name)'s default: \(written ?? "none"), the table's \(value)")
      } else {
        #expect(written == nil, "\(option.name) has a default in the document but none the tasks agree on")
      }
    }
  }

  /// The Count schema's bounds are the table's face counts.
  @Test func countsAreTheTables() {
    let count = Self.lines.drop { $0 != "    Count:" }.prefix(6).joined(separator: "\n")
    #expect(count.contains("minimum: \(TaskOptions.faceCounts.lowerBound)"))
    #expect(count.contains("maximum: \(TaskOptions.faceCounts.upperBound)"))
  }

  /// The page's controls (Page/index.html, app.js) start at the table's detection default
  /// and take its face counts: they change with the table, or this fails.
  @Test func thePageStartsAtTheTablesDefaults() {
    func text(_ file: String) -> String {
      String(decoding: ServerFixtures.bytes("Server/Sources/VisageServer/Page/" + file), as: UTF8.self)
    }
    let (html, script) = (text("index.html"), text("app.js"))
    for (name, task) in [
      ("min-detection-confidence", FaceTaskKind.detect), ("min-face-detection-confidence", .landmark),
    ] {
      let confidence = TaskOptions.option(name, of: task).defaultValue ?? "none"
      #expect(html.contains(#"id="min-confidence" min="0" max="1" step="0.05" value="\#(confidence)""#), "\(name)")
      #expect(script.contains("=== '\(confidence)'") && script.contains("'0.4' : '\(confidence)'"), "\(name)")
    }
    let faces = TaskOptions.faceCounts
    #expect(html.contains(#"id="num-faces" min="\#(faces.lowerBound)" max="\#(faces.upperBound)""#))
  }
}
