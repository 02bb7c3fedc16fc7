// The one place that chooses the codecs: Apple's ImageIO where it exists (Apple/SystemCodec.swift;
// libpng and libjpeg-turbo are not linked there, so an iOS app can link this module), libpng and
// libjpeg-turbo elsewhere (Library/LibraryCodec.swift). Both decode to the same `MPImage`,
// check the same limits and throw the same `ImageIOError`s.
#if canImport(ImageIO)
  typealias Codec = SystemCodec
#else
  typealias Codec = LibraryCodec
#endif
