// swift-tools-version:6.0
// Visage for Python: the engine as one shared object with a small C ABI, which the `visage`
// Python package (beside this file) loads with ctypes (docs/python.md). A package of its own,
// as Server/ is, so that the library's users never build it; `pip wheel ./Python` builds it.
import PackageDescription

let package = Package(
  name: "VisagePython",
  products: [.library(name: "VisageC", type: .dynamic, targets: ["VisageC"])],
  dependencies: [.package(name: "Visage", path: "..")],
  targets: [
    // The C interface's header (include/visage.h): the contract, which VisageC's exports are
    // compiled against and Python's declarations are tested against.
    .target(name: "CVisage"),
    .target(
      name: "VisageC",
      dependencies: [
        "CVisage",
        .product(name: "Visage", package: "Visage"), .product(name: "VisageImageIO", package: "Visage"),
        .product(name: "VisageCommandLine", package: "Visage"), .product(name: "VisageHosting", package: "Visage"),
        .product(name: "VisageReports", package: "Visage"),
      ]),
  ]
)
