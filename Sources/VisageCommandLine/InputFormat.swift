import ArgumentParser

/// `--input-format`: how the inputs are given.
enum InputFormat: String, ExpressibleByArgument, CaseIterable {
  /// Image paths (arguments or `--paths-from`), or one YUV4MPEG2 stream.
  case files
  /// JSON Lines of encoded images, `{"source": "name", "data": "<base64 PNG or JPEG>"}`, from
  /// the one argument (a file, or `-` for standard input).
  case jsonl
}
