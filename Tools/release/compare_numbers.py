"""Compares guide_numbers.py's outputs, and the command line's and the server's answers, as
Tools/release/test asks (docs/install.md):

    compare_numbers.py same REFERENCE_DIR DIR      Visage in a clean root against the x86-64
        build on this machine: every number of the guide code, the `visage` command's JSON and
        visage-server's answer, within 1e-6 (in practice equal; a different glibc's libm may
        move a last bit).
    compare_numbers.py mediapipe MEDIAPIPE.json VISAGE.json     Visage against MediaPipe's own
        wheel on the same photos, within the bars of docs/parity.md that
        Python/tests/test_mediapipe_numbers.py holds: per face, landmark x, y error mean
        <= 1e-4 and max <= 2e-3, blendshapes within 5e-3, matrix rotation within 2e-3 and
        translation within 0.05 cm; face counts equal.

Prints the largest differences; exits 1 when a bar is passed.
"""

import json
import math
import sys


def numbers(value):
    """Every number in a JSON value, in order, with its path (strings and keys compared too)."""
    if isinstance(value, dict):
        for key in sorted(value):
            for path, number in numbers(value[key]):
                yield f"{key}.{path}", number
    elif isinstance(value, list):
        yield "length", len(value)
        for index, item in enumerate(value):
            for path, number in numbers(item):
                yield f"{index}.{path}", number
    elif isinstance(value, bool) or value is None or isinstance(value, str):
        yield "", value
    else:
        yield "", float(value)


# Fields that are not the engine's numbers: times measured on each machine.
UNTIMED = ("seconds", "milliseconds", "Milliseconds", "Seconds", "timing", "elapsed")


def same(reference: str, other: str) -> int:
    worst, failures = 0.0, 0
    for name in ["guide.json", "cli.json", "server.json"]:
        with open(f"{reference}/{name}") as file:
            expected = list(numbers(json.load(file)))
        with open(f"{other}/{name}") as file:
            found = list(numbers(json.load(file)))
        expected = [(p, v) for p, v in expected if not any(word in p for word in UNTIMED)]
        found = [(p, v) for p, v in found if not any(word in p for word in UNTIMED)]
        if [p for p, _ in expected] != [p for p, _ in found]:
            print(f"{name}: the answers differ in shape")
            failures += 1
            continue
        largest = 0.0
        for (path, a), (_, b) in zip(expected, found):
            if isinstance(a, float) and isinstance(b, float):
                largest = max(largest, abs(a - b))
            elif a != b and path not in ("module.", "version."):
                print(f"{name}: {path} is {b!r}, expected {a!r}")
                failures += 1
        worst = max(worst, largest)
        print(f"{name}: {len(expected)} values, largest difference {largest:.3g}")
        if largest > 1e-6:
            failures += 1
    return 1 if failures else 0


def mediapipe(theirs_path: str, ours_path: str) -> int:
    with open(theirs_path) as file:
        theirs = json.load(file)["photos"]
    with open(ours_path) as file:
        ours = json.load(file)["photos"]
    failed = False
    for photo, expected in theirs.items():
        found = ours[photo]
        if len(found["landmarks"]) != len(expected["landmarks"]):
            print(f"{photo}: {len(found['landmarks'])} faces, MediaPipe {len(expected['landmarks'])}")
            failed = True
            continue
        for face, (a, b) in enumerate(zip(expected["landmarks"], found["landmarks"])):
            errors = [math.hypot(p[0] - q[0], p[1] - q[1]) for p, q in zip(a, b)]
            mean, peak = sum(errors) / len(errors), max(errors)
            shapes = max(abs(p - q) for p, q in zip(expected["blendshapes"][face], found["blendshapes"][face]))
            m, n = expected["matrices"][face], found["matrices"][face]
            rotation = max(abs(m[r * 4 + c] - n[r * 4 + c]) for r in range(3) for c in range(3))
            translation = max(abs(m[r * 4 + 3] - n[r * 4 + 3]) for r in range(3))
            line = (f"{photo} face {face}: landmarks mean {mean:.2g} max {peak:.2g}, blendshapes {shapes:.2g}, "
                    f"rotation {rotation:.2g}, translation {translation:.2g} cm")
            bad = mean > 1e-4 or peak > 2e-3 or shapes > 5e-3 or rotation > 2e-3 or translation > 0.05
            print(line + ("  OUTSIDE THE BARS" if bad else ""))
            failed = failed or bad
    return 1 if failed else 0


if __name__ == "__main__":
    kind, first, second = sys.argv[1:4]
    sys.exit(same(first, second) if kind == "same" else mediapipe(first, second))
