import Foundation
import Visage
import VisageImageIO

/// Google Cloud Vision's `images:annotate` for `FACE_DETECTION` (docs/server.md, "Cloud
/// Vision's API"): the request read into per-image work, and Visage's analysis written as
/// Cloud Vision's `FaceAnnotation`. Enum values are read as names or numbers (Google's client
/// sends numbers) and written as names; field names are read in lowerCamelCase or snake_case,
/// as proto3's JSON mapping allows.
public enum CloudVision {
  /// Images per request, as Google allows.
  public static let maximumImages = 16
  /// Faces per image when a feature gives no `maxResults` (or 0), as Google does.
  public static let defaultMaxResults = 10
  /// The most faces Visage reports per image, whatever `maxResults` asks.
  public static let maximumMaxResults = 100

  /// One image's work: analyze it for up to `maxResults` faces, or answer its `error` at once.
  public enum Item: Equatable, Sendable {
    case image([UInt8], maxResults: Int)
    case refused(Status)
  }

  /// A per-image `google.rpc.Status`: its code (google.rpc.Code) and message.
  public struct Status: Equatable, Sendable, Error {
    public let code: Int
    public let message: String

    public init(code: Int, message: String) {
      self.code = code
      self.message = message
    }

    /// `INVALID_ARGUMENT` (3): the request or its image is at fault.
    public static func invalidArgument(_ message: String) -> Status { Status(code: 3, message: message) }
    static func unimplemented(_ message: String) -> Status { Status(code: 12, message: message) }

    /// The image's whole response: `{"error": {"code", "message"}}`.
    public var response: ImageResponse { ImageResponse(self) }
  }

  /// The batch's images in order. The request as a whole is refused (400) when it is not a
  /// JSON object with 1 to 16 `requests`; each image's own fault is its item's `error`.
  public static func items(fromBody body: [UInt8]) throws(RequestError) -> [Item] {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let batch: BatchRequest
    do { batch = try decoder.decode(BatchRequest.self, from: Data(body)) } catch {
      throw .badRequest("the body is not a BatchAnnotateImagesRequest: \(Self.describe(error))")
    }
    let requests = batch.requests ?? []
    guard !requests.isEmpty else { throw .badRequest("requests is empty: send 1 to \(maximumImages) image requests") }
    guard requests.count <= maximumImages else {
      throw .badRequest("requests has \(requests.count) images, over the limit of \(maximumImages)")
    }
    return requests.map(item)
  }

  private static func item(_ request: ImageRequest) -> Item {
    do { return try .image(imageBytes(request.image), maxResults: maxResults(request.features ?? [])) } catch {
      return .refused(error)
    }
  }

  /// The faces asked for: every feature must be `FACE_DETECTION`; the largest `maxResults`.
  private static func maxResults(_ features: [Feature]) throws(Status) -> Int {
    guard !features.isEmpty else { throw .invalidArgument("features is empty: ask for FACE_DETECTION") }
    var most = 0
    for feature in features {
      switch feature.type {
      case nil: throw .invalidArgument("a feature has no type: ask for FACE_DETECTION")
      case .number(1), .name("FACE_DETECTION"): break
      case .number(let n):
        guard let name = featureNames[n] else { throw .invalidArgument("feature type \(n) is not a Feature.Type") }
        throw .unimplemented("visage-server answers FACE_DETECTION only, not \(name)")
      case .name(let name):
        guard featureNames.values.contains(name) else {
          throw .invalidArgument("feature type \(name) is not a Feature.Type")
        }
        throw .unimplemented("visage-server answers FACE_DETECTION only, not \(name)")
      }
      let asked = feature.maxResults?.value ?? 0
      guard asked >= 0 else { throw .invalidArgument("maxResults must not be negative, got \(asked)") }
      most = max(most, asked == 0 ? defaultMaxResults : asked)
    }
    return min(most, maximumMaxResults)
  }

  private static func imageBytes(_ image: Image?) throws(Status) -> [UInt8] {
    // A source naming no URI is no source.
    let source = image?.source.flatMap { $0.imageUri ?? $0.gcsImageUri }
    switch (image?.content, source) {
    case (.some, .some): throw .invalidArgument("Only one of image content and uri should be specified.")
    case (nil, .some):
      throw .unimplemented("image.source is not supported: visage-server fetches nothing; send image.content")
    case (nil, nil): throw .invalidArgument("image.content is missing: send the image file's bytes in base64")
    case (.some(let content), nil):
      guard !content.isEmpty else {
        throw .invalidArgument("image.content is empty: send the image file's bytes in base64")
      }
      do { return try StrictBase64.decode(standardBase64(content), field: "image.content") } catch {
        throw .invalidArgument(error.description)
      }
    }
  }

  /// A probability in Google's five levels, in equal fifths; nil is UNKNOWN.
  static func likelihood(_ probability: Float?) -> String {
    guard let p = probability, p.isFinite else { return "UNKNOWN" }
    switch p {
    case ..<0.2: return "VERY_UNLIKELY"
    case ..<0.4: return "UNLIKELY"
    case ..<0.6: return "POSSIBLE"
    case ..<0.8: return "LIKELY"
    default: return "VERY_LIKELY"
    }
  }

  /// Feature.Type's values other than TYPE_UNSPECIFIED, by number.
  static let featureNames: [Int: String] = [
    1: "FACE_DETECTION", 2: "LANDMARK_DETECTION", 3: "LOGO_DETECTION", 4: "LABEL_DETECTION", 5: "TEXT_DETECTION",
    6: "SAFE_SEARCH_DETECTION", 7: "IMAGE_PROPERTIES", 9: "CROP_HINTS", 10: "WEB_DETECTION",
    11: "DOCUMENT_TEXT_DETECTION", 12: "PRODUCT_SEARCH", 19: "OBJECT_LOCALIZATION",
  ]

  /// proto3's JSON takes `bytes` in standard or URL-safe base64, with or without padding, as
  /// Google's clients may send them: the URL-safe letters become standard ones and the padding
  /// is completed, for the strict decoder.
  static func standardBase64(_ text: String) -> String {
    var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
    if standard.utf8.count % 4 != 0 { standard += String(repeating: "=", count: 4 - standard.utf8.count % 4) }
    return standard
  }

  /// A decoding error in a sentence: the field's path and what was wrong.
  private static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ keys: [any CodingKey]) -> String {
      keys.isEmpty ? "the body" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
      return "\(path(c.codingPath)): \(c.debugDescription)"
    @unknown default: return "\(error)"
    }
  }
}

// MARK: The request's JSON (fields Visage does not use are not read: imageContext, parent,
// labels, feature.model)

private struct BatchRequest: Decodable {
  let requests: [ImageRequest]?
}

private struct ImageRequest: Decodable {
  let image: Image?
  let features: [Feature]?
}

private struct Image: Decodable {
  let content: String?
  let source: Source?
}

private struct Source: Decodable {
  let imageUri: String?
  let gcsImageUri: String?
}

private struct Feature: Decodable {
  let type: EnumValue?
  let maxResults: FlexibleInt?
}

/// A proto enum in JSON: its name or its number.
private enum EnumValue: Decodable, Equatable {
  case name(String)
  case number(Int)

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let n = try? c.decode(Int.self) { self = .number(n) } else { self = .name(try c.decode(String.self)) }
  }
}

/// A proto int32 in JSON: a whole number (2.0 too) or a string holding one, within int32's
/// range, as proto3's JSON mapping reads it.
private struct FlexibleInt: Decodable {
  let value: Int

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    let number: Double?
    if let n = try? c.decode(Int.self) {
      number = Double(n)
    } else if let n = try? c.decode(Double.self) {
      number = n
    } else if let text = try? c.decode(String.self) {
      number = Int(text).map(Double.init)
    } else {
      number = nil
    }
    guard let number, number.rounded() == number, abs(number) <= Double(Int32.max) else {
      throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an int32 (a whole number up to 2147483647)")
    }
    value = Int(number)
  }
}
