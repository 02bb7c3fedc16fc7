import MultipartKit

/// multipart/form-data (RFC 7578) read with vapor/multipart-kit's parser (docs/decisions.md,
/// "Multipart bodies"), for the one field the routes take: the part named `image`.
enum Multipart {
  /// The part named `image`: its bytes and file name.
  static func imageField(in body: [UInt8], boundary: String) throws(RequestError) -> ImageBody {
    // RFC 2046: a boundary has 1 to 70 characters (the parser checks neither, and traps on 0).
    guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
      throw .badRequest("the multipart boundary has \(boundary.utf8.count) characters; 1 to 70 are allowed")
    }
    let parts = Parts()
    let parser = MultipartParser(boundary: boundary)
    parser.onHeader = { name, value in parts.header(name, value) }
    parser.onBody = { chunk in parts.body(chunk.readBytes(length: chunk.readableBytes) ?? []) }
    parser.onPartComplete = { parts.complete() }
    do { try parser.execute(body) } catch {
      throw .badRequest("the multipart body does not parse: a header line or the line after a boundary is malformed")
    }
    if let image = parts.image { return image }
    guard !parts.open, !parts.names.isEmpty else {
      throw .badRequest(
        "the multipart body ends before a part is closed by its boundary \"\(boundary)\" (a truncated upload?)")
    }
    // The first few fields are named; a body of thousands of parts must not make a megabyte
    // of error message.
    let names = parts.names
    let shown = names.prefix(5).map { $0.count > 64 ? $0.prefix(64) + "…\"" : $0 }
    let more = names.count > shown.count ? " and \(names.count - shown.count) more" : ""
    throw .badRequest(
      "the multipart body has no field named image (its fields: \(shown.joined(separator: ", "))\(more))")
  }

  /// What the parser's callbacks report, part by part: the first complete `image` part, and
  /// the names of the others. Only the image's bytes are kept.
  private final class Parts {
    var image: ImageBody?
    var names: [String] = []
    /// Whether a part has begun (a header or a byte of it seen) and not been closed.
    var open = false
    private var name: String?
    private var fileName: String?
    private var bytes: [UInt8] = []

    func header(_ name: String, _ value: String) {
      open = true
      guard name.lowercased() == "content-disposition" else { return }
      // `form-data; name="image"; filename="a.jpg"`, read as a media type's parameters.
      let type = MediaType("x/x;" + value.split(separator: ";").dropFirst().joined(separator: ";"))
      (self.name, self.fileName) = (type.parameters["name"], type.parameters["filename"])
    }

    func body(_ chunk: [UInt8]) {
      open = true
      if name == "image" && image == nil { bytes += chunk }
    }

    func complete() {
      if name == "image" && image == nil {
        // An empty file name is none: the response's source is then `image`.
        image = ImageBody(bytes: bytes, fileName: fileName.flatMap { $0.isEmpty ? nil : $0 })
      } else if image == nil {
        names.append(name.map { "\"\($0)\"" } ?? "(unnamed)")
      }
      (open, name, fileName, bytes) = (false, nil, nil, [])
    }
  }
}
