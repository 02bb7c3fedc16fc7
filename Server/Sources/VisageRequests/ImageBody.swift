import Foundation
import VisageImageIO

/// The image a request carries, in any of the three body forms the detect, landmark and
/// analyze routes take (docs/server.md):
/// - the image file itself (`image/jpeg`, `image/png`, `application/octet-stream`, or no
///   content type);
/// - `multipart/form-data` with the file in the field named `image`;
/// - `application/json`: `{"image": {"content": "<base64 of the file>"}}`.
///
/// Only bytes: nothing here reads a file or fetches a URL, whatever the body says.
public struct ImageBody: Equatable, Sendable {
  /// The encoded image file.
  public var bytes: [UInt8]
  /// The file name a multipart part gave, if any: the response's `source`.
  public var fileName: String?

  public init(bytes: [UInt8], fileName: String? = nil) {
    self.bytes = bytes
    self.fileName = fileName
  }

  /// Reads the image out of a body of the given content type (the header's value, or nil).
  public init(body: [UInt8], contentType: String?) throws(RequestError) {
    let type = MediaType(contentType ?? "application/octet-stream")
    switch type.essence {
    case "multipart/form-data":
      guard let boundary = type.parameters["boundary"], !boundary.isEmpty else {
        throw .badRequest("multipart/form-data needs a boundary parameter in Content-Type")
      }
      self = try Multipart.imageField(in: body, boundary: boundary)
    case "application/json":
      self = ImageBody(bytes: try Self.jsonImage(body))
    default:
      // image/*, application/octet-stream and anything else (curl --data-binary sends
      // application/x-www-form-urlencoded): the bytes themselves, whose format is sniffed, so
      // a JPEG sent as image/png still decodes, as Cloud Vision's do.
      self = ImageBody(bytes: body)
    }
    guard !bytes.isEmpty else { throw .badRequest("the request has no image: the body is empty") }
  }

  /// `{"image": {"content": "<base64>"}}`; `image.source` is refused, since the server
  /// fetches nothing.
  static func jsonImage(_ body: [UInt8]) throws(RequestError) -> [UInt8] {
    let request: JSONImageRequest
    do { request = try JSONDecoder().decode(JSONImageRequest.self, from: Data(body)) } catch {
      let expected = "expected {\"image\": {\"content\": \"<base64>\"}}"
      switch error as? DecodingError {
      case .keyNotFound(let key, let context) where context.codingPath.isEmpty && key.stringValue == "image":
        throw .badRequest("the JSON body has no \"image\" object: \(expected)")
      case .typeMismatch(_, let context) where context.codingPath.map(\.stringValue) == ["image"]:
        throw .badRequest("the JSON body has no \"image\" object: \(expected)")
      case .typeMismatch(_, let context) where context.codingPath.map(\.stringValue) == ["image", "content"]:
        throw .badRequest("image.content must be a string: the image file's bytes in base64")
      default: throw .badRequest("the body is not a JSON object: \(expected)")
      }
    }
    guard let content = request.image.content else {
      if request.image.source != nil {
        throw .badRequest("image.source is not supported: the server fetches nothing; send image.content (base64)")
      }
      throw .badRequest("image.content must be a string: the image file's bytes in base64")
    }
    do { return try StrictBase64.decode(content, field: "image.content") } catch {
      throw .badRequest(error.description)
    }
  }
}

/// The JSON body form: `{"image": {"content": "<base64>"}}`, as Cloud Vision's `Image` writes
/// it. `source` is read only to be refused by name.
private struct JSONImageRequest: Decodable {
  struct Image: Decodable {
    let content: String?
    let source: JSONValueIgnored?
  }
  let image: Image
}

/// Any JSON value, read and dropped: `image.source` is there or not, whatever it holds.
private struct JSONValueIgnored: Decodable {
  init(from decoder: any Decoder) throws {}
}

/// A Content-Type value: its essence (`type/subtype`, lowercased) and parameters.
struct MediaType {
  let essence: String
  let parameters: [String: String]

  init(_ value: String) {
    let parts = value.split(separator: ";", omittingEmptySubsequences: false)
    essence = (parts.first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    var parameters: [String: String] = [:]
    for part in parts.dropFirst() {
      guard let eq = part.firstIndex(of: "=") else { continue }
      let name = part[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
      var value = part[part.index(after: eq)...].trimmingCharacters(in: .whitespaces)
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
      parameters[name] = value
    }
    self.parameters = parameters
  }
}
