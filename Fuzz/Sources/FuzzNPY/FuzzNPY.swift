import FuzzDriver
import VisageRuntime
import VisageTFLite

/// A `.npy` file: magic, version, header dictionary and data, as `visage run` reads them, and
/// as `visage compare` reads a dump's files (`NPYArray`, any numeric dtype).
public func fuzzNPY(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  let array = try? NPYArray(npy: bytes)
  // A tensor that parses must write back to a file that parses to the same tensor, and read
  // as an array it must have the same values.
  guard let tensor = try? Tensor(npy: bytes) else { return 0 }
  guard let array, array.shape == tensor.shape.dimensions,
    array.values.elementsEqual(tensor.values, by: { Float($0).bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) })
  else { fatalError("a .npy file read as a tensor and as an array gives other values") }
  guard let again = try? Tensor(npy: tensor.npy), again.shape == tensor.shape,
    again.values.elementsEqual(tensor.values, by: { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) })
  else { fatalError("a parsed .npy tensor does not survive writing and reading back") }
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzNPY) }
}
