import Foundation

/// The logistic function 1 / (1 + e^−x), as MediaPipe's calculators write it: the detector's
/// scores, the face mesh's presence and the analyzer's probabilities all go through it.
func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }
