/// multipart/form-data (RFC 7578) read far enough to find one field: the parts between
/// `--boundary` lines, each with its headers, a blank line and its bytes.
enum Multipart {
  /// The part named `image`: its bytes and file name.
  static func imageField(in body: [UInt8], boundary: String) throws(RequestError) -> ImageBody {
    // RFC 2046: a boundary has 1 to 70 characters.
    guard boundary.utf8.count <= 70 else {
      throw .badRequest("the multipart boundary has \(boundary.utf8.count) characters; at most 70 are allowed")
    }
    let delimiter = Array("--\(boundary)".utf8)
    guard var start = find(delimiter, in: body, from: 0) else {
      throw .badRequest("the multipart body has no part: its boundary \"\(boundary)\" never appears")
    }
    var names: [String] = []
    while true {
      var cursor = start + delimiter.count
      // "--" after a delimiter closes the body.
      if body.count >= cursor + 2 && body[cursor] == 0x2D && body[cursor + 1] == 0x2D { break }
      // The delimiter's line ends with CRLF; the part's headers follow, up to a blank line
      // (at once when the part has none).
      guard let lineEnd = find([13, 10], in: body, from: cursor) else {
        throw .badRequest("a multipart boundary line is not ended (a truncated upload?)")
      }
      cursor = lineEnd + 2
      let headerEnd: Int
      if body.count >= cursor + 2 && body[cursor] == 13 && body[cursor + 1] == 10 {
        headerEnd = cursor - 2
      } else {
        guard let end = find([13, 10, 13, 10], in: body, from: cursor) else {
          throw .badRequest("a multipart part has no blank line after its headers")
        }
        headerEnd = end
      }
      let headers = headerEnd > cursor ? String(decoding: body[cursor..<headerEnd], as: UTF8.self) : ""
      let contentStart = headerEnd + 4
      guard let next = find([13, 10] + delimiter, in: body, from: contentStart) else {
        throw .badRequest("a multipart part is not closed by the boundary (a truncated upload?)")
      }
      let disposition = Self.disposition(headers)
      if disposition.name == "image" {
        // An empty file name is none: the response's source is then `image`.
        let fileName = disposition.fileName.flatMap { $0.isEmpty ? nil : $0 }
        return ImageBody(bytes: Array(body[contentStart..<next]), fileName: fileName)
      }
      names.append(disposition.name.map { "\"\($0)\"" } ?? "(unnamed)")
      start = next + 2
    }
    // The first few fields are named; a body of thousands of parts must not make a megabyte
    // of error message.
    let shown = names.prefix(5).map { $0.count > 64 ? $0.prefix(64) + "…\"" : $0 }
    let more = names.count > shown.count ? " and \(names.count - shown.count) more" : ""
    throw .badRequest(
      "the multipart body has no field named image"
        + (names.isEmpty ? "" : " (its fields: \(shown.joined(separator: ", "))\(more))"))
  }

  /// The `name` and `filename` of a part's Content-Disposition header.
  static func disposition(_ headers: String) -> (name: String?, fileName: String?) {
    for line in headers.split(separator: "\r\n") {
      guard let colon = line.firstIndex(of: ":"),
        line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition"
      else { continue }
      let type = MediaType(
        "x/x;" + line[line.index(after: colon)...].split(separator: ";").dropFirst().joined(separator: ";"))
      return (type.parameters["name"], type.parameters["filename"])
    }
    return (nil, nil)
  }

  /// The first index of `needle` in `haystack` at or after `from`, by Knuth, Morris and
  /// Pratt's search: linear time whatever the boundary (a naive search over a body of dashes
  /// with a boundary of dashes takes the body's length times the boundary's).
  static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
    guard !needle.isEmpty, from >= 0, haystack.count - from >= needle.count else { return nil }
    // fallback[i]: the longest proper prefix of needle[...i] that is also its suffix.
    var fallback = [Int](repeating: 0, count: needle.count)
    var k = 0
    for i in 1..<needle.count {
      while k > 0 && needle[i] != needle[k] { k = fallback[k - 1] }
      if needle[i] == needle[k] { k += 1 }
      fallback[i] = k
    }
    var matched = 0
    for i in from..<haystack.count {
      while matched > 0 && haystack[i] != needle[matched] { matched = fallback[matched - 1] }
      if haystack[i] == needle[matched] { matched += 1 }
      if matched == needle.count { return i - needle.count + 1 }
    }
    return nil
  }
}
