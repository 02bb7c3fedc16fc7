import Foundation

/// ML Kit's smiling and eye-open probabilities from MediaPipe's blendshapes.
///
/// Blendshape scores measure how far an expression has gone, not how likely it is, and they
/// sit far from 0 and 1 at the ends: on the test faces (Tools/make_analysis_fixtures.py, read
/// by MediaPipe 1.2.2) `mouthSmileLeft/Right` read 0.90 on a broad smile and 0.00 on the same
/// face made neutral, while `eyeBlinkLeft/Right` read 0.02–0.05 on open eyes, 0.35 on one eye
/// painted shut and 0.51–0.54 on both. A logistic curve turns a score into a probability with
/// its midpoint (0.5) at 0.3 for both, steep enough that those faces land near 0 and 1:
/// smile 0.9 → 0.999, 0 → 0.02; blink 0.04 → 0.99 open, 0.54 → 0.02 open.
/// MediaPipe's blendshape names, like ML Kit's, use the subject's left and right.
enum ExpressionProbabilities {
  /// The mean smile score at which the smiling probability is 0.5, and the curve's width.
  static let smileMidpoint: Float = 0.3, smileWidth: Float = 0.08
  /// The blink score at which an eye is as likely open as closed, and the curve's width.
  static let blinkMidpoint: Float = 0.3, blinkWidth: Float = 0.06

  /// Smiling, subject's left eye open and right eye open, from one face's 52 blendshape
  /// scores in the model's order (`BlendshapeGraph.categoryNames`).
  static func probabilities(_ scores: [Float]) -> (smiling: Float, leftEyeOpen: Float, rightEyeOpen: Float) {
    let smile = (scores[mouthSmileLeft] + scores[mouthSmileRight]) / 2
    return (
      sigmoid((smile - smileMidpoint) / smileWidth),
      sigmoid((blinkMidpoint - scores[eyeBlinkLeft]) / blinkWidth),
      sigmoid((blinkMidpoint - scores[eyeBlinkRight]) / blinkWidth)
    )
  }

  /// Where the four scores used sit in the model's output, found once by name.
  private static let mouthSmileLeft = index("mouthSmileLeft"), mouthSmileRight = index("mouthSmileRight")
  private static let eyeBlinkLeft = index("eyeBlinkLeft"), eyeBlinkRight = index("eyeBlinkRight")
  private static func index(_ name: String) -> Int { BlendshapeGraph.categoryNames.firstIndex(of: name)! }
}
