// The multiply-add rate one core reaches with nothing but 16-lane FMAs in flight: the
// ceiling the GEMM-bound models are measured against (docs/speed.md). Twelve independent
// accumulators hide the FMA latency; every result feeds the printed sum, so nothing is
// optimized away. Not part of the package; build and run it on its own:
//
//     swiftc -O -target-cpu skylake-avx512 Benchmarks/fma-peak/main.swift -o /tmp/fma-peak && /tmp/fma-peak
//
// It prints the rate of each of eight runs of 120 M vector FMAs and the best of them.
import Foundation

@inline(never)
func multiplyAdds(_ iterations: Int, seed: Float) -> Float {
  let m = SIMD16<Float>(repeating: 0.9999)
  let c = SIMD16<Float>(repeating: 0.0001)
  var a = (0..<12).map { SIMD16<Float>(repeating: seed + Float($0)) }
  var (a0, a1, a2, a3, a4, a5) = (a[0], a[1], a[2], a[3], a[4], a[5])
  var (a6, a7, a8, a9, a10, a11) = (a[6], a[7], a[8], a[9], a[10], a[11])
  for _ in 0..<iterations {
    a0 = a0.addingProduct(m, c)
    a1 = a1.addingProduct(m, c)
    a2 = a2.addingProduct(m, c)
    a3 = a3.addingProduct(m, c)
    a4 = a4.addingProduct(m, c)
    a5 = a5.addingProduct(m, c)
    a6 = a6.addingProduct(m, c)
    a7 = a7.addingProduct(m, c)
    a8 = a8.addingProduct(m, c)
    a9 = a9.addingProduct(m, c)
    a10 = a10.addingProduct(m, c)
    a11 = a11.addingProduct(m, c)
  }
  a = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11]
  return a.reduce(SIMD16<Float>(), +).sum()
}

let iterations = 10_000_000
var best = 0.0
var check: Float = 0
for _ in 0..<8 {
  let start = DispatchTime.now().uptimeNanoseconds
  check += multiplyAdds(iterations, seed: check == 0 ? 1 : 0)
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
  let rate = Double(iterations * 12 * 16) / seconds / 1e9
  best = max(best, rate)
  print(String(format: "%.1f G multiply-adds/s", rate))
}
print(String(format: "best %.1f G multiply-adds/s per core (checksum %g)", best, check))
